//! What a session's change set holds at the stop, driven with the payloads the real agents sent
//! (`fixtures/hook-payloads/captured/`): a session log car cannot read, car's own writes, ignore
//! rules, files over the read bound, and changes made through the shell only.

use crate::support::{HookAnswer, SHELL_AGENTS, TestProject};

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

/// The files named in the stop's review request (`N changed files: a, b`).
fn files_to_review(answer: &HookAnswer) -> String {
    let reason = answer.reason();
    let first = reason.lines().next().unwrap_or_default();
    first
        .split_once("changed file")
        .map(|(_, files)| files.to_string())
        .unwrap_or_else(|| first.to_string())
}

#[test]
fn files_cars_own_commands_wrote_are_not_the_sessions_change() {
    let project = TestProject::new();
    project.write("CLAUDE.md", "# Project notes\n");
    project.commit_all();
    assert!(claude_writes_bad_py(&project).is_block());
    for args in [
        &["install", "--agent", "all"][..],
        &["config", "--non-interactive", "--max-stop-passes", "4"],
        &["deep-review", "init", "payments"],
        &["uninstall", "--agent", "cursor"],
    ] {
        let run = project.run(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
    let status = project.git_status();
    for written in ["CLAUDE.md", ".claude/settings.json", ".codex/hooks.json"] {
        assert!(status.contains(written), "car wrote {written}: {status}");
    }
    let answer = claude_stops(&project);
    assert!(answer.is_block(), "{}", answer.stdout);
    let files = files_to_review(&answer);
    assert!(files.contains("bad.py"), "{files}");
    for own in [
        "CLAUDE.md",
        "settings.json",
        "hooks.json",
        "payments.md",
        ".gemini",
    ] {
        assert!(!files.contains(own), "{own} is car's write: {files}");
    }
}

#[test]
fn a_file_car_wrote_that_the_session_changed_after_is_reviewed() {
    let project = TestProject::new();
    project.write("CLAUDE.md", "# Project notes\n");
    project.commit_all();
    assert!(claude_writes_bad_py(&project).is_block());
    assert_eq!(project.run(&["deep-review", "init", "payments"]).code, 0);
    // The agent's shell appends to the file car just wrote.
    let notes = project.read("CLAUDE.md");
    project.write(
        "CLAUDE.md",
        &format!("{notes}- run the tests before stopping\n"),
    );
    let files = files_to_review(&claude_stops(&project));
    assert!(files.contains("CLAUDE.md"), "{files}");
    assert!(!files.contains("payments.md"), "{files}");
}

/// Claude Code's captured Write payload, retargeted at `relative` with `content` (written to disk
/// first, as the tool would).
fn claude_writes(project: &TestProject, relative: &str, content: &str) -> HookAnswer {
    project.write(relative, content);
    let mut payload: serde_json::Value =
        serde_json::from_str(&claude(project, "01-PostToolUse-Write.json")).unwrap();
    let path = project.path().join(relative);
    payload["tool_input"]["file_path"] = serde_json::json!(path);
    payload["tool_input"]["content"] = serde_json::json!(content);
    payload["tool_response"]["filePath"] = serde_json::json!(path);
    payload["tool_response"]["content"] = serde_json::json!(content);
    project.hook_as("claude", "post-tool-use", &payload.to_string())
}

#[test]
fn an_ignore_rule_added_during_the_session_does_not_hide_its_change() {
    let project = TestProject::new();
    project.write(".gitignore", ".env\n");
    project.commit_all();
    assert!(!claude_writes(&project, ".env", "TOKEN=1\n").is_block());
    assert!(!claude_writes(&project, "notes.py", "NOTES = 1\n").is_block());
    assert!(!claude_writes(&project, "gen/out.py", "OUT = 2\n").is_block());
    // After the writes, the session hides two of them: a line in .git/info/exclude, a new
    // nested .gitignore.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let exclude = project.path().join(".git/info/exclude");
    let mut rules = std::fs::read_to_string(&exclude).unwrap_or_default();
    rules.push_str("notes.py\n");
    std::fs::write(&exclude, rules).unwrap();
    project.write("gen/.gitignore", "*.py\n");
    let answer = claude_stops(&project);
    let files = files_to_review(&answer);
    assert!(
        files.contains("notes.py") && files.contains("gen/out.py"),
        "{files}"
    );
    assert!(!files.contains(".env"), "ignored at the baseline: {files}");
    let reason = answer.what_the_agent_reads();
    assert!(
        reason.contains(
            "### notes.py (git ignores it by a rule added during this session, in .git/info/exclude"
        ),
        "{reason}"
    );
    assert!(
        reason.contains(
            "### gen/out.py (git ignores it by a rule added during this session, in gen/.gitignore"
        ),
        "{reason}"
    );
    assert!(
        !reason.contains("TOKEN=1"),
        "an ignored file never reaches the prompt"
    );
}

#[test]
fn an_edit_of_a_file_over_the_read_bound_is_reviewed_and_named_with_its_size() {
    let project = TestProject::new();
    let line = "VALUES = [1, 2, 3]  # padding padding padding padding padding padding\n";
    let big = line.repeat(3 * 1024 * 1024 / line.len());
    project.write("big.py", &big);
    project.commit_all();
    let edited = big.replacen("VALUES = [1, 2, 3]", "VALUES = [1, 2, 4]", 1);
    project.write("big.py", &edited);
    let mut payload: serde_json::Value =
        serde_json::from_str(&claude(&project, "02-PostToolUse-Edit.json")).unwrap();
    let path = project.path().join("big.py");
    payload["tool_input"]["file_path"] = serde_json::json!(path);
    payload["tool_input"]["old_string"] = serde_json::json!("VALUES = [1, 2, 3]");
    payload["tool_input"]["new_string"] = serde_json::json!("VALUES = [1, 2, 4]");
    payload["tool_response"]["filePath"] = serde_json::json!(path);
    payload["tool_response"]
        .as_object_mut()
        .unwrap()
        .remove("originalFile");
    let answer = project.hook_as("claude", "post-tool-use", &payload.to_string());
    assert!(
        answer
            .system_message()
            .contains("big.py: larger than 2 MiB"),
        "{}",
        answer.stdout
    );
    let stop = claude_stops(&project);
    assert!(
        stop.is_block(),
        "an edit of a big file is reviewed: {}",
        stop.stdout
    );
    assert!(files_to_review(&stop).contains("big.py"));
    let note = format!(
        "### big.py\n({} bytes, over car's 2 MiB read bound: its content was not read",
        edited.len()
    );
    let read = stop.what_the_agent_reads();
    assert!(read.contains(&note), "{read}");
}

/// Makes `relative` look changed an hour ago (before the session began).
fn age(project: &TestProject, relative: &str) {
    let file = std::fs::File::options()
        .write(true)
        .open(project.path().join(relative))
        .unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    file.set_modified(hour_ago).unwrap();
}

#[test]
fn changes_made_only_through_the_shell_are_validated_and_reviewed() {
    for (agent, folder, shell, stop) in SHELL_AGENTS {
        let project = TestProject::new();
        project.write("app.py", "VALUE = 1\n");
        project.write("legacy.py", "OLD = 1\n");
        project.commit_all();
        // Changed before the session: never its change.
        project.write("notes.py", "PERSON = 1\n");
        age(&project, "notes.py");
        // The session's only tool calls are shell commands.
        let command = "cat > gen.py <<'EOF'\ndef g(:\n    pass\nEOF";
        project.write("gen.py", "def g(:\n    pass\n");
        let answer = project.hook_as(
            agent,
            "post-tool-use",
            &project.shell_payload(folder, shell, command),
        );
        assert!(!answer.holds_back(), "{agent}: {}", answer.stdout);
        project.write("app.py", "VALUE = 2\n");
        std::fs::remove_file(project.path().join("legacy.py")).unwrap();
        let command = "sed -i s/1/2/ app.py && rm legacy.py";
        project.hook_as(
            agent,
            "post-tool-use",
            &project.shell_payload(folder, shell, command),
        );
        let stop_payload = project.fixture(&format!("captured/{folder}/{stop}"));
        let answer = project.hook_as(agent, "stop", &stop_payload);
        assert!(answer.holds_back(), "{agent}: {}", answer.stdout);
        let reason = answer.reason();
        let files = files_to_review(&answer);
        assert!(
            files.contains("gen.py") && files.contains("app.py") && files.contains("legacy.py"),
            "{agent}: {files}"
        );
        assert!(!files.contains("notes.py"), "{agent}: {files}");
        assert!(
            reason.contains("gen.py:1:7: SyntaxError"),
            "{agent}: a shell-written syntax error blocks: {reason}"
        );
        // Fixed through the shell: the error no longer blocks.
        project.write("gen.py", "def g():\n    pass\n");
        project.hook_as(
            agent,
            "post-tool-use",
            &project.shell_payload(folder, shell, "sed -i 's/g(:/g():/' gen.py"),
        );
        let answer = project.hook_as(agent, "stop", &stop_payload);
        assert!(
            !answer.reason().contains("SyntaxError"),
            "{agent}: {}",
            answer.stdout
        );
    }
}

#[test]
fn a_session_with_shell_commands_that_change_nothing_stops_without_a_review() {
    let (agent, folder, shell, stop) = SHELL_AGENTS[0];
    let project = TestProject::new();
    project.write("app.py", "VALUE = 1\n");
    project.commit_all();
    project.write("notes.py", "PERSON = 1\n");
    age(&project, "notes.py");
    project.hook_as(
        agent,
        "post-tool-use",
        &project.shell_payload(folder, shell, "ls && cat app.py"),
    );
    let answer = project.hook_as(
        agent,
        "stop",
        &project.fixture(&format!("captured/{folder}/{stop}")),
    );
    assert!(!answer.holds_back(), "{}", answer.stdout);
}

#[test]
fn outside_git_files_modified_since_the_baseline_are_the_sessions_changes() {
    let (agent, folder, shell, stop) = SHELL_AGENTS[0];
    let project = TestProject::plain();
    project.write("app.py", "VALUE = 1\n");
    age(&project, "app.py");
    project.write("gen.py", "def g(:\n    pass\n");
    project.hook_as(
        agent,
        "post-tool-use",
        &project.shell_payload(folder, shell, "cat > gen.py <<'EOF'\ndef g(:\nEOF"),
    );
    assert_eq!(project.run(&["deep-review", "init", "payments"]).code, 0);
    let answer = project.hook_as(
        agent,
        "stop",
        &project.fixture(&format!("captured/{folder}/{stop}")),
    );
    assert!(answer.holds_back(), "{}", answer.stdout);
    let files = files_to_review(&answer);
    assert!(
        files.contains("1 changed file: gen.py") || files.contains("gen.py"),
        "{files}"
    );
    assert!(
        !files.contains("app.py"),
        "changed before the session: {files}"
    );
    assert!(!files.contains("CLAUDE.md"), "car's own write: {files}");
    assert!(
        answer.reason().contains("gen.py:1:7: SyntaxError"),
        "{}",
        answer.reason()
    );
}
