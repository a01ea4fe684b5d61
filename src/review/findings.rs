//! Findings: what a review produces, whatever the backend (docs/contracts.md, "Reviewer backends"). Raw JSON
//! ([`RawFindings`]) is validated once into [`Review`]: every finding has an id, a severity, a
//! file and a title.
//!
//! Invariants: the verdict is derived from the findings alone (a model's own "PASS" field is
//! ignored); a P1/P2 whose wrong output does not name an input or call and an observed wrong result
//! ([`crate::review::vagueness`]) is recorded as P3 and shown to the person with the reason; a P1 can never be a known limit — [`Review::from_raw`] drops such a limit
//! with a note and [`check_deferrable`] refuses it.

use crate::review::vagueness;
use crate::session::finding::{Finding, KnownLimit, Severity};
use crate::settings::BlockingThreshold;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum FindingsError {
    #[error("the review output is empty")]
    Empty,
    #[error("the review output holds no findings JSON (an object with a \"findings\" list): {0}")]
    NoJson(String),
    #[error(
        "the review output holds bytes that are not text around its findings JSON (binary output?); not taken as an answer"
    )]
    NotText,
    #[error("findings JSON line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("finding {index}: {message}")]
    Finding { index: usize, message: String },
}

/// A finding's fields, as the contract names them (an answer's other fields are named in a note).
const FINDING_FIELDS: &str = "id, severity, file, line, title, wrong_output, suggestion (or fix)";

/// A finding as a reviewer wrote it. `fix` is read as `suggestion` (agents and models write
/// either); any other field is kept to be named in a note, never dropped silently.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawFinding {
    pub(crate) id: Option<Value>,
    pub(crate) severity: Option<String>,
    pub(crate) file: Option<String>,
    pub(crate) line: Option<Value>,
    pub(crate) title: Option<String>,
    pub(crate) wrong_output: Option<String>,
    pub(crate) suggestion: Option<String>,
    pub(crate) fix: Option<String>,
    #[serde(flatten)]
    pub(crate) unknown: std::collections::BTreeMap<String, Value>,
}

impl RawFinding {
    /// The note naming the fields car does not read, if any (`fix` beside a `suggestion` too).
    fn unknown_fields_note(&self, index: usize) -> Option<String> {
        let mut names: Vec<String> = self
            .unknown
            .keys()
            .map(|name| format!("{name:?}"))
            .collect();
        if self.suggestion.is_some() && self.fix.is_some() {
            names.push("\"fix\" (beside \"suggestion\")".to_string());
        }
        if names.is_empty() {
            return None;
        }
        let id = self
            .id
            .as_ref()
            .map(id_text)
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| format!("F{index}"));
        let fields = if names.len() == 1 { "field" } else { "fields" };
        Some(format!(
            "finding {id}: {fields} {} ignored (a finding has {FINDING_FIELDS})",
            names.join(", ")
        ))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawKnownLimit {
    pub(crate) finding: Option<Value>,
    pub(crate) reason: Option<String>,
}

/// The findings JSON as a reviewer wrote it; any other field (a "verdict") is ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawFindings {
    pub(crate) findings: Vec<RawFinding>,
    pub(crate) known_limits: Vec<RawKnownLimit>,
}

/// A validated review: findings plus the known limits it declared, and notes about what car
/// changed while validating (downgrades, refused limits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Review {
    pub(crate) findings: Vec<Finding>,
    pub(crate) known_limits: Vec<KnownLimit>,
    pub(crate) notes: Vec<String>,
}

impl Review {
    /// Finds the findings JSON in a reviewer's text and validates it.
    pub(crate) fn parse_text(text: &str) -> Result<Review, FindingsError> {
        let value = extract_json(text)?;
        let raw: RawFindings = serde_json::from_value(value).map_err(|error| {
            let located = crate::text::JsonError::of(&error);
            FindingsError::Json {
                line: located.line,
                column: located.column,
                message: located.message,
            }
        })?;
        Review::from_raw(raw)
    }

    /// Validates raw findings (see the module invariants).
    pub(crate) fn from_raw(raw: RawFindings) -> Result<Review, FindingsError> {
        let mut review = Review::default();
        for (index, raw_finding) in raw.findings.into_iter().enumerate() {
            review
                .notes
                .extend(raw_finding.unknown_fields_note(index + 1));
            let finding = validate_finding(index + 1, raw_finding)?;
            if let Some(vagueness) = vagueness::of(&finding) {
                review.notes.push(format!(
                    "{} does not block (shown to the person instead): {vagueness}; a P1/P2 must name an input or call and the wrong result it gives",
                    finding.id
                ));
            }
            review.findings.push(finding);
        }
        for limit in raw.known_limits {
            let finding = limit.finding.as_ref().map(id_text).unwrap_or_default();
            let reason = limit.reason.unwrap_or_default().trim().to_string();
            match review.findings.iter().find(|found| found.id == finding) {
                Some(found) if found.severity == Severity::P1 => review.notes.push(format!(
                    "known limit for {finding} refused: a P1 can never be deferred"
                )),
                Some(_) if !reason.is_empty() => {
                    review.known_limits.push(KnownLimit { finding, reason })
                }
                Some(_) => review.notes.push(format!(
                    "known limit for {finding} ignored: it gives no reason"
                )),
                None => review.notes.push(format!(
                    "known limit for unknown finding {finding:?} ignored"
                )),
            }
        }
        Ok(review)
    }

