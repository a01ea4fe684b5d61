//! Regression tests for issue 15's faults (items 5, 6 and 8): a torn log line, a damaged lesson
//! index and a pathological regex never switch car off or hold a hook.

use std::io::Write;

use crate::review_helpers::{SESSION, stop, write_file};
use crate::support::TestProject;

fn append(project: &TestProject, relative: &str, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(project.path().join(relative))
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn events_file() -> String {
    format!(".claude/claude-auto-review/clients/{SESSION}/events.jsonl")
}

#[test]
fn a_torn_utf8_character_in_the_event_log_does_not_switch_the_gate_off() {
    let project = TestProject::new();
    write_file(&project, "a.py", "x = 1\n");
    // Half of "é" at the end of the log, as a full disk or a kill leaves it, before any stop
    // (no snapshot cache yet) ...
    append(
        &project,
        &events_file(),
        b"{\"ts\":1,\"session\":\"test-session\",\"file\":\"\xc3",
    );
    let answer = stop(&project);
    assert!(!answer.system_message().contains("failed"), "{answer:?}");
    assert!(
        answer.is_block(),
        "the gate still asks for the review: {answer:?}"
    );
    // ... and after one (the cache is ahead of the torn bytes).
    write_file(&project, "b.py", "y = 2\n");
    append(&project, &events_file(), b"{\"ts\":2,\"file\":\"\xe2\x82");
    let answer = stop(&project);
    assert!(!answer.system_message().contains("failed"), "{answer:?}");
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("b.py"), "{}", answer.reason());
    // Every event written after the torn line is still read.
    write_file(&project, "c.py", "z = 3\n");
    let answer = stop(&project);
    assert!(answer.reason().contains("c.py"), "{}", answer.reason());
    let log = std::fs::read(project.path().join(events_file())).unwrap();
    let log = String::from_utf8_lossy(&log);
    assert_eq!(log.matches("\"event\":\"edit_tracked\"").count(), 3);
    assert_eq!(log.matches("\"event\":\"stop_blocked\"").count(), 3);
    let status = project.run(&["review", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
}
