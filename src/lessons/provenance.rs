//! Where a lesson came from, so a person can judge it (and remove it with `car lessons rm ID`):
//! the `source` field of a learned lesson or candidate (`"validator"`, `"review"`,
//! `"reversal"`, `"review-history"`; older files' `"learned"` reads as `"validator"`) and, for review and correction
//! lessons, the `learned_from` list of [`Evidence`] — each place the signal was seen.
//!
//! Invariants: provenance is read from the stored fields only (nothing is guessed); a lesson
//! written by hand has no source and no provenance line; the warning shows a short form, `car
//! lessons list/show` the full one.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Field naming what taught a learned lesson.
pub(crate) const SOURCE_FIELD: &str = "source";
/// Field listing the places a review or correction lesson was learned from.
pub(crate) const EVIDENCE_FIELD: &str = "learned_from";
/// Field of a learned lesson: the places of the project's code it already matched when it was
/// learned (`{"count": N, "places": [{"file", "line", "text"}]}`).
pub(crate) const KNOWN_INSTANCES_FIELD: &str = "known_instances";

/// Where a lesson came from: learned from a signal, or put there by a person or by car's
/// starter set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A validator error seen twice.
    Validator,
    /// A blocking review finding the agent fixed.
    Review,
    /// A value the agent wrote that the person changed.
    Reversal,
    /// A change reviewers suggested on the team's pull requests
    /// (`car lessons learn-from-reviews`).
    ReviewHistory,
    /// The agent proposed it from a mistake it made (`car mcp`'s `propose_lesson`): a candidate's
    /// source only, never a lesson's by itself.
    Agent,
    /// `car lessons add`: a person wrote it.
    Added,
    /// `car lessons import`: from another lessons file.
    Imported,
    /// car's starter set (`car install --starter-lessons`).
    Starter,
}

impl Source {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Source::Validator => "validator",
            Source::Review => "review",
            Source::Reversal => "reversal",
            Source::ReviewHistory => "review-history",
            Source::Agent => "agent",
            Source::Added => "added",
            Source::Imported => "imported",
            Source::Starter => "starter",
        }
    }

    /// The stored value; `"learned"` (car before the three sources) is a validator lesson.
    pub(crate) fn parse(text: &str) -> Option<Source> {
        match text {
            "validator" | "learned" => Some(Source::Validator),
            "review" => Some(Source::Review),
            "reversal" => Some(Source::Reversal),
            "review-history" => Some(Source::ReviewHistory),
            "agent" => Some(Source::Agent),
            "added" => Some(Source::Added),
            "imported" => Some(Source::Imported),
            "starter" => Some(Source::Starter),
            _ => None,
        }
    }

    /// Whether car learned it from what happened in the project.
    pub(crate) fn is_learned(self) -> bool {
        matches!(
            self,
            Source::Validator
                | Source::Review
                | Source::Reversal
                | Source::ReviewHistory
                | Source::Agent
        )
    }

    /// How a text names lessons of this source, in a list of where lessons came from.
    pub(crate) fn origin_words(self) -> &'static str {
        match self {
            Source::Validator => "mistakes made here",
            Source::Review => "fixed review findings",
            Source::Reversal => "people's corrections",
            Source::ReviewHistory => "the team's review comments",
            Source::Agent => "the agent's own proposals",
            Source::Added => "lessons people added",
            Source::Imported => "imported lessons",
            Source::Starter => "car's starter set",
        }
    }

    /// Whether a lesson's stored fields say car learned it (a lesson with no source was written
    /// by hand or imported by an older car).
    pub(crate) fn learned(extra: &Map<String, Value>) -> bool {
        Source::of(extra).is_some_and(Source::is_learned)
    }

    /// The source stored in a lesson's or candidate's unknown fields.
    pub(crate) fn of(extra: &Map<String, Value>) -> Option<Source> {
        extra
            .get(SOURCE_FIELD)
            .and_then(Value::as_str)
            .and_then(Source::parse)
    }
}

/// One place a review or correction lesson was learned from: the line as the agent wrote it
/// (`bad`) and as it became (`fixed`, empty when the line was removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Evidence {
    pub(crate) session: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// 1-based line of `bad` in the file as the agent wrote it.
    pub(crate) line: usize,
    /// The review round whose finding was fixed (`R3`); absent for a correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) review: Option<String>,
    /// The fixed finding's id (`F1`) and severity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) finding: Option<String>,
    pub(crate) bad: String,
    #[serde(default)]
    pub(crate) fixed: String,
    /// When it was seen (Unix seconds).
    pub(crate) at: i64,
    /// Where a person can read it: a review comment's link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
}

