//! Known misreads of a grammar that car undoes before parsing. Each rewrite turns a valid
//! construct the grammar cannot read into one it can, and never turns an invalid file into a
//! valid one; all keep every line where it was (lines may only lose trailing characters), so the
//! positions of errors are positions in the file as written.
//!
//! | language | construct | rewrite |
//! | --- | --- | --- |
//! | TOML | a line-ending backslash followed by spaces in a `"""` string (valid TOML 1.0) | the spaces are dropped |
//! | TypeScript, TSX | `export type * from` (TypeScript 5.0) | `type` becomes spaces |
//! | TypeScript, TSX | an import type with type arguments, `import("./t").F<string>` (what `tsc` emits into `.d.ts` files) | `import("./t")` becomes `_` of the same length, an identifier |
//! | TypeScript, TSX | `export default function (): T;`, a default export's signature | `export function ______(): T;` |
//! | TypeScript, TSX | variance annotations `<in T, out U>` (TypeScript 4.7) | `in`, `out` become spaces |
//! | TypeScript, TSX | a generic call signature on its own line after a member without `;` (`(): S` then `<U>(s: S) => U`: state libraries write them so) | the line's first indentation character becomes `;` |
//! | TypeScript, TSX | `typeof import("./m")` as a type (a generic call's type argument, then a trailing comma) | `import("./m")` becomes `_` of the same length |
//! | Swift | an empty tuple as the only argument, `Just(())`, `.success(())` | `(())` becomes `(0 )` |
//! | Swift | `#if … #endif` holding only attributes before a declaration (Swift 5.8) | the directive lines become spaces |
//! | Kotlin | multi-dollar string interpolation, `$$"…$$name…"` (Kotlin 2.x) | the `$$` prefix becomes spaces |
//! | HTML | `<?xml …?>` and other processing instructions (XHTML) | blanked |

use std::borrow::Cow;

use regex::Regex;

use crate::validate::language::Language;

/// `content` with the known misreads of `language`'s grammar undone.
pub(crate) fn prepare(language: Language, content: &str) -> Cow<'_, str> {
    match language {
        Language::Toml => trim_after_line_continuation(content),
        Language::TypeScript | Language::Tsx => [
            blank_import_types,
            name_default_function_signatures,
            blank_variance_annotations,
            separate_generic_call_signatures,
            blank_typeof_imports,
        ]
        .into_iter()
        .fold(
            blank_export_type_star(content),
            |prepared, rewrite| match rewrite(&prepared) {
                Cow::Borrowed(_) => prepared,
                Cow::Owned(rewritten) => Cow::Owned(rewritten),
            },
        ),
        Language::Html => blank_processing_instructions(content),
        Language::Swift => match empty_tuple_arguments(content) {
            Cow::Borrowed(_) => blank_attribute_conditions(content),
            Cow::Owned(rewritten) => {
                Cow::Owned(blank_attribute_conditions(&rewritten).into_owned())
            }
        },
        Language::Kotlin => blank_multi_dollar_prefixes(content),
        _ => Cow::Borrowed(content),
    }
}

/// `\` + spaces/tabs + newline → `\` + newline. Outside a string a backslash is an error either way.
fn trim_after_line_continuation(content: &str) -> Cow<'_, str> {
    if !content.contains("\\ ") && !content.contains("\\\t") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| Regex::new(r"\\[ \t]+(\r?\n)").expect("valid regex"));
    pattern.replace_all(content, "\\$1")
}

/// `export type * from` / `export type * as ns from` → `export      * …` (same length).
fn blank_export_type_star(content: &str) -> Cow<'_, str> {
    let candidate = content
        .match_indices("type")
        .any(|(at, _)| content[at + 4..].trim_start().starts_with('*'));
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"(?m)^(\s*export\s+)type(\s+\*\s*(?:as\s+[\w$]+\s+)?from\b)")
            .expect("valid regex")
    });
    pattern.replace_all(content, "${1}    $2")
}

