//! TypeScript and TSX misreads of tree-sitter-typescript, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

/// `content` with every TypeScript rewrite applied, in order.
pub(crate) fn prepare(content: &str) -> Cow<'_, str> {
    super::in_order(
        content,
        blank_export_type_star,
        &[
            blank_import_types,
            name_default_function_signatures,
            blank_variance_annotations,
            separate_generic_call_signatures,
            blank_typeof_imports,
            separate_global_augmentations,
            rename_keyword_members,
            name_destructured_type_parameters,
            blank_template_type_escapes,
        ],
    )
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

/// A member, then a line that starts (indented) with a generic call signature `<U>(…`, or whose
/// type parameters span lines (`<` alone, parameter lines indented deeper, `>(…` at the `<`'s
/// indentation: prettier's layout of long ones): the grammar reads `S <U>(…)` as one type;
/// TypeScript ends the member at the line break. The next line's first indentation character
/// becomes `;`, the separator TypeScript inserts.
fn separate_generic_call_signatures(content: &str) -> Cow<'_, str> {
    static SIGNATURE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let signature = || {
        SIGNATURE.get_or_init(|| {
            // A type parameter: a name, then an `extends` or `=` type whose `<…>` nest one level.
            let bound = r"[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*";
            let parameter = format!(r"[A-Za-z_$][\w$]*(?:(?:[ \t]+extends\b|[ \t]*=){bound})?");
            Regex::new(&format!(
                r"^[ \t]+<{parameter}(?:,[ \t]*{parameter})*>[ \t]*\("
            ))
            .expect("valid regex")
        })
    };
    // The offsets of the lines whose first indentation character becomes `;`.
    let mut separated = Vec::new();
    let mut offset = 0;
    let mut previous_end: Option<char> = None;
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    for (index, &line) in lines.iter().enumerate() {
        let ends_member = previous_end.is_some_and(|end| {
            end.is_alphanumeric() || matches!(end, '_' | '$' | ')' | ']' | '}' | '>')
        });
        // The pattern is compiled only for an indented line that opens `<name` and holds `(`.
        let code = line.trim_start_matches([' ', '\t']);
        let may_open = code.len() < line.len()
            && code.strip_prefix('<').is_some_and(|rest| {
                rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
            })
            && code.contains('(');
        if ends_member
            && ((may_open && signature().is_match(line))
                || opens_type_parameter_lines(&lines[index..]))
        {
            separated.push(offset);
        }
        let trimmed = line.trim_end();
        // A comment line between the member and the signature (`/** … */`, `// …`, a block
        // comment's `* …` lines) ends nothing: the member above it is what the `;` separates.
        if !trimmed.is_empty() && !is_comment_line(trimmed) {
            previous_end = trimmed.chars().last();
        }
        offset += line.len();
    }
    if separated.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = content.to_string();
    for at in separated {
        // A space or tab (one byte) becomes `;`.
        out.replace_range(at..at + 1, ";");
    }
    Cow::Owned(out)
}

/// Whether `lines` start with a generic call signature whose type parameters span lines: an
/// indented `<` alone, parameter lines indented deeper (the first starts with a name), then `>(`
/// at the `<`'s indentation.
fn opens_type_parameter_lines(lines: &[&str]) -> bool {
    let indentation = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let Some((&first, rest)) = lines.split_first() else {
        return false;
    };
    let depth = indentation(first);
    if depth == 0 || first.trim() != "<" {
        return false;
    }
    let starts_with_name = rest.first().is_some_and(|line| {
        line.trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
    });
    if !starts_with_name {
        return false;
    }
    // A long parameter list, not a whole file: a few dozen lines at most.
    for &line in rest.iter().take(64) {
        let code = line.trim();
        if code.is_empty() || indentation(line) < depth {
            return false;
        }
        if indentation(line) == depth {
            return code
                .strip_prefix('>')
                .is_some_and(|after| after.trim_start().starts_with('('));
        }
    }
    false
}

