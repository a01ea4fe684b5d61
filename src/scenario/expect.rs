//! Expectations checked after a replay step: what the agent was told (warnings shown or not,
//! block or not) and what the step left on disk (lesson fields, candidates, an untouched file).
//!
//! Files are read as plain `serde_json::Value`, never through the lesson engine's types, so a
//! scenario keeps meaning the same thing when the engine's internals change, and an engine bug
//! that round-trips through its own types cannot hide from the suite.

use serde::Deserialize;
use serde_json::Value;

pub(crate) use crate::scenario::observation::Observation;
use crate::scenario::problem::{RecordProblem, StepProblem};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawExpect {
    #[serde(default)]
    pub(crate) block: Option<bool>,
    /// Each text must appear in a shown warning (a lesson's text or trigger).
    #[serde(default)]
    pub(crate) warned: Vec<String>,
    #[serde(default)]
    pub(crate) not_warned: Vec<String>,
    /// How many warnings were shown.
    #[serde(default)]
    pub(crate) warnings: Option<usize>,
    #[serde(default)]
    pub(crate) reason_contains: Vec<String>,
    #[serde(default)]
    pub(crate) message_contains: Vec<String>,
    #[serde(default)]
    pub(crate) lessons: Vec<RawRecordExpect>,
    #[serde(default)]
    pub(crate) lesson_count: Option<usize>,
    #[serde(default)]
    pub(crate) candidates: Vec<RawRecordExpect>,
    #[serde(default)]
    pub(crate) candidate_count: Option<usize>,
    /// The lessons file still holds exactly what the scenario started with.
    #[serde(default)]
    pub(crate) lessons_file_unchanged: bool,
}

/// One lesson or candidate, picked by the selectors given, with the fields it must have.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRecordExpect {
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// One of its triggers equals this.
    #[serde(default)]
    pub(crate) trigger: Option<String>,
    #[serde(default)]
    pub(crate) trigger_contains: Option<String>,
    #[serde(default)]
    pub(crate) lesson_contains: Option<String>,
    /// Default true.
    #[serde(default)]
    pub(crate) present: Option<bool>,
    #[serde(default)]
    pub(crate) weight: Option<i64>,
    #[serde(default)]
    pub(crate) hits: Option<i64>,
    /// Warnings of the lesson the agent heeded / ignored (`crate::lessons::counters::outcome`).
    #[serde(default)]
    pub(crate) heeded: Option<i64>,
    #[serde(default)]
    pub(crate) ignored: Option<i64>,
    #[serde(default)]
    pub(crate) last_hit: Option<Value>,
    #[serde(default)]
    pub(crate) last_decay_at: Option<Value>,
    /// The exact set of triggers, in any order.
    #[serde(default)]
    pub(crate) triggers: Option<Vec<String>>,
    /// What taught it: `validator`, `review` or `reversal` (the stored `source` field).
    #[serde(default)]
    pub(crate) source: Option<String>,
}

/// What a time field must be.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TimeExpect {
    /// The step's `now`.
    Now,
    At(i64),
    /// Missing or null.
    Absent,
    /// Any value.
    Set,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RecordExpect {
    pub(crate) selector: RawRecordExpect,
    pub(crate) present: bool,
    pub(crate) last_hit: Option<TimeExpect>,
    pub(crate) last_decay_at: Option<TimeExpect>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Expect {
    pub(crate) block: Option<bool>,
    pub(crate) warned: Vec<String>,
    pub(crate) not_warned: Vec<String>,
    pub(crate) warnings: Option<usize>,
    pub(crate) reason_contains: Vec<String>,
    pub(crate) message_contains: Vec<String>,
    pub(crate) lessons: Vec<RecordExpect>,
    pub(crate) lesson_count: Option<usize>,
    pub(crate) candidates: Vec<RecordExpect>,
    pub(crate) candidate_count: Option<usize>,
    pub(crate) lessons_file_unchanged: bool,
}

impl Expect {
    pub(crate) fn from_raw(raw: RawExpect) -> Result<Expect, StepProblem> {
        let records = |list: Vec<RawRecordExpect>, key: &'static str| {
            list.into_iter()
                .enumerate()
                .map(|(index, raw)| {
                    RecordExpect::from_raw(raw).map_err(|problem| StepProblem::Expect {
                        key,
                        index,
                        problem,
                    })
                })
                .collect::<Result<Vec<_>, StepProblem>>()
        };
        Ok(Expect {
            block: raw.block,
            warned: raw.warned,
            not_warned: raw.not_warned,
            warnings: raw.warnings,
            reason_contains: raw.reason_contains,
            message_contains: raw.message_contains,
            lessons: records(raw.lessons, "lessons")?,
            lesson_count: raw.lesson_count,
            candidates: records(raw.candidates, "candidates")?,
            candidate_count: raw.candidate_count,
            lessons_file_unchanged: raw.lessons_file_unchanged,
        })
    }

    /// Whether this expectation looks at what a step printed (so the step must have printed).
    pub(crate) fn needs_observation(&self) -> bool {
        self.block.is_some()
            || !self.warned.is_empty()
            || !self.not_warned.is_empty()
            || self.warnings.is_some()
            || !self.reason_contains.is_empty()
            || !self.message_contains.is_empty()
    }
}

