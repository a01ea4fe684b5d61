//! The lessons of a file, given to the agent with a write car lets through: those the
//! session-start briefing would hold (weight 2 or more, not retired) whose scope covers the file,
//! at most 3 and 1 KB, each once per file and session, as `additionalContext` of `car hook
//! pre-tool-use` where the client passes that to its model (Claude Code, Codex) and of `car hook
//! post-tool-use` where only that one reaches it (Gemini CLI); never with a denied write, never
//! when `editBriefing` is off or lessons only observe. Payloads are the ones the real CLIs sent.

use serde_json::{Value, json};

use crate::pre_tool_use::{CLAUDE, CODEX, before_tool, denied, write};
use crate::support::{HookAnswer, TestProject};

const GEMINI: &str = "captured/gemini-cli-0.61.0/before-tool/01-BeforeTool-write_file.json";

const LOADER: &str =
    "Load settings with load_settings(path, strict=True); the lenient loader hides typos.";

/// The context before the write, asserting the answer lets it through in the shape Claude Code
/// and Codex read: `hookSpecificOutput` for PreToolUse with `additionalContext` and no decision.
fn briefed(answer: &HookAnswer) -> String {
    assert_eq!(answer.code, 0);
    let output = &answer.json["hookSpecificOutput"];
    if output.is_null() {
        return String::new();
    }
    assert_eq!(output["hookEventName"], "PreToolUse", "{}", answer.stdout);
    assert!(
        output.get("permissionDecision").is_none(),
        "an allowed write carries no permission decision: {}",
        answer.stdout
    );
    answer.context()
}

fn project_with_lesson() -> TestProject {
    let project = TestProject::new();
    project.add_weighted_lesson("*.py", "load_settings_lenient(", LOADER, 3);
    project
}

fn lessons_file(project: &TestProject, lessons: Value) {
    project.write(
        ".claude/claude-auto-review/lessons.json",
        &json!({ "lessons": lessons }).to_string(),
    );
}

#[test]
fn the_lesson_of_a_file_is_given_once_per_file_and_session() {
    let project = project_with_lesson();
    let first = briefed(&write(&project, "app.py", "x = 1\n"));
    assert!(
        first.starts_with("car: the lessons of this project for app.py,"),
        "{first}"
    );
    assert!(first.contains(LOADER), "{first}");
    assert!(first.contains("`load_settings_lenient(`"), "{first}");
    assert_eq!(
        briefed(&write(&project, "app.py", "x = 2\n")),
        "",
        "given once for the file in this session"
    );
    let other = briefed(&write(&project, "tools/other.py", "y = 1\n"));
    assert!(other.contains(LOADER), "another file gets it too: {other}");
    // Another session is told again.
    let mut payload: Value = serde_json::from_str(&before_tool(
        &project,
        CLAUDE,
        "Write",
        json!({"file_path": project.path().join("app.py"), "content": "x = 3\n"}),
    ))
    .unwrap();
    payload["session_id"] = Value::from("another-session");
    let again = project.hook_as("claude", "pre-tool-use", &payload.to_string());
    assert!(briefed(&again).contains(LOADER), "{}", again.stdout);
}

#[test]
fn at_most_three_lessons_and_one_kilobyte_heaviest_first() {
    let project = TestProject::new();
    let lessons: Vec<Value> = (0..6)
        .map(|index| {
            json!({"scope": "*.py", "triggers": [format!("legacy_call_{index}(")],
                   "lesson": format!("lesson {index}: {}", "use the new call instead. ".repeat(index * 3)),
                   "weight": 2 + index, "created": "2026-05-21"})
        })
        .collect();
    lessons_file(&project, Value::Array(lessons));
    let context = briefed(&write(&project, "app.py", "x = 1\n"));
    let lines: Vec<&str> = context.lines().skip(1).collect();
    assert!(!lines.is_empty() && lines.len() <= 3, "{context}");
    assert!(context.len() <= 1024, "{} bytes: {context}", context.len());
    assert!(lines[0].contains("lesson 5"), "heaviest first: {context}");
    // Short lessons: three of them, never a fourth.
    let project = TestProject::new();
    for index in 0..5 {
        project.add_weighted_lesson(
            "*.py",
            &format!("old_api_{index}("),
            &format!("short lesson {index}"),
            3,
        );
    }
    let context = briefed(&write(&project, "app.py", "x = 1\n"));
    assert_eq!(
        context.lines().count(),
        4,
        "a header and three lessons: {context}"
    );
}

/// A lesson the write repeats is said by its warning after the edit, not twice.
#[test]
fn a_lesson_the_write_repeats_is_left_to_the_warning_after_it() {
    let project = project_with_lesson();
    project.add_weighted_lesson("*.py", "os.path.join(", "use pathlib", 3);
    let context = briefed(&write(
        &project,
        "app.py",
        "import os\np = os.path.join('a', 'b')\n",
    ));
    assert!(context.contains(LOADER), "{context}");
    assert!(!context.contains("use pathlib"), "{context}");
}

