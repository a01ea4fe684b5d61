//! The JSON validator: serde_json decides, with line:col. JSON-with-comments files (tsconfig.json,
//! .vscode/*.json, *.jsonc, …) are first blanked of comments and trailing commas, byte for byte, by
//! the one JSON-with-comments reader ([`jsonc`]), so every position serde_json reports is a
//! position in the file as written.
//!
//! Invariants: the input is walked, never built into a tree ([`Skip`]), under serde_json's
//! recursion limit (128), so 100,000 nested arrays are an error, not a stack overflow; a leading
//! UTF-8 byte-order mark is accepted, as editors write one.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::json_edit::jsonc;
use crate::validate::{Diagnostic, Origin, Severity, snippet_at};

pub use crate::text::JsonError;

/// Validates `content` as JSON (`jsonc`: comments and trailing commas allowed).
pub fn check(display_path: &str, content: &str, jsonc: bool) -> Vec<Diagnostic> {
    let result = if jsonc {
        parse(&jsonc::to_strict(content))
    } else {
        parse(content)
    };
    let Err(error) = result else {
        return Vec::new();
    };
    vec![Diagnostic {
        file: display_path.to_string(),
        line: error.line,
        column: error.column,
        severity: Severity::Error,
        validator: if jsonc { "jsonc" } else { "json" }.to_string(),
        origin: Origin::JsonParser,
        message: error.message,
        snippet: snippet_at(content, error.line, error.column),
        subject: None,
    }]
}

/// Validates JSON Lines: every non-blank line is one JSON value. The first few bad lines are
/// reported (a truncated export would otherwise produce one error per line).
pub(crate) fn check_lines(display_path: &str, content: &str) -> Vec<Diagnostic> {
    const MAX_REPORTED: usize = 5;
    content
        .split('\n')
        .enumerate()
        .filter(|(_, text)| !text.trim().is_empty())
        .filter_map(|(index, text)| {
            let error = parse(text).err()?;
            let line = index + 1;
            Some(Diagnostic {
                file: display_path.to_string(),
                line,
                column: error.column,
                severity: Severity::Error,
                validator: "jsonl".to_string(),
                origin: Origin::JsonParser,
                message: error.message,
                snippet: snippet_at(content, line, error.column),
                subject: None,
            })
        })
        .take(MAX_REPORTED)
        .collect()
}

/// Validates raw bytes: JSON text must be UTF-8 (RFC 8259 §8.1).
pub fn check_bytes(bytes: &[u8]) -> Result<(), JsonError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(error) => {
            let valid = &bytes[..error.valid_up_to()];
            let text = String::from_utf8_lossy(valid);
            let (line, column) = crate::files::line_col(&text, text.len());
            Err(JsonError {
                line,
                column,
                message: "invalid UTF-8".to_string(),
            })
        }
    }
}

/// Deepest nesting accepted. serde_json stops at 128 levels (a guard for its own stack); RFC 8259
/// §9 leaves the limit to the implementation, and published files nest deeper (ujson's test
/// sample: 468 levels; Python's json reads about 1,000). Deeper documents up to this are parsed
/// on a thread with stack room for them.
pub(crate) const MAX_DEPTH: usize = 1_000;

/// Parses strict JSON (after an optional byte-order mark).
///
/// A `\uD800`-style escape of a lone surrogate is accepted: RFC 8259 §8.2 allows it in the
/// grammar and leaves its meaning to the reader (most parsers accept it; serde_json refuses to
/// build a Rust string from it), so it is checked as if it were `\uFFFD`.
pub fn parse(text: &str) -> Result<(), JsonError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    match parse_body(body) {
        Err(error)
            if error.message.contains("surrogate") || error.message.contains("hex escape") =>
        {
            parse_body(&replace_lone_surrogates(body))
        }
        other => other,
    }
}

fn parse_body(body: &str) -> Result<(), JsonError> {
    match serde_json::from_str::<Skip>(body) {
        Ok(_) => Ok(()),
        Err(error) if error.to_string().starts_with("recursion limit exceeded") => parse_deep(body),
        Err(error) => Err(JsonError::locate(body, &error)),
    }
}

/// Parses a document nested deeper than serde_json's guard, up to [`MAX_DEPTH`].
fn parse_deep(body: &str) -> Result<(), JsonError> {
    if let Some(offset) = depth_exceeded_at(body.as_bytes(), MAX_DEPTH) {
        let (line, column) = crate::files::line_col(body, offset);
        return Err(JsonError {
            line,
            column,
            message: format!("nested deeper than {MAX_DEPTH} levels"),
        });
    }
    let owned = body.to_string();
    let failed = || JsonError {
        line: 1,
        column: 1,
        message: format!("could not parse a document nested this deep (up to {MAX_DEPTH} levels)"),
    };
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut deserializer = serde_json::Deserializer::from_str(&owned);
            deserializer.disable_recursion_limit();
            Skip::deserialize(&mut deserializer)
                .and_then(|_| deserializer.end())
                .map_err(|error| JsonError::locate(&owned, &error))
        });
    match worker {
        Ok(handle) => handle.join().unwrap_or_else(|_| Err(failed())),
        Err(_) => Err(failed()),
    }
}