impl RecordExpect {
    fn from_raw(raw: RawRecordExpect) -> Result<RecordExpect, RecordProblem> {
        if raw.id.is_none()
            && raw.trigger.is_none()
            && raw.trigger_contains.is_none()
            && raw.lesson_contains.is_none()
        {
            return Err(RecordProblem::NoSelector);
        }
        let last_hit = raw.last_hit.as_ref().map(time_expect).transpose()?;
        let last_decay_at = raw.last_decay_at.as_ref().map(time_expect).transpose()?;
        Ok(RecordExpect {
            present: raw.present.unwrap_or(true),
            last_hit,
            last_decay_at,
            selector: raw,
        })
    }

    /// `trigger "X"`, for messages.
    fn describe(&self) -> String {
        let selector = &self.selector;
        let mut parts = Vec::new();
        if let Some(id) = &selector.id {
            parts.push(format!("id {id:?}"));
        }
        if let Some(trigger) = &selector.trigger {
            parts.push(format!("trigger {trigger:?}"));
        }
        if let Some(text) = &selector.trigger_contains {
            parts.push(format!("trigger containing {text:?}"));
        }
        if let Some(text) = &selector.lesson_contains {
            parts.push(format!("lesson containing {text:?}"));
        }
        parts.join(", ")
    }

    fn selects(&self, record: &Value) -> bool {
        let selector = &self.selector;
        let triggers = triggers_of(record);
        let text = record.get("lesson").and_then(Value::as_str).unwrap_or("");
        selector
            .id
            .as_ref()
            .is_none_or(|id| record.get("id").and_then(Value::as_str) == Some(id))
            && selector
                .trigger
                .as_ref()
                .is_none_or(|wanted| triggers.iter().any(|t| t == wanted))
            && selector
                .trigger_contains
                .as_ref()
                .is_none_or(|wanted| triggers.iter().any(|t| t.contains(wanted.as_str())))
            && selector
                .lesson_contains
                .as_ref()
                .is_none_or(|wanted| text.contains(wanted.as_str()))
    }
}

/// `"now"`, `"absent"`, `"set"`, Unix seconds or RFC 3339.
fn time_expect(value: &Value) -> Result<TimeExpect, RecordProblem> {
    match value {
        Value::String(text) if text == "now" => Ok(TimeExpect::Now),
        Value::String(text) if text == "absent" => Ok(TimeExpect::Absent),
        Value::String(text) if text == "set" => Ok(TimeExpect::Set),
        Value::Null => Ok(TimeExpect::Absent),
        other => crate::scenario::resolve_now(other, 0)
            .map(TimeExpect::At)
            .map_err(|_| RecordProblem::NotATime {
                value: other.clone(),
            }),
    }
}

