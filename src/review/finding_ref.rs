//! Finding ids as the agent and the user write them: `F2` (the newest open finding with that id)
//! or a unique prefix of an id, `R1/F2` (that review's), or the finding's title. Used by `car review challenge` / `defer` and
//! by the `[KNOWN LIMIT]` lines of the agent's last message.
//!
//! Invariant: only an open finding resolves — one of the blocking findings of its file's latest
//! review, not deferred, not handed to a human (the agent may have changed the file since: the
//! finding is what it was last asked to fix); anything else is an error that says which finding
//! it is and why it is not open.

use crate::review::blocking::Blocking;
use crate::session::finding::{Finding, Severity};
use crate::session::snapshot::{Outstanding, Snapshot};
use crate::settings::BlockingThreshold;
use crate::text::{IdMatch, resolve_id};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LookupError {
    #[error("session {session}: no finding {label:?} in any review")]
    NotFound { session: String, label: String },
    #[error(
        "session {session}: {label:?} names several open findings ({options}); name one as R<n>/ID"
    )]
    Ambiguous {
        session: String,
        label: String,
        options: String,
    },
    /// `finding` is `R<n>/ID`, `what` is `file:line: title`.
    #[error("session {session}: {finding} ({what}) is not open: {why}")]
    NotOpen {
        session: String,
        finding: String,
        what: String,
        why: NotOpen,
    },
}

/// Why a finding that was reported is not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotOpen {
    /// P3 never block.
    Minor,
    /// A P2 while only P1 block.
    BelowThreshold,
    HandedToPerson,
    Deferred,
    /// A later review of its file did not report it.
    Superseded,
}

impl std::fmt::Display for NotOpen {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            NotOpen::Minor => "it is a P3 (P3 never block; they are offered to the user)",
            NotOpen::BelowThreshold => "a P2 does not block with minimumBlockingSeverity P1",
            NotOpen::HandedToPerson => "it was handed to a person",
            NotOpen::Deferred => "it is deferred as a known limit",
            NotOpen::Superseded => {
                "a later review of its file did not report it (fixed), or reported it under another id"
            }
        })
    }
}

/// The open finding `label` names in the session.
pub(crate) fn open_finding(
    snapshot: &Snapshot,
    threshold: BlockingThreshold,
    label: &str,
) -> Result<Outstanding, LookupError> {
    let label = label.trim().trim_matches('`');
    let (review, id) = match label.split_once(['/', ':']) {
        Some((review, id)) if review.starts_with('R') => (Some(review), id),
        _ => (None, label),
    };
    let names = |item: &Outstanding| {
        review.is_none_or(|review| review == item.review)
            && (item.finding.id == id || (review.is_none() && same_title(&item.finding, label)))
    };
    let latest = snapshot.latest_round(threshold);
    let mut open: Vec<Outstanding> = latest.iter().filter(|item| names(item)).cloned().collect();
    if open.is_empty() && review.is_none() {
        // A unique prefix of an id, as for lesson ids.
        match resolve_id(id, latest.iter().map(|item| item.finding.id.as_str())) {
            Ok(full) => open.extend(
                latest
                    .iter()
                    .filter(|item| item.finding.id == full)
                    .cloned(),
            ),
            Err(IdMatch::Ambiguous(ids)) => {
                return Err(LookupError::Ambiguous {
                    session: snapshot.session.clone(),
                    label: label.to_string(),
                    options: ids.join(", "),
                });
            }
            Err(IdMatch::None) => {}
        }
    }
    match open.len() {
        0 => {}
        1 => return Ok(open.swap_remove(0)),
        _ => {
            let options: Vec<String> = open
                .iter()
                .map(|item| {
                    format!(
                        "{}/{} {}",
                        item.review,
                        item.finding.id,
                        item.finding.location()
                    )
                })
                .collect();
            return Err(LookupError::Ambiguous {
                session: snapshot.session.clone(),
                label: label.to_string(),
                options: options.join(", "),
            });
        }
    }
    Err(not_open(snapshot, threshold, review, id, label))
}

