//! What became of a warning, and what that does to its lesson: a warning counts only once the
//! agent heeded it; a warning whose line survived a clean review was ignored, and a lesson that is
//! only ever ignored loses its voice (demoted), then its place (retired).
//!
//! Why: counting every warning shown as a hit let a lesson that warns on correct code raise its
//! own weight: noise reinforced itself. A warning the agent acted on is evidence the lesson was
//! right; a warned line a reviewer then passed is evidence it was not.
//!
//! Rules (the lesson system's hit rule, applied per outcome):
//! - heeded: weight +1 (max 10), hits +1, `last_hit` = when, `last_decay_at` cleared, `heeded` +1;
//! - ignored: `ignored` +1, nothing else; at [`DEMOTE_AFTER`] ignored with no heed the weight
//!   drops to [`DEMOTED_WEIGHT`] (its warnings go to the person's offer list instead of the
//!   review), at [`RETIRE_AFTER`] the lesson is retired: it stops matching and moves, whole, to
//!   the retired file with a note saying why ([`crate::lessons::counters::retired`]).
//!
//! A lesson that was heeded once is never demoted or retired by ignores: it has shown it catches
//! real mistakes, and decay still removes it when it stops firing.

use serde::{Deserialize, Serialize};

use crate::lessons::model::Lesson;

/// Ignored warnings, with no heed, after which a lesson is demoted.
pub(crate) const DEMOTE_AFTER: u64 = 3;

/// Ignored warnings, with no heed, after which a lesson is retired.
pub(crate) const RETIRE_AFTER: u64 = 5;

/// The weight of a demoted lesson: below the default offer threshold (3), so its warnings are
/// offered to the person rather than put to the reviewer as known pitfalls.
pub(crate) const DEMOTED_WEIGHT: u32 = 1;

/// What became of one warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// The agent changed the warned line or removed the trigger.
    Heeded,
    /// The line survived to a stop whose review found nothing there.
    Ignored,
}

/// What an outcome did to its lesson beyond the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Demoted,
    Retired,
}

impl Lesson {
    /// Applies one outcome at `at`; returns the demotion or retirement it caused, if any.
    pub(crate) fn record_outcome(&mut self, outcome: Outcome, at: i64) -> Option<Change> {
        match outcome {
            Outcome::Heeded => {
                self.record_hit(at);
                self.heeded += 1;
                None
            }
            Outcome::Ignored => {
                self.ignored += 1;
                if self.heeded > 0 {
                    return None;
                }
                if self.ignored == RETIRE_AFTER {
                    return Some(Change::Retired);
                }
                if self.ignored == DEMOTE_AFTER {
                    self.weight = self.weight.min(DEMOTED_WEIGHT);
                    return Some(Change::Demoted);
                }
                None
            }
        }
    }

    /// Ignored often enough, and never heeded, to stop matching.
    pub(crate) fn is_retired(&self) -> bool {
        self.heeded == 0 && self.ignored >= RETIRE_AFTER
    }

    /// Why the lesson was demoted or retired, for the person.
    pub(crate) fn outcome_note(&self, change: Change) -> String {
        match change {
            Change::Demoted => format!(
                "lesson {} was ignored {} times and never heeded (each time a review passed the \
                 warned line): demoted to weight {DEMOTED_WEIGHT}, so its warnings go to your \
                 offer list; it is retired after {RETIRE_AFTER} ignores. Remove it now: \
                 car lessons rm {}",
                self.id, self.ignored, self.id
            ),
            Change::Retired => format!(
                "lesson {} was retired: warned {} times, never heeded, and each time a review \
                 passed the warned line. It no longer matches; it is kept in the retired lessons \
                 (`car lessons list` shows them) and comes back with `car lessons restore {}`",
                self.id, self.ignored, self.id
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(weight: u32) -> Lesson {
        Lesson::from_value(&serde_json::json!({"scope": "*", "triggers": ["abcd"],
            "lesson": "l", "weight": weight, "last_decay_at": 5}))
        .unwrap()
    }

    #[test]
    fn heeded_counts_as_a_hit_and_ignored_never_raises_weight() {
        let mut heeded = lesson(3);
        assert_eq!(heeded.record_outcome(Outcome::Heeded, 100), None);
        assert_eq!(
            (heeded.weight, heeded.hits, heeded.heeded, heeded.last_hit),
            (4, 1, 1, Some(100))
        );
        assert_eq!(heeded.last_decay_at, None);
        let mut ignored = lesson(3);
        assert_eq!(ignored.record_outcome(Outcome::Ignored, 100), None);
        assert_eq!((ignored.weight, ignored.hits, ignored.ignored), (3, 0, 1));
        assert_eq!(ignored.last_hit, None);
        assert_eq!(ignored.last_decay_at, Some(5));
    }

    #[test]
    fn three_ignores_demote_five_retire_unless_once_heeded() {
        let mut noisy = lesson(6);
        let changes: Vec<Option<Change>> = (0..5)
            .map(|at| noisy.record_outcome(Outcome::Ignored, at))
            .collect();
        assert_eq!(
            changes,
            [
                None,
                None,
                Some(Change::Demoted),
                None,
                Some(Change::Retired)
            ]
        );
        assert_eq!(noisy.weight, DEMOTED_WEIGHT);
        assert!(noisy.is_retired());
        let mut proven = lesson(6);
        proven.record_outcome(Outcome::Heeded, 1);
        for at in 0..10 {
            assert_eq!(proven.record_outcome(Outcome::Ignored, at), None);
        }
        assert_eq!((proven.weight, proven.ignored), (7, 10));
        assert!(!proven.is_retired());
    }
}
