//! The six convergence guards, checked in this order after each round of the deep review:
//! 1. no blocking finding → PASS;
//! 2. a finding marked fixed is reported again → ESCALATE (stuck);
//! 3. a challenged finding is reported again → ESCALATE (dispute: both sides' words);
//! 4. the same blocking set as the previous round and no change in the diff → ESCALATE (no
//!    progress);
//! 5. the blocking count grew two rounds in a row → ESCALATE (diverging: nitpick drift);
//! 6. the round cap is reached → ESCALATE.
//!
//! Otherwise the round FAILs and the loop goes on.
//!
//! Guards 2 to 6 are the shared engine's ([`crate::review::convergence`]); this module hands it the round
//! state's facts (a finding marked fixed once and reported again is stuck; the blocking keys and
//! the diff hash say whether anything moved; `--max-rounds` is the cap) and words the outcome.
//!
//! Invariants: [`decide`] is pure and reads the round state as it was *before* this round (the
//! caller records the round only afterwards), so a round never compares against itself; identity
//! across rounds is the stable key, never the reviewer's per-run id.

use std::collections::BTreeSet;

use crate::review::convergence::{
    FindingGuard, FindingHistory, LoopFacts, LoopGuard, finding_guard, loop_guard,
};
use crate::review::deep::state::RoundState;
use crate::review::deep::verdict::{Escalated, Guard, ReportedFinding, Status};
use crate::text::plural;

/// A finding marked fixed once and reported again is stuck.
const MAX_FIX_ATTEMPTS: usize = 1;

/// The finding guards, in order (guards 2 and 3).
const FINDING_ORDER: [FindingGuard; 2] = [FindingGuard::Stuck, FindingGuard::Dispute];

/// The loop guards after the finding guards, in order (guards 4 to 6).
const LOOP_ORDER: [LoopGuard; 3] = [LoopGuard::NoProgress, LoopGuard::Diverging, LoopGuard::Cap];

/// What one round produced, for the guards.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundFacts<'a> {
    /// This round's number (1 for the first round of a loop).
    pub(crate) round: u32,
    pub(crate) findings: &'a [ReportedFinding],
    /// Fingerprint of the reviewed diff.
    pub(crate) diff_hash: &'a str,
    pub(crate) max_rounds: u32,
}

/// The guards' decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) status: Status,
    pub(crate) guard: Option<Guard>,
    pub(crate) reason: String,
    pub(crate) escalated: Vec<Escalated>,
}

/// Applies the guards in order to a round, against the state before it.
pub(crate) fn decide(before: &RoundState, facts: &RoundFacts<'_>) -> Decision {
    let blocking: Vec<&ReportedFinding> = facts
        .findings
        .iter()
        .filter(|reported| reported.blocking)
        .collect();
    let minor = facts.findings.len() - blocking.len();
    if blocking.is_empty() {
        let reason = if minor == 0 {
            "no findings".to_string()
        } else {
            format!(
                "no blocking finding ({} for you to decide)",
                plural(minor, "minor finding")
            )
        };
        return decision(Status::Pass, Some(Guard::NoBlocking), reason, Vec::new());
    }
    if let Some(held) = reported_again(before, &blocking) {
        return held;
    }
    let all = || -> Vec<Escalated> {
        blocking
            .iter()
            .map(|reported| Escalated::of(reported, None))
            .collect()
    };
    let (loop_facts, previous_round) = loop_facts(before, facts, &blocking);
    let (guard, reason) = match loop_guard(&loop_facts, &LOOP_ORDER) {
        Some(LoopGuard::NoProgress) => (
            Guard::NoProgress,
            format!(
                "no progress: the same {} as round {} and the diff did not change; a human decides",
                plural(blocking.len(), "blocking finding"),
                previous_round
            ),
        ),
        Some(LoopGuard::Diverging) => {
            let [first, second, now] = loop_facts.last_counts.unwrap_or_default();
            (
                Guard::Diverging,
                format!(
                    "diverging: the blocking findings grew two rounds in a row ({first} → {second} → {now}); the review is drifting into nitpicks, a human decides"
                ),
            )
        }
        Some(LoopGuard::Cap) => (
            Guard::RoundCap,
            format!(
                "round cap: round {} of {} (--max-rounds) still has {}; a human decides",
                facts.round,
                facts.max_rounds,
                plural(blocking.len(), "blocking finding")
            ),
        ),
        None => {
            let reason = format!(
                "{}: fix them, then run the next round",
                plural(blocking.len(), "blocking finding")
            );
            return decision(Status::Fail, None, reason, Vec::new());
        }
    };
    decision(Status::Escalate, Some(guard), reason, all())
}