fn same_title(finding: &Finding, label: &str) -> bool {
    let normalize = |text: &str| {
        text.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    normalize(&finding.title) == normalize(label)
}

/// Why the finding `id` (newest first) is not open, or that there is none.
fn not_open(
    snapshot: &Snapshot,
    threshold: BlockingThreshold,
    review: Option<&str>,
    id: &str,
    label: &str,
) -> LookupError {
    let reported = snapshot.reviews.iter().rev().find_map(|completed| {
        if review.is_some_and(|review| review != completed.id) {
            return None;
        }
        let finding = completed.findings.iter().find(|finding| finding.id == id)?;
        Some((completed.id.clone(), finding.clone()))
    });
    let Some((review, finding)) = reported else {
        return LookupError::NotFound {
            session: snapshot.session.clone(),
            label: label.to_string(),
        };
    };
    let key = finding.key();
    let why = if finding.severity == Severity::P3 {
        NotOpen::Minor
    } else if !finding.severity.blocks_at(threshold) {
        NotOpen::BelowThreshold
    } else if snapshot.rounds.is_escalated(&key) {
        NotOpen::HandedToPerson
    } else if snapshot.deferred.iter().any(|d| {
        (d.review == review && d.finding == finding.id)
            || (d.file == finding.file && d.title == finding.title)
    }) {
        NotOpen::Deferred
    } else {
        NotOpen::Superseded
    };
    LookupError::NotOpen {
        session: snapshot.session.clone(),
        finding: format!("{review}/{}", finding.id),
        what: format!("{}: {}", finding.location(), finding.title),
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::findings::Review;
    use crate::session::event::{Event, EventRecord};

    fn snapshot() -> Snapshot {
        let review = |id: &str, file: &str, json: &str| EventRecord {
            ts: 1,
            session: "s".into(),
            event: Event::ReviewCompleted {
                review: id.into(),
                files: [(file.to_string(), Some("h".to_string()))].into(),
                findings: Review::parse_text(json).unwrap().findings,
                known_limits: vec![],
                notes: vec![],
            },
        };
        let edit = |file: &str| EventRecord {
            ts: 1,
            session: "s".into(),
            event: Event::EditTracked {
                file: file.into(),
                tool: "Edit".into(),
                hash: "h".into(),
                reviewed: false,
            },
        };
        let wrong = "f(0) returns 1 instead of 0";
        Snapshot::from_records(
            "s",
            vec![
                edit("a.py"),
                edit("b.py"),
                review(
                    "R1",
                    "a.py",
                    &format!(
                        r#"{{"findings":[{{"id":"F1","severity":"P1","file":"a.py","title":"Crash","wrong_output":"{wrong}"}},{{"id":"F2","severity":"P3","file":"a.py","title":"Name"}}]}}"#
                    ),
                ),
                review(
                    "R2",
                    "b.py",
                    &format!(
                        r#"{{"findings":[{{"id":"F1","severity":"P2","file":"b.py","title":"Slow","wrong_output":"{wrong}"}}]}}"#
                    ),
                ),
            ],
            0,
        )
    }

    #[test]
    fn ids_titles_and_qualified_ids() {
        let snapshot = snapshot();
        let threshold = BlockingThreshold::P2;
        assert!(matches!(
            open_finding(&snapshot, threshold, "F1"),
            Err(LookupError::Ambiguous { .. })
        ));
        assert_eq!(
            open_finding(&snapshot, threshold, "R2/F1")
                .unwrap()
                .finding
                .file,
            "b.py"
        );
        assert_eq!(
            open_finding(&snapshot, threshold, "crash").unwrap().review,
            "R1"
        );
        let error = open_finding(&snapshot, threshold, "F2")
            .unwrap_err()
            .to_string();
        assert!(error.contains("R1/F2") && error.contains("P3"), "{error}");
        assert!(matches!(
            open_finding(&snapshot, threshold, "F9"),
            Err(LookupError::NotFound { .. })
        ));
        assert_eq!(
            open_finding(&snapshot, BlockingThreshold::P1, "F1")
                .unwrap()
                .review,
            "R1"
        );
    }
}
