//! The lessons of a file, given with the agent's read of it, before its first edit: Claude Code's
//! `Read` and Gemini CLI's `read_file` (their PostToolUse / AfterTool hooks run on reads), and a
//! shell command that shows a file (`cat`, `sed -n`, `nl`, `head`: how Codex reads). The same
//! rules as with a write: weight 2 or more, not retired, scope covers the file, at most 3 and
//! 1 KB, each once per file and session (the write after the read says nothing of them again),
//! never when `editBriefing` is off or lessons only observe. Payloads are the real CLIs' shapes.

use serde_json::{Value, json};

use crate::pre_tool_use::{CLAUDE, write};
use crate::support::{HookAnswer, TestProject};

const LOADER: &str =
    "Load settings with load_settings(path, strict=True); the lenient loader hides typos.";

const CLAUDE_BASE: &str = "captured/claude-code-2.1.332/02-PostToolUse-Edit.json";
const GEMINI_BASE: &str = "captured/gemini-cli-0.61.0/01-AfterTool-write_file.json";

fn project_with_lesson() -> TestProject {
    let project = TestProject::new();
    project.add_weighted_lesson("*.py", "load_settings_lenient(", LOADER, 3);
    project.write("app.py", "settings = load_settings(path, strict=True)\n");
    project
}

/// Claude Code's PostToolUse payload of its Read tool on `file`, as 2.1.332 sends it.
fn claude_read(project: &TestProject, file: &str) -> HookAnswer {
    let mut payload = project.fixture_json(CLAUDE_BASE);
    let path = project.path().join(file);
    let content = std::fs::read_to_string(&path).unwrap_or_default();
    // The session of the PreToolUse payloads the write below is sent in.
    payload["session_id"] = project.fixture_json(CLAUDE)["session_id"].clone();
    payload["tool_name"] = json!("Read");
    payload["tool_input"] = json!({"file_path": path});
    payload["tool_response"] = json!({"type": "text", "file": {
        "filePath": path, "content": content, "numLines": content.lines().count(),
        "startLine": 1, "totalLines": content.lines().count()}});
    project.hook_as("claude", "post-tool-use", &payload.to_string())
}

fn gemini_read(project: &TestProject, file: &str) -> HookAnswer {
    let mut payload = project.fixture_json(GEMINI_BASE);
    payload["tool_name"] = json!("read_file");
    payload["tool_input"] = json!({"file_path": project.path().join(file)});
    payload["tool_response"] = json!({"llmContent": "x = 1\n", "returnDisplay": ""});
    project.hook_as("gemini", "post-tool-use", &payload.to_string())
}

fn shell(project: &TestProject, agent: &str, command: &str) -> HookAnswer {
    let (folder, name) = match agent {
        "codex" => ("codex-0.171.0", "04-PostToolUse-Bash.json"),
        _ => ("claude-code-2.1.332", "05-PostToolUse-Bash.json"),
    };
    let payload = project.shell_payload(folder, name, command);
    project.hook_as(agent, "post-tool-use", &payload)
}

/// The context of a PostToolUse answer that lets the tool's result through unchanged.
fn context_of(answer: &HookAnswer, event: &str) -> String {
    assert_eq!(answer.code, 0, "{}", answer.stdout);
    assert!(
        answer.json.get("decision").is_none(),
        "a read is never blocked: {}",
        answer.stdout
    );
    let output = &answer.json["hookSpecificOutput"];
    if output.is_null() {
        return String::new();
    }
    assert_eq!(output["hookEventName"], event, "{}", answer.stdout);
    answer.context()
}

#[test]
fn claude_code_gets_the_lessons_of_the_file_it_reads_before_editing_it() {
    let project = project_with_lesson();
    let context = context_of(&claude_read(&project, "app.py"), "PostToolUse");
    assert!(
        context.starts_with("car: the lessons of this project for app.py,"),
        "{context}"
    );
    assert!(context.contains(LOADER), "{context}");
    assert_eq!(
        context_of(&claude_read(&project, "app.py"), "PostToolUse"),
        "",
        "once per file and session"
    );
    // The write after the read says nothing of them again.
    let before_write = write(&project, "app.py", "x = 1\n");
    assert_eq!(before_write.code, 0);
    assert!(
        !before_write.stdout.contains(LOADER),
        "{}",
        before_write.stdout
    );
    // A file no lesson's scope covers, a file that is not there, one outside the project: nothing.
    project.write("README.md", "# notes\n");
    for file in ["README.md", "missing.py", "../outside.py"] {
        let answer = claude_read(&project, file);
        assert_eq!(context_of(&answer, "PostToolUse"), "", "{file}");
        assert!(
            answer.json.get("systemMessage").is_none(),
            "{file}: {}",
            answer.stdout
        );
    }
}

