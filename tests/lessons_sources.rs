//! Every lesson carries where it came from (added, imported, starter, validator, review,
//! reversal) and every text says it truly: a lesson a person added is not "learned", a
//! candidate seen once is no "repeated" error (issue "The gate and the lesson commands tell the
//! truth", item 5). Through the binary.

use serde_json::{Value, json};

use crate::support::TestProject;

fn list(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

fn session_start(project: &TestProject) -> String {
    let payload = json!({"session_id": "s1", "cwd": project.path(),
        "hook_event_name": "SessionStart", "source": "startup"});
    let answer = project.hook("session-start", &payload.to_string());
    answer.context()
}

#[test]
fn a_lesson_a_person_added_is_called_added_everywhere() {
    let project = TestProject::new();
    project.write("app.py", "x = 1\n");
    project.add_weighted_lesson("*.py", "yaml.load(", "Use yaml.safe_load.", 7);
    let lessons = list(&project);
    assert_eq!(lessons[0]["source"], "added", "{lessons:?}");
    let briefing = session_start(&project);
    assert!(
        briefing.contains("(from lessons people added)"),
        "the briefing does not claim mistakes made here: {briefing}"
    );
    assert!(!briefing.contains("mistakes made here"), "{briefing}");
    let payload = json!({"session_id": "s1", "cwd": project.path(),
        "hook_event_name": "PreToolUse", "tool_name": "Write",
        "tool_input": {"file_path": project.path().join("load.py"),
                       "content": "import yaml\ndata = yaml.load(text)\n"}});
    let denied = project.hook_as("claude", "pre-tool-use", &payload.to_string());
    let reason = denied.json["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains("it repeats what a lesson of this project warns about"),
        "{reason}"
    );
    assert!(!reason.contains("car learned"), "{reason}");
}

#[test]
fn imported_and_starter_lessons_say_so() {
    let project = TestProject::new();
    project.write("app.py", "x = 1\n");
    project.write(
        "team-lessons.json",
        r#"{"lessons": [{"scope": "*.py", "triggers": ["os.system("], "lesson": "Use subprocess.", "weight": 3}]}"#,
    );
    assert_eq!(
        project
            .run(&["lessons", "import", "team-lessons.json"])
            .code,
        0
    );
    assert_eq!(
        project
            .run(&["install", "--starter-lessons", "--non-interactive"])
            .code,
        0
    );
    let lessons = list(&project);
    let source_of = |trigger: &str| {
        lessons
            .iter()
            .find(|lesson| lesson["triggers"][0] == trigger)
            .map(|lesson| lesson["source"].clone())
    };
    assert_eq!(source_of("os.system("), Some(json!("imported")));
    assert!(
        lessons
            .iter()
            .filter(|lesson| lesson["triggers"][0] != "os.system(")
            .all(|lesson| lesson["source"] == "starter"),
        "{lessons:?}"
    );
    let briefing = session_start(&project);
    assert!(
        briefing.contains("imported lessons") && briefing.contains("car's starter set"),
        "{briefing}"
    );
}

#[test]
fn a_candidate_seen_once_is_no_repeated_error() {
    let project = TestProject::new();
    project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "import nosuchmodule_zq\n", None),
    );
    let run = project.run(&["lessons", "candidates"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("seen as a checker error [python]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("repeated"), "{}", run.stdout);
}
