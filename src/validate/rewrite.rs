//! Known misreads of a grammar that car undoes before parsing. Each rewrite turns a valid
//! construct the grammar cannot read into one it can, and never turns an invalid file into a
//! valid one; all keep every line where it was (lines may only lose trailing characters), so the
//! positions of errors are positions in the file as written.
//!
//! | language | construct | rewrite |
//! | --- | --- | --- |
//! | TOML | a line-ending backslash followed by spaces in a `"""` string (valid TOML 1.0) | the spaces are dropped |
//! | TypeScript, TSX | `export type * from` (TypeScript 5.0) | `type` becomes spaces |
//! | HTML | `<?xml …?>` and other processing instructions (XHTML) | blanked |

use std::borrow::Cow;

use regex::Regex;

use crate::validate::language::Language;

/// `content` with the known misreads of `language`'s grammar undone.
pub(crate) fn prepare(language: Language, content: &str) -> Cow<'_, str> {
    match language {
        Language::Toml => trim_after_line_continuation(content),
        Language::TypeScript | Language::Tsx => blank_export_type_star(content),
        Language::Html => blank_processing_instructions(content),
        _ => Cow::Borrowed(content),
    }
}

/// `\` + spaces/tabs + newline → `\` + newline. Outside a string a backslash is an error either way.
fn trim_after_line_continuation(content: &str) -> Cow<'_, str> {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| Regex::new(r"\\[ \t]+(\r?\n)").expect("valid regex"));
    pattern.replace_all(content, "\\$1")
}

/// `export type * from` / `export type * as ns from` → `export      * …` (same length).
fn blank_export_type_star(content: &str) -> Cow<'_, str> {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"(?m)^(\s*export\s+)type(\s+\*\s*(?:as\s+[\w$]+\s+)?from\b)")
            .expect("valid regex")
    });
    pattern.replace_all(content, "${1}    $2")
}

/// `<?…?>` → spaces, line breaks kept.
fn blank_processing_instructions(content: &str) -> Cow<'_, str> {
    if !content.contains("<?") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| Regex::new(r"(?s)<\?.*?\?>").expect("valid regex"));
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        found[0]
            .chars()
            .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
            .collect::<String>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::treesitter;

    fn errors(language: Language, content: &str) -> usize {
        treesitter::parse_errors(content, language, 5)
            .expect("grammar")
            .len()
    }

    #[test]
    fn toml_line_continuation_with_trailing_spaces() {
        let valid = "a = \"\"\"\\  \n  b\"\"\"\n";
        assert!(errors(Language::Toml, valid) > 0, "the grammar misreads it");
        assert_eq!(errors(Language::Toml, &prepare(Language::Toml, valid)), 0);
        let invalid = "a = 1 \\  \nb = 2\n";
        assert!(errors(Language::Toml, &prepare(Language::Toml, invalid)) > 0);
    }

    #[test]
    fn typescript_export_type_star() {
        for valid in [
            "export type * from './types';\n",
            "export type * as t from \"./t\";\n",
        ] {
            assert!(errors(Language::TypeScript, valid) > 0, "misread: {valid}");
            let prepared = prepare(Language::TypeScript, valid);
            assert_eq!(prepared.len(), valid.len());
            assert_eq!(errors(Language::TypeScript, &prepared), 0, "{prepared}");
        }
        let invalid = "export type * from;\n";
        assert!(
            errors(
                Language::TypeScript,
                &prepare(Language::TypeScript, invalid)
            ) > 0
        );
    }

    #[cfg(feature = "extra-grammars")]
    #[test]
    fn html_processing_instructions() {
        let valid =
            "<?xml version=\"1.0\"\n encoding=\"UTF-8\"?>\n<html><body><p>hi</p></body></html>\n";
        let prepared = prepare(Language::Html, valid);
        assert_eq!(prepared.lines().count(), valid.lines().count());
        assert_eq!(errors(Language::Html, &prepared), 0, "{prepared}");
    }
}