/// The loop's facts for the engine, and the previous round's number (0 when there was none).
fn loop_facts(
    before: &RoundState,
    facts: &RoundFacts<'_>,
    blocking: &[&ReportedFinding],
) -> (LoopFacts, u32) {
    let keys: BTreeSet<&str> = blocking.iter().map(|found| found.key.as_str()).collect();
    let previous_keys: BTreeSet<&str> = before
        .prev_blocking_ids
        .iter()
        .map(String::as_str)
        .collect();
    let previous = before.rounds.last();
    let loop_facts = LoopFacts {
        passes: facts.round,
        max_passes: facts.max_rounds,
        is_unchanged: previous
            .is_some_and(|previous| keys == previous_keys && previous.diff_hash == facts.diff_hash),
        last_counts: match before.rounds.as_slice() {
            [.., first, second] => Some([
                first.blocking_count(),
                second.blocking_count(),
                blocking.len(),
            ]),
            _ => None,
        },
    };
    (loop_facts, previous.map_or(0, |previous| previous.round))
}

/// Guards 2 and 3: the blocking findings the author already answered (marked fixed, or
/// challenged) that this round reports again; stuck ones first.
fn reported_again(before: &RoundState, blocking: &[&ReportedFinding]) -> Option<Decision> {
    let held: Vec<(&ReportedFinding, FindingGuard)> = blocking
        .iter()
        .filter_map(|reported| {
            let history = FindingHistory {
                failed_fixes: usize::from(
                    before
                        .attempted_fixes
                        .iter()
                        .any(|mark| mark.key == reported.key),
                ),
                challenge: before
                    .challenged_ids
                    .iter()
                    .find(|challenge| challenge.key == reported.key)
                    .map(|challenge| challenge.challenge(true)),
            };
            finding_guard(&history, MAX_FIX_ATTEMPTS, &FINDING_ORDER)
                .map(|guard| (*reported, guard))
        })
        .collect();
    FINDING_ORDER.into_iter().find_map(|guard| {
        let escalated: Vec<Escalated> = held
            .iter()
            .filter(|(_, held_by)| *held_by == guard)
            .map(|(reported, _)| {
                Escalated::of(reported, author_words(before, &reported.key, guard))
            })
            .collect();
        escalate(escalated, guard)
    })
}

/// What the author said about a finding key before this round that `guard` holds against it.
fn author_words(before: &RoundState, key: &str, guard: FindingGuard) -> Option<String> {
    if guard == FindingGuard::Stuck {
        let mark = before.attempted_fixes.iter().find(|mark| mark.key == key)?;
        return Some(format!("marked fixed in round {}", mark.round));
    }
    let challenge = before
        .challenged_ids
        .iter()
        .find(|challenge| challenge.key == key)?;
    Some(format!(
        "challenged in round {}: {}",
        challenge.round, challenge.reason
    ))
}

/// Escalates the findings a finding guard holds, naming the first.
fn escalate(escalated: Vec<Escalated>, guard: FindingGuard) -> Option<Decision> {
    let first = escalated.first()?;
    let (guard, what) = match guard {
        FindingGuard::Stuck => (
            Guard::Stuck,
            "was marked fixed and is reported again; the fix does not hold",
        ),
        FindingGuard::Dispute => (
            Guard::Dispute,
            "was challenged as a false positive and is reported again; writer and reviewer disagree",
        ),
    };
    let reason = format!(
        "{}: {} {} {what}, a human decides{}",
        guard.as_str(),
        first.id,
        first.title,
        others(escalated.len())
    );
    Some(decision(Status::Escalate, Some(guard), reason, escalated))
}

