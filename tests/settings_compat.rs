//! Settings are read key by key, and the Python claude-auto-review tool's block is accepted with
//! its meaning (issue: its block failed as a whole, so `"enabled": false` was ignored).

use serde_json::json;

use crate::support::TestProject;

/// What the Python tool's `install` writes: all 16 keys, literally.
const PYTHON_BLOCK: &str = r#"{
  "claude-auto-review": {
    "enabled": false,
    "debug": true,
    "reviewerBackend": "claude",
    "reviewerModel": "claude-sonnet-4-6",
    "reviewerTimeoutSeconds": 600,
    "reviewFeedbackMaxChars": 9000,
    "lastAssistantMessageClassifierEnabled": true,
    "lastAssistantMessageClassifierTimeoutSeconds": 20,
    "classifierModel": "claude-haiku-4-5",
    "rulesFile": ".claude/claude-auto-review/review-rules.md",
    "includeExtensions": [],
    "skipExtensions": [],
    "maxStopPasses": 5,
    "minimumBlockingSeverity": "medium",
    "pendingReviewTimeoutHours": 1.0,
    "staleClientTimeoutHours": 48.0
  }
}
"#;

fn edit_python_file(project: &TestProject) {
    let payload = project.write_payload("a.py", "x = 1\n", None);
    project.hook("post-tool-use", &payload);
}

#[test]
fn the_python_tools_block_is_honoured_key_by_key() {
    let project = TestProject::new();
    project.write(".claude/settings.json", PYTHON_BLOCK);
    edit_python_file(&project);
    let stop = project.hook("stop", &project.fixture("claude-stop.json"));
    assert_eq!(
        stop.json,
        json!({}),
        "\"enabled\": false is honoured: {stop:?}"
    );
    let status = project.run(&["status"]);
    assert!(status.stdout.contains("enabled: no"), "{}", status.stdout);
    assert!(
        status.stdout.contains("reviewerTimeoutSeconds: 600")
            && status.stdout.contains("minimumBlockingSeverity: P2"),
        "{}",
        status.stdout
    );
    assert!(
        !status.stdout.contains("warning: \""),
        "no key is bad: {}",
        status.stdout
    );
    assert!(
        status
            .stdout
            .contains("\"debug\" (the Python tool's) has no effect"),
        "{}",
        status.stdout
    );
    let config = project.run(&["config", "--non-interactive", "--max-stop-passes", "4"]);
    assert_eq!(
        config.code, 0,
        "`car config` works on the Python block: {config:?}"
    );
    let block = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(block["maxStopPasses"], 4);
    assert_eq!(
        block["staleClientTimeoutHours"], 48.0,
        "the other keys stay as written"
    );
}

#[test]
fn a_bad_value_costs_its_key_alone_and_is_named_once() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"maxStopPasses": "five", "reviewerBackend": "manual", "enabled": true}}"#,
    );
    let first = project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "x = 1\n", None),
    );
    let message = first.system_message();
    assert!(
        message.contains("\"maxStopPasses\": \"five\" is not a whole number; using the default 5"),
        "{first:?}"
    );
    let second = project.hook(
        "post-tool-use",
        &project.write_payload("b.py", "y = 1\n", None),
    );
    assert!(
        !second.system_message().contains("maxStopPasses"),
        "said once per session: {second:?}"
    );
    let stop = project.hook(
        "stop",
        &project
            .fixture("claude-stop.json")
            .replace("3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60", "test-session"),
    );
    assert!(
        stop.is_block(),
        "the other keys still count (enabled): {stop:?}"
    );
    let status = project.run(&["status"]);
    assert!(
        status
            .stdout
            .contains("warning: \"maxStopPasses\": \"five\" is not a whole number"),
        "{}",
        status.stdout
    );
    let repaired = project.run(&["config", "--non-interactive"]);
    assert_eq!(repaired.code, 0, "{repaired:?}");
    assert!(
        repaired
            .stderr
            .contains("repaired \"maxStopPasses\": \"five\""),
        "{}",
        repaired.stderr
    );
    assert_eq!(
        project.read(".claude/settings.json"),
        r#"{"claude-auto-review": {"reviewerBackend": "manual", "enabled": true}}"#,
        "only the bad key changed"
    );
}

#[test]
fn config_repairs_a_block_that_is_not_an_object() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        "{\"model\": \"opus\", \"claude-auto-review\": \"on\"}\n",
    );
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("is not an object of settings"),
        "{}",
        status.stdout
    );
    let run = project.run(&["config", "--non-interactive", "--enabled", "false"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("repaired"), "{}", run.stderr);
    assert_eq!(
        project.read(".claude/settings.json"),
        "{\"model\": \"opus\", \"claude-auto-review\": {\"enabled\": false}}\n"
    );
}

#[test]
fn config_sets_enabled_and_updates_the_hook_timeout_itself() {
    let project = TestProject::new();
    assert_eq!(
        project
            .run(&["install", "--non-interactive", "--agent", "all"])
            .code,
        0
    );
    let run = project.run(&[
        "config",
        "--non-interactive",
        "--timeout",
        "100",
        "--enabled",
        "false",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        !run.stderr.contains("run `car install` again"),
        "{}",
        run.stderr
    );
    let settings = project.read_json(".claude/settings.json");
    assert_eq!(settings["claude-auto-review"]["enabled"], false);
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 160);
    assert_eq!(
        project.read_json(".codex/hooks.json")["hooks"]["Stop"][0]["hooks"][0]["timeout"],
        160
    );
    assert_eq!(
        project.read_json(".gemini/settings.json")["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"],
        160_000
    );
    assert_eq!(
        project.read_json(".cursor/hooks.json")["hooks"]["stop"][0]["timeout"],
        160
    );
    let status = project.run(&["status"]);
    assert!(status.stdout.contains("enabled: no"), "{}", status.stdout);
    let bad = project.run(&["config", "--non-interactive", "--enabled", "maybe"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--enabled"), "{}", bad.stderr);
}

#[test]
fn status_after_uninstall_does_not_say_enabled() {
    let project = TestProject::new();
    assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
    assert!(
        project
            .run(&["status"])
            .stdout
            .contains("enabled: yes (Claude Code)")
    );
    assert_eq!(project.run(&["uninstall"]).code, 0);
    let status = project.run(&["status"]);
    assert!(
        status
            .stdout
            .contains("enabled: no agent's hooks are wired"),
        "{}",
        status.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&project.run(&["status", "--json"]).stdout).unwrap();
    assert_eq!(json["enabled"], false);
    assert_eq!(json["agents"][0]["agent"], "claude");
}
