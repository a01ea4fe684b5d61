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
pub(crate) fn rename_primitive_macros(content: &str) -> Cow<'_, str> {
    let bytes = content.as_bytes();
    let is_name_byte = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut renamed = Vec::new();
    // One pass over the `!`s: the name before each (spaces between) is looked up.
    for (bang, _) in content.match_indices('!') {
        let invokes = content[bang + 1..]
            .trim_start_matches([' ', '\t'])
            .starts_with(['(', '[', '{']);
        let name_end = content[..bang].trim_end_matches([' ', '\t']).len();
        let name_start = content[..name_end]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |at| at + 1);
        let stands_alone = name_start == 0
            || !(is_name_byte(bytes[name_start - 1]) || bytes[name_start - 1] == b':');
        if invokes
            && stands_alone
            && name_end > name_start
            && PRIMITIVE_TYPES.contains(&&content[name_start..name_end])
        {
            renamed.push(name_end - 1);
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
