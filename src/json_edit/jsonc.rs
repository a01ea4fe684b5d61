//! JSON with comments (tsconfig.json, VS Code's settings, Gemini CLI's settings): the one reader of
//! where a text's `//` and `/* */` comments (and, where allowed, trailing commas) are. It blanks
//! them, so the result is JSON a strict reader takes, with every other byte where it was in the
//! file as written: a position a reader reports in the result is a position in the file. The
//! JSON validator reads JSON-with-comments files through [`to_strict`]; the JSON editor
//! ([`super::JsonText`]) reads settings through [`without_comments`] and keeps the comments when
//! it writes.
//!
//! Invariants: the result has the input's length and line breaks (only bytes inside comments and
//! trailing commas become spaces, and a character inside a comment is blanked whole, so the result
//! is still UTF-8); text inside strings is never touched (`"http://x"` holds no comment); a string
//! left open ends at its line's end, so the strict reader reports it there; a comma trails only
//! after a value (`[,]` stays an error).

/// A text with its comments blanked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blanked {
    pub(crate) text: String,
    /// Where a `/*` comment opens that never closes (it is blanked to the end).
    pub(crate) unterminated_comment: Option<usize>,
}

/// `text` with its comments blanked; trailing commas stay (the JSON editor refuses them).
pub(crate) fn without_comments(text: &str) -> Blanked {
    blank_text(text, false)
}

/// `text` with its comments and trailing commas blanked: strict JSON when the rest is. An
/// unterminated comment runs to the end; the strict reader then reports the missing value.
pub(crate) fn to_strict(text: &str) -> String {
    blank_text(text, true).text
}

fn blank_text(text: &str, trailing_commas: bool) -> Blanked {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut unterminated_comment = None;
    // Index in `out` of the last comma not yet followed by a value.
    let mut pending_comma: Option<usize> = None;
    // The last significant byte: a comma only trails when it follows a value (`[,]` stays bad).
    let mut previous = b'[';
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                pending_comma = None;
                previous = b'"';
                index = string_end(bytes, index);
                continue;
            }
            b'/' if comment_end(bytes, index).is_some() => {
                let (end, is_closed) = comment_end(bytes, index).unwrap_or((bytes.len(), false));
                if !is_closed {
                    unterminated_comment = Some(index);
                }
                blank(&mut out, index, end);
                index = end;
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b',' => {
                pending_comma = (!matches!(previous, b'[' | b'{' | b',' | b':')).then_some(index);
                previous = b',';
            }
            b']' | b'}' => {
                if let Some(comma) = pending_comma.take().filter(|_| trailing_commas) {
                    out[comma] = b' ';
                }
                previous = bytes[index];
            }
            other => {
                pending_comma = None;
                previous = other;
            }
        }
        index += 1;
    }
    // Only ASCII bytes inside comments were replaced by ASCII spaces, and whole multi-byte
    // characters inside comments were blanked entirely, so the bytes are still UTF-8.
    let text = String::from_utf8(out).unwrap_or_else(|_| text.to_string());
    Blanked {
        text,
        unterminated_comment,
    }
}

/// The index just past the `//` or `/* */` comment starting at `start`, if one starts there, and
/// whether it is closed (a line comment always is; an unterminated block comment runs to the
/// end).
fn comment_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    match bytes.get(start + 1)? {
        b'/' => Some((
            bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |offset| start + offset),
            true,
        )),
        b'*' => {
            Some(find(bytes, start + 2, b"*/").map_or((bytes.len(), false), |at| (at + 2, true)))
        }
        _ => None,
    }
}

/// The index just past the JSON string starting at `start` (a `"`), or the end of its line when
/// it is left open (a strict reader reports it there), or the end of the text.
pub(crate) fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut index = start + 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return index + 1,
            b'\n' => return index,
            _ => index += 1,
        }
    }
    bytes.len()
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|offset| from + offset)
}

/// Blanks `out[start..end]`, keeping line breaks so later lines keep their numbers.
fn blank(out: &mut [u8], start: usize, end: usize) {
    for byte in &mut out[start..end] {
        if *byte != b'\n' && *byte != b'\r' {
            *byte = b' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_that_look_like_comments_are_kept() {
        let stripped = to_strict("{\"a\": \"/* x */\", \"b\": \"// y\\\"\" /* z */}");
        assert_eq!(
            stripped,
            "{\"a\": \"/* x */\", \"b\": \"// y\\\"\"        }"
        );
    }

    #[test]
    fn trailing_commas_go_only_for_the_strict_reader() {
        let text = "{\"a\": [1, 2,], // note\n}";
        assert_eq!(to_strict(text), "{\"a\": [1, 2 ]         \n}");
        let blanked = without_comments(text);
        assert_eq!(blanked.text, "{\"a\": [1, 2,],        \n}");
        assert_eq!(blanked.unterminated_comment, None);
        assert_eq!(to_strict("[,]"), "[,]");
    }

    #[test]
    fn an_unterminated_comment_is_found_and_blanked_to_the_end() {
        let blanked = without_comments("{\"a\": 1 /* open\n");
        assert_eq!(blanked.text, "{\"a\": 1        \n");
        assert_eq!(blanked.unterminated_comment, Some(8));
        assert_eq!(without_comments("/**/ 1").unterminated_comment, None);
        assert_eq!(without_comments("1 /*/").unterminated_comment, Some(2));
    }

    #[test]
    fn characters_in_comments_are_blanked_whole() {
        let blanked = without_comments("// é ü\n[1]");
        assert_eq!(blanked.text, format!("{}\n[1]", " ".repeat("// é ü".len())));
        assert_eq!(blanked.text.len(), "// é ü\n[1]".len());
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "[a-z ]{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("[a-z]{1,6}", inner, 0..6)
                    .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Strict JSON has nothing to strip: the JSONC pass is the identity on it.
        #[test]
        fn stripping_strict_json_changes_nothing(value in json_value()) {
            for text in [value.to_string(), serde_json::to_string_pretty(&value).unwrap()] {
                proptest::prop_assert_eq!(to_strict(&text), text.clone());
            }
        }

        /// Comments after every comma and line, and a trailing comma before every closing
        /// bracket, leave the same value (the strings here hold no `,`, `/` or newline).
        #[test]
        fn comments_and_trailing_commas_leave_the_same_value(value in json_value()) {
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let commented: Vec<String> = pretty
                .lines()
                .map(|line| {
                    let code = line.trim_start();
                    let indent = &line[..line.len() - code.len()];
                    // Pretty printing puts a closing bracket on its own line only after a value.
                    let code = if code.starts_with(']') || code.starts_with('}') {
                        format!(",{code}")
                    } else {
                        code.to_string()
                    };
                    format!("{indent}{} // line note ] }}", code.replace(',', ", /* a, b */"))
                })
                .collect();
            let commented = commented.join("\n");
            let stripped = to_strict(&commented);
            let reparsed: serde_json::Value = serde_json::from_str(&stripped).unwrap();
            proptest::prop_assert_eq!(reparsed, value);
            proptest::prop_assert_eq!(stripped.len(), commented.len());
        }
    }
}