/// A lesson's triggers (`triggers` array) or a candidate's (`trigger` string).
fn triggers_of(record: &Value) -> Vec<String> {
    if let Some(list) = record.get("triggers").and_then(Value::as_array) {
        return list
            .iter()
            .filter_map(|t| t.as_str().map(String::from))
            .collect();
    }
    record
        .get("trigger")
        .and_then(Value::as_str)
        .map(|t| vec![t.to_string()])
        .unwrap_or_default()
}

/// The files a step left behind, as plain JSON.
#[derive(Debug, Clone)]
pub(crate) struct DiskState {
    /// `None` when the file is missing or not JSON (then `lessons_text` tells which).
    pub(crate) lessons: Option<Value>,
    pub(crate) lessons_text: Option<String>,
    pub(crate) candidates: Option<Value>,
    /// What the scenario wrote as the lessons file at the start.
    pub(crate) initial_lessons_text: Option<String>,
}

/// Checks every expectation; one message per failure, empty when all hold.
pub(crate) fn check(
    expect: &Expect,
    now: i64,
    seen: Option<&Observation>,
    disk: &DiskState,
) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(seen) = seen {
        check_observation(expect, seen, &mut failures);
    } else if expect.needs_observation() {
        failures.push("expected output, but this step shows the agent nothing".into());
    }
    let lessons = records(disk.lessons.as_ref(), "lessons");
    let candidates = records(disk.candidates.as_ref(), "candidates");
    if let Some(count) = expect.lesson_count
        && lessons.len() != count
    {
        failures.push(format!("expected {count} lessons, found {}", lessons.len()));
    }
    if let Some(count) = expect.candidate_count
        && candidates.len() != count
    {
        failures.push(format!(
            "expected {count} candidates, found {}",
            candidates.len()
        ));
    }
    for record in &expect.lessons {
        check_record("lesson", record, &lessons, now, &mut failures);
    }
    for record in &expect.candidates {
        check_record("candidate", record, &candidates, now, &mut failures);
    }
    if expect.lessons_file_unchanged && disk.lessons_text != disk.initial_lessons_text {
        failures.push("expected the lessons file untouched, but it was rewritten".into());
    }
    failures
}

fn check_observation(expect: &Expect, seen: &Observation, failures: &mut Vec<String>) {
    if let Some(block) = expect.block
        && block != seen.blocked
    {
        let wanted = if block { "a block" } else { "no block" };
        let reason = if seen.blocked {
            format!(": {}", first_line(&seen.reason))
        } else {
            String::new()
        };
        failures.push(format!("expected {wanted}, got {}{reason}", seen.summary()));
    }
    check_warnings(expect, seen, failures);
    let texts = [
        ("the block reason", &expect.reason_contains, &seen.reason),
        (
            "the system message",
            &expect.message_contains,
            &seen.message,
        ),
    ];
    for (what, wanted, actual) in texts {
        for text in wanted {
            if !actual.contains(text.as_str()) {
                failures.push(format!(
                    "expected {what} to contain {text:?}, got {actual:?}"
                ));
            }
        }
    }
}

fn check_warnings(expect: &Expect, seen: &Observation, failures: &mut Vec<String>) {
    for text in &expect.warned {
        if !seen.warned_about(text) {
            failures.push(format!(
                "expected a warning about {text:?}, got {}",
                seen.summary()
            ));
        }
    }
    for text in &expect.not_warned {
        if seen.warned_about(text) {
            failures.push(format!(
                "expected no warning about {text:?}, got {}",
                seen.summary()
            ));
        }
    }
    if let Some(count) = expect.warnings
        && count != seen.warnings.len()
    {
        failures.push(format!("expected {count} warnings, got {}", seen.summary()));
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|line| !line.trim().is_empty() && !line.starts_with("car: the file"))
        .unwrap_or(text)
}

fn records<'a>(document: Option<&'a Value>, key: &str) -> Vec<&'a Value> {
    document
        .and_then(|document| document.get(key))
        .and_then(Value::as_array)
        .map(|list| list.iter().collect())
        .unwrap_or_default()
}

