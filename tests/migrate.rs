//! `car install` moves a project over from car's predecessors: the Python claude-auto-review tool
//! and the Python lesson hook (seed format).

use serde_json::{Value, json};

use crate::support::TestProject;

/// The Python tool's hooks as its installer writes them, beside a hook of the user's.
fn python_tool_settings() -> Value {
    json!({
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit"}]},
                {"matcher": "Write|Edit|MultiEdit|Delete|Remove|Bash|PowerShell",
                 "hooks": [{"type": "command", "command": "python -m claude_auto_review.hooks.post_tool_use",
                            "timeout": 10, "statusMessage": "Claude Auto Review: tracking changed file..."}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "python -m claude_auto_review.hooks.stop_hook",
                                 "timeout": 660, "statusMessage": "Claude Auto Review: checking review state..."}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "python -m claude_auto_review.hooks.session_end",
                                       "timeout": 10, "statusMessage": "Claude Auto Review: cleaning session state..."}]}]
        },
        "claude-auto-review": {"enabled": true, "rulesFile": ".claude/claude-auto-review/review-rules.md",
                               "staleClientTimeoutHours": 48.0, "minimumBlockingSeverity": "high"}
    })
}

fn stop_commands(settings: &Value) -> Vec<String> {
    settings["hooks"]["Stop"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|group| group["hooks"].as_array().unwrap().clone())
        .map(|hook| hook["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn install_over_the_python_tool_leaves_one_stop_gate() {
    let mut project = TestProject::new();
    project.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&python_tool_settings()).unwrap(),
    );
    project.write(
        ".claude/claude-auto-review/review-rules.md",
        "# our rules\n",
    );
    project.write(
        ".claude/claude-auto-review/clients/client-20260101-120000_abc/state.jsonl",
        "{\"timestamp\": \"2026-01-01T12:00:00\", \"type\": \"edit\", \"file\": \"a.py\"}\n",
    );
    let run = project.run(&["install", "--non-interactive"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("replaced the Python claude-auto-review hooks")
            && run
                .stderr
                .contains("Stop `python -m claude_auto_review.hooks.stop_hook`"),
        "says what it replaced: {}",
        run.stderr
    );
    let settings = project.read_json(".claude/settings.json");
    assert_eq!(
        stop_commands(&settings),
        ["car hook stop --agent claude"],
        "one Stop gate"
    );
    let text = project.read(".claude/settings.json");
    assert!(!text.contains("claude_auto_review.hooks"), "{text}");
    assert!(text.contains("my-audit"), "the user's hook stays: {text}");
    assert_eq!(
        settings["claude-auto-review"]["rulesFile"], ".claude/claude-auto-review/review-rules.md",
        "its rulesFile is kept"
    );
    assert_eq!(
        project.read(".claude/claude-auto-review/review-rules.md"),
        "# our rules\n"
    );
    // Its state coexists: a session end does not remove the Python tool's session folders.
    let mut end = project.fixture_json("claude-session-end.json");
    end["session_id"] = json!("other");
    project.at("4000000000");
    let answer = project.hook("session-end", &end.to_string());
    assert_eq!(answer.code, 0);
    assert!(
        project.exists(".claude/claude-auto-review/clients/client-20260101-120000_abc/state.jsonl")
    );
    let again = project.run(&["install", "--non-interactive"]);
    assert!(
        again.stderr.contains("nothing changed") && !again.stderr.contains("replaced"),
        "{again:?}"
    );
}

#[test]
fn seed_003_lessons_and_candidates_are_imported_and_its_hook_replaced() {
    let mut project = TestProject::new();
    // The seed's own dates: no lesson is old enough to decay away between the two installs.
    project.at("1779400000");
    project.write(
        ".claude/settings.json",
        r#"{"hooks": {"PostToolUse": [{"matcher": "Edit|Write|MultiEdit", "hooks": [{"type": "command", "command": "python3 .claude/hooks/validate-edit.py"}]}]}}"#,
    );
    project.write(
        ".claude/hooks/lessons.json",
        r#"{"lessons": [
  {"scope": "*.swift", "triggers": ["DankeTheme.secondaryText"], "lesson": "The property is textSecondary / textPrimary; grep before renaming", "weight": 3, "hits": 2, "last_hit": 1779300000},
  {"scope": "*.py", "triggers": ["regex:(?<!_)re\\.compile"], "lesson": "compile once at module level", "created": "2026-05-21"}
]}"#,
    );
    // The seed's candidate pool: one new, one already a lesson above, one without a trigger.
    project.write(
        ".claude/hooks/lesson_candidates.json",
        r#"{"candidates": [
  {"scope": "*.py", "trigger": "fastjsonx", "lesson": "fastjsonx does not exist; use json", "hits": 1, "created": "2026-05-20"},
  {"scope": "*.swift", "trigger": "DankeTheme.secondaryText", "lesson": "seen once", "hits": 1},
  {"scope": "*.py", "trigger": "", "lesson": "no trigger"}
]}"#,
    );
    let run = project.run(&["install", "--non-interactive"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("imported 1 candidate from the Python lesson hook's .claude/hooks/lesson_candidates.json")
            && run.stderr.contains("(2 skipped"),
        "{}",
        run.stderr
    );
    let pool = project.read_json(".claude/claude-auto-review/lesson_candidates.json");
    assert_eq!(
        pool["candidates"],
        serde_json::json!([{"scope": "*.py", "trigger": "fastjsonx",
            "lesson": "fastjsonx does not exist; use json", "hits": 1, "created": "2026-05-20"}])
    );
    assert!(
        project
            .run(&["lessons", "candidates"])
            .stdout
            .contains("fastjsonx"),
        "listed with car's own candidates"
    );
    assert!(
        run.stderr.contains(
            "imported 2 lessons from the Python lesson hook's .claude/hooks/lessons.json"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("replaced the Python lesson hook"),
        "{}",
        run.stderr
    );
    let list = project.run(&["lessons", "list", "--json"]);
    let lessons: Value = serde_json::from_str(&list.stdout).unwrap();
    let triggers: Vec<&str> = lessons
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["triggers"][0].as_str().unwrap())
        .collect();
    assert!(
        triggers.contains(&"DankeTheme.secondaryText"),
        "{triggers:?}"
    );
    let settings = project.read(".claude/settings.json");
    assert!(!settings.contains("validate-edit.py"), "{settings}");
    assert!(
        project.exists(".claude/hooks/lessons.json"),
        "the seed's file is left as it is"
    );
    // Warned on the next edit, as the seed's hook did.
    let payload = project.write_payload("Theme.swift", "let c = DankeTheme.secondaryText\n", None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.context().contains("textSecondary"), "{answer:?}");
    let again = project.run(&["install", "--non-interactive"]);
    assert!(
        !again.stderr.contains("imported"),
        "importing twice adds nothing: {}",
        again.stderr
    );
}

#[cfg(unix)]
#[test]
fn status_warns_when_the_car_on_path_is_the_python_one() {
    use std::os::unix::fs::PermissionsExt;
    let project = TestProject::new();
    let bin = project.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("car");
    std::fs::write(
        &script,
        "#!/usr/bin/python3\nfrom claude_auto_review.cli import main\nmain()\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = project
        .car()
        .env("PATH", path)
        .arg("status")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("is the Python claude-auto-review tool")
            && stdout.contains(&script.display().to_string()),
        "{stdout}"
    );
}
