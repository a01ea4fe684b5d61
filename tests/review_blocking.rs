//! Which findings block the stop, driven through `car review submit` and `car hook stop`: a
//! P1/P2 blocks only when its wrong output is concrete (an input or call and the wrong result it
//! gives); the others are shown to the person once, as non-blocking, with why.

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
