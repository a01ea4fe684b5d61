//! The guards that keep the review gate's fix loop bounded.
//!
//! After each review round, before the verdict, the convergence guards hand findings to a human:
//! a blocking finding that survived `maxFixAttempts` rounds in which the agent changed its file
//! (stuck), one the agent challenged as a false positive that the reviewer reported again, and a
//! challenged P1 the reviewer then left out (a P1 is escalated, never dropped). Before the review,
//! the breaker is the last resort: `maxStopPasses` blocked stops in a row, or a stop where nothing
//! moved since the last fix request (or since the breaker last let the agent stop with it open).
//!
//! The guards themselves are the shared engine's ([`crate::review::convergence`]); this module hands it
//! the session's facts (fix attempts and challenges from the snapshot, `maxFixAttempts`,
//! `maxStopPasses`, the order of its guards: a dispute before stuck, the breaker's cap before no
//! progress) and words the outcome.
//!
//! Invariants: the guards are pure functions of the snapshot and the settings, so the gate and
//! `car review status` reach the same answer; each finding key is escalated at most once.

use std::collections::BTreeSet;

use crate::review::blocking::Blocking;
use crate::review::convergence::{
    Challenge, FindingGuard, FindingHistory, LoopFacts, LoopGuard, finding_guard, loop_guard,
};

use crate::session::event::{AllowKind, BlockKind, EscalationKind, Event};
use crate::session::finding::Severity;
use crate::session::rounds::{ChallengeRecord, FixAttempt};
use crate::session::snapshot::Snapshot;
use crate::settings::Settings;

/// The `finding_escalated` events the rounds so far call for.
pub(crate) fn escalations(snapshot: &Snapshot, settings: &Settings) -> Vec<Event> {
    let max = settings.max_fix_attempts as usize;
    let mut keys = BTreeSet::new();
    let mut events = Vec::new();
    for item in snapshot.outstanding(settings.minimum_blocking_severity) {
        let key = item.finding.key();
        let record = snapshot.rounds.challenge_of(&key);
        let fixes = snapshot.rounds.failed_fixes(&key);
        let history = FindingHistory {
            failed_fixes: fixes.len(),
            challenge: record.map(as_challenge),
        };
        let (kind, challenge) = match finding_guard(&history, max, &FINDING_ORDER) {
            Some(FindingGuard::Dispute) => (EscalationKind::ChallengeUpheld, record),
            Some(FindingGuard::Stuck) => (EscalationKind::Stuck, None),
            None => continue,
        };
        if !keys.insert(key) {
            continue;
        }
        events.push(Event::FindingEscalated {
            review: item.review,
            finding: item.finding,
            kind,
            attempts: u32::try_from(fixes.len()).unwrap_or(u32::MAX),
            tried: fixes.iter().map(describe).collect(),
            challenge: challenge.map(|c| c.reason.clone()).unwrap_or_default(),
        });
    }
    events.extend(withdrawn_p1s(snapshot, &mut keys));
    events
}

/// A recorded challenge as the convergence guards read it.
fn as_challenge(record: &ChallengeRecord) -> Challenge<'_> {
    Challenge {
        reason: &record.reason,
        answer: record.upheld,
    }
}

/// Challenged P1 findings the reviewer then left out: a P1 is never dropped without a person.
fn withdrawn_p1s(snapshot: &Snapshot, keys: &mut BTreeSet<String>) -> Vec<Event> {
    let mut events = Vec::new();
    for challenge in &snapshot.rounds.challenges {
        let key = challenge.finding.key();
        let withdrawn_p1 =
            as_challenge(challenge).is_withdrawn() && challenge.finding.severity == Severity::P1;
        if !withdrawn_p1 || snapshot.rounds.is_escalated(&key) || !keys.insert(key) {
            continue;
        }
        events.push(Event::FindingEscalated {
            review: challenge.review.clone(),
            finding: challenge.finding.clone(),
            kind: EscalationKind::ChallengedP1,
            attempts: 0,
            tried: Vec::new(),
            challenge: challenge.reason.clone(),
        });
    }
    events
}

/// One fix attempt for a person: the round that still reported it and what the agent said.
fn describe(attempt: &FixAttempt) -> String {
    if attempt.said.is_empty() {
        format!("{}: (the agent said nothing)", attempt.review)
    } else {
        format!("{}: \"{}\"", attempt.review, attempt.said)
    }
}

/// The finding guards, in order: a challenge the reviewer answered by reporting the finding again
/// goes to a person as a dispute, whatever the fix attempts.
const FINDING_ORDER: [FindingGuard; 2] = [FindingGuard::Dispute, FindingGuard::Stuck];

/// The breaker's loop guards, in order: the cap of blocked stops before anything else (a stop
/// holds no round of its own to tell drift from progress).
const BREAKER_ORDER: [LoopGuard; 2] = [LoopGuard::Cap, LoopGuard::NoProgress];

