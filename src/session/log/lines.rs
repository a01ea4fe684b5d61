//! Reading a session log's lines: bytes to text that keeps offsets, and each line to an event —
//! car's own frequent lines read plainly (no serde), anything else through serde, a torn or
//! unreadable line skipped and counted.

use std::borrow::Cow;

use crate::session::event::EventRecord;
use crate::session::snapshot::{Frequent, Snapshot, WarningRef};

/// The log's bytes as text of the same length: a line that is not valid UTF-8 (half a character
/// left by a write cut short) becomes `?`s, which no parser reads as an event, so it is skipped
/// like any torn line — and byte offsets into the file stay offsets into the text.
pub(crate) fn decode_lines(bytes: Vec<u8>) -> String {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return text,
        Err(error) => error.into_bytes(),
    };
    let mut out = Vec::with_capacity(bytes.len());
    for (index, line) in bytes.split(|byte| *byte == b'\n').enumerate() {
        if index > 0 {
            out.push(b'\n');
        }
        if std::str::from_utf8(line).is_ok() {
            out.extend_from_slice(line);
        } else {
            out.extend(std::iter::repeat_n(b'?', line.len()));
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// One line as read: car's frequent events borrowed from the text, anything else owned.
enum Line<'a> {
    Frequent(i64, &'a str, Frequent<'a>),
    Record(EventRecord),
    Unreadable,
}

impl Line<'_> {
    fn into_record(self) -> Option<EventRecord> {
        match self {
            Line::Frequent(ts, session, event) => Some(EventRecord {
                ts,
                session: session.to_string(),
                event: event.into_event(),
            }),
            Line::Record(record) => Some(record),
            Line::Unreadable => None,
        }
    }

    fn apply_to(self, snapshot: &mut Snapshot) -> bool {
        match self {
            Line::Frequent(ts, _, event) => snapshot.apply_frequent(ts, event),
            Line::Record(record) => snapshot.apply(record),
            Line::Unreadable => return false,
        }
        true
    }
}

/// Parses JSONL, skipping blank, torn and unknown lines; events keep their order.
pub(crate) fn parse_lines(text: &str) -> (Vec<EventRecord>, usize) {
    let lines = read_lines(text);
    let total = lines.len();
    let records: Vec<EventRecord> = lines.into_iter().filter_map(Line::into_record).collect();
    let skipped = total - records.len();
    (records, skipped)
}

/// Folds JSONL into `snapshot` (what [`parse_lines`] then [`Snapshot::apply`] would give) without
/// owning the frequent events; returns how many lines were skipped. One thread: reading the later
/// half of a long log on a second one cost more (its memory, its start) than it saved (0.84× the
/// wall time of the first stop of a 10,000-event session without it).
pub(crate) fn fold_lines(text: &str, snapshot: &mut Snapshot) -> usize {
    fold(lines_of(text).map(read_line), snapshot)
}

/// Applies lines in order; how many were unreadable.
fn fold<'a>(lines: impl Iterator<Item = Line<'a>>, snapshot: &mut Snapshot) -> usize {
    let mut skipped = 0;
    for line in lines {
        if !line.apply_to(snapshot) {
            skipped += 1;
        }
    }
    skipped
}

/// Every non-blank line read.
fn read_lines(text: &str) -> Vec<Line<'_>> {
    lines_of(text).map(read_line).collect()
}

/// The non-blank lines of `text` (a `\r` before the `\n` belongs to the line's blank end, as
/// `str::lines` has it), split at `\n` with memchr: `str::lines` searched byte by byte and was
/// a sixth of a cold stop's instructions.
fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    ends.filter_map(move |end| {
        let line = text.get(start..end)?;
        start = end + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        (!line.trim().is_empty()).then_some(line)
    })
}

/// One line. car writes `{"ts":N,"session":"…","event":"…",` first, so the fast path reads those
/// by hand and deserializes only the event's own fields, borrowed (serde's `flatten` would buffer
/// every line twice, and owning every string is most of the rest of a cold stop's time);
/// anything else takes the general path.
fn read_line(line: &str) -> Line<'_> {
    if let Some((ts, session, tag, after)) = fast_prefix(line)
        && let Some(event) = read_frequent(tag, after, line)
    {
        return Line::Frequent(ts, session, event);
    }
    match serde_json::from_str::<EventRecord>(line) {
        Ok(record) => Line::Record(record),
        Err(_) => Line::Unreadable,
    }
}