/// `import("./t").F` → `_____________.F`: the grammar reads a qualified name, not an import type
/// with type arguments. Byte lengths are kept, so every position stays.
fn blank_import_types(content: &str) -> Cow<'_, str> {
    // Compiling the pattern costs about 0.4 ms, a tenth of a hook run: only when a line holds
    // `import(` and, after it, `)` then `.` (spaces between).
    let candidate = content.match_indices("import(").any(|(at, _)| {
        let rest = &content[at..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        line.match_indices(')').any(|(close, _)| {
            line[close + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with('.')
        })
    });
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(
            r#"\bimport\([ \t]*(?:"[^"\n\\]*"|'[^'\n\\]*')[ \t]*(?:,[ \t]*\{[^()\n]*\}[ \t]*)?\)([ \t]*\.)"#,
        )
        .expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        let call = found[0].len() - found[1].len();
        format!("{}{}", "_".repeat(call), &found[1])
    })
}

/// A member, then a line that starts (indented) with a generic call signature `<U>(…`: the
/// grammar reads `S <U>(…)` as one type; TypeScript ends the member at the line break. The
/// next line's first indentation character becomes `;`, the separator TypeScript inserts.
fn separate_generic_call_signatures(content: &str) -> Cow<'_, str> {
    static SIGNATURE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let signature = SIGNATURE.get_or_init(|| {
        Regex::new(r"^[ \t]+<[A-Za-z_$][\w$]*(?:[ \t]+extends[^>\n]*)?(?:,[ \t]*[A-Za-z_$][\w$]*)*>[ \t]*\(")
            .expect("valid regex")
    });
    if !content.contains("\n ") && !content.contains("\n\t") {
        return Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len());
    let mut previous_end: Option<char> = None;
    let mut changed = false;
    for line in content.split_inclusive('\n') {
        let ends_member = previous_end.is_some_and(|end| {
            end.is_alphanumeric() || matches!(end, '_' | '$' | ')' | ']' | '}' | '>')
        });
        if ends_member && signature.is_match(line) {
            out.push(';');
            out.push_str(&line[1..]);
            changed = true;
        } else {
            out.push_str(line);
        }
        let code = line.trim_end();
        if !code.is_empty() {
            previous_end = code.chars().last();
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(content)
    }
}

/// `typeof import("./m")` → `typeof _______________`: a type query of an identifier, which the
/// grammar reads (it misreads the import type as a type argument, then a call's trailing comma).
fn blank_typeof_imports(content: &str) -> Cow<'_, str> {
    if !content.contains("typeof import(") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r#"\btypeof([ \t]+)import\([ \t]*(?:"[^"\n\\]*"|'[^'\n\\]*')[ \t]*\)"#)
            .expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        let call = found[0].len() - "typeof".len() - found[1].len();
        format!("typeof{}{}", &found[1], "_".repeat(call))
    })
}

/// Swift `(())`, an empty tuple as the only argument → `(0 )`, a literal the grammar reads.
fn empty_tuple_arguments(content: &str) -> Cow<'_, str> {
    if content.contains("(())") {
        Cow::Owned(content.replace("(())", "(0 )"))
    } else {
        Cow::Borrowed(content)
    }
}

