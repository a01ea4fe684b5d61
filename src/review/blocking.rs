//! Which findings block the stop, and why the others do not. A finding blocks when it is a P1/P2
//! at `minimumBlockingSeverity` with a concrete wrong output, about a file this session changed,
//! not fixed since (its file is the version the review saw), not superseded by a later review of
//! the file, not deferred and not handed to a person.
//!
//! Invariants: a finding about a file outside the session's changes never blocks, whatever its
//! severity — the reviewer read the session's diff, and the agent was not asked to change that
//! file; it is shown to the person once, labelled, like a P3 offer. Every finding that does not
//! block for what it is (not for being fixed or deferred) has one [`NotBlocking`] reason.
//!
//! Why a trait: the session's [`Snapshot`] only records what happened (reviews, deferrals,
//! rounds); which of its findings block is the review engine's rule, read through [`Blocking`],
//! so the session record depends on no review rule.

use crate::review::vagueness::{self, Vagueness};
use crate::session::event::content_hash;
use crate::session::finding::{Finding, Severity};
use crate::session::snapshot::{CompletedReview, Outstanding, Snapshot};
use crate::settings::BlockingThreshold;

/// Why a finding does not block, whatever happens to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotBlocking {
    /// A P3: minor, offered to the person.
    Minor,
    /// Reported as P1/P2, but its wrong output is not concrete.
    Vague(Vagueness),
    /// A P2 while only P1 blocks (`minimumBlockingSeverity: "P1"`).
    BelowThreshold,
    /// A P1/P2 about a file the session did not change.
    OutsideSession(Severity),
}

impl NotBlocking {
    /// The label shown beside the finding; `None` for a plain P3 offer.
    pub(crate) fn why(self) -> Option<String> {
        match self {
            NotBlocking::Minor => None,
            NotBlocking::Vague(vagueness) => Some(vagueness.why().to_string()),
            NotBlocking::BelowThreshold => {
                Some("a P2; only P1 blocks here: minimumBlockingSeverity is P1".to_string())
            }
            NotBlocking::OutsideSession(severity) => {
                Some(format!("{severity}, outside this session's change"))
            }
        }
    }
}

/// Which findings of a session block the stop, read from its snapshot.
pub(crate) trait Blocking {
    /// Blocking findings not fixed (their file is unchanged since the review), not superseded by a
    /// later review of the file, not deferred and not handed to a human.
    fn outstanding(&self, threshold: BlockingThreshold) -> Vec<Outstanding>;

    /// The blocking findings of each file's latest review, not deferred and not handed to a
    /// human, also when the agent has changed the file since: what it was last asked to fix (and
    /// may defer or challenge), and what a re-review should confirm fixed or report again.
    fn latest_round(&self, threshold: BlockingThreshold) -> Vec<Outstanding>;

    /// Why `finding` of `review` does not block at `threshold`; `None` when it may.
    fn not_blocking(
        &self,
        review: &CompletedReview,
        finding: &Finding,
        threshold: BlockingThreshold,
    ) -> Option<NotBlocking>;

    /// Findings of every round that do not block for what they are, each with why (P3, vague,
    /// below `minimumBlockingSeverity`, outside the session's change).
    fn non_blocking(&self, threshold: BlockingThreshold) -> Vec<(&Finding, NotBlocking)>;

    /// A digest of what a block is about: the changed files' versions, the outstanding findings,
    /// the unresolved errors and the challenges waiting for a review. Equal digests on two stops
    /// mean nothing moved in between.
    fn fingerprint(&self, threshold: BlockingThreshold) -> String;
}

impl Blocking for Snapshot {
    fn outstanding(&self, threshold: BlockingThreshold) -> Vec<Outstanding> {
        blocking_findings(self, threshold, true)
    }

    fn latest_round(&self, threshold: BlockingThreshold) -> Vec<Outstanding> {
        blocking_findings(self, threshold, false)
    }