/// `ts`, `session`, the event tag of a line car wrote, and the rest of the line after the tag.
fn fast_prefix(line: &str) -> Option<(i64, &str, &str, &str)> {
    let rest = line.strip_prefix("{\"ts\":")?;
    let (digits, rest) = split_at_byte(rest, b',')?;
    let ts = digits.parse().ok()?;
    let rest = rest.strip_prefix("\"session\":\"")?;
    let (session, rest) = split_at_byte(rest, b'"')?;
    let rest = rest.strip_prefix(",\"event\":\"")?;
    let (tag, after) = split_at_byte(rest, b'"')?;
    (!has_escape(session)).then_some((ts, session, tag, after))
}

/// `text` cut at the first `byte` (an ASCII byte, so both halves are text), the byte left out.
fn split_at_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = memchr::memchr(byte, text.as_bytes())?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

fn has_escape(text: &str) -> bool {
    memchr::memchr(b'\\', text.as_bytes()).is_some()
}

/// The frequent events straight into their fields, borrowed; `None` for any other event (an
/// internally tagged enum buffers each line before it can pick the variant).
fn read_frequent<'a>(tag: &str, after: &'a str, line: &'a str) -> Option<Frequent<'a>> {
    if let Some(event) = read_plain(tag, after) {
        return Some(event);
    }
    #[derive(serde::Deserialize)]
    struct Edit<'a> {
        #[serde(borrow)]
        file: Cow<'a, str>,
        #[serde(borrow)]
        tool: Cow<'a, str>,
        #[serde(borrow)]
        hash: Cow<'a, str>,
        #[serde(default)]
        reviewed: bool,
    }
    #[derive(serde::Deserialize)]
    struct Validated<'a> {
        #[serde(borrow)]
        file: Cow<'a, str>,
        errors: Vec<crate::diagnostic::Diagnostic>,
    }
    #[derive(serde::Deserialize)]
    struct Warned<'a> {
        #[serde(borrow)]
        file: Cow<'a, str>,
        #[serde(borrow)]
        warnings: Vec<WarningRef<'a>>,
    }
    let event = match tag {
        "edit_tracked" => {
            let Edit {
                file,
                tool,
                hash,
                reviewed,
            } = serde_json::from_str(line).ok()?;
            Frequent::Edit {
                file,
                tool,
                hash,
                reviewed,
            }
        }
        "validated" => {
            let Validated { file, errors } = serde_json::from_str(line).ok()?;
            Frequent::Validated { file, errors }
        }
        "lesson_warned" => {
            let Warned { file, warnings } = serde_json::from_str(line).ok()?;
            Frequent::Warned { file, warnings }
        }
        _ => return None,
    };
    Some(event)
}

/// The two most frequent events exactly as car writes them (fields in order, no escapes, no
/// validator errors), read without a JSON parser: two thirds of a long log, and most of a cold
/// stop's time when each went through serde. Anything else is `None` (serde reads it).
fn read_plain<'a>(tag: &str, after: &'a str) -> Option<Frequent<'a>> {
    if has_escape(after) {
        return None;
    }
    let (file, rest) = split_at_byte(after.strip_prefix(",\"file\":\"")?, b'"')?;
    match tag {
        "edit_tracked" => {
            let (tool, rest) = split_at_byte(rest.strip_prefix(",\"tool\":\"")?, b'"')?;
            let (hash, rest) = split_at_byte(rest.strip_prefix(",\"hash\":\"")?, b'"')?;
            let reviewed = match rest {
                "}" | ",\"reviewed\":false}" => false,
                ",\"reviewed\":true}" => true,
                _ => return None,
            };
            Some(Frequent::Edit {
                file: file.into(),
                tool: tool.into(),
                hash: hash.into(),
                reviewed,
            })
        }
        "validated" if rest == ",\"errors\":[]}" => Some(Frequent::Validated {
            file: file.into(),
            errors: Vec::new(),
        }),
        "lesson_warned" => {
            let mut rest = rest.strip_prefix(",\"warnings\":[")?;
            let mut warnings = Vec::new();
            loop {
                let (warning, after) = read_plain_warning(rest)?;
                warnings.push(warning);
                rest = match after.strip_prefix(',') {
                    Some(next) => next,
                    None => break (after == "]}").then_some(())?,
                };
            }
            Some(Frequent::Warned {
                file: file.into(),
                warnings,
            })
        }
        _ => None,
    }
}