impl Evidence {
    /// The evidence stored under [`EVIDENCE_FIELD`]; entries car cannot read are skipped.
    pub(crate) fn all_of(extra: &Map<String, Value>) -> Vec<Evidence> {
        extra
            .get(EVIDENCE_FIELD)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|item| serde_json::from_value(item.clone()).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `review R3 of session 3f1c2a9e… (F1, src/app.py:4)` / `correction in src/tls.py:12
    /// (session 3f1c2a9e…)`.
    pub(crate) fn describe(&self, source: Source) -> String {
        let session = short_session(&self.session);
        match (source, &self.review) {
            (Source::ReviewHistory, _) => format!(
                "review comment on {} ({}:{}){}",
                self.session,
                self.file,
                self.line,
                self.url
                    .as_deref()
                    .map(|url| format!(" {url}"))
                    .unwrap_or_default()
            ),
            (Source::Agent, _) => format!(
                "the agent's own proposal ({}:{}, through car mcp)",
                self.file, self.line
            ),
            (Source::Review, Some(review)) => format!(
                "review {review} of session {session} ({}{}:{})",
                self.finding
                    .as_deref()
                    .map(|finding| format!("{finding}, "))
                    .unwrap_or_default(),
                self.file,
                self.line
            ),
            _ => format!(
                "correction in {}:{} (session {session})",
                self.file, self.line
            ),
        }
    }
}

/// Session ids are often UUIDs: the first 8 characters say enough in one line.
fn short_session(session: &str) -> String {
    if session.chars().count() > 12 {
        let head: String = session.chars().take(8).collect();
        format!("{head}…")
    } else {
        session.to_string()
    }
}

/// Where a learned lesson came from, in one line; `None` for a lesson a person added or
/// imported, or car's starter set (see [`Source::origin_words`]).
pub(crate) fn describe(extra: &Map<String, Value>) -> Option<String> {
    describe_seen(extra, "a repeated checker error")
}

/// Where a candidate was seen, in one line (a candidate is no repeated error yet).
pub(crate) fn describe_candidate(extra: &Map<String, Value>) -> Option<String> {
    describe_seen(extra, "a checker error")
}

fn describe_seen(extra: &Map<String, Value>, checker_error: &str) -> Option<String> {
    let source = Source::of(extra).filter(|source| source.is_learned())?;
    let evidence = Evidence::all_of(extra);
    if source == Source::Validator {
        let validator = extra
            .get("validator")
            .and_then(Value::as_str)
            .map(|name| format!(" [{name}]"))
            .unwrap_or_default();
        return Some(match evidence.first() {
            Some(first) => format!(
                "{checker_error}{validator}, fixed in {}:{}",
                first.file, first.line
            ),
            None => format!("{checker_error}{validator}"),
        });
    }
    let first = evidence.first()?;
    let more = match evidence.len() {
        1 => String::new(),
        count => format!(" and {} more", count - 1),
    };
    Some(format!("{}{more}", first.describe(source)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn extra(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn sources_and_their_lines() {
        assert_eq!(describe(&extra(json!({}))), None, "written by hand");
        assert_eq!(
            describe(&extra(json!({"source": "learned", "validator": "json"}))).unwrap(),
            "a repeated checker error [json]"
        );
        let review = extra(json!({"source": "review", "learned_from": [
            {"session": "3f1c2a9e-8d7b-4c1e", "file": "src/a.py", "line": 4, "review": "R3",
             "finding": "F1", "bad": "x", "fixed": "y", "at": 1},
            {"session": "s2", "file": "src/b.py", "line": 9, "review": "R1",
             "finding": "F2", "bad": "x", "fixed": "y", "at": 2}]}));
        assert_eq!(
            describe(&review).unwrap(),
            "review R3 of session 3f1c2a9e… (F1, src/a.py:4) and 1 more"
        );
        let reversal = extra(json!({"source": "reversal", "learned_from": [
            {"session": "s1", "file": "src/tls.py", "line": 12, "bad": "x", "fixed": "y", "at": 1}]}));
        assert_eq!(
            describe(&reversal).unwrap(),
            "correction in src/tls.py:12 (session s1)"
        );
        assert_eq!(Source::parse("other"), None);
    }
}
