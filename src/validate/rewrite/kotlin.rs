//! Kotlin misreads of tree-sitter-kotlin-ng, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

use crate::validate::brackets;
use crate::validate::language::Language;

/// `content` with every Kotlin rewrite applied, in order.
pub(super) fn prepare(content: &str) -> Cow<'_, str> {
    // Found before the `$$` prefixes are blanked: the lexer gives no verdict on such strings.
    let comments = brackets::comments(content, Language::Kotlin);
    let prepared = blank_multi_dollar_prefixes(content);
    match comments {
        Some(comments) if !comments.is_empty() => Cow::Owned(blank_comments(&prepared, &comments)),
        _ => prepared,
    }
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

/// The text of every comment becomes spaces, its `//`, `/*`, `*/` and line breaks kept. The
/// grammar's scanner reads block comments itself, and what one holds can change how code far
/// above it is read: a KDoc example with `${…}` after a function whose receiver type is generic
/// (`Flow<T>.associate(crossinline transform: suspend (T) -> Pair<K, V>)`) made the grammar
/// report a missing name 20 lines up. A comment's text is never code, so blanking it changes
/// nothing a compiler reads; `comments` come from the bracket lexer, which knows strings.
fn blank_comments(content: &str, comments: &[std::ops::Range<usize>]) -> String {
    let mut bytes = content.as_bytes().to_vec();
    for comment in comments {
        let closes = content[comment.clone()].starts_with("/*");
        let inner = comment.start + 2..comment.end - if closes { 2 } else { 0 };
        for byte in &mut bytes[inner] {
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| content.to_string())
}