/// One lesson warning exactly as car writes it (fields in order, `origin` last when there is
/// one), and the text after it; `None` for anything else.
fn read_plain_warning(text: &str) -> Option<(WarningRef<'_>, &str)> {
    let (lesson_id, rest) = split_at_byte(text.strip_prefix("{\"lesson_id\":\"")?, b'"')?;
    let (weight, rest) = split_at_byte(rest.strip_prefix(",\"weight\":")?, b',')?;
    let (lesson, rest) = split_at_byte(rest.strip_prefix("\"lesson\":\"")?, b'"')?;
    let (trigger, rest) = split_at_byte(rest.strip_prefix(",\"trigger\":\"")?, b'"')?;
    let (file, rest) = split_at_byte(rest.strip_prefix(",\"file\":\"")?, b'"')?;
    let rest = rest.strip_prefix(",\"line\":")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (line, rest) = rest.split_at(digits);
    let (origin, rest) = match rest.strip_prefix(",\"origin\":\"") {
        Some(origin) => {
            let (origin, rest) = split_at_byte(origin, b'"')?;
            (Some(origin.into()), rest)
        }
        None => (None, rest),
    };
    let warning = WarningRef {
        lesson_id: lesson_id.into(),
        weight: weight.parse().ok()?,
        lesson: lesson.into(),
        trigger: trigger.into(),
        file: file.into(),
        line: line.parse().ok()?,
        origin,
    };
    Some((warning, rest.strip_prefix('}')?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::Event;

    #[test]
    fn lines_are_the_non_blank_lines_str_lines_gives() {
        for text in [
            "",
            "\n",
            "a\nb",
            "a\nb\n",
            "a\r\n\r\n  \nb\r\nc",
            "\n\na\n\n",
            "é\nü\r\n",
        ] {
            let expected: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            assert_eq!(lines_of(text).collect::<Vec<_>>(), expected, "{text:?}");
        }
    }

    #[test]
    fn an_undecodable_line_is_skipped_and_offsets_hold() {
        let mut bytes =
            b"{\"ts\":1,\"session\":\"s\",\"event\":\"file_deleted\",\"file\":\"a\"}\n".to_vec();
        bytes.extend_from_slice(b"{\"ts\":2,\"sess\xc3\n");
        bytes.extend_from_slice(
            b"{\"ts\":3,\"session\":\"s\",\"event\":\"file_deleted\",\"file\":\"b\"}\n\xe2\x82",
        );
        let length = bytes.len();
        let text = decode_lines(bytes);
        assert_eq!(text.len(), length);
        let (events, skipped) = parse_lines(&text);
        assert_eq!(events.len(), 2);
        assert_eq!(skipped, 2);
    }

    #[test]
    fn large_logs_parse_in_order() {
        let line = |ts: i64| {
            serde_json::to_string(&EventRecord {
                ts,
                session: "s".into(),
                event: Event::FileDeleted {
                    file: "f".repeat(200),
                },
            })
            .unwrap()
        };
        let text: String = (0..5_000).map(|ts| line(ts) + "\n").collect();
        let (events, skipped) = parse_lines(&text);
        assert_eq!(skipped, 0);
        assert!(
            events
                .iter()
                .enumerate()
                .all(|(index, e)| e.ts == index as i64)
        );
    }

    /// A log of every frequent event (with escapes, repeats and changes), rare events, a blank,
    /// an unreadable and a torn line.
    fn mixed_log(rounds: usize) -> String {
        let mut lines = Vec::new();
        for round in 0..rounds {
            let file = format!("src/m{}.py", round % 7);
            let warned = |text: &str| {
                serde_json::json!({"ts": round, "session": "s", "event": "lesson_warned",
                    "file": file, "warnings": [{"lesson_id": "L1", "weight": 3 + round % 2,
                    "lesson": text, "trigger": "open(", "file": file, "line": round % 3}]})
            };
            lines.push(
                serde_json::json!({"ts": round, "session": "s", "event": "edit_tracked",
                    "file": file, "tool": "Edit", "hash": format!("h{}", round % 4)})
                .to_string(),
            );
            lines.push(
                serde_json::json!({"ts": round, "session": "s", "event": "validated",
                    "file": file, "errors": []})
                .to_string(),
            );
            lines.push(warned("use \"with\" \u{e9}").to_string());
            lines.push(warned("plain").to_string());
            lines.push(format!(
                "{{\"ts\":{round},\"session\":\"s\",\"event\":\"file_deleted\",\"file\":\"gone{round}\"}}"
            ));
        }
        lines.insert(3, String::new());
        lines.insert(5, "not json".into());
        lines.push("{\"ts\":9,\"sess".into());
        lines.join("\n") + "\n"
    }

    #[test]
    fn folding_borrowed_gives_the_snapshot_of_owned_records() {
        for rounds in [40, 6_000] {
            let text = mixed_log(rounds);
            let (records, skipped) = parse_lines(&text);
            let owned = Snapshot::from_records("s", records, skipped);
            let mut folded = Snapshot::from_records("s", Vec::new(), 0);
            folded.skipped_lines = fold_lines(&text, &mut folded);
            assert_eq!(skipped, 2, "the unreadable and the torn line");
            assert_eq!(
                serde_json::to_value(&folded).unwrap(),
                serde_json::to_value(&owned).unwrap()
            );
        }
    }

    #[test]
    fn plain_reading_agrees_with_serde_and_declines_what_it_cannot_read() {
        let edit = |reviewed: bool| Event::EditTracked {
            file: "src/a b.py".into(),
            tool: "Edit".into(),
            hash: "h1".into(),
            reviewed,
        };
        let clean = Event::Validated {
            file: "src/a.py".into(),
            errors: Vec::new(),
        };
        let warning = |line: usize, origin: Option<&str>| crate::lesson_warning::Warning {
            lesson_id: "L7".into(),
            weight: 4,
            lesson: "use the context manager".into(),
            trigger: "open(".into(),
            file: "src/a.py".into(),
            line,
            origin: origin.map(str::to_string),
        };
        let warned = Event::LessonWarned {
            file: "src/a.py".into(),
            warnings: vec![warning(3, None), warning(9, Some("review R2 of session s"))],
        };
        for event in [edit(false), edit(true), clean, warned] {
            let line = serde_json::to_string(&EventRecord {
                ts: 5,
                session: "s".into(),
                event: event.clone(),
            })
            .unwrap();
            let (_, _, tag, after) = fast_prefix(&line).unwrap();
            let plain = read_plain(tag, after).expect("car's own line is read plainly");
            assert_eq!(plain.into_event(), event, "{line}");
        }
        let escaped = r#"{"ts":1,"session":"s","event":"edit_tracked","file":"a\"b","tool":"Edit","hash":"h"}"#;
        let after = |line: &'static str| fast_prefix(line).unwrap().3;
        assert!(read_plain("edit_tracked", after(escaped)).is_none());
        let reordered =
            r#"{"ts":1,"session":"s","event":"edit_tracked","tool":"Edit","file":"a","hash":"h"}"#;
        assert!(read_plain("edit_tracked", after(reordered)).is_none());
        let extra = r#"{"ts":1,"session":"s","event":"validated","file":"a","errors":[],"x":1}"#;
        assert!(read_plain("validated", after(extra)).is_none());
        let quoted = r#"{"ts":1,"session":"s","event":"lesson_warned","file":"a","warnings":[{"lesson_id":"L1","weight":2,"lesson":"say \"x\"","trigger":"t","file":"a","line":1}]}"#;
        assert!(read_plain("lesson_warned", after(quoted)).is_none());
        let empty = r#"{"ts":1,"session":"s","event":"lesson_warned","file":"a","warnings":[]}"#;
        assert!(read_plain("lesson_warned", after(empty)).is_none());
        let torn = r#"{"ts":1,"session":"s","event":"lesson_warned","file":"a","warnings":[{"lesson_id":"L1","weight":2,"lesson":"l","trigger":"t","file":"a","line":1}"#;
        assert!(read_plain("lesson_warned", after(torn)).is_none());
        for line in [escaped, reordered, extra, quoted, empty] {
            let (records, skipped) = parse_lines(line);
            assert_eq!((records.len(), skipped), (1, 0), "serde reads {line}");
        }
    }
}
