//! Kotlin misreads of tree-sitter-kotlin-ng, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

/// `content` with every Kotlin rewrite applied, in order.
pub(super) fn prepare(content: &str) -> Cow<'_, str> {
    blank_multi_dollar_prefixes(content)
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
