//! `car hook session-start`: the session's baseline taken when the agent starts it (Claude Code,
//! Codex and Gemini CLI send SessionStart), so what was already changed then is never the
//! session's, and everything the session changes after — through its shell too — is.

use crate::support::{HookAnswer, SHELL_AGENTS as AGENTS, TestProject};

/// The agent's SessionStart payload for the session of its captured payloads.
pub(crate) fn session_start(
    project: &TestProject,
    folder: &str,
    stop: &str,
    source: &str,
) -> String {
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
pub(crate) fn committed_project() -> TestProject {
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

/// The agent's shell tool ran `command` (its captured payload, `shell_name`).
fn ran(project: &TestProject, agent: &str, folder: &str, shell_name: &str, command: &str) {
    project.hook_as(
        agent,
        "post-tool-use",
        &project.shell_payload(folder, shell_name, command),
    );
}

/// The agent's first shell command writes `gen.py` with a syntax error and names the person's
/// `notes.py` on its command line.
fn writes_gen_py_naming_notes(project: &TestProject, agent: &str, folder: &str, shell_name: &str) {
    project.write("gen.py", "def g(:\n    pass\n");
    let command = "cat notes.py && cat > gen.py <<'EOF'\ndef g(:\nEOF";
    ran(project, agent, folder, shell_name, command);
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

pub(crate) fn session_folders(project: &TestProject) -> Vec<std::path::PathBuf> {
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
        writes_gen_py_naming_notes(&project, agent, folder, shell_name);
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
    writes_gen_py_naming_notes(&project, agent, folder, shell_name);
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
    ran(&project, agent, folder, shell_name, "sed -i s/1/2/ app.py");
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

/// The briefing: at session start the agent is told the project's lessons that apply to its
/// files, heaviest first, as context in its own shape; lessons for files the project does not
/// have, and light ones (offers to the person), are left out.
#[test]
fn the_session_starts_with_the_lessons_that_apply_to_the_projects_files() {
    for (agent, folder, _, stop_name) in AGENTS {
        let project = committed_project();
        for (scope, trigger, lesson, weight) in [
            (
                "**/*.py",
                "yaml.load(",
                "Write `yaml.safe_load(`, not `yaml.load(`.",
                5,
            ),
            (
                "**/*.py",
                "verify=False",
                "Never turn off TLS verification.",
                8,
            ),
            ("**/*.go", "ioutil.ReadAll", "Use io.ReadAll.", 9),
            ("**/*.py", "print(", "Use the logger.", 1),
        ] {
            project.add_weighted_lesson(scope, trigger, lesson, weight);
        }
        let started = start(&project, agent, folder, stop_name, "startup");
        let output = &started.json["hookSpecificOutput"];
        assert_eq!(
            output["hookEventName"], "SessionStart",
            "{agent}: {}",
            started.stdout
        );
        let context = output["additionalContext"].as_str().unwrap_or_default();
        let tls = context.find("`verify=False`").expect(context);
        let yaml = context.find("`yaml.load(`").expect(context);
        assert!(tls < yaml, "heaviest first: {context}");
        assert!(!context.contains("ioutil"), "no Go file here: {context}");
        assert!(
            !context.contains("logger"),
            "weight 1 is an offer, not advice: {context}"
        );
        assert!(context.len() <= 4096, "{}", context.len());
        assert!(
            started.json.get("systemMessage").is_none(),
            "{}",
            started.stdout
        );
    }
}

/// A large library is briefed within 4 KB, never cut inside a lesson's line.
#[test]
fn the_briefing_of_a_large_library_stays_within_four_kilobytes() {
    let (agent, folder, _, stop_name) = AGENTS[0];
    let project = committed_project();
    let lessons: Vec<serde_json::Value> = (0..300)
        .map(|n| {
            serde_json::json!({"scope": "**/*.py", "triggers": [format!("legacy_call_{n}(")],
                "lesson": format!("Call modern_call_{n}() instead; the legacy one drops errors."),
                "weight": 2 + n % 7})
        })
        .collect();
    project.write(
        ".claude/claude-auto-review/lessons.json",
        &serde_json::json!({"lessons": lessons}).to_string(),
    );
    let started = start(&project, agent, folder, stop_name, "startup");
    let context = started.json["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(!context.is_empty(), "{}", started.stdout);
    assert!(context.len() <= 4096, "{}", context.len());
    assert!(
        context
            .lines()
            .skip(1)
            .all(|line| line.ends_with("drops errors.")),
        "whole lines only: {context}"
    );
    assert!(
        context.contains("weight 8"),
        "the heaviest first: {context}"
    );
    assert!(!context.contains("weight 2)"), "{context}");
}

/// `"sessionBriefing": false` turns the briefing off; the baseline is still taken.
#[test]
fn the_briefing_can_be_turned_off() {
    let (agent, folder, _, stop_name) = AGENTS[0];
    let project = committed_project();
    project.add_weighted_lesson(
        "**/*.py",
        "verify=False",
        "Never turn off TLS verification.",
        8,
    );
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"sessionBriefing": false}}"#,
    );
    let started = start(&project, agent, folder, stop_name, "startup");
    assert_eq!(started.json, serde_json::json!({}), "{}", started.stdout);
    let held = session_folders(&project)
        .into_iter()
        .any(|folder| folder.join("start-baseline.json").exists());
    assert!(held, "the baseline is taken all the same");
}

/// The ranked lessons are cached beside the library, and a changed library is ranked again.
#[test]
fn a_changed_library_is_briefed_as_it_is_now() {
    let (agent, folder, _, stop_name) = AGENTS[0];
    let project = committed_project();
    let add = |trigger: &str, weight: u32| {
        project.add_weighted_lesson("**/*.py", trigger, "Not this call.", weight);
    };
    add("first_call(", 4);
    let context = |answer: &HookAnswer| {
        answer.json["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let first = start(&project, agent, folder, stop_name, "startup");
    assert!(context(&first).contains("first_call("), "{}", first.stdout);
    assert!(project.exists(".claude/claude-auto-review/lessons.json.briefing"));
    add("second_call(", 9);
    let second = start(&project, agent, folder, stop_name, "resume");
    let text = context(&second);
    let (heavy, light) = (
        text.find("second_call(").expect(&text),
        text.find("first_call(").expect(&text),
    );
    assert!(heavy < light, "{text}");
}
