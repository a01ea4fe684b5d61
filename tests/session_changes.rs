//! What a session's change set holds at the stop, driven with the payloads the real agents sent
//! (`fixtures/hook-payloads/captured/`): a session log car cannot read, car's own writes, ignore
//! rules, files over the read bound, and changes made through the shell only.

use crate::support::{HookAnswer, TestProject};

const CLAUDE: &str = "captured/claude-code-2.1.332";
/// The session id of the captured Claude Code payloads.
const CLAUDE_SESSION: &str = "c589cb41-7e6f-4a3d-bf5e-11b588540f40";

/// The captured Claude Code payload `name`, pointed at `project`.
fn claude(project: &TestProject, name: &str) -> String {
    project.fixture(&format!("{CLAUDE}/{name}"))
}

/// Claude Code's captured Write of `bad.py` (a syntax error), with the file on disk as it left it.
fn claude_writes_bad_py(project: &TestProject) -> HookAnswer {
    project.write("bad.py", "def f(:\n    return 1\n");
    project.hook_as(
        "claude",
        "post-tool-use",
        &claude(project, "01-PostToolUse-Write.json"),
    )
}

/// Claude Code's captured first stop.
fn claude_stops(project: &TestProject) -> HookAnswer {
    project.hook_as("claude", "stop", &claude(project, "04-Stop.json"))
}

fn session_folder(project: &TestProject) -> std::path::PathBuf {
    project
        .path()
        .join(".claude/claude-auto-review/clients")
        .join(CLAUDE_SESSION)
}

#[test]
fn a_session_log_of_garbage_is_named_and_the_stop_is_decided_from_git() {
    let project = TestProject::new();
    assert!(claude_writes_bad_py(&project).is_block());
    let log = session_folder(&project).join("events.jsonl");
    std::fs::write(&log, "\u{1}garbage\n{not json\n\u{fffd}\u{fffd}\n").unwrap();
    let answer = claude_stops(&project);
    assert!(answer.is_block(), "{}", answer.stdout);
    assert!(answer.reason().contains("bad.py"), "{}", answer.reason());
    let message = answer.system_message();
    assert!(
        message.contains("3 lines in the session log")
            && message.contains("events.jsonl could not be read")
            && message.contains("every file git shows changed is reviewed"),
        "{message}"
    );
}

#[test]
fn a_session_log_that_cannot_be_read_is_set_aside_and_the_stop_is_decided_from_git() {
    let project = TestProject::new();
    assert!(claude_writes_bad_py(&project).is_block());
    let log = session_folder(&project).join("events.jsonl");
    std::fs::remove_file(&log).unwrap();
    std::fs::create_dir(&log).unwrap();
    let answer = claude_stops(&project);
    assert!(answer.is_block(), "{}", answer.stdout);
    assert!(answer.reason().contains("bad.py"), "{}", answer.reason());
    let message = answer.system_message();
    assert!(
        message.contains("the session log could not be read")
            && message.contains("events.jsonl.unreadable-"),
        "{message}"
    );
    let names: Vec<String> = std::fs::read_dir(session_folder(&project))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|name| name.starts_with("events.jsonl.unreadable-")),
        "the unreadable log is kept for a person: {names:?}"
    );
    // The session goes on with a new log: the next stop reuses the pending request.
    let again = claude_stops(&project);
    assert!(again.is_block());
    assert!(!again.system_message().contains("could not be read"));
}
