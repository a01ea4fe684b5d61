//! The convergence guards: what hands a blocking finding, or a whole review loop, to a person
//! instead of asking for yet another round. One engine for both review loops, the stop gate and
//! the deep review; each loop supplies what differs (how many fix attempts a finding may
//! survive, what "nothing moved" means for it, its cap, and the order of its guards) and words
//! the outcome for its own output.
//!
//! Two kinds of guard:
//! - a **finding guard** judges one blocking finding the latest round reported, by what the
//!   author did about it before: challenged as a false positive and reported again (a dispute:
//!   both sides' words go to a person), or fixed as often as allowed and still reported (stuck);
//! - a **loop guard** judges the loop: nothing moved since the previous round (no progress), the
//!   blocking count grew two rounds in a row (diverging), or the loop reached its cap.
//!
//! Invariants: the guards are pure functions of the facts a loop hands them, so a loop and its
//! status command reach the same answer; the guards of each kind run in the order the loop gives
//! and the first that holds decides.

/// A finding the author holds to be a false positive, as the guards read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Challenge<'a> {
    /// Why the author holds it to be wrong.
    pub(crate) reason: &'a str,
    /// What the reviewer did with it since: `Some(true)` reported it again, `Some(false)` left it
    /// out, `None` no review has answered it yet.
    pub(crate) answer: Option<bool>,
}

impl Challenge<'_> {
    /// The reviewer reported the finding again after the challenge.
    pub(crate) fn is_upheld(&self) -> bool {
        self.answer == Some(true)
    }

    /// The reviewer left the finding out after the challenge.
    pub(crate) fn is_withdrawn(&self) -> bool {
        self.answer == Some(false)
    }
}

/// What the author did about one blocking finding of the latest round before that round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FindingHistory<'a> {
    /// Fix attempts the finding survived (it was reported again after each).
    pub(crate) failed_fixes: usize,
    /// The author's challenge of it, if any.
    pub(crate) challenge: Option<Challenge<'a>>,
}

/// Why one finding goes to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FindingGuard {
    /// Challenged as a false positive and reported again: writer and reviewer disagree.
    Dispute,
    /// Still reported after as many fix attempts as the loop allows: the fix does not hold.
    Stuck,
}

/// The first of `order` that holds for a finding with `history`; a finding still reported after
/// `max_fix_attempts` fix attempts is stuck.
pub(crate) fn finding_guard(
    history: &FindingHistory<'_>,
    max_fix_attempts: usize,
    order: &[FindingGuard],
) -> Option<FindingGuard> {
    order.iter().copied().find(|guard| match guard {
        FindingGuard::Dispute => history
            .challenge
            .is_some_and(|challenge| challenge.is_upheld()),
        FindingGuard::Stuck => history.failed_fixes >= max_fix_attempts,
    })
}

/// Why a whole loop goes to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopGuard {
    /// Nothing moved since the previous round: the same blocking findings and no change.
    NoProgress,
    /// The blocking count grew two rounds in a row: the review drifts into nitpicks.
    Diverging,
    /// The loop reached its cap of rounds (or of blocked stops in a row).
    Cap,
}

/// Where a loop stands, as the loop measures it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LoopFacts {
    /// Rounds (or blocked stops in a row) so far.
    pub(crate) passes: u32,
    /// The most the loop allows.
    pub(crate) max_passes: u32,
    /// Nothing moved since the previous round.
    pub(crate) is_unchanged: bool,
    /// The blocking counts of the last three rounds, oldest first, when there were three.
    pub(crate) last_counts: Option<[usize; 3]>,
}

/// The first of `order` that holds for `facts`.
pub(crate) fn loop_guard(facts: &LoopFacts, order: &[LoopGuard]) -> Option<LoopGuard> {
    order.iter().copied().find(|guard| match guard {
        LoopGuard::NoProgress => facts.is_unchanged,
        LoopGuard::Diverging => facts
            .last_counts
            .is_some_and(|[first, second, now]| first < second && second < now),
        LoopGuard::Cap => facts.passes >= facts.max_passes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(failed_fixes: usize, answer: Option<Option<bool>>) -> FindingHistory<'static> {
        FindingHistory {
            failed_fixes,
            challenge: answer.map(|answer| Challenge {
                reason: "callers never pass []",
                answer,
            }),
        }
    }

    #[test]
    fn finding_guards_run_in_the_order_given_and_an_open_challenge_waits() {
        let dispute_first = [FindingGuard::Dispute, FindingGuard::Stuck];
        let stuck_first = [FindingGuard::Stuck, FindingGuard::Dispute];
        let guard = |history: FindingHistory<'_>| finding_guard(&history, 3, &dispute_first);
        assert_eq!(guard(history(0, None)), None);
        assert_eq!(guard(history(2, None)), None);
        assert_eq!(guard(history(3, None)), Some(FindingGuard::Stuck));
        assert_eq!(
            guard(history(3, Some(Some(true)))),
            Some(FindingGuard::Dispute)
        );
        assert_eq!(
            finding_guard(&history(3, Some(Some(true))), 3, &stuck_first),
            Some(FindingGuard::Stuck)
        );
        assert_eq!(guard(history(0, Some(None))), None);
        assert_eq!(guard(history(0, Some(Some(false)))), None);
        assert!(
            history(0, Some(Some(false)))
                .challenge
                .unwrap()
                .is_withdrawn()
        );
    }

    #[test]
    fn loop_guards_run_in_the_order_given() {
        let facts = LoopFacts {
            passes: 3,
            max_passes: 3,
            is_unchanged: true,
            last_counts: Some([1, 2, 3]),
        };
        let deep = [LoopGuard::NoProgress, LoopGuard::Diverging, LoopGuard::Cap];
        let gate = [LoopGuard::Cap, LoopGuard::NoProgress];
        assert_eq!(loop_guard(&facts, &deep), Some(LoopGuard::NoProgress));
        assert_eq!(loop_guard(&facts, &gate), Some(LoopGuard::Cap));
        let moving = LoopFacts {
            is_unchanged: false,
            ..facts
        };
        assert_eq!(loop_guard(&moving, &deep), Some(LoopGuard::Diverging));
        let steady = LoopFacts {
            last_counts: Some([2, 2, 3]),
            passes: 2,
            ..moving
        };
        assert_eq!(loop_guard(&steady, &deep), None);
        assert_eq!(loop_guard(&LoopFacts::default(), &[]), None);
    }
}