fn check_record(
    kind: &str,
    expect: &RecordExpect,
    records: &[&Value],
    now: i64,
    failures: &mut Vec<String>,
) {
    let found: Vec<&Value> = records
        .iter()
        .copied()
        .filter(|record| expect.selects(record))
        .collect();
    let name = format!("{kind} with {}", expect.describe());
    match (expect.present, found.as_slice()) {
        (false, []) => {}
        (false, _) => failures.push(format!("expected no {name}, found {}", found[0])),
        (true, []) => failures.push(format!(
            "expected a {name}, found none among {}",
            list_records(records)
        )),
        (true, [record]) => check_fields(&name, expect, record, now, failures),
        (true, _) => failures.push(format!("expected one {name}, found {}", found.len())),
    }
}

/// The fields of the one record an expectation picked.
fn check_fields(
    name: &str,
    expect: &RecordExpect,
    record: &Value,
    now: i64,
    failures: &mut Vec<String>,
) {
    let selector = &expect.selector;
    let counts = [
        ("weight", selector.weight),
        ("hits", selector.hits),
        ("heeded", selector.heeded),
        ("ignored", selector.ignored),
    ];
    for (field, wanted) in counts {
        // A lesson stores no outcome count until it has one.
        let zero_when_absent = matches!(field, "heeded" | "ignored").then_some(0);
        let got = record
            .get(field)
            .and_then(Value::as_i64)
            .or(zero_when_absent);
        if let Some(wanted) = wanted
            && got != Some(wanted)
        {
            let got = shown(record, field);
            failures.push(format!("{name}: expected {field} {wanted}, got {got}"));
        }
    }
    let times = [
        ("last_hit", &expect.last_hit),
        ("last_decay_at", &expect.last_decay_at),
    ];
    for (field, wanted) in times {
        if let Some(wanted) = wanted
            && !time_matches(wanted, record.get(field), now)
        {
            let (wanted, got) = (describe_time(wanted, now), shown(record, field));
            failures.push(format!("{name}: expected {field} {wanted}, got {got}"));
        }
    }
    if let Some(wanted) = &selector.source
        && record.get("source").and_then(Value::as_str) != Some(wanted.as_str())
    {
        let got = shown(record, "source");
        failures.push(format!("{name}: expected source {wanted:?}, got {got}"));
    }
    if let Some(wanted) = &selector.triggers {
        let mut actual = triggers_of(record);
        let mut wanted = wanted.clone();
        actual.sort();
        wanted.sort();
        if actual != wanted {
            failures.push(format!(
                "{name}: expected triggers {wanted:?}, got {actual:?}"
            ));
        }
    }
}

/// What is there, briefly, so a selector that matches nothing shows what it could have matched.
fn list_records(records: &[&Value]) -> String {
    const SHOWN: usize = 3;
    if records.is_empty() {
        return "0 records".into();
    }
    let mut shown: Vec<String> = records
        .iter()
        .take(SHOWN)
        .map(|record| {
            let lesson = record.get("lesson").and_then(Value::as_str).unwrap_or("");
            format!("{:?} {lesson:?}", triggers_of(record))
        })
        .collect();
    if records.len() > SHOWN {
        shown.push(format!("… {} more", records.len() - SHOWN));
    }
    format!("{} ({})", records.len(), shown.join("; "))
}

fn time_matches(wanted: &TimeExpect, actual: Option<&Value>, now: i64) -> bool {
    let actual = actual.filter(|value| !value.is_null());
    match wanted {
        TimeExpect::Absent => actual.is_none(),
        TimeExpect::Set => actual.is_some(),
        TimeExpect::Now => actual.and_then(Value::as_i64) == Some(now),
        TimeExpect::At(at) => actual.and_then(Value::as_i64) == Some(*at),
    }
}

fn describe_time(wanted: &TimeExpect, now: i64) -> String {
    match wanted {
        TimeExpect::Now => format!("= now ({now})"),
        TimeExpect::At(at) => at.to_string(),
        TimeExpect::Absent => "absent".into(),
        TimeExpect::Set => "set".into(),
    }
}

