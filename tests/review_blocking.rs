//! Which findings block the stop, driven through `car review submit` and `car hook stop`: a
//! P1/P2 blocks only when its wrong output is concrete (an input or call and the wrong result it
//! gives), when it is about a file the session changed, and (for a P2) when P2 blocks; the others
//! are shown to the person once, as non-blocking, with why.

use serde_json::json;

use crate::review_helpers::*;

#[test]
fn vague_p1_and_p2_do_not_block_and_are_shown_with_why() {
    let project = pinned_project();
    write_file(&project, "a.py", "def load(path):\n    return None\n");
    assert!(stop(&project).is_block());
    let findings = json!({"findings": [
        {"id": "F1", "severity": "P1", "file": "a.py", "line": 2, "title": "Risky loader",
         "wrong_output": "this could cause issues"},
        {"id": "F2", "severity": "P2", "file": "a.py", "line": 1, "title": "Wrong result",
         "wrong_output": "returns wrong value"},
        {"id": "F3", "severity": "P1", "file": "a.py", "line": 2, "title": "Loader returns None",
         "wrong_output": "load('a.txt') returns None instead of the file's text"},
    ]});
    let run = submit(&project, &findings);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("1 P1, 0 P2, 2 P3; 1 blocking"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("F2 does not block (shown to the person instead): its wrong output names no input or call"),
        "{}",
        run.stderr
    );
    let blocked = stop(&project);
    assert!(blocked.is_block(), "{blocked:?}");
    let reason = blocked.reason();
    assert!(reason.contains("F3"), "{reason}");
    assert!(!reason.contains("F1") && !reason.contains("F2"), "{reason}");

    write_file(
        &project,
        "a.py",
        "def load(path):\n    return open(path).read()\n",
    );
    assert!(stop(&project).is_block(), "the fix is reviewed");
    assert_eq!(submit(&project, &json!({"findings": []})).code, 0);
    let allowed = stop(&project);
    assert!(!allowed.is_block(), "{allowed:?}");
    let message = allowed.system_message();
    assert!(
        message.contains("Not blocking (2; reported as P1/P2, not fixed, you decide):"),
        "{message}"
    );
    assert!(
        message.contains("- a.py:2: Risky loader (its wrong output names no input or call"),
        "{message}"
    );
    assert!(
        message.contains("- a.py:1: Wrong result (its wrong output"),
        "{message}"
    );
    assert!(!message.contains("Loader returns None"), "{message}");
    // Shown once.
    let again = stop(&project);
    assert!(
        !again.system_message().contains("Not blocking"),
        "{again:?}"
    );
}

#[test]
fn a_finding_about_a_file_the_session_did_not_change_never_blocks_and_is_shown_once() {
    let project = pinned_project();
    project.write("lib/other.py", "def helper():\n    return 1\n");
    project.commit_all();
    write_file(
        &project,
        "a.py",
        "from lib.other import helper\nx = helper()\n",
    );
    assert!(stop(&project).is_block());
    let findings = json!({"findings": [
        finding("F1", "P1", "lib/other.py", 2, "Helper returns a constant"),
        finding("F2", "P2", "./lib/other.py", 1, "Helper is slow"),
    ]});
    let run = submit(&project, &findings);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("1 P1, 1 P2, 0 P3; 0 blocking"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "note: F1 is about lib/other.py, outside this session's change: it never blocks"
        ),
        "{}",
        run.stderr
    );
    let allowed = stop(&project);
    assert!(!allowed.is_block(), "{allowed:?}");
    let message = allowed.system_message();
    assert!(
        message.contains(
            "- lib/other.py:2: Helper returns a constant — fix Helper returns a constant (P1, outside this session's change)"
        ),
        "{message}"
    );
    assert!(
        message.contains("- lib/other.py:1: Helper is slow — fix Helper is slow (P2, outside this session's change)"),
        "{message}"
    );
    assert!(!message.contains("P3 offers"), "{message}");
    assert!(
        !stop(&project).system_message().contains("outside"),
        "shown once"
    );
}

#[test]
fn a_finding_in_the_sessions_file_still_blocks_beside_one_outside() {
    let project = pinned_project();
    project.write("lib/other.py", "def helper():\n    return 1\n");
    project.commit_all();
    write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    let findings = json!({"findings": [
        finding("F1", "P1", "lib/other.py", 2, "Helper returns a constant"),
        finding("F2", "P1", "a.py:1", 1, "Wrong constant"),
    ]});
    let run = submit(&project, &findings);
    assert!(run.stderr.contains("; 1 blocking"), "{}", run.stderr);
    let blocked = stop(&project);
    assert!(blocked.is_block(), "{blocked:?}");
    assert!(blocked.reason().contains("F2"), "{blocked:?}");
    assert!(!blocked.reason().contains("Helper returns"), "{blocked:?}");
}

#[test]
fn with_only_p1_blocking_a_p2_is_listed_as_a_non_blocking_p2_not_as_a_p3_offer() {
    let project = pinned_project();
    set_settings(&project, json!({"minimumBlockingSeverity": "P1"}));
    write_file(
        &project,
        "a.py",
        "def load(path):\n    return open(path).read()\n",
    );
    assert!(stop(&project).is_block());
    let findings = json!({"findings": [
        finding("F1", "P2", "a.py", 2, "Reads the whole file"),
        {"id": "F2", "severity": "P3", "file": "a.py", "line": 1, "title": "Name path better"},
    ]});
    let run = submit(&project, &findings);
    assert!(
        run.stderr.contains("0 P1, 1 P2, 1 P3; 0 blocking"),
        "{}",
        run.stderr
    );
    let allowed = stop(&project);
    assert!(!allowed.is_block(), "{allowed:?}");
    assert_eq!(
        allowed.system_message(),
        "P3 offers (1; not fixed, you decide):\n- a.py:1: Name path better\n\
         Not blocking (1; reported as P1/P2, not fixed, you decide):\n\
         - a.py:2: Reads the whole file — fix Reads the whole file (a P2; only P1 blocks here: minimumBlockingSeverity is P1)"
    );
}