#[test]
fn gemini_cli_gets_them_with_its_read_file_result() {
    let project = project_with_lesson();
    let context = context_of(&gemini_read(&project, "app.py"), "AfterTool");
    assert!(context.contains(LOADER), "{context}");
    assert_eq!(
        context_of(&gemini_read(&project, "app.py"), "AfterTool"),
        ""
    );
}

#[test]
fn a_shell_command_that_shows_a_file_is_a_read() {
    for command in [
        "sed -n '1,80p' app.py",
        "nl -ba app.py | head -n 40",
        "cat ./app.py",
        "bash -lc 'head -20 app.py'",
    ] {
        let project = project_with_lesson();
        let context = context_of(&shell(&project, "codex", command), "PostToolUse");
        assert!(context.contains(LOADER), "{command}: {context}");
        assert!(
            context.starts_with("car: the lessons of this project for app.py,"),
            "{command}: {context}"
        );
    }
    // Claude Code's Bash too.
    let project = project_with_lesson();
    let context = context_of(&shell(&project, "claude", "cat app.py"), "PostToolUse");
    assert!(context.contains(LOADER), "{context}");
}

#[test]
fn a_command_that_only_runs_or_writes_a_file_is_not_a_read() {
    for command in [
        "python app.py",
        "echo x > app.py",
        "cat > notes.py <<'EOF'\ny = 1\nEOF",
        "cat $FILE",
        "ls",
    ] {
        let project = project_with_lesson();
        let answer = shell(&project, "codex", command);
        assert!(
            !answer.stdout.contains(LOADER),
            "{command}: {}",
            answer.stdout
        );
    }
}

#[test]
fn turned_off_or_observing_gives_nothing_with_a_read() {
    for settings in [
        r#"{"claude-auto-review": {"editBriefing": false}}"#,
        r#"{"claude-auto-review": {"learning": "observe"}}"#,
    ] {
        let project = project_with_lesson();
        project.write(".claude/settings.json", settings);
        for answer in [
            claude_read(&project, "app.py"),
            shell(&project, "codex", "cat app.py"),
        ] {
            assert!(
                !answer.stdout.contains(LOADER),
                "{settings}: {}",
                answer.stdout
            );
        }
    }
}

/// `car install` wires the read tools into the hook that answers after a tool runs.
#[test]
fn install_wires_the_read_tools() {
    let project = TestProject::new();
    for (agent, file, event, tool) in [
        ("claude", ".claude/settings.json", "PostToolUse", "Read"),
        ("gemini", ".gemini/settings.json", "AfterTool", "read_file"),
    ] {
        let run = project.run(&["install", "--agent", agent, "--non-interactive", "--no-mcp"]);
        assert_eq!(run.code, 0, "{run:?}");
        let settings: Value =
            serde_json::from_str(&std::fs::read_to_string(project.path().join(file)).unwrap())
                .unwrap();
        let matcher = settings["hooks"][event][0]["matcher"]
            .as_str()
            .unwrap_or_default();
        assert!(matcher.contains(tool), "{agent}: {matcher}");
    }
}

/// A hook file an older car wrote (no reads in its matcher): `car status` says so, and
/// `car install` updates the matcher in place; with `editBriefing: false` reads are left out.
#[test]
fn status_names_a_matcher_an_older_car_wired() {
    let project = TestProject::new();
    let run = project.run(&[
        "install",
        "--agent",
        "claude",
        "--non-interactive",
        "--no-mcp",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let file = project.path().join(".claude/settings.json");
    let current = std::fs::read_to_string(&file).unwrap();
    let older = current.replace("NotebookEdit|Bash|Read", "NotebookEdit|Bash");
    assert_ne!(older, current);
    std::fs::write(&file, older).unwrap();
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains(
            "hint: car's PostToolUse hook here matches `Write|Edit|MultiEdit|NotebookEdit|Bash`, not `Write|Edit|MultiEdit|NotebookEdit|Bash|Read`"
        ),
        "{}",
        status.stdout
    );
    let run = project.run(&[
        "install",
        "--agent",
        "claude",
        "--non-interactive",
        "--no-mcp",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), current);
    assert!(
        !project
            .run(&["status"])
            .stdout
            .contains("an older car wired it")
    );
}
