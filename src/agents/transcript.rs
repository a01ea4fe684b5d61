//! Reading an agent's transcript (JSONL) for its last assistant text, when a stop's payload does
//! not carry the last message: a bounded read from the file's end, newest line first. Each agent's
//! file says how one of its lines holds assistant text.
//!
//! Invariants: at most the last 256 KiB are read, of a regular file only (a FIFO or a device is
//! not read); a torn or foreign line is skipped, never an error.

use std::path::Path;

use serde_json::Value;

/// How much of a transcript's end is read to find the last assistant text.
const TRANSCRIPT_TAIL_BYTES: u64 = 256 * 1024;

/// The newest line's assistant text, as `assistant_text` reads a line.
pub(super) fn last_text(
    path: &Path,
    assistant_text: fn(&Value) -> Option<String>,
) -> Option<String> {
    let bytes = crate::files::read_tail(path, TRANSCRIPT_TAIL_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().find_map(|line| {
        let value: Value = serde_json::from_str(line).ok()?;
        assistant_text(&value).filter(|text| !text.trim().is_empty())
    })
}

/// The `text` of the parts of a message `content` whose `type` is `part_type`, joined by lines
/// (a plain string content is the text itself).
pub(super) fn content_text(content: &Value, part_type: &str) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter(|part| part.get("type").and_then(Value::as_str) == Some(part_type))
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}
