//! Blocking review findings the agent fixed: a P1/P2 (at the session's blocking threshold) of one
//! review that the next review of its file no longer reports, where the agent's edits in between
//! changed the finding's line or the lines around it. Each becomes a
//! [`ReviewFix`] for [`crate::learning::from_review`].
//!
//! The lines a fix teaches from: the finding's own line when the fix changed it (and then only
//! that line: `load() returns None` fixed by rewriting the function must not teach the
//! `os.path` call the rewrite dropped), else the changed lines within 3 of it, nearest first.
//!
//! Invariants: P3 findings, findings without a line, deferred known limits and findings the next
//! review still reports (same file and title, or a blocking finding of that file near the same
//! place) never teach; the later version must be one the agent produced
//! ([`Authored::is_agent_version`]) — a fix the person made is a correction, not a review fix.
//! Every finding is decided once per session (`clients/<session>/learned-findings.json`), so a
//! stop never re-learns or re-reports it.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::files;
use crate::learning::from_review::ReviewFix;
use crate::session::Session;
use crate::session::authored::Authored;
use crate::session::changed_lines::LineChange;
use crate::session::changed_lines::changed_lines;
use crate::session::finding::Finding;
use crate::session::snapshot::{CompletedReview, Snapshot};
use crate::settings::BlockingThreshold;

/// Lines around a finding's line that count as "the lines it points at".
const AROUND: usize = 3;

/// The fixes found in a snapshot, and every finding decided (fixed or not) to remember.
#[derive(Debug, Default)]
pub(crate) struct Fixes {
    pub(crate) fixes: Vec<ReviewFix>,
    decided: Vec<String>,
}

/// Findings of `session` decided before.
fn decided_path(session: &Session<'_>) -> PathBuf {
    session.file(crate::state::names::LEARNED_FINDINGS)
}

fn load_decided(session: &Session<'_>) -> BTreeSet<String> {
    files::read_optional(&decided_path(session))
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

impl Fixes {
    /// Remembers the decided findings so the next stop skips them.
    pub(crate) fn mark_decided(&self, session: &Session<'_>) -> Result<(), files::FileError> {
        if self.decided.is_empty() {
            return Ok(());
        }
        let mut all = load_decided(session);
        all.extend(self.decided.iter().cloned());
        let text = serde_json::to_string(&all).unwrap_or_default();
        files::write_atomic(&decided_path(session), text.as_bytes())
    }
}

/// The blocking findings of the session's reviews that a later review shows fixed.
pub(crate) fn find(session: &Session<'_>, snapshot: &Snapshot, authored: &Authored) -> Fixes {
    let threshold = session.settings.minimum_blocking_severity;
    let decided = load_decided(session);
    let mut out = Fixes::default();
    for (index, review) in snapshot.reviews.iter().enumerate() {
        for finding in &review.findings {
            let key = format!("{}/{}", review.id, finding.id);
            if !finding.severity.blocks_at(threshold) || finding.line == 0 || decided.contains(&key)
            {
                continue;
            }
            let later = snapshot.reviews[index + 1..]
                .iter()
                .find(|next| next.files.contains_key(&finding.file));
            // Deferred known limits and disputes (challenged, or handed to a person) never teach.
            let deferred = snapshot.is_deferred(review, finding) || snapshot.is_disputed(finding);
            let Some(later) = later.filter(|_| !deferred) else {
                if deferred {
                    out.decided.push(key);
                }
                continue;
            };
            out.decided.push(key);
            if let Some(fix) = fix_of(session, review, finding, later, authored) {
                out.fixes.push(fix);
            }
        }
    }
    out
}

/// The fix of `finding` between `review` and `later`, when there is one to learn from.
fn fix_of(
    session: &Session<'_>,
    review: &CompletedReview,
    finding: &Finding,
    later: &CompletedReview,
    authored: &Authored,
) -> Option<ReviewFix> {
    let threshold = session.settings.minimum_blocking_severity;
    let line = usize::try_from(finding.line).ok()?;
    if still_reported(finding, line, later, threshold) {
        return None;
    }
    let old_hash = review.files.get(&finding.file)?.as_deref()?;
    let new_hash = later.files.get(&finding.file)?.as_deref()?;
    if old_hash == new_hash || !authored.is_agent_version(&finding.file, new_hash) {
        return None;
    }
    let new = authored.version(new_hash)?;
    let changes = changes_at(&authored.version(old_hash)?, &new, line);
    if changes.is_empty() {
        return None;
    }
    Some(ReviewFix {
        session: session.id.to_string(),
        review: review.id.clone(),
        finding: finding.id.clone(),
        severity: finding.severity.to_string(),
        title: finding.title.clone(),
        suggestion: finding.suggestion.clone(),
        file: finding.file.clone(),
        line,
        changes,
        fixed_content: new,
        at: session.clock.now(),
    })
}

/// Whether `later` still reports the finding at `line`: the same file and title, or any blocking
/// finding of that file near the same place (a reviewer may word it differently).
fn still_reported(
    finding: &Finding,
    line: usize,
    later: &CompletedReview,
    threshold: BlockingThreshold,
) -> bool {
    later.findings.iter().any(|other| {
        other.key() == finding.key()
            || (other.file == finding.file
                && other.severity.blocks_at(threshold)
                && usize::try_from(other.line).is_ok_and(|at| at.abs_diff(line) <= 2 * AROUND))
    })
}

/// The lines of `old` within [`AROUND`] of `line` that `new` changed: only `line` itself when it
/// changed (the mistake: a pattern from a neighbour would teach whatever else the fix happened
/// to rewrite), else the neighbours, nearest first (the reviewer's line was slightly off).
fn changes_at(old: &str, new: &str, line: usize) -> Vec<LineChange> {
    let mut changes: Vec<LineChange> = changed_lines(old, new)
        .into_iter()
        .filter(|change| change.line.abs_diff(line) <= AROUND)
        .collect();
    match changes.iter().position(|change| change.line == line) {
        Some(exact) => vec![changes.swap_remove(exact)],
        None => {
            changes.sort_by_key(|change| change.line.abs_diff(line));
            changes
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_findings_own_line_teaches_when_the_fix_changed_it() {
        let old = "def load(path):\n    import os.path\n    if not os.path.exists(path):\n        return None\n    return open(path).read()\n";
        let new = "def load(path):\n    with open(path) as handle:\n        return handle.read()\n";
        let at_four = changes_at(old, new, 4);
        assert_eq!(at_four.len(), 1, "{at_four:?}");
        assert_eq!(at_four[0].old, "        return None");
        let off_by_one = changes_at("a\nb\nshell=True\nc\n", "a\nb\nshell=False\nc\n", 4);
        assert_eq!(
            off_by_one[0].line, 3,
            "a neighbour when the line itself did not change"
        );
        assert!(changes_at("a\nb\n", "a\nb\nc\n", 1).is_empty());
    }
}
