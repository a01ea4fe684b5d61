//! Rust misreads of tree-sitter-rust, undone before parsing.

use std::borrow::Cow;

/// The names tree-sitter-rust reads as primitive types wherever they stand.
const PRIMITIVE_TYPES: [&str; 17] = [
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64",
];

/// A macro named like a primitive type (`str![[r#"…"#]]`, `str!["a"]`: snapbox's snapshot macro,
/// in the tests of many CLI crates) → the name's last letter becomes `_` (`st_!`): the grammar
/// lexes `str` as the type, so `str!` is no macro invocation to it. Only a name standing alone
/// (no letter, digit or `_` before it, not a path segment's `::str`) followed by `!` and a
/// bracket (spaces between); `str != x` is a comparison and stays.
pub(super) fn rename_primitive_macros(content: &str) -> Cow<'_, str> {
    if !content.contains('!') {
        return Cow::Borrowed(content);
    }
    let bytes = content.as_bytes();
    let mut renamed = Vec::new();
    for name in PRIMITIVE_TYPES {
        for (at, _) in content.match_indices(name) {
            let stands_alone = at == 0
                || !(bytes[at - 1].is_ascii_alphanumeric() || matches!(bytes[at - 1], b'_' | b':'));
            let rest = content[at + name.len()..].trim_start_matches([' ', '\t']);
            let invokes = rest.strip_prefix('!').is_some_and(|after| {
                after
                    .trim_start_matches([' ', '\t'])
                    .starts_with(['(', '[', '{'])
            });
            if stands_alone && invokes {
                renamed.push(at + name.len() - 1);
            }
        }
    }
    if renamed.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = content.to_string();
    for at in renamed {
        // An ASCII letter or digit becomes `_`: same length, still UTF-8.
        out.replace_range(at..at + 1, "_");
    }
    Cow::Owned(out)
}
