//! `car hook session-start`: the session's baseline taken when the agent starts it (Claude Code,
//! Codex and Gemini CLI send SessionStart), so what was already changed then is never the
//! session's, and everything the session changes after — through its shell too — is.

use crate::support::{HookAnswer, SHELL_AGENTS as AGENTS, TestProject};

/// The agent's SessionStart payload for the session of its captured payloads.
fn session_start(project: &TestProject, folder: &str, stop: &str, source: &str) -> String {
    let stop = project.fixture_json(&format!("captured/{folder}/{stop}"));
    serde_json::json!({
        "session_id": stop["session_id"],
        "transcript_path": stop["transcript_path"],
        "cwd": project.path(),
        "hook_event_name": "SessionStart",
        "source": source,
    })
    .to_string()
}

/// A committed project with `app.py`.
fn committed_project() -> TestProject {
    let project = TestProject::new();
    project.write("app.py", "VALUE = 1\n");
    project.commit_all();
    project
}

/// Sends the agent's SessionStart (`source`: startup, resume) for its captured session.
fn start(project: &TestProject, agent: &str, folder: &str, stop: &str, source: &str) -> HookAnswer {
    project.hook_as(
        agent,
        "session-start",
        &session_start(project, folder, stop, source),
    )
}

fn stop(project: &TestProject, agent: &str, folder: &str, name: &str) -> HookAnswer {
    project.hook_as(
        agent,
        "stop",
        &project.fixture(&format!("captured/{folder}/{name}")),
    )
}

/// The files the review request names (the line after "Files to review").
fn files_to_review(answer: &HookAnswer) -> String {
    answer
        .reason()
        .lines()
        .filter(|line| line.contains(".py"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn session_folders(project: &TestProject) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(project.path().join(".claude/claude-auto-review/clients"))
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default()
}

/// A person's file changed just before the session began and named on the session's first shell
/// command line: without a baseline from the session's start car could only guess it was the
/// command's (named on its line); with it, it is not the session's.
#[test]
fn what_was_changed_before_the_session_started_is_not_its_change() {
    for (agent, folder, shell_name, stop_name) in AGENTS {
        let project = committed_project();
        project.write("notes.py", "PERSON = 1\n");
        let started = start(&project, agent, folder, stop_name, "startup");
        assert_eq!(
            started.json,
            serde_json::json!({}),
            "{agent}: {}",
            started.stdout
        );
        let command = "cat notes.py && cat > gen.py <<'EOF'\ndef g(:\nEOF";
        project.write("gen.py", "def g(:\n    pass\n");
        project.hook_as(
            agent,
            "post-tool-use",
            &project.shell_payload(folder, shell_name, command),
        );
        let answer = stop(&project, agent, folder, stop_name);
        assert!(answer.holds_back(), "{agent}: {}", answer.stdout);
        let files = files_to_review(&answer);
        assert!(files.contains("gen.py"), "{agent}: {files}");
        assert!(
            !files.contains("notes.py"),
            "{agent}: changed before the session started: {files}"
        );
        assert!(
            answer.reason().contains("gen.py:1:7: SyntaxError"),
            "{agent}: {}",
            answer.reason()
        );
    }
}

/// The control: the same session without SessionStart takes the named file for the command's.
#[test]
fn without_a_session_start_a_file_named_on_the_first_command_is_taken_for_its_change() {
    let (agent, folder, shell_name, stop_name) = AGENTS[0];
    let project = committed_project();
    project.write("notes.py", "PERSON = 1\n");
    let command = "cat notes.py && cat > gen.py <<'EOF'\ndef g(:\nEOF";
    project.write("gen.py", "def g(:\n    pass\n");
    project.hook_as(
        agent,
        "post-tool-use",
        &project.shell_payload(folder, shell_name, command),
    );
    let answer = stop(&project, agent, folder, stop_name);
    assert!(
        files_to_review(&answer).contains("notes.py"),
        "{}",
        answer.stdout
    );
}

/// A session that only talks keeps no event log: the person's own edits during it are never its
/// change, and its stop is the fast path.
#[test]
fn a_session_that_changes_nothing_is_never_gated_on_the_persons_edits() {
    for (agent, folder, _, stop_name) in AGENTS {
        let project = committed_project();
        start(&project, agent, folder, stop_name, "startup");
        project.write("app.py", "VALUE = 2\n");
        let answer = stop(&project, agent, folder, stop_name);
        assert!(!answer.holds_back(), "{agent}: {}", answer.stdout);
        for folder in session_folders(&project) {
            assert!(!folder.join("events.jsonl").exists(), "{agent}: {folder:?}");
        }
    }
}

/// A resumed session keeps the baseline it has: its earlier change is still reviewed.
#[test]
fn a_resumed_session_keeps_its_baseline() {
    let (agent, folder, shell_name, stop_name) = AGENTS[0];
    let project = committed_project();
    start(&project, agent, folder, stop_name, "startup");
    project.write("app.py", "VALUE = 2\n");
    project.hook_as(
        agent,
        "post-tool-use",
        &project.shell_payload(folder, shell_name, "sed -i s/1/2/ app.py"),
    );
    let resumed = start(&project, agent, folder, stop_name, "resume");
    assert_eq!(resumed.json, serde_json::json!({}), "{}", resumed.stdout);
    let answer = stop(&project, agent, folder, stop_name);
    assert!(answer.holds_back(), "{}", answer.stdout);
    assert!(
        files_to_review(&answer).contains("app.py"),
        "{}",
        answer.reason()
    );
}

/// A session that ends before it recorded anything leaves no held baseline behind.
#[test]
fn a_session_that_ends_without_a_record_drops_its_held_baseline() {
    let (agent, folder, _, stop_name) = AGENTS[0];
    let project = committed_project();
    start(&project, agent, folder, stop_name, "startup");
    let held: Vec<_> = session_folders(&project)
        .into_iter()
        .map(|folder| folder.join("start-baseline.json"))
        .filter(|file| file.exists())
        .collect();
    assert_eq!(held.len(), 1, "the baseline is held until the first record");
    project.hook_as(
        agent,
        "session-end",
        &project.fixture("captured/claude-code-2.1.332/10-SessionEnd.json"),
    );
    assert!(!held[0].exists(), "{:?}", held[0]);
}

/// Bad input never wedges the agent: an empty payload gets a fail-open answer, exit 0.
#[test]
fn a_bad_session_start_payload_fails_open() {
    let project = TestProject::new();
    let answer = project.hook_as("claude", "session-start", "not json");
    assert_eq!(answer.code, 0);
    assert!(!answer.holds_back(), "{}", answer.stdout);
    assert!(
        answer.system_message().contains("car:"),
        "{}",
        answer.stdout
    );
}