/// Whether a line holds only a comment, or a block comment's inner or last line (`* …`, `*/`).
/// `*p` cannot start a TypeScript line of code, so a leading `*` is a comment's.
fn is_comment_line(trimmed: &str) -> bool {
    let code = trimmed.trim_start();
    code.starts_with("//") || code.starts_with("/*") || code.starts_with('*')
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

/// `export default function (` / `export default function <T>(` → `export function ______(`:
/// the grammar reads a named function signature, not a nameless one without a body.
fn name_default_function_signatures(content: &str) -> Cow<'_, str> {
    let candidate = content.match_indices("default").any(|(at, _)| {
        let rest = content[at + 7..].trim_start_matches([' ', '\t']);
        rest.strip_prefix("function").is_some_and(|after| {
            after
                .trim_start_matches([' ', '\t'])
                .starts_with(['(', '<'])
        })
    });
    if !candidate {
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
pub(super) fn may_have_variance(content: &str) -> bool {
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

/// `global {` on its own line in a file that declares a module or namespace (a global
/// augmentation inside `declare module "buffer" {`, as @types/node writes it) → `global;{`: the
/// grammar reads `global` only after `declare`; a statement and a block are what it reads here.
fn separate_global_augmentations(content: &str) -> Cow<'_, str> {
    if !content.contains("declare module") && !content.contains("declare namespace") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN
        .get_or_init(|| Regex::new(r"(?m)^([ \t]+global)[ \t]([ \t]*\{)").expect("valid regex"));
    pattern.replace_all(content, "${1};${2}")
}

/// Names the grammar takes for keywords where TypeScript takes them for names: a member named
/// `abstract`, `in` or `instanceof` (`abstract: boolean;`, `in?: {`) loses its last letter to `_`;
/// a mapped type's key named `type` (`[type in keyof T]`) becomes `typ_`; `keyof readonly T[]`
/// loses `readonly`. A scan of the words' occurrences, no pattern: it runs on every TypeScript
/// file, and these words are common.
fn rename_keyword_members(content: &str) -> Cow<'_, str> {
    let bytes = content.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut set = |at: usize, replacement: &[u8]| {
        out.get_or_insert_with(|| bytes.to_vec())[at..at + replacement.len()]
            .copy_from_slice(replacement);
    };
    for word in ["abstract", "instanceof", "in"] {
        for (at, _) in content.match_indices(word) {
            if member_starts_before(bytes, at) && colon_follows(bytes, at + word.len()) {
                set(at + word.len() - 1, b"_");
            }
        }
    }
    for (at, _) in content.match_indices("type") {
        let opens_key = skip_blanks_back(bytes, at).is_some_and(|before| bytes[before] == b'[');
        let rest = &bytes[at + 4..];
        let blanks = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if opens_key
            && blanks > 0
            && rest[blanks..].starts_with(b"in")
            && rest
                .get(blanks + 2)
                .is_some_and(|b| matches!(b, b' ' | b'\t'))
        {
            set(at + 3, b"_");
        }
    }
    for (at, _) in content.match_indices("keyof") {
        if at > 0 && is_name_byte(bytes[at - 1]) {
            continue;
        }
        let rest = &bytes[at + 5..];
        let blanks = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let after = &rest[blanks..];
        if blanks == 0 || !after.starts_with(b"readonly") {
            continue;
        }
        let more = after[8..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let next = after.get(8 + more).copied();
        if more > 0
            && next
                .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'(' | b'['))
        {
            set(at + 5 + blanks, b"        ");
        }
    }
    match out {
        // Only ASCII bytes were replaced by ASCII bytes: still UTF-8.
        Some(changed) => {
            Cow::Owned(String::from_utf8(changed).unwrap_or_else(|_| content.to_string()))
        }
        None => Cow::Borrowed(content),
    }
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$')
}

/// The index of the last byte before `at` that is not a space or tab on its line (`None`: only
/// blanks back to the line's start).
fn skip_blanks_back(bytes: &[u8], at: usize) -> Option<usize> {
    let mut index = at;
    while index > 0 {
        index -= 1;
        match bytes[index] {
            b' ' | b'\t' => continue,
            b'\n' => return None,
            _ => return Some(index),
        }
    }
    None
}