    /// Makes every finding's file project-relative (reviewers write `./src/a.py` or absolute
    /// paths), so findings line up with the file versions a review covered.
    pub(crate) fn relative_to(mut self, project: &crate::project::Project) -> Review {
        for finding in &mut self.findings {
            let path = std::path::Path::new(&finding.file);
            if let Some(relative) = project.relative(path) {
                finding.file = relative;
            }
        }
        self
    }

    /// Whether one of this review's findings blocks at `threshold` (not deferred as a known limit).
    pub(crate) fn is_blocking(&self, finding: &Finding, threshold: BlockingThreshold) -> bool {
        finding.severity.blocks_at(threshold)
            && !self
                .known_limits
                .iter()
                .any(|limit| limit.finding == finding.id)
    }
}

/// A finding that cannot be deferred as a known limit: it is a P1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{finding} is a P1 ({title}); a P1 can never be deferred as a known limit: fix it")]
pub(crate) struct NotDeferrable {
    pub(crate) finding: String,
    pub(crate) title: String,
}

/// Refuses to defer a P1 (exit 2 at the command line).
pub(crate) fn check_deferrable(finding: &Finding) -> Result<(), NotDeferrable> {
    match finding.severity {
        Severity::P1 => Err(NotDeferrable {
            finding: finding.id.clone(),
            title: finding.title.clone(),
        }),
        _ => Ok(()),
    }
}

fn validate_finding(index: usize, raw: RawFinding) -> Result<Finding, FindingsError> {
    let invalid = |message: &str| FindingsError::Finding {
        index,
        message: message.to_string(),
    };
    let severity_text = raw.severity.ok_or_else(|| invalid("no \"severity\""))?;
    let severity = Severity::parse(&severity_text)
        .ok_or_else(|| invalid(&format!("severity {severity_text:?} is not P1, P2 or P3")))?;
    // Reviewer text is one line each: it is printed to terminals and quoted into the next
    // round's prompt, where a newline could start a heading of its own.
    let one_line = crate::text::one_line;
    let title = one_line(&raw.title.unwrap_or_default());
    if title.is_empty() {
        return Err(invalid("no \"title\""));
    }
    let id = raw
        .id
        .as_ref()
        .map(|id| one_line(&id_text(id)))
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| format!("F{index}"));
    let wrong_output = one_line(&raw.wrong_output.unwrap_or_default());
    let downgraded = severity != Severity::P3 && vagueness::judge(&wrong_output).is_err();
    Ok(Finding {
        id,
        severity: if downgraded { Severity::P3 } else { severity },
        file: raw.file.unwrap_or_default().trim().to_string(),
        line: raw.line.as_ref().and_then(line_number).unwrap_or(0),
        title,
        wrong_output,
        suggestion: one_line(&raw.suggestion.or(raw.fix).unwrap_or_default()),
        downgraded,
    })
}

fn id_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.trim().to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn line_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.split([':', '-']).next()?.trim().parse().ok(),
        _ => None,
    }
}

/// The findings JSON inside a reviewer's text: the whole text, a Claude `--output-format json`
/// envelope (`result`), a fenced block, or the first `{…}` holding a `findings` list.
pub(crate) fn extract_json(text: &str) -> Result<Value, FindingsError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(FindingsError::Empty);
    }
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        if value.get("findings").is_some() {
            return Ok(value);
        }
        if let Some(inner) = value.get("result").and_then(Value::as_str) {
            return extract_json(inner);
        }
    }
    for (offset, _) in trimmed.match_indices('{') {
        let mut stream =
            serde_json::Deserializer::from_str(&trimmed[offset..]).into_iter::<Value>();
        if let Some(Ok(value)) = stream.next()
            && value.get("findings").is_some_and(Value::is_array)
        {
            // Prose or a code fence around the object is an answer; binary garbage is not.
            let after = &trimmed[offset + stream.byte_offset()..];
            if !is_text(&trimmed[..offset]) || !is_text(after) {
                return Err(FindingsError::NotText);
            }
            return Ok(value);
        }
    }
    Err(FindingsError::NoJson(crate::text::shorten(trimmed, 200)))
}

