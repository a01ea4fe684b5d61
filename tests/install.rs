//! `car install` / `car uninstall` keep the user's settings and are idempotent.

use serde_json::json;

use crate::support::TestProject;

#[test]
fn install_merges_hooks_and_uninstall_restores() {
    let project = TestProject::new();
    let user = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit"}]}]}
    });
    project.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&user).unwrap(),
    );

    let first = project.run(&["install", "--non-interactive"]);
    assert_eq!(first.code, 0, "{first:?}");
    let settings = project.read_json(".claude/settings.json");
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["permissions"], user["permissions"]);
    let post = settings["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post[0], user["hooks"]["PostToolUse"][0]);
    assert_eq!(post[1]["matcher"], "Write|Edit|MultiEdit|NotebookEdit|Bash");
    assert_eq!(
        post[1]["hooks"][0]["command"],
        "car hook post-tool-use --agent claude"
    );
    assert!(post[1]["hooks"][0]["timeout"].as_u64().unwrap() > 0);
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "car hook stop --agent claude"
    );
    assert_eq!(
        settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        "car hook session-end --agent claude"
    );
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "car hook session-start --agent claude"
    );
    assert!(project.exists(".claude/claude-auto-review/.gitignore"));
    assert!(
        !project.exists(".claude/settings.json.lock"),
        "nothing is left beside the user's settings"
    );
    let rules = project.read(".claude/claude-auto-review/rules.md");
    assert!(
        rules.contains("P1"),
        "the default review rules are installed: {rules}"
    );

    let text = project.read(".claude/settings.json");
    let second = project.run(&["install", "--non-interactive"]);
    assert_eq!(second.code, 0);
    assert!(second.stderr.contains("nothing changed"), "{second:?}");
    assert_eq!(
        project.read(".claude/settings.json"),
        text,
        "install must be idempotent"
    );

    let removed = project.run(&["uninstall"]);
    assert_eq!(removed.code, 0);
    assert_eq!(project.read_json(".claude/settings.json"), user);
}

#[test]
fn stop_timeout_follows_the_reviewer_timeout() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"reviewerTimeoutSeconds": 100}}"#,
    );
    assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
    let settings = project.read_json(".claude/settings.json");
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 160);
    assert_eq!(
        settings["claude-auto-review"]["reviewerTimeoutSeconds"],
        100
    );
}

#[test]
fn broken_settings_file_is_refused_untouched() {
    let project = TestProject::new();
    project.write(".claude/settings.json", "{\"hooks\": [");
    let run = project.run(&["install", "--non-interactive"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("settings.json:1:"), "{run:?}");
    assert_eq!(project.read(".claude/settings.json"), "{\"hooks\": [");
}

#[test]
fn runtime_state_is_git_ignored_but_lessons_are_not() {
    let project = TestProject::new();
    assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
    project.write(
        ".claude/claude-auto-review/lessons.json",
        "{\"lessons\": []}",
    );
    project.write(".claude/claude-auto-review/clients/s/events.jsonl", "{}\n");
    let status = project.git_status();
    assert!(status.contains("lessons.json"), "{status}");
    assert!(!status.contains("events.jsonl"), "{status}");
    assert!(
        status.contains("rules.md"),
        "the review rules are committable: {status}"
    );
}
