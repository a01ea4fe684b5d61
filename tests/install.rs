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
    assert_eq!(
        post[1]["matcher"],
        "Write|Edit|MultiEdit|NotebookEdit|Bash|Read"
    );
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

/// The hooks run `car hook …` from the agent's PATH: `car install` says when that is no car at
/// all or another one than the car installing, and `car status` shows which binary answers.
#[test]
fn install_and_status_name_the_car_the_hooks_will_run() {
    let project = TestProject::new();
    let car = assert_cmd::cargo::cargo_bin("car");
    let run_with_path =
        |path: &std::path::Path, args: &[&str]| said(&project, ("PATH", path), args);
    let empty = project.home().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let said = run_with_path(&empty, &["install", "--non-interactive"]);
    assert!(said.contains("there is no `car` on PATH"), "{said}");
    let status = run_with_path(&empty, &["status"]);
    assert!(
        status.contains("hooks run: `car`, which is not on PATH"),
        "{status}"
    );

    let this = project.home().join("this-bin");
    std::fs::create_dir_all(&this).unwrap();
    std::os::unix::fs::symlink(&car, this.join("car")).unwrap();
    let said = run_with_path(&this, &["install", "--non-interactive"]);
    // (The PATH holds no git either: the merge driver's warning says so.)
    assert!(!said.contains("`car` on PATH"), "{said}");
    let status = run_with_path(&this, &["status"]);
    assert!(status.contains("(this car)"), "{status}");

    let other = project.home().join("other-bin");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&car, other.join("car")).unwrap();
    let said = run_with_path(&other, &["install", "--non-interactive"]);
    assert!(said.contains("the hooks run the `car` on PATH"), "{said}");
    assert!(said.contains("not this one"), "{said}");
    let status = run_with_path(&other, &["status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(json["hook_binary"]["which"], "another", "{json}");
}

/// Codex skips hooks it has not trusted, silently: `car install --agent codex` and `car status`
/// read Codex's records (`CODEX_HOME/config.toml`) and say whether the project and each of car's
/// hooks are trusted, never trusted, or changed since they were trusted. The hashes are the ones
/// `codex app-server` (Codex CLI 0.171.0) reported for these entries.
#[test]
fn codex_trust_is_read_from_codexs_own_records() {
    let project = TestProject::new();
    let codex_home = project.home().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let run = |args: &[&str]| said(&project, ("CODEX_HOME", &codex_home), args);
    let said = run(&["install", "--agent", "codex", "--non-interactive"]);
    assert!(
        said.contains("this project is not trusted") && said.contains("loads none of its hooks"),
        "{said}"
    );
    let root = project.path().display().to_string();
    let config = codex_home.join("config.toml");
    let trusted_project = format!("[projects.\"{root}\"]\ntrust_level = \"trusted\"\n");
    std::fs::write(&config, &trusted_project).unwrap();
    let status = run(&["status"]);
    assert!(
        status.contains(
            "never trusted: PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd; open /hooks in Codex"
        ),
        "{status}"
    );
    let hashes = [
        (
            "pre_tool_use",
            "493ea4e0466cb41f33cb520d05cef0e4e757d4ea5105b5df4d6533739e3b3c3c",
        ),
        (
            "post_tool_use",
            "f78e44c16bac26b66112ea2ae20d53f9b03830ea7636e90927c6e6d6cdf09be4",
        ),
        (
            "stop",
            "9d3eaa13e7c179de52560481586eb2ab769bc9d647586464419e1b88431bdca4",
        ),
        (
            "session_start",
            "5a6a96ee48dc61826b2e73390b6156d2828cafdc882ee9a45dc379fc1db8f3e1",
        ),
        (
            "session_end",
            "29be57113cb9ea91ca63e453264922fb6cdfe4809e1dc49aeac3b284a9478870",
        ),
    ];
    let records = |stop_hash: &str| {
        let mut text = trusted_project.clone();
        for (label, hash) in hashes {
            let hash = if label == "stop" { stop_hash } else { hash };
            text.push_str(&format!(
                "\n[hooks.state.\"{root}/.codex/hooks.json:{label}:0:0\"]\ntrusted_hash = \"sha256:{hash}\"\n"
            ));
        }
        text
    };
    std::fs::write(&config, records(hashes[2].1)).unwrap();
    let status = run(&["status"]);
    assert!(
        status.contains("Codex trust: all 5 of car's hooks are trusted"),
        "{status}"
    );
    std::fs::write(&config, records(&"0".repeat(64))).unwrap();
    let said = run(&["install", "--agent", "codex", "--non-interactive"]);
    assert!(said.contains("changed since trusted: Stop"), "{said}");
    let status = run(&["status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&status).unwrap();
    let codex = json["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["agent"] == "codex")
        .unwrap();
    assert_eq!(codex["codex_trust"]["state"], "not_all_trusted", "{codex}");
}

/// What `car ARGS…` printed (stdout, then stderr) with one environment variable set, asserting
/// it succeeded.
fn said(project: &TestProject, (name, value): (&str, &std::path::Path), args: &[&str]) -> String {
    let output = assert_cmd::Command::from_std(project.car_std())
        .args(args)
        .env(name, value)
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `car install --agent all` wires every agent it may and goes on past a file it must refuse (a
/// Gemini settings file that is not JSON), ending with one line per agent and exit 1; the refused
/// file is left byte for byte.
#[test]
fn install_all_goes_on_past_a_refused_file_and_names_each_agent() {
    let project = TestProject::new();
    let broken = "{ \"theme\": \"GitHub\",, }\n";
    project.write(".gemini/settings.json", broken);
    let run = project.run(&["install", "--non-interactive", "--agent", "all"]);
    assert_eq!(run.code, 1, "{run:?}");
    for line in [
        "Claude Code: wired (.claude/settings.json)",
        "Codex CLI: wired (.codex/hooks.json)",
        "Cursor: wired (.cursor/hooks.json)",
        "Gemini CLI: refused: ",
    ] {
        assert!(run.stderr.contains(line), "{line}\n{}", run.stderr);
    }
    assert_eq!(project.read(".gemini/settings.json"), broken);
    let claude = project.read_json(".claude/settings.json");
    assert!(claude["hooks"]["PreToolUse"].is_array(), "{claude}");
    assert!(project.exists(".codex/hooks.json") && project.exists(".cursor/hooks.json"));
}

/// `car status` says whether this clone has car's merge driver for the lesson library (a fresh
/// clone does not: git config is not cloned).
#[test]
fn status_says_whether_the_merge_driver_is_registered_in_this_clone() {
    let project = TestProject::new();
    let status = project.run(&["status"]);
    assert!(
        status
            .stdout
            .contains("merge driver: not registered in this clone"),
        "{}",
        status.stdout
    );
    assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
    let status = project.run(&["status"]);
    assert!(
        status
            .stdout
            .contains("merge driver: registered in this clone (`"),
        "{}",
        status.stdout
    );
}