    fn not_blocking(
        &self,
        review: &CompletedReview,
        finding: &Finding,
        threshold: BlockingThreshold,
    ) -> Option<NotBlocking> {
        if let Some(vagueness) = vagueness::of(finding) {
            return Some(NotBlocking::Vague(vagueness));
        }
        if finding.severity == Severity::P3 {
            return Some(NotBlocking::Minor);
        }
        if !is_session_file(self, review, &finding.file) {
            return Some(NotBlocking::OutsideSession(finding.severity));
        }
        (!finding.severity.blocks_at(threshold)).then_some(NotBlocking::BelowThreshold)
    }

    fn non_blocking(&self, threshold: BlockingThreshold) -> Vec<(&Finding, NotBlocking)> {
        self.reviews
            .iter()
            .flat_map(|review| {
                review.findings.iter().filter_map(move |finding| {
                    self.not_blocking(review, finding, threshold)
                        .map(|why| (finding, why))
                })
            })
            .collect()
    }

    fn fingerprint(&self, threshold: BlockingThreshold) -> String {
        let mut text = String::new();
        for (file, version) in self.session_changes() {
            text.push_str(&format!("{file}={version:?}\n"));
        }
        for item in self.outstanding(threshold) {
            text.push_str(&format!("finding {}\n", item.finding.key()));
        }
        for error in self.unresolved_errors() {
            text.push_str(&format!("error {}\n", error.render()));
        }
        for challenge in self.rounds.unsent_challenges() {
            text.push_str(&format!("challenge {}\n", challenge.finding.key()));
        }
        content_hash(text.as_bytes())
    }
}

fn blocking_findings(
    snapshot: &Snapshot,
    threshold: BlockingThreshold,
    unchanged: bool,
) -> Vec<Outstanding> {
    let mut found = Vec::new();
    for (index, review) in snapshot.reviews.iter().enumerate() {
        let later = &snapshot.reviews[index + 1..];
        for finding in &review.findings {
            if snapshot.not_blocking(review, finding, threshold).is_some()
                || snapshot.is_deferred(review, finding)
                || snapshot.rounds.is_escalated(&finding.key())
                || !still_applies(snapshot, review, finding, later, unchanged)
            {
                continue;
            }
            found.push(Outstanding {
                review: review.id.clone(),
                finding: finding.clone(),
            });
        }
    }
    found
}

/// Whether a finding's file is one the session changed (or the review covered). A finding
/// that names no file is not about another file: it is judged like one about the change.
fn is_session_file(snapshot: &Snapshot, review: &CompletedReview, file: &str) -> bool {
    let trimmed = file.trim_start_matches("./");
    // Reviewers sometimes write the line into the file field (`a.py:12`).
    let without_line = trimmed
        .rsplit_once(':')
        .filter(|(_, line)| !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()))
        .map_or(trimmed, |(path, _)| path);
    trimmed.is_empty()
        || [trimmed, without_line].iter().any(|candidate| {
            snapshot.files.contains_key(*candidate) || review.files.contains_key(*candidate)
        })
}

/// Whether no later review covered the finding's file and (when `unchanged`) the file is
/// still the version the review saw.
fn still_applies(
    snapshot: &Snapshot,
    review: &CompletedReview,
    finding: &Finding,
    later: &[CompletedReview],
    unchanged: bool,
) -> bool {
    match review.files.get(&finding.file) {
        Some(reviewed) => {
            (!unchanged || snapshot.files.get(&finding.file) == Some(reviewed))
                && !later
                    .iter()
                    .any(|next| next.files.contains_key(&finding.file))
        }
        // A finding about a changed file outside the review's scope lives as long as the
        // review is the latest one and nothing it covered changed.
        None => {
            later.is_empty()
                && (!unchanged
                    || review
                        .files
                        .iter()
                        .all(|(file, version)| snapshot.files.get(file) == Some(version)))
        }
    }
}