fn others(count: usize) -> String {
    if count > 1 {
        format!(" ({} more like it)", count - 1)
    } else {
        String::new()
    }
}

fn decision(
    status: Status,
    guard: Option<Guard>,
    reason: String,
    escalated: Vec<Escalated>,
) -> Decision {
    Decision {
        status,
        guard,
        reason,
        escalated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::deep::state::{ChallengeMark, Mark, RoundRecord};
    use crate::session::finding::{Finding, Severity};

    fn found(title: &str, severity: Severity) -> ReportedFinding {
        let finding = Finding {
            id: format!("F-{title}"),
            severity,
            file: "a.py".into(),
            line: 1,
            title: title.into(),
            wrong_output: "f(1) returns 3 instead of 2".into(),
            suggestion: String::new(),
            downgraded: false,
        };
        ReportedFinding::new(finding, severity != Severity::P3)
    }

    fn state_after(rounds: &[(&[&str], &str)]) -> RoundState {
        let mut state = RoundState::default();
        for (index, (titles, hash)) in rounds.iter().enumerate() {
            let findings: Vec<ReportedFinding> =
                titles.iter().map(|t| found(t, Severity::P1)).collect();
            state.prev_blocking_ids = findings.iter().map(|f| f.key.clone()).collect();
            state.rounds.push(RoundRecord {
                round: index as u32 + 1,
                at: 0,
                base: "b".into(),
                diff_hash: hash.to_string(),
                status: Status::Fail,
                guard: None,
                findings,
            });
            state.round = index as u32 + 1;
        }
        state
    }

    fn guard_of(state: &RoundState, titles: &[&str], hash: &str, max_rounds: u32) -> Option<Guard> {
        let findings: Vec<ReportedFinding> =
            titles.iter().map(|t| found(t, Severity::P2)).collect();
        let facts = RoundFacts {
            round: state.round + 1,
            findings: &findings,
            diff_hash: hash,
            max_rounds,
        };
        decide(state, &facts).guard
    }

    #[test]
    fn only_minor_findings_pass() {
        let findings = [found("naming", Severity::P3)];
        let facts = RoundFacts {
            round: 1,
            findings: &findings,
            diff_hash: "h",
            max_rounds: 3,
        };
        let decision = decide(&RoundState::default(), &facts);
        assert_eq!(decision.status, Status::Pass);
        assert!(decision.reason.contains("1 minor finding"), "{decision:?}");
    }

    #[test]
    fn guards_fire_in_order() {
        let mut state = state_after(&[(&["a"], "h1")]);
        assert_eq!(
            guard_of(&state, &["a"], "h2", 5),
            None,
            "changed diff: FAIL"
        );
        assert_eq!(guard_of(&state, &["a"], "h1", 5), Some(Guard::NoProgress));
        state.challenged_ids.push(ChallengeMark {
            key: found("a", Severity::P1).key,
            id: "F1".into(),
            title: "a".into(),
            reviewer: String::new(),
            reason: "sensitivity rows only".into(),
            round: 1,
        });
        assert_eq!(guard_of(&state, &["a"], "h1", 5), Some(Guard::Dispute));
        state.attempted_fixes.push(Mark {
            key: found("a", Severity::P1).key,
            id: "F1".into(),
            title: "a".into(),
            round: 1,
        });
        assert_eq!(guard_of(&state, &["a"], "h1", 5), Some(Guard::Stuck));
        assert_eq!(guard_of(&state, &[], "h1", 5), Some(Guard::NoBlocking));
    }

    #[test]
    fn growth_two_rounds_in_a_row_diverges_before_the_cap() {
        let state = state_after(&[(&["a"], "h1"), (&["b", "c"], "h2")]);
        assert_eq!(
            guard_of(&state, &["d", "e", "f"], "h3", 3),
            Some(Guard::Diverging)
        );
        assert_eq!(
            guard_of(&state, &["d", "e"], "h3", 3),
            Some(Guard::RoundCap)
        );
        assert_eq!(guard_of(&state, &["d", "e"], "h3", 4), None);
    }
}
