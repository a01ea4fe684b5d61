//! Prose inside code: comments, and in programming languages the contents of string literals
//! (a docstring, a log message). A learned lesson is about code: `shell=True` in a docstring or
//! `# fastyaml is not on PyPI` is no repeat of the mistake (see `lessons::placement`).
//!
//! Invariants: decided by the language's tree-sitter parse, made only when asked (a file whose
//! lessons did not fire is never parsed); code inside a string (an f-string's `{…}`, a template
//! literal's `${…}`, a shell `"$(…)"`) is code; in data languages (TOML, CSS, HTML) strings are
//! the content, only comments are prose; a language without a grammar has no prose (the whole
//! line counts), and so has a file that could not be parsed in time.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::validate::language::Language;
use crate::validate::treesitter;

/// Where the prose of one file's content is.
pub(crate) struct Prose {
    tree: Option<Tree>,
    strings_are_prose: bool,
}

impl Prose {
    /// Parses `content` as `language` (no language, or no grammar in this build: no prose).
    pub(crate) fn of(language: Option<Language>, content: &str) -> Prose {
        let tree = language
            .and_then(treesitter::grammar)
            .and_then(|grammar| treesitter::parse(&grammar, content).ok());
        Prose {
            tree,
            strings_are_prose: language.is_some_and(strings_are_prose),
        }
    }

    /// Whether the bytes `range` of the content lie wholly inside a comment, or inside a string
    /// literal's text (not in code interpolated into it).
    pub(crate) fn contains(&self, range: Range<usize>) -> bool {
        let Some(tree) = &self.tree else {
            return false;
        };
        let end = range.end.max(range.start + 1);
        let mut node = tree.root_node().descendant_for_byte_range(range.start, end);
        while let Some(current) = node {
            match kind_of(&current) {
                Kind::CodeInString => return false,
                Kind::Comment => return true,
                Kind::String if self.strings_are_prose => return true,
                Kind::String | Kind::Other => {}
            }
            node = current.parent();
        }
        false
    }
}

enum Kind {
    Comment,
    String,
    CodeInString,
    Other,
}

/// Grammar node kinds, named alike across the grammars car has: `comment`, `line_comment`,
/// `block_comment`; `string`, `string_literal`, `raw_string_literal`, `template_string`,
/// `heredoc_body`; `interpolation`, `template_substitution`, `command_substitution`, `expansion`.
fn kind_of(node: &Node<'_>) -> Kind {
    let kind = node.kind();
    if kind.contains("comment") {
        Kind::Comment
    } else if kind.contains("interpolat")
        || kind.contains("substitution")
        || kind.contains("expansion")
    {
        Kind::CodeInString
    } else if kind.contains("string")
        || kind.starts_with("heredoc")
        || kind.ends_with("char_literal")
    {
        Kind::String
    } else {
        Kind::Other
    }
}

/// Programming languages, where a string's text is what the program says, not what it does.
fn strings_are_prose(language: Language) -> bool {
    !matches!(
        language,
        Language::Toml
            | Language::Css
            | Language::Html
            | Language::Json
            | Language::Jsonc
            | Language::JsonLines
            | Language::Yaml
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose_at(language: Language, content: &str, needle: &str) -> bool {
        let start = content.find(needle).unwrap();
        Prose::of(Some(language), content).contains(start..start + needle.len())
    }

    #[test]
    fn python_comments_docstrings_and_strings_are_prose() {
        let content = "def f():\n    \"\"\"Never use shell=True here.\"\"\"\n    # shell=True is bad\n    log('shell=True')\n    run(cmd, shell=True)\n";
        let start = content.find("shell=True").unwrap();
        let prose = Prose::of(Some(Language::Python), content);
        assert!(prose.contains(start..start + 10));
        let comment = content.find("# shell").unwrap() + 2;
        assert!(prose.contains(comment..comment + 10));
        let logged = content.find("'shell").unwrap() + 1;
        assert!(prose.contains(logged..logged + 10));
        let code = content.rfind("shell=True").unwrap();
        assert!(!prose.contains(code..code + 10));
    }

    #[test]
    fn code_interpolated_into_a_string_is_code() {
        assert!(!prose_at(
            Language::Python,
            "x = f\"{yaml.load(fh)}\"\n",
            "yaml.load"
        ));
        assert!(!prose_at(
            Language::TypeScript,
            "const x = `${eval(code)}`;\n",
            "eval(code)"
        ));
        assert!(!prose_at(
            Language::Shell,
            "echo \"$(rm -rf /tmp/x)\"\n",
            "rm -rf"
        ));
        assert!(prose_at(
            Language::Shell,
            "echo \"rm -rf is bad\"\n",
            "rm -rf"
        ));
    }

    #[test]
    fn a_match_reaching_out_of_a_string_is_code() {
        assert!(!prose_at(
            Language::Python,
            "yaml.load(fh, Loader=\"x\")\n",
            "Loader=\"x\""
        ));
    }

    #[test]
    fn rust_and_typescript_comments() {
        assert!(prose_at(
            Language::Rust,
            "// .unwrap() here\nlet x = 1;\n",
            ".unwrap()"
        ));
        assert!(!prose_at(
            Language::Rust,
            "let x = y.unwrap();\n",
            ".unwrap()"
        ));
        assert!(prose_at(
            Language::TypeScript,
            "/* as any */\nconst x = 1;\n",
            "as any"
        ));
    }

    #[test]
    fn data_languages_keep_their_strings() {
        assert!(!prose_at(Language::Toml, "version = \"1.0\"\n", "1.0"));
        assert!(prose_at(Language::Toml, "# version 1.0\n", "1.0"));
        assert!(!Prose::of(Some(Language::Json), "{\"a\": 1}").contains(1..2));
        assert!(!Prose::of(None, "# x").contains(2..3));
    }
}
