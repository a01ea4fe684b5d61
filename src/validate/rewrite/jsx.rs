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