/// The byte offset where the nesting first goes deeper than `limit` (strings skipped).
fn depth_exceeded_at(bytes: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index = jsonc::string_end(bytes, index);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(index);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        index += 1;
    }
    None
}

/// Every `\u` escape of a surrogate that is not part of a pair becomes `\uFFFD` (same length, so
/// positions stay).
fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let escape_at = |index: usize| -> Option<u16> {
        if bytes.get(index) != Some(&b'\\') || bytes.get(index + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(bytes.get(index + 2..index + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut in_string = false;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let Some(unit) = escape_at(index) else {
                    index += 2;
                    continue;
                };
                let is_lead = (0xD800..0xDC00).contains(&unit);
                let paired = is_lead
                    && escape_at(index + 6).is_some_and(|next| (0xDC00..0xE000).contains(&next));
                if paired {
                    index += 12;
                    continue;
                }
                if (0xD800..0xE000).contains(&unit) {
                    out[index + 2..index + 6].copy_from_slice(b"FFFD");
                }
                index += 6;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Accepts any JSON value and keeps nothing. Unlike serde's `IgnoredAny` (which serde_json skips
/// with a faster scanner) it goes through the full parser, so errors say what people expect
/// ("trailing comma", not "key must be a string") and the recursion limit applies.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Skip, D::Error> {
        deserializer.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_json_passes() {
        assert!(check("a.json", "{\"a\": [1, 2.5e3, null, true, \"x\"]}\n", false).is_empty());
        assert!(check("a.json", "\u{feff}{}", false).is_empty());
    }

    #[test]
    fn trailing_comma_rejected_with_position() {
        let content = "{\n  \"name\": \"demo\",\n  \"retries\": 3,\n}\n";
        let found = check("config/settings.json", content, false);
        assert_eq!(found.len(), 1);
        let error = &found[0];
        assert_eq!((error.line, error.column), (4, 1));
        assert_eq!(error.validator, "json");
        assert_eq!(error.message, "trailing comma");
        assert_eq!(error.snippet.as_deref(), Some("}"));
    }

    #[test]
    fn columns_count_characters() {
        let found = check("a.json", "{\"é\": \"ü\" \"x\"}", false);
        assert_eq!((found[0].line, found[0].column), (1, 11));
    }

    #[test]
    fn jsonc_accepts_comments_and_trailing_commas() {
        let content = "// top\n{\n  /* block\n  comment */ \"a\": [1, 2,],\n  \"url\": \"http://x//y\", // tail\n  \"b\": {\"c\": 1,},\n}\n";
        assert!(check("tsconfig.json", content, true).is_empty());
        assert!(!check("settings.json", content, false).is_empty());
    }

    #[test]
    fn jsonc_keeps_positions_and_rejects_real_errors() {
        let content = "{\n  // note\n  \"a\": 1\n  \"b\": 2\n}\n";
        let found = check("tsconfig.json", content, true);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line, found[0].column), (4, 3));
        assert_eq!(found[0].validator, "jsonc");
        // A comma with nothing before the bracket is still an error in a value position.
        assert!(!check("tsconfig.json", "[,]", true).is_empty());
        assert!(!check("tsconfig.json", "{\"a\": 1 /* open", true).is_empty());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
        let balanced = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let error = parse(&balanced).unwrap_err();
        assert_eq!(
            (error.line, error.column, error.message.as_str()),
            (1, MAX_DEPTH + 1, "nested deeper than 1000 levels")
        );
    }

    #[test]
    fn nesting_up_to_the_limit_is_valid() {
        let nested = |depth: usize, tail: &str| {
            format!("{}{}{}", "[".repeat(depth), tail, "]".repeat(depth))
        };
        assert_eq!(parse(&nested(500, "1")), Ok(()));
        assert_eq!(parse(&nested(MAX_DEPTH - 1, "{\"a\": \"[\"}")), Ok(()));
        let error = parse(&nested(500, "1,")).unwrap_err();
        assert!(error.message.contains("trailing comma"), "{error:?}");
    }

    #[test]
    fn lone_surrogate_escapes_are_valid() {
        for valid in [
            r#"["\uD800"]"#,
            r#"{"\udc00x": "a\uD834\uDD1E b\uDEAD"}"#,
            r#"["\\uD800", "\uD800\u0041"]"#,
        ] {
            assert_eq!(parse(valid), Ok(()), "{valid}");
        }
        let broken = r#"["\uD800" "x"]"#;
        let error = parse(broken).unwrap_err();
        assert_eq!((error.line, error.column), (1, 11), "{error:?}");
        assert!(parse(r#"["\uD80"]"#).is_err());
    }

    #[test]
    fn json_lines_are_checked_one_by_one() {
        let content = "{\"a\": 1}\n\n[1, 2]\r\n{\"b\": }\n\"text\"\n";
        let found = check_lines("events.jsonl", content);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].line, found[0].column), (4, 7));
        assert_eq!(found[0].validator, "jsonl");
        let many = "x\n".repeat(50);
        assert_eq!(check_lines("e.jsonl", &many).len(), 5);
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert!(check_bytes(b"[\"\xff\"]").is_err());
        assert!(check_bytes(b"[\"ok\"]").is_ok());
    }
}
