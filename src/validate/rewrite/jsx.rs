//! JSX misreads shared by tree-sitter-javascript and the TSX grammar, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

/// `&` in a JSX attribute's string (`href="…?family=Inter&display=swap"`) that starts no
/// complete character reference (`&amp;`, `&#38;`) → `_`: the JSX grammars (JavaScript, TSX) read a string
/// fragment as `&` followed by anything but a letter or `#`, so `&d` ends its string; JSX (and
/// `tsc`) take an incomplete reference as text. Only inside a quoted value after ` name=`
/// (`name` an attribute name) on one line; a string's text decides nothing about the file's
/// syntax, so no invalid file becomes valid.
pub(crate) fn blank_attribute_ampersands(content: &str) -> Cow<'_, str> {
    // The pattern is compiled only when some `&` is followed by a letter, `#` or a quote.
    let candidate = content.match_indices('&').any(|(at, _)| {
        content[at + 1..]
            .chars()
            .next()
            .is_some_and(|next| next.is_ascii_alphabetic() || matches!(next, '#' | '"' | '\''))
    });
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r#"([ \t][A-Za-z_$][\w$.:-]*=)("[^"\n]*&[^"\n]*"|'[^'\n]*&[^'\n]*')"#)
            .expect("valid regex")
    });
    let mut changed = false;
    let rewritten = pattern.replace_all(content, |found: &regex::Captures<'_>| {
        let value = &found[2];
        let mut out = String::with_capacity(value.len());
        for (at, c) in value.char_indices() {
            if c == '&' && !grammar_reads_ampersand(&value[at..]) {
                out.push('_');
                changed = true;
            } else {
                out.push(c);
            }
        }
        format!("{}{out}", &found[1])
    });
    if changed {
        Cow::Owned(rewritten.into_owned())
    } else {
        Cow::Borrowed(content)
    }
}

/// Whether `text` (starting with `&`) starts a character reference the grammar reads:
/// `&name;`, `&#123;`, `&#x1F;`; or `&` followed by something that is neither a letter nor `#`
/// nor the string's closing quote (the grammar reads that `&` as text).
fn grammar_reads_ampersand(text: &str) -> bool {
    let rest = &text[1..];
    let Some(first) = rest.chars().next() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == '#') {
        return !matches!(first, '"' | '\'');
    }
    static REFERENCE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let reference = REFERENCE.get_or_init(|| {
        Regex::new(r"^&(?:#(?:[xX][0-9a-fA-F]{1,6}|[0-9]{1,5})|[A-Za-z]{1,30});")
            .expect("valid regex")
    });
    reference.is_match(text)
}

/// Reserved words JSX allows as attribute names (`class`, `for`: Preact, Solid and Qwik write
/// HTML's names).
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
];

/// A reserved word as a JSX attribute's name (`<div class="hero">`, `<label for={id}>`) → its
/// first letter `_`: tree-sitter-javascript reads the keyword, not an attribute name, where JSX
/// (and `tsc`, and the TSX grammar) take any name. Only a word followed by `=` and a quote or
/// `{`, inside a tag: after a `<name` opener earlier on its line, or on a line of attributes below
/// one (`<button` / `type="button"` / `class="counter"`). Outside JSX such a word before `=` is
/// an error either way.
pub(crate) fn rename_reserved_attribute_names(content: &str) -> Cow<'_, str> {
    // The pattern is compiled only when some `word=` of the list is followed by a quote or `{`.
    let candidate = content.match_indices('=').any(|(at, _)| {
        let value = content[at + 1..].starts_with(['"', '\'', '{']);
        value && RESERVED.iter().any(|word| content[..at].ends_with(word))
    });
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(&format!(r#"[ \t]({})=["'{{]"#, RESERVED.join("|"))).expect("valid regex")
    });
    let mut out: Option<String> = None;
    let mut offset = 0;
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    for (index, line) in lines.iter().enumerate() {
        for found in pattern.captures_iter(line) {
            let name = found.get(1).expect("group");
            if in_tag(&line[..name.start()], &lines[..index]) {
                let at = offset + name.start();
                out.get_or_insert_with(|| content.to_string())
                    .replace_range(at..at + 1, "_");
            }
        }
        offset += line.len();
    }
    out.map_or(Cow::Borrowed(content), Cow::Owned)
}

/// Whether an attribute whose line starts with `before` is inside a JSX tag: a `<name` opener
/// earlier on the line, or, on a line holding only attributes so far, the lines `above` are
/// attribute lines up to one that opens a tag.
fn in_tag(before: &str, above: &[&str]) -> bool {
    static OPENER: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let opener = OPENER.get_or_init(|| Regex::new(r"<[A-Za-z][\w.:-]*\s").expect("valid regex"));
    static ATTRIBUTES: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let attributes = ATTRIBUTES.get_or_init(|| {
        let value = r#"(?:="[^"]*"|='[^']*'|=\{[^{}]*\})?"#;
        Regex::new(&format!(r"^[ \t]*(?:[A-Za-z_$][\w$.:-]*{value}[ \t]*)*$")).expect("valid regex")
    });
    if opener.is_match(before) {
        return true;
    }
    if !attributes.is_match(before) {
        return false;
    }
    for line in above.iter().rev().take(40) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let opens = line
            .trim_start()
            .strip_prefix('<')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()));
        if opens && !line.contains('>') {
            return true;
        }
        if opens || !attributes.is_match(line) {
            return false;
        }
    }
    false
}