/// Whether `text` reads as text: no control character but whitespace, and no U+FFFD (what the
/// lossy read of a reviewer's output leaves where bytes were not UTF-8).
fn is_text(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c == char::REPLACEMENT_CHARACTER || (c.is_control() && !c.is_whitespace()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_around_the_answer_is_read_and_binary_garbage_is_no_answer() {
        let prose = "Here is my review:\n```json\n{\"findings\": []}\n```\nDone.";
        assert!(Review::parse_text(prose).unwrap().findings.is_empty());
        let garbage = "\u{0}\u{1}\u{fffd}\u{fffd}{\"findings\": []}\u{fffd}PNG\u{1a}";
        assert!(matches!(
            Review::parse_text(garbage),
            Err(FindingsError::NotText)
        ));
    }

    fn parse(text: &str) -> Review {
        Review::parse_text(text).unwrap()
    }

    fn blocking(review: &Review, threshold: BlockingThreshold) -> Vec<String> {
        review
            .findings
            .iter()
            .filter(|finding| review.is_blocking(finding, threshold))
            .map(|finding| finding.id.clone())
            .collect()
    }

    #[test]
    fn vague_p1_is_downgraded_and_verdict_ignores_pass() {
        let review = parse(
            r#"{"verdict":"PASS","findings":[
              {"id":"F1","severity":"P1","file":"a.py","line":3,"title":"Bug","wrong_output":"may cause issues"},
              {"id":"F2","severity":"p2","file":"a.py","line":"7","title":"Slow","wrong_output":"load(10k rows) takes 40 s: quadratic scan"}]}"#,
        );
        assert_eq!(review.findings[0].severity, Severity::P3);
        assert!(review.findings[0].downgraded);
        assert_eq!(review.findings[1].severity, Severity::P2);
        assert_eq!(review.findings[1].line, 7);
        assert_eq!(blocking(&review, BlockingThreshold::P2), ["F2"]);
        assert!(blocking(&review, BlockingThreshold::P1).is_empty());
    }

    #[test]
    fn p1_known_limit_is_refused() {
        let review = parse(
            r#"{"findings":[
              {"id":"F1","severity":"P1","file":"a","title":"x","wrong_output":"f(None) raises TypeError"},
              {"id":"F2","severity":"P2","file":"a","title":"y","wrong_output":"g(2) returns 5 instead of 4"}],
             "known_limits":[{"finding":"F1","reason":"later"},{"finding":"F2","reason":"sensitivity only"}]}"#,
        );
        assert_eq!(review.known_limits.len(), 1);
        assert_eq!(review.known_limits[0].finding, "F2");
        assert!(review.notes[0].contains("P1 can never be deferred"));
        assert_eq!(blocking(&review, BlockingThreshold::P2), ["F1"]);
        assert_eq!(
            check_deferrable(&review.findings[0])
                .unwrap_err()
                .to_string(),
            "F1 is a P1 (x); a P1 can never be deferred as a known limit: fix it"
        );
        assert!(check_deferrable(&review.findings[1]).is_ok());
    }

    #[test]
    fn finding_paths_become_project_relative() {
        let dir = tempfile::tempdir().unwrap();
        let project = crate::project::Project::at(dir.path());
        let absolute = dir.path().join("src/b.py").display().to_string();
        let review = parse(&format!(
            r#"{{"findings":[{{"severity":"P3","file":"./src/a.py","title":"t"}},{{"severity":"P3","file":"{absolute}","title":"u"}}]}}"#
        ))
        .relative_to(&project);
        assert_eq!(review.findings[0].file, "src/a.py");
        assert_eq!(review.findings[1].file, "src/b.py");
    }

    #[test]
    fn json_is_found_in_envelopes_and_prose() {
        let envelope = r#"{"type":"result","result":"Here:\n```json\n{\"findings\":[]}\n```"}"#;
        assert_eq!(parse(envelope), Review::default());
        let prose = "Review done.\n{\"findings\": [{\"severity\":\"P3\",\"file\":\"a\",\"title\":\"name\"}]}\nbye";
        assert_eq!(parse(prose).findings[0].id, "F1");
        assert_eq!(Review::parse_text("  "), Err(FindingsError::Empty));
        assert!(matches!(
            Review::parse_text("LGTM, PASS"),
            Err(FindingsError::NoJson(_))
        ));
        assert!(matches!(
            Review::parse_text(r#"{"findings":[{"severity":"P9","title":"t"}]}"#),
            Err(FindingsError::Finding { index: 1, .. })
        ));
    }

    #[test]
    fn fix_is_read_as_suggestion_and_other_fields_are_named() {
        let review = parse(
            r#"{"findings":[{"severity":"P3","file":"a","title":"t","fix":"do x","note":"n"},
                {"id":"F2","severity":"P3","file":"a","title":"u","suggestion":"s","fix":"f"}]}"#,
        );
        assert_eq!(review.findings[0].suggestion, "do x");
        assert_eq!(review.findings[1].suggestion, "s", "suggestion wins");
        assert_eq!(
            review.notes,
            [
                format!("finding F1: field \"note\" ignored (a finding has {FINDING_FIELDS})"),
                format!(
                    "finding F2: field \"fix\" (beside \"suggestion\") ignored (a finding has {FINDING_FIELDS})"
                ),
            ]
        );
        assert!(
            parse(r#"{"findings":[{"severity":"P3","file":"a","title":"t"}]}"#)
                .notes
                .is_empty()
        );
    }
}