/// The breaker: `maxStopPasses` blocks in a row, or (when `no_progress_applies`) nothing moved
/// since a fix request or since the breaker let the agent stop with one unanswered (a stop that
/// changed nothing is let go as often as it comes: rounds count fix attempts, not stops). The
/// allow kind and the message for the person, naming what is still open.
pub(crate) fn breaker(
    snapshot: &Snapshot,
    settings: &Settings,
    no_progress_applies: bool,
) -> Option<(AllowKind, String)> {
    let max = settings.max_stop_passes;
    let threshold = settings.minimum_blocking_severity;
    let fingerprint = snapshot.fingerprint(threshold);
    let since_block = snapshot
        .last_block
        .as_ref()
        .is_some_and(|last| last.kind == BlockKind::Findings && last.fingerprint == fingerprint);
    let since_let_go = snapshot.let_go.as_deref() == Some(fingerprint.as_str());
    let facts = LoopFacts {
        passes: snapshot.blocks_since_allow,
        max_passes: max,
        is_unchanged: no_progress_applies && (since_block || since_let_go),
        last_counts: None,
    };
    let (kind, mut message) = match loop_guard(&facts, &BREAKER_ORDER)? {
        LoopGuard::Cap => (
            AllowKind::Breaker,
            format!(
                "car: {} stops in a row were blocked (maxStopPasses {max}); letting the agent stop with the review still open.",
                snapshot.blocks_since_allow
            ),
        ),
        LoopGuard::NoProgress | LoopGuard::Diverging if since_block => (
            AllowKind::NoProgress,
            "car: nothing changed since the last blocked stop and the findings are the same; letting the agent stop.".to_string(),
        ),
        LoopGuard::NoProgress | LoopGuard::Diverging => (
            AllowKind::NoProgress,
            "car: nothing changed since car last let the agent stop with these findings open; letting it stop again (a change starts the next fix round).".to_string(),
        ),
    };
    let open: Vec<String> = snapshot
        .outstanding(threshold)
        .iter()
        .map(|item| item.finding.summary())
        .chain(
            snapshot
                .unresolved_errors()
                .iter()
                .map(|error| error.render()),
        )
        .collect();
    if open.is_empty() {
        message.push_str(" `car review status` shows what is pending.");
    } else {
        message.push_str(" Still open (`car review status`):");
        for line in open {
            message.push_str(&format!("\n- {line}"));
        }
    }
    Some((kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::findings::Review;
    use crate::session::event::EventRecord;

    fn record(event: Event) -> EventRecord {
        EventRecord {
            ts: 1,
            session: "s".into(),
            event,
        }
    }

    fn round(snapshot: &mut Snapshot, review: &str, hash: &str, json: &str) {
        snapshot.apply(record(Event::EditTracked {
            file: "a.py".into(),
            tool: "Edit".into(),
            hash: hash.into(),
            reviewed: false,
        }));
        snapshot.apply(record(Event::ReviewCompleted {
            review: review.into(),
            files: [("a.py".to_string(), Some(hash.to_string()))].into(),
            findings: Review::parse_text(json).unwrap().findings,
            known_limits: vec![],
            notes: vec![],
        }));
    }

    const P1: &str = r#"{"findings":[{"id":"F1","severity":"P1","file":"a.py","line":3,"title":"Crash on empty input","wrong_output":"f([]) raises IndexError"}]}"#;

    #[test]
    fn stuck_after_max_fix_attempts_and_once_only() {
        let settings = Settings::default();
        let mut snapshot = Snapshot::default();
        for (review, hash) in [("R1", "h1"), ("R2", "h2"), ("R3", "h3")] {
            round(&mut snapshot, review, hash, P1);
            assert!(escalations(&snapshot, &settings).is_empty(), "{review}");
        }
        round(&mut snapshot, "R4", "h4", P1);
        let events = escalations(&snapshot, &settings);
        assert_eq!(events.len(), 1);
        let Event::FindingEscalated { kind, attempts, .. } = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!((*kind, *attempts), (EscalationKind::Stuck, 3));
        snapshot.apply(record(events[0].clone()));
        assert!(
            snapshot
                .outstanding(settings.minimum_blocking_severity)
                .is_empty()
        );
        round(&mut snapshot, "R5", "h5", P1);
        assert!(escalations(&snapshot, &settings).is_empty(), "not again");
        assert!(
            snapshot
                .outstanding(settings.minimum_blocking_severity)
                .is_empty()
        );
    }

    #[test]
    fn a_challenged_p1_is_escalated_whether_upheld_or_withdrawn() {
        let settings = Settings::default();
        for answer in [P1, r#"{"findings":[]}"#] {
            let mut snapshot = Snapshot::default();
            round(&mut snapshot, "R1", "h1", P1);
            snapshot.apply(record(Event::FindingChallenged {
                review: "R1".into(),
                finding: "F1".into(),
                file: "a.py".into(),
                title: "Crash on empty input".into(),
                severity: Severity::P1,
                reason: "callers never pass []".into(),
            }));
            snapshot.apply(record(Event::ReviewRequested {
                review: "R2".into(),
                backend: "command".into(),
                files: Default::default(),
                prompt_file: String::new(),
            }));
            round(&mut snapshot, "R2", "h1", answer);
            let events = escalations(&snapshot, &settings);
            assert_eq!(events.len(), 1, "{answer}");
            let Event::FindingEscalated {
                kind, challenge, ..
            } = &events[0]
            else {
                panic!()
            };
            assert_ne!(*kind, EscalationKind::Stuck);
            assert_eq!(challenge, "callers never pass []");
        }
    }
}