/// Swift `#if COND` … `#endif` (with `#elseif` / `#else` branches) whose branches hold only
/// attributes (`@MainActor`) and that a declaration or attribute follows: the directive lines
/// become spaces, so the grammar reads the attributes on the declaration. A block with anything
/// else in it, or never closed, is left as it is.
fn blank_attribute_conditions(content: &str) -> Cow<'_, str> {
    if !content.contains("#if") {
        return Cow::Borrowed(content);
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let directive = |line: &str, word: &str| {
        line.trim_start()
            .strip_prefix(word)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    };
    let mut blank: Vec<usize> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if !directive(lines[index], "#if") {
            index += 1;
            continue;
        }
        let mut directives = vec![index];
        let mut end = None;
        for (at, line) in lines.iter().enumerate().skip(index + 1) {
            let text = line.trim();
            if directive(line, "#endif") {
                directives.push(at);
                end = Some(at);
                break;
            } else if directive(line, "#elseif") || directive(line, "#else") {
                directives.push(at);
            } else if !(text.is_empty() || text.starts_with('@') || text.starts_with("//")) {
                break;
            }
        }
        let Some(end) = end else {
            index += 1;
            continue;
        };
        let next = lines[end + 1..]
            .iter()
            .map(|line| line.trim())
            .find(|line| !line.is_empty() && !line.starts_with("//"));
        let declares = next.is_some_and(|line| {
            line.starts_with('@')
                || line.split_whitespace().any(|word| {
                    matches!(
                        word,
                        "class"
                            | "struct"
                            | "enum"
                            | "protocol"
                            | "extension"
                            | "func"
                            | "var"
                            | "let"
                            | "actor"
                            | "init"
                            | "typealias"
                            | "subscript"
                    )
                })
        });
        if declares {
            blank.extend(directives);
        }
        index = end + 1;
    }
    if blank.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len());
    for (at, line) in lines.iter().enumerate() {
        if blank.contains(&at) {
            let body = line.trim_end_matches(['\n', '\r']);
            out.push_str(&" ".repeat(body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// Kotlin `$$"…"` / `$$"""…"""` (multi-dollar interpolation) → the prefix becomes spaces: a plain
/// string the grammar reads (its `$$name` reads as a `$` and an interpolation).
fn blank_multi_dollar_prefixes(content: &str) -> Cow<'_, str> {
    if !content.contains("$$\"") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern =
        PATTERN.get_or_init(|| Regex::new(r#"(^|[^\w$"])(\$\$+)""#).expect("valid regex"));
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}\"", &found[1], " ".repeat(found[2].len()))
    })
}

/// `export default function (` / `export default function <T>(` → `export function ______(`:
/// the grammar reads a named function signature, not a nameless one without a body.
fn name_default_function_signatures(content: &str) -> Cow<'_, str> {
    if !content.contains("default") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"\bexport([ \t]+)default([ \t]+)function([ \t]*)([(<])").expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        // "default" + spaces + "function" + spaces == "function" + " " + name
        let name = "_".repeat(6 + found[2].len() + found[3].len());
        format!("export{}function {name}{}", &found[1], &found[4])
    })
}

/// `<in T, out U>`, `<in out T>` → the modifiers become spaces (also after a comment: zod writes
/// `/** @ts-ignore Cast variance */` before them).
fn blank_variance_annotations(content: &str) -> Cow<'_, str> {
    if !may_have_variance(content) {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"([<,]\s*(?:/\*(?:[^*]|\*[^/])*\*/\s*)*)((?:(?:in|out)[ \t]+)+)([A-Za-z_$][\w$]*[ \t]*(?:extends\b|=|,|>))")
            .expect("valid regex")
    });
    let blank = |text: &str| {
        pattern
            .replace_all(text, |found: &regex::Captures<'_>| {
                format!("{}{}{}", &found[1], " ".repeat(found[2].len()), &found[3])
            })
            .into_owned()
    };
    // A match ends with the `,` the next parameter's match would start with: repeat until stable.
    let mut prepared = Cow::Borrowed(content);
    for _ in 0..8 {
        let next = blank(&prepared);
        if next == *prepared {
            break;
        }
        prepared = Cow::Owned(next);
    }
    prepared
}

