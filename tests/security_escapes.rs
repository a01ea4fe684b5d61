//! Regression test for issue 38 item 5: a file name (or a Codex patch path) carrying terminal
//! escapes (ESC, OSC, BEL) reached the agent and the person raw, in the stop's block reason, the
//! PreToolUse deny reason and the saved review request. Every text car writes for a model or a
//! person now shows control characters escaped (`\u{1b}`).

use crate::pre_tool_use::{committed, denied, write};
use crate::review_helpers::{SESSION, stop_payload, write_file};
use crate::support::HookAnswer;

/// A hyperlink (OSC 8) and a screen clear around a Python file's name.
const NAME: &str = "src/ok\u{1b}]8;;evil.example\u{7}click\u{1b}]8;;\u{7}\u{1b}[2J.py";

fn assert_escaped(what: &str, text: &str) {
    assert!(!text.is_empty(), "{what} is empty");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{what} carries a raw control character: {text:?}"
    );
    assert!(
        text.contains("\\u{1b}]8;;evil.example\\u{7}"),
        "{what}: {text}"
    );
}

fn every_text(answer: &HookAnswer) -> String {
    answer.stdout.clone() + &answer.reason() + &answer.system_message() + &answer.context()
}

#[test]
fn file_names_with_terminal_escapes_reach_no_one_raw() {
    let project = committed(&[("README.md", "x\n")]);
    // Before the write: the deny reason names the file.
    let reason = denied(&write(&project, NAME, "def f(:\n    pass\n"));
    assert_escaped("the deny reason", &reason);
    // After it: the block names it, and so does the stop and its saved review request.
    let edited = write_file(&project, NAME, "def f(:\n    pass\n");
    assert_escaped("the edit's block", &edited.reason());
    assert!(!every_text(&edited).contains('\u{1b}'), "{}", edited.stdout);
    let stop = project.hook("stop", &stop_payload(&project, SESSION, Some("Done.")));
    assert!(stop.is_block(), "{}", stop.stdout);
    assert_escaped("the stop's reason", &stop.reason());
    assert_escaped("the saved review request", &stop.review_request());
}