fn shown(record: &Value, field: &str) -> String {
    match record.get(field) {
        None | Some(Value::Null) => "absent".into(),
        Some(value) => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use serde_json::json;

    fn expect(value: Value) -> Expect {
        Expect::from_raw(serde_json::from_value(value).unwrap()).unwrap()
    }

    fn disk(lessons: Value) -> DiskState {
        DiskState {
            lessons: Some(lessons),
            lessons_text: None,
            candidates: None,
            initial_lessons_text: None,
        }
    }

    #[test]
    fn lesson_fields_are_compared() {
        let state = disk(json!({"lessons": [
            {"triggers": ["a.b", "c.d"], "lesson": "L", "weight": 4, "hits": 1, "last_hit": 100}
        ]}));
        let good = expect(json!({"lessons": [
            {"trigger": "a.b", "weight": 4, "hits": 1, "last_hit": "now", "last_decay_at": "absent",
             "triggers": ["c.d", "a.b"]}
        ], "lesson_count": 1}));
        assert_eq!(check(&good, 100, None, &state), Vec::<String>::new());
        let bad = expect(json!({"lessons": [
            {"trigger": "a.b", "weight": 5, "last_hit": "now", "last_decay_at": "set"}
        ]}));
        let failures = check(&bad, 101, None, &state);
        assert_eq!(failures.len(), 3, "{failures:?}");
        assert!(
            failures[0].contains("expected weight 5, got 4"),
            "{failures:?}"
        );
        assert!(
            failures[1].contains("last_hit = now (101), got 100"),
            "{failures:?}"
        );
        assert!(
            failures[2].contains("last_decay_at set, got absent"),
            "{failures:?}"
        );
    }

    #[test]
    fn presence_and_absence() {
        let state = disk(json!({"lessons": [{"triggers": ["x.y"], "lesson": "L"}]}));
        let gone = expect(json!({"lessons": [{"trigger": "x.y", "present": false}]}));
        assert_eq!(check(&gone, 0, None, &state).len(), 1);
        let missing = expect(json!({"lessons": [{"lesson_contains": "nope"}]}));
        assert!(check(&missing, 0, None, &state)[0].contains("found none"));
    }

    #[test]
    fn warnings_are_read_from_context_and_reason() {
        let response = Answer {
            additional_context: Some(
                "⚠️ lesson (weight 3): use pathlib (src/a.py:2, trigger \"regex:re\\\\.compile\")"
                    .into(),
            ),
            ..Answer::default()
        };
        let seen = Observation::from_response(&response);
        let state = disk(json!({}));
        let ok = expect(
            json!({"block": false, "warned": ["use pathlib", "regex:re\\.compile"],
                               "not_warned": ["other"], "warnings": 1}),
        );
        assert_eq!(check(&ok, 0, Some(&seen), &state), Vec::<String>::new());
        // A pattern trigger reads as the code it looks for; a scenario names it as written.
        let readable = Observation::from_response(&Answer {
            additional_context: Some(
                "⚠️ lesson (weight 3): use pathlib (src/a.py:2, pattern `re.compile`)".into(),
            ),
            ..Answer::default()
        });
        let named = expect(json!({"warned": ["regex:(?<!_)re\\.compile"], "warnings": 1}));
        assert_eq!(
            check(&named, 0, Some(&readable), &state),
            Vec::<String>::new()
        );
        let other = expect(json!({"not_warned": ["regex:re\\.match"]}));
        assert_eq!(
            check(&other, 0, Some(&readable), &state),
            Vec::<String>::new()
        );
        let wrong = expect(json!({"block": true, "not_warned": ["pathlib"]}));
        let failures = check(&wrong, 0, Some(&seen), &state);
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].starts_with("expected a block, got not blocked, warnings: ⚠️"));
    }

    #[test]
    fn output_expectations_need_output() {
        let wanted = expect(json!({"block": false}));
        assert!(check(&wanted, 0, None, &disk(json!({})))[0].contains("shows the agent nothing"));
    }

    #[test]
    fn a_selector_is_required() {
        let raw: RawExpect = serde_json::from_value(json!({"lessons": [{"weight": 1}]})).unwrap();
        assert_eq!(
            Expect::from_raw(raw).unwrap_err(),
            StepProblem::Expect {
                key: "lessons",
                index: 0,
                problem: RecordProblem::NoSelector
            }
        );
    }
}