/// Whether a word `in` or `out` follows `<`, `,` or a comment's end (`*/`), spaces between: the
/// cheap test before the pattern is compiled (about 0.4 ms).
fn may_have_variance(content: &str) -> bool {
    ["in ", "out ", "in\t", "out\t"].iter().any(|word| {
        content.match_indices(word).any(|(at, _)| {
            let before = content[..at].trim_end();
            let starts_word = !content[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
            starts_word
                && (before.ends_with('<') || before.ends_with(',') || before.ends_with("*/"))
        })
    })
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

    /// Valid TypeScript the grammar misreads, read right after the rewrite (same length), and
    /// the same constructs broken, still errors.
    fn rewritten(valid: &[&str], invalid: &[&str]) {
        for valid in valid {
            assert!(errors(Language::TypeScript, valid) > 0, "misread: {valid}");
            let prepared = prepare(Language::TypeScript, valid);
            assert_eq!(prepared.len(), valid.len());
            assert_eq!(prepared.lines().count(), valid.lines().count());
            assert_eq!(errors(Language::TypeScript, &prepared), 0, "{prepared}");
            assert_eq!(errors(Language::Tsx, &prepare(Language::Tsx, valid)), 0);
        }
        for invalid in invalid {
            let prepared = prepare(Language::TypeScript, invalid);
            assert!(errors(Language::TypeScript, &prepared) > 0, "{prepared}");
        }
    }

    /// Valid `language` code its grammar misreads, read right after the rewrite (same length), and
    /// the same constructs broken, still errors.
    fn rewritten_in(language: Language, valid: &[&str], invalid: &[&str]) {
        for valid in valid {
            assert!(errors(language, valid) > 0, "misread: {valid}");
            let prepared = prepare(language, valid);
            assert_eq!(prepared.len(), valid.len());
            assert_eq!(errors(language, &prepared), 0, "{prepared}");
        }
        for invalid in invalid {
            let prepared = prepare(language, invalid);
            assert!(errors(language, &prepared) > 0, "{prepared}");
        }
    }

    #[test]
    fn swift_empty_tuple_arguments_and_attribute_conditions() {
        rewritten_in(
            Language::Swift,
            &[
                "import Combine\nfunc f() -> AnyPublisher<Void, Never> {\n    return Just(()).eraseToAnyPublisher()\n}\n",
                "#if os(iOS)\n@MainActor\n#endif\nfinal class A {\n    var x = 1\n}\n",
                "#if compiler(>=5.9)\n@preconcurrency\n#else\n@available(*, deprecated)\n#endif\nfunc run() {}\n",
            ],
            &[
                "func f() {\n    return Just(()).erase(\n}\n",
                "#if os(iOS)\n@MainActor\n#endif\nfinal class A {\n    var x = \n}\n",
            ],
        );
    }

    #[test]
    fn kotlin_multi_dollar_strings() {
        rewritten_in(
            Language::Kotlin,
            &[
                "fun f(name: String) = $$\"\"\"{ \"name\": \"$$name\", \"x\": \"$default\" }\"\"\"\nval s = $$\"cost: $$amount $\"\n",
            ],
            &["fun f(name: String) = $$\"{ $$name\nval s = 1\n"],
        );
    }

    #[test]
    fn typescript_call_signatures_without_separators_and_typeof_imports() {
        rewritten(
            &[
                "export interface UseBoundStore<S> {\n  (): S\n  <U>(selector: (state: S) => U): U\n  getState(): S\n}\n",
                "type Draft = {\n  <T extends object>(base: T): T\n  (base: number): number\n}\nexport type P<S> = {\n  (): S\n  <U>(s: (state: S) => U): U\n}\n",
                "const mod = load<typeof import(\"./mod\")>(\n  \"./mod\",\n  true,\n)\n",
            ],
            &[
                "export interface S<S> {\n  (): S\n  <U>(selector: (state: S) => U): \n}\n",
                "const mod = load<typeof import(\"./mod\")>(\n  \"./mod\"\n  true,\n)\n",
            ],
        );
    }

    #[test]
    fn typescript_import_types_with_type_arguments() {
        rewritten(
            &[
                "export declare const a: import(\"./t\").F<string>;\n",
                "export declare const a: import(\"./t\") .F<string>;\n",
                "export declare const lastDay: import(\"./types.ts\").FPFn1<\n  Date,\n  import(\"../fp.ts\").DateArg<Date>\n>;\n",
                "type X = import('./t', { with: { \"resolution-mode\": \"import\" } }).A.B<string>[];\n",
                "declare const _default: import(\"a\").R<\"x\", [], import(\"b\").D> & {\n    name: string;\n};\n",
            ],
            &[
                "export declare const lastDay: import(\"./types.ts\").FPFn1<\n  Date,\n  import(\"../fp.ts).DateArg<Date>\n>;\n",
                "declare const _default: import(\"a\").R<\"x\"> & {\n    name: string;\n;\n",
                "type X = import(\"./t\").F<string;\n",
            ],
        );
    }

    #[test]
    fn typescript_default_function_signatures_and_variance() {
        rewritten(
            &[
                "export default function (): {\n    a: number;\n};\n",
                "export default function <T>(x: T): T;\n",
                "export interface Z<out O = unknown, in I = unknown> {}\n",
                "export interface Z<\n  in out T extends object,\n> {}\n",
                "export interface Z<\n/** @ts-ignore Cast variance */\nout S extends A = B, out C = D> {}\n",
            ],
            &[
                "export default function (): {\n    a: number;\n;\n",
                "export interface Z<out O = unknown, in I = unknown {}\n",
            ],
        );
        // Only modifiers of type parameters: `in` in an expression stays.
        let expression = "for (const k in o) f(a, b);\n";
        assert_eq!(prepare(Language::TypeScript, expression), expression);
        assert!(!may_have_variance(expression));
        assert!(may_have_variance("interface A<\n  in T> {}"));
        assert!(!may_have_variance(
            "const x = a <b, c>(d) // join in a list\n"
        ));
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