/// Whether a member's name may start at `at`: at a line's start (after indentation) or after
/// `{`, `;` or `,` (blanks between), and not inside a longer name.
fn member_starts_before(bytes: &[u8], at: usize) -> bool {
    if at > 0 && is_name_byte(bytes[at - 1]) {
        return false;
    }
    match skip_blanks_back(bytes, at) {
        None => true,
        Some(before) => matches!(bytes[before], b'{' | b';' | b','),
    }
}

/// Whether `:` follows `at` (blanks and one `?` between), ending a member's name there.
fn colon_follows(bytes: &[u8], at: usize) -> bool {
    let mut index = at;
    let mut question = false;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b' ' | b'\t' => {}
            b'?' if !question => question = true,
            b':' => return true,
            _ => return false,
        }
        index += 1;
    }
    false
}

/// A function type whose parameter is a destructuring pattern with a renamed or nested property
/// (`({ nativeEvent: { pointerInside } }: E) => void`, what `tsc` emits for such an arrow
/// function) → the pattern becomes `_`s, a plain parameter name: the grammar reads patterns in a
/// function but not in a function type. Only a pattern of names, renames and one nested level of
/// names, on one line.
fn name_destructured_type_parameters(content: &str) -> Cow<'_, str> {
    // Compiling the pattern costs more than parsing most files: only when a line holds `({`, a
    // `:` inside the braces (a rename or a nested pattern) and `}` then `:` or `?:` after them.
    let candidate = content.match_indices("({").any(|(at, _)| {
        let rest = &content[at + 2..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        line.match_indices('}').any(|(close, _)| {
            let after = line[close + 1..].trim_start_matches([' ', '\t']);
            line[..close].contains(':') && (after.starts_with(':') || after.starts_with("?:"))
        })
    });
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        let name = r"[A-Za-z_$][\w$]*";
        let nested = format!(r"\{{[ \t]*{name}(?:[ \t]*,[ \t]*{name})*[ \t]*,?[ \t]*\}}");
        let property = format!(r"{name}(?:[ \t]*:[ \t]*(?:{name}|{nested}))?");
        Regex::new(&format!(
            r"\(([ \t]*)(\{{[ \t]*{property}(?:[ \t]*,[ \t]*{property})*[ \t]*,?[ \t]*\}})([ \t]*\??:)"
        ))
        .expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        if found[2].contains(':') {
            format!("({}{}{}", &found[1], "_".repeat(found[2].len()), &found[3])
        } else {
            found[0].to_string()
        }
    })
}

/// An escape in a template literal type (`` T extends `${infer L}$\{${infer R}\}` ``) → `__`: the
/// grammar reads escapes in a template string but not in a template type. Only on a line that
/// declares a type alias and holds no quote (so every backquote on it opens or closes a
/// template), and only between backquotes.
fn blank_template_type_escapes(content: &str) -> Cow<'_, str> {
    if !content.contains("`") || !content.contains('\\') {
        return Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len());
    let mut changed = false;
    for line in content.split_inclusive('\n') {
        let code = line.trim_start();
        let declares = [
            "type ",
            "export type ",
            "declare type ",
            "export declare type ",
        ]
        .iter()
        .any(|start| code.starts_with(start));
        if !declares || !line.contains('\\') || line.contains(['"', '\'']) {
            out.push_str(line);
            continue;
        }
        let (mut in_template, mut escaped) = (false, false);
        for c in line.chars() {
            if escaped {
                // A line break keeps its place (a `\` before it continues the template).
                if c == '\n' || c == '\r' {
                    out.push(c);
                } else {
                    out.push_str(&"_".repeat(c.len_utf8()));
                }
                escaped = false;
            } else if in_template && c == '\\' {
                out.push('_');
                escaped = true;
                changed = true;
            } else {
                in_template ^= c == '`';
                out.push(c);
            }
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(content)
    }
}
