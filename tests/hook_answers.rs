//! What each agent reads back, byte for byte: the answers of `car hook …` to the real payload
//! fixtures of Claude Code, Codex, Gemini CLI and Cursor, as insta snapshots (temporary paths
//! redacted), so any change to a message is a reviewed diff.
//!
//! Per agent: an edit that leaves the file valid, the same edit when the file has a syntax error,
//! an edit that hits a lesson, and the stop that follows (a manual review request).

use serde_json::{Value, json};

use crate::support::TestProject;

/// 2026-11-29T12:00:00Z: every date in an answer is pinned.
const NOW: &str = "1795953600";

const LOADER: &str = "def load(path):\n    return open(path, encoding='utf-8').read()\n";

const LESSON: &str = r#"{"lessons": [{"id": "pathlib", "scope": "*.py",
  "triggers": ["encoding='utf-8'", "os.path.exists("],
  "lesson": "This project reads files through pathlib.Path (read_text with its default encoding)",
  "weight": 3}]}"#;

/// An agent's fixtures and the content its edit leaves in `src/app.py`.
struct Agent {
    name: &'static str,
    edit_fixture: &'static str,
    stop_fixture: &'static str,
    hook_event: &'static str,
}

const AGENTS: [Agent; 4] = [
    Agent {
        name: "claude",
        edit_fixture: "claude-post-edit.json",
        stop_fixture: "claude-stop.json",
        hook_event: "stop",
    },
    Agent {
        name: "codex",
        edit_fixture: "codex-post-apply-patch.json",
        stop_fixture: "codex-stop.json",
        hook_event: "stop",
    },
    Agent {
        name: "gemini",
        edit_fixture: "gemini-after-tool-replace.json",
        stop_fixture: "gemini-after-agent.json",
        hook_event: "stop",
    },
    Agent {
        name: "cursor",
        edit_fixture: "cursor-after-file-edit.json",
        stop_fixture: "cursor-stop.json",
        hook_event: "stop",
    },
];

/// The file as each fixture's edit leaves it: valid, or with a syntax error after the edit.
fn edited_files(agent: &Agent, broken: bool) -> Vec<(&'static str, String)> {
    let tail = if broken {
        "\n\ndef broken(:\n    pass\n"
    } else {
        ""
    };
    match agent.name {
        "claude" => vec![(
            "src/app.py",
            format!(
                "def load(path):\n    import os.path\n    if not os.path.exists(path):\n        return None\n    return open(path).read()\n{tail}"
            ),
        )],
        "codex" => vec![
            (
                "src/app.py",
                format!(
                    "def load(path):\n    with open(path) as fh:\n        return fh.read(){tail}\n"
                ),
            ),
            (
                "src/util.py",
                "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n".to_string(),
            ),
        ],
        _ => vec![("src/app.py", format!("{LOADER}{tail}"))],
    }
}

fn project_for(agent: &Agent, broken: bool, lessons: bool) -> TestProject {
    let mut project = TestProject::new();
    project.at(NOW);
    project.write(
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    if lessons {
        project.write(".claude/claude-auto-review/lessons.json", LESSON);
    }
    project.commit_all();
    for (file, content) in edited_files(agent, broken) {
        project.write(file, &content);
    }
    project
}

fn post_edit(agent: &Agent, broken: bool, lessons: bool) -> (TestProject, Value) {
    let project = project_for(agent, broken, lessons);
    let answer = project.post_fixture(agent.edit_fixture);
    assert_eq!(answer.code, 0, "{answer:?}");
    let redacted = answer.redacted(&project);
    (project, redacted)
}

#[test]
fn edit_answers_of_every_agent() {
    let mut answers = serde_json::Map::new();
    for agent in &AGENTS {
        let (_, clean) = post_edit(agent, false, false);
        let (_, broken) = post_edit(agent, true, false);
        answers.insert(
            agent.name.to_string(),
            json!({"valid file": clean, "syntax error": broken}),
        );
    }
    insta::assert_json_snapshot!("edit_answers", answers);
}

#[test]
fn lesson_warning_of_every_agent() {
    let mut answers = serde_json::Map::new();
    for agent in AGENTS.iter().filter(|agent| agent.name != "codex") {
        let (_, warned) = post_edit(agent, false, true);
        answers.insert(agent.name.to_string(), warned);
    }
    insta::assert_json_snapshot!("lesson_warnings", answers);
}

#[test]
fn stop_answers_of_every_agent() {
    let mut answers = serde_json::Map::new();
    for agent in &AGENTS {
        let (project, _) = post_edit(agent, false, false);
        let mut stop = project.fixture_json(agent.stop_fixture);
        // The edit and the stop of one session.
        let edit = project.fixture_json(agent.edit_fixture);
        for key in ["session_id", "conversation_id"] {
            if let Some(id) = edit.get(key) {
                stop[key] = id.clone();
            }
        }
        let answer = project.hook(agent.hook_event, &stop.to_string());
        assert_eq!(answer.code, 0, "{answer:?}");
        let mut redacted = answer.redacted(&project);
        // The request embeds the review prompt; its first lines say what the agent must do.
        for key in ["reason", "followup_message"] {
            if let Some(Value::String(text)) = redacted.get_mut(key) {
                let head: Vec<&str> = text.lines().take(6).collect();
                *text = head.join("\n");
            }
        }
        answers.insert(agent.name.to_string(), redacted);
    }
    insta::assert_json_snapshot!("stop_answers", answers);
}

#[test]
fn answers_to_the_other_events() {
    let project = TestProject::new();
    let mut answers = serde_json::Map::new();
    for (event, fixture) in [
        ("stop", "claude-subagent-stop.json"),
        ("stop", "claude-stop-active.json"),
        ("session-end", "claude-session-end.json"),
        ("session-end", "codex-session-end.json"),
        ("session-end", "gemini-session-end.json"),
        ("post-tool-use", "claude-post-bash-rm.json"),
    ] {
        let answer = project.hook(event, &project.fixture(fixture));
        answers.insert(fixture.to_string(), answer.redacted(&project));
    }
    for (name, payload) in [
        ("empty stdin", ""),
        ("not JSON", "{\"session_id\": "),
        (
            "no cwd",
            "{\"session_id\": \"s\", \"hook_event_name\": \"Stop\"}",
        ),
    ] {
        let answer = project.hook("post-tool-use", payload);
        answers.insert(name.to_string(), answer.redacted(&project));
    }
    insta::assert_json_snapshot!("other_events", answers);
}

/// Codex's and Gemini CLI's SessionEnd, in their real shapes, close the session their edit
/// opened: the lifecycle log names the agent's own reason and the change no review covered.
#[test]
fn session_end_of_codex_and_gemini_closes_the_edits_session() {
    for (agent, fixture, reason) in [
        (&AGENTS[1], "codex-session-end.json", "other"),
        (&AGENTS[2], "gemini-session-end.json", "exit"),
    ] {
        let (project, _) = post_edit(agent, false, false);
        let answer = project.hook("session-end", &project.fixture(fixture));
        assert_eq!(answer.code, 0, "{}: {answer:?}", agent.name);
        let lifecycle = project.read(".claude/claude-auto-review/state.jsonl");
        let ended = format!(
            "\"event\":\"session_ended\",\"reason\":\"{reason}\",\"unreviewed\":[\"src/app.py\""
        );
        assert!(lifecycle.contains(&ended), "{}: {lifecycle}", agent.name);
    }
}