#[test]
fn light_retired_and_other_scope_lessons_are_not_given() {
    let project = TestProject::new();
    lessons_file(
        &project,
        json!([
            {"scope": "*.py", "triggers": ["light_call("], "lesson": "light lesson", "weight": 1},
            {"scope": "*.py", "triggers": ["retired_call("], "lesson": "retired lesson", "weight": 4,
             "heeded": 0, "ignored": 5},
            {"scope": "*.rs", "triggers": ["unwrap_or_default("], "lesson": "rust lesson", "weight": 4},
            {"scope": "src/**/*.py", "triggers": ["src_only_call("], "lesson": "src lesson", "weight": 4}
        ]),
    );
    assert_eq!(briefed(&write(&project, "app.py", "x = 1\n")), "");
    let context = briefed(&write(&project, "src/app.py", "x = 1\n"));
    assert!(context.contains("src lesson"), "{context}");
    for absent in ["light lesson", "retired lesson", "rust lesson"] {
        assert!(!context.contains(absent), "{absent}: {context}");
    }
}

#[test]
fn turned_off_or_observing_gives_nothing() {
    for settings in [
        r#"{"claude-auto-review": {"editBriefing": false}}"#,
        r#"{"claude-auto-review": {"learning": "observe"}}"#,
    ] {
        let project = project_with_lesson();
        project.write(".claude/settings.json", settings);
        let answer = write(&project, "app.py", "x = 1\n");
        assert_eq!(briefed(&answer), "", "{settings}: {}", answer.stdout);
        assert!(
            !answer.stdout.contains(LOADER),
            "{settings}: {}",
            answer.stdout
        );
    }
    // Stopping writes turned off leaves the lessons of the file on.
    let project = project_with_lesson();
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"preventEdits": false}}"#,
    );
    assert!(briefed(&write(&project, "app.py", "def f(:\n")).contains(LOADER));
}

#[test]
fn a_denied_write_gets_the_deny_alone_and_the_next_write_the_lesson() {
    let project = project_with_lesson();
    let answer = write(&project, "app.py", "def f(:\n    return 1\n");
    let reason = denied(&answer);
    assert!(!reason.contains(LOADER), "{reason}");
    assert!(!answer.stdout.contains(LOADER), "{}", answer.stdout);
    assert!(
        !remembers_a_lesson(&project),
        "nothing given, nothing remembered"
    );
    let context = briefed(&write(&project, "app.py", "def f():\n    return 1\n"));
    assert!(
        context.contains(LOADER),
        "not spent on the denied write: {context}"
    );
}

#[test]
fn codex_reads_it_from_its_pre_tool_use_answer() {
    let project = project_with_lesson();
    let patch = "*** Begin Patch\n*** Add File: app.py\n+x = 1\n*** Add File: notes.py\n+y = 2\n*** End Patch\n";
    let answer = project.hook_as(
        "codex",
        "pre-tool-use",
        &before_tool(&project, CODEX, "apply_patch", json!({"command": patch})),
    );
    let context = briefed(&answer);
    assert!(
        context.starts_with("car: the lessons of this project for app.py, notes.py,"),
        "{context}"
    );
    assert_eq!(
        context.matches(LOADER).count(),
        1,
        "one line for both files: {context}"
    );
}

/// Gemini CLI's BeforeTool drops context: car says nothing there and remembers nothing; its
/// AfterTool appends context to the tool's result, which is where Claude Code and Codex put the
/// PreToolUse context too: the lessons come there, once per file and session, never with a block.
#[test]
fn gemini_cli_gets_them_after_the_tool_instead() {
    let project = project_with_lesson();
    let answer = project.hook_as(
        "gemini",
        "pre-tool-use",
        &before_tool(
            &project,
            GEMINI,
            "write_file",
            json!({"file_path": project.path().join("app.py"), "content": "x = 1\n"}),
        ),
    );
    assert_eq!(answer.json, json!({}), "{}", answer.stdout);
    assert!(!remembers_a_lesson(&project), "nothing remembered");
    let after_tool = |file: &str, content: &str| {
        let mut payload =
            project.fixture_json("captured/gemini-cli-0.61.0/01-AfterTool-write_file.json");
        let path = project.path().join(file);
        project.write(file, content);
        payload["tool_input"] = json!({"file_path": path, "content": content});
        let display = &mut payload["tool_response"]["returnDisplay"];
        display["filePath"] = json!(path);
        display["newContent"] = json!(content);
        project.hook_as("gemini", "post-tool-use", &payload.to_string())
    };
    let blocked = after_tool("broken.py", "def f(:\n");
    assert_eq!(blocked.json["decision"], "deny", "{}", blocked.stdout);
    assert!(!blocked.stdout.contains(LOADER), "{}", blocked.stdout);
    let answer = after_tool("app.py", "x = 1\n");
    assert_eq!(
        answer.json["hookSpecificOutput"]["hookEventName"], "AfterTool",
        "{}",
        answer.stdout
    );
    assert!(
        answer
            .context()
            .starts_with("car: the lessons of this project for app.py,"),
        "{}",
        answer.stdout
    );
    assert!(answer.context().contains(LOADER), "{}", answer.stdout);
    let again = after_tool("app.py", "x = 2\n");
    assert!(
        !again.stdout.contains(LOADER),
        "once per file: {}",
        again.stdout
    );
}

/// Whether a session's folder holds the lessons it was given before edits.
fn remembers_a_lesson(project: &TestProject) -> bool {
    let clients = project.path().join(".claude/claude-auto-review/clients");
    std::fs::read_dir(clients).is_ok_and(|sessions| {
        sessions
            .flatten()
            .any(|session| session.path().join("briefed-lessons.json").exists())
    })
}
