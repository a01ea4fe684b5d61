use super::*;
use crate::review::blocking::Blocking;
use crate::review::findings::Review;
use crate::session::event::AllowKind;
use crate::settings::BlockingThreshold;

fn record(event: Event) -> EventRecord {
    EventRecord {
        ts: 1,
        session: "s".into(),
        event,
    }
}

fn edit(file: &str, hash: &str) -> EventRecord {
    record(Event::EditTracked {
        file: file.into(),
        tool: "Edit".into(),
        hash: hash.into(),
        reviewed: false,
    })
}

fn completed(id: &str, files: &[(&str, &str)], json: &str) -> EventRecord {
    let review = Review::parse_text(json).unwrap();
    record(Event::ReviewCompleted {
        review: id.into(),
        files: files
            .iter()
            .map(|(f, h)| (f.to_string(), Some(h.to_string())))
            .collect(),
        findings: review.findings,
        known_limits: review.known_limits,
        notes: Vec::new(),
    })
}

const P1_ON_A: &str = r#"{"findings":[{"id":"F1","severity":"P1","file":"a","line":2,"title":"boom","wrong_output":"f(0) divides by zero and crashes"}]}"#;

#[test]
fn review_covers_versions_and_findings_clear_when_the_file_changes() {
    let mut snapshot = Snapshot::from_records("s", vec![edit("a", "h1"), edit("b", "h2")], 0);
    assert_eq!(snapshot.unreviewed().len(), 2);
    snapshot.apply(completed("R1", &[("a", "h1"), ("b", "h2")], P1_ON_A));
    assert!(snapshot.unreviewed().is_empty());
    assert_eq!(snapshot.outstanding(BlockingThreshold::P2).len(), 1);
    snapshot.apply(edit("a", "h3"));
    assert!(snapshot.outstanding(BlockingThreshold::P2).is_empty());
    assert_eq!(snapshot.unreviewed().keys().collect::<Vec<_>>(), ["a"]);
}

#[test]
fn deferral_and_edit_undone() {
    let mut snapshot = Snapshot::from_records("s", vec![edit("a", "h1")], 0);
    snapshot.apply(record(Event::BaselineCaptured {
        file: "a".into(),
        source: crate::session::event::BaselineSource::Payload,
        hash: Some("h0".into()),
    }));
    snapshot.apply(completed("R1", &[("a", "h1")], P1_ON_A));
    snapshot.apply(record(Event::FindingDeferred {
        review: "R1".into(),
        finding: "F1".into(),
        file: "a".into(),
        title: "boom".into(),
        reason: "r".into(),
    }));
    assert!(snapshot.outstanding(BlockingThreshold::P2).is_empty());
    snapshot.apply(edit("a", "h0"));
    assert!(snapshot.session_changes().is_empty());
}

#[test]
fn fingerprint_moves_with_files_and_findings_only() {
    let mut snapshot = Snapshot::from_records("s", vec![edit("a", "h1")], 0);
    snapshot.apply(completed("R1", &[("a", "h1")], P1_ON_A));
    let before = snapshot.fingerprint(BlockingThreshold::P2);
    snapshot.apply(record(Event::StopStage {
        stage: crate::session::event::Stage::Breaker,
        outcome: "closed".into(),
        detail: String::new(),
    }));
    assert_eq!(
        snapshot.fingerprint(BlockingThreshold::P2),
        before,
        "bookkeeping is not progress"
    );
    snapshot.apply(edit("a", "h2"));
    assert_ne!(snapshot.fingerprint(BlockingThreshold::P2), before);
}

#[test]
fn blocks_count_until_allowed() {
    let mut snapshot = Snapshot::default();
    for _ in 0..3 {
        snapshot.apply(record(Event::StopBlocked {
            kind: BlockKind::Findings,
            fingerprint: "x".into(),
        }));
    }
    assert_eq!(snapshot.blocks_since_allow, 3);
    snapshot.apply(record(Event::StopAllowed {
        kind: AllowKind::Clean,
    }));
    assert_eq!(snapshot.blocks_since_allow, 0);
    assert!(snapshot.last_block.is_none());
}

#[test]
fn a_let_go_lasts_until_the_next_block_and_a_repeated_request_is_the_same_round() {
    let blocked = |fingerprint: &str| {
        record(Event::StopBlocked {
            kind: BlockKind::Findings,
            fingerprint: fingerprint.into(),
        })
    };
    let allowed = |kind| record(Event::StopAllowed { kind });
    let mut snapshot = Snapshot::default();
    assert_eq!(snapshot.fix_round("x"), 1);
    snapshot.apply(blocked("x"));
    assert_eq!(snapshot.fix_round("x"), 1, "nothing fixed: the same round");
    assert_eq!(snapshot.fix_round("y"), 2);
    snapshot.apply(allowed(AllowKind::NoProgress));
    assert_eq!(snapshot.let_go.as_deref(), Some("x"));
    snapshot.apply(allowed(AllowKind::NoProgress));
    assert_eq!(snapshot.let_go.as_deref(), Some("x"), "let go again");
    snapshot.apply(blocked("y"));
    assert_eq!(snapshot.let_go, None);
    assert_eq!(snapshot.fix_rounds, 2);
    snapshot.apply(allowed(AllowKind::Breaker));
    assert_eq!(snapshot.let_go.as_deref(), Some("y"));
    snapshot.apply(allowed(AllowKind::Reviewed));
    assert_eq!(snapshot.let_go, None);
}
