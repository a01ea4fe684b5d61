//! Which findings block the stop, and why the others do not. A finding blocks when it is a P1/P2
//! at `minimumBlockingSeverity` with a concrete wrong output, about a file this session changed,
//! not fixed since (its file is the version the review saw), not superseded by a later review of
//! the file, not deferred and not handed to a person.
//!
//! Invariants: a finding about a file outside the session's changes never blocks, whatever its
//! severity — the reviewer read the session's diff, and the agent was not asked to change that
//! file; it is shown to the person once, labelled, like a P3 offer. Every finding that does not
//! block for what it is (not for being fixed or deferred) has one [`NotBlocking`] reason.

use crate::session::findings::{Finding, Severity};
use crate::session::snapshot::{CompletedReview, Outstanding, Snapshot};
use crate::session::vagueness::Vagueness;
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

impl Snapshot {
    /// Blocking findings not fixed (their file is unchanged since the review), not superseded by a
    /// later review of the file, not deferred and not handed to a human.
    pub(crate) fn outstanding(&self, threshold: BlockingThreshold) -> Vec<Outstanding> {
        self.blocking_findings(threshold, true)
    }

    /// The blocking findings of each file's latest review, not deferred and not handed to a
    /// human, also when the agent has changed the file since: what it was last asked to fix (and
    /// may defer or challenge), and what a re-review should confirm fixed or report again.
    pub(crate) fn latest_round(&self, threshold: BlockingThreshold) -> Vec<Outstanding> {
        self.blocking_findings(threshold, false)
    }

    fn blocking_findings(&self, threshold: BlockingThreshold, unchanged: bool) -> Vec<Outstanding> {
        let mut found = Vec::new();
        for (index, review) in self.reviews.iter().enumerate() {
            let later = &self.reviews[index + 1..];
            for finding in &review.findings {
                if self.not_blocking(review, finding, threshold).is_some()
                    || self.is_deferred(review, finding)
                    || self.rounds.is_escalated(&finding.key())
                    || !self.still_applies(review, finding, later, unchanged)
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

    /// Why `finding` of `review` does not block at `threshold`; `None` when it may.
    pub(crate) fn not_blocking(
        &self,
        review: &CompletedReview,
        finding: &Finding,
        threshold: BlockingThreshold,
    ) -> Option<NotBlocking> {
        if let Some(vagueness) = finding.vagueness() {
            return Some(NotBlocking::Vague(vagueness));
        }
        if finding.severity == Severity::P3 {
            return Some(NotBlocking::Minor);
        }
        if !self.is_session_file(review, &finding.file) {
            return Some(NotBlocking::OutsideSession(finding.severity));
        }
        (!finding.severity.blocks_at(threshold)).then_some(NotBlocking::BelowThreshold)
    }

    /// Whether a finding's file is one the session changed (or the review covered). A finding
    /// that names no file is not about another file: it is judged like one about the change.
    fn is_session_file(&self, review: &CompletedReview, file: &str) -> bool {
        let trimmed = file.trim_start_matches("./");
        // Reviewers sometimes write the line into the file field (`a.py:12`).
        let without_line = trimmed
            .rsplit_once(':')
            .filter(|(_, line)| !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()))
            .map_or(trimmed, |(path, _)| path);
        trimmed.is_empty()
            || [trimmed, without_line].iter().any(|candidate| {
                self.files.contains_key(*candidate) || review.files.contains_key(*candidate)
            })
    }

    pub(crate) fn is_deferred(&self, review: &CompletedReview, finding: &Finding) -> bool {
        review
            .known_limits
            .iter()
            .any(|limit| limit.finding == finding.id)
            || self.deferred.iter().any(|deferral| {
                (deferral.review == review.id && deferral.finding == finding.id)
                    || format!("{}|{}", deferral.file, deferral.title)
                        == format!("{}|{}", finding.file, finding.title)
            })
    }

    /// Whether no later review covered the finding's file and (when `unchanged`) the file is
    /// still the version the review saw.
    fn still_applies(
        &self,
        review: &CompletedReview,
        finding: &Finding,
        later: &[CompletedReview],
        unchanged: bool,
    ) -> bool {
        match review.files.get(&finding.file) {
            Some(reviewed) => {
                (!unchanged || self.files.get(&finding.file) == Some(reviewed))
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
                            .all(|(file, version)| self.files.get(file) == Some(version)))
            }
        }
    }

    /// Findings of every round that do not block for what they are, each with why (P3, vague,
    /// below `minimumBlockingSeverity`, outside the session's change).
    pub(crate) fn non_blocking(
        &self,
        threshold: BlockingThreshold,
    ) -> Vec<(&Finding, NotBlocking)> {
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
}
