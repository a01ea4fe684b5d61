//! `car config` and `car status` through the binary.

use serde_json::json;

use crate::review_helpers::*;
use crate::support::TestProject;

#[test]
fn config_non_interactive_writes_only_cars_key_and_warns_about_a_missing_cli() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"model": "opus", "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}]},
 "claude-auto-review": {"customKey": 7, "maxStopPasses": 3}}"#,
    );
    let empty = tempfile::tempdir().unwrap();
    let output = project
        .car()
        .env("PATH", format!("{}:/usr/bin:/bin", empty.path().display()))
        .args([
            "config",
            "--non-interactive",
            "--backend",
            "codex",
            "--model",
            "gpt-5",
            "--max-stop-passes",
            "4",
            "--timeout",
            "120",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("`codex` is not on PATH"), "{stderr}");
    let document = project.read_json(".claude/settings.json");
    assert_eq!(document["model"], "opus");
    assert_eq!(
        document["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "my-linter"
    );
    let car = &document["claude-auto-review"];
    assert_eq!(car["reviewerBackend"], "codex");
    assert_eq!(car["reviewerModel"], "gpt-5");
    assert_eq!(car["maxStopPasses"], 4);
    assert_eq!(car["reviewerTimeoutSeconds"], 120);
    assert_eq!(
        car["customKey"], 7,
        "unknown keys inside car's key are kept"
    );
}

#[test]
fn config_refuses_invalid_values_and_writes_nothing() {
    let project = TestProject::new();
    set_settings(&project, json!({"maxStopPasses": 3}));
    let before = project.read(".claude/settings.json");
    let run = project.run(&["config", "--non-interactive", "--backend", "gpt"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("--backend: \"gpt\" is not one of manual"),
        "the error names the flag: {}",
        run.stderr
    );
    assert!(!run.stderr.contains("by hand"), "{}", run.stderr);
    let run = project.run(&[
        "config",
        "--non-interactive",
        "--minimum-blocking-severity",
        "P3",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(project.read(".claude/settings.json"), before);
}

#[test]
fn config_sets_the_deep_reviewer_and_refuses_self_review() {
    let project = TestProject::new();
    set_settings(&project, json!({"reviewerBackend": "manual"}));
    let before = project.read(".claude/settings.json");
    for (value, error) in [
        (
            "manual",
            "--deep-review-backend: \"manual\" cannot be the deep reviewer",
        ),
        (
            "command",
            "--deep-review-backend command needs --command-arg",
        ),
        ("gpt", "--deep-review-backend: \"gpt\""),
    ] {
        let run = project.run(&[
            "config",
            "--non-interactive",
            "--deep-review-backend",
            value,
        ]);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains(error), "{value}: {}", run.stderr);
    }
    assert_eq!(project.read(".claude/settings.json"), before);

    let run = project.run(&[
        "config",
        "--non-interactive",
        "--deep-review-backend",
        "Claude",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let car = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(car["deepReviewBackend"], "claude");
    assert_eq!(
        car["reviewerBackend"], "manual",
        "the stop gate's reviewer stays"
    );
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("deepReviewBackend: claude"),
        "{}",
        status.stdout
    );
}

#[test]
fn config_command_backend_takes_its_argv() {
    let project = TestProject::new();
    let run = project.run(&[
        "config",
        "--non-interactive",
        "--backend",
        "command",
        "--command-arg",
        "sh",
        "--command-arg",
        "review.sh",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let document = project.read_json(".claude/settings.json");
    assert_eq!(
        document["claude-auto-review"]["reviewerCommand"],
        json!(["sh", "review.sh"])
    );
}

#[test]
fn status_shows_wiring_settings_lessons_pending_reviews_and_errors() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "car hook stop", "timeout": 100}]}]},
 "claude-auto-review": {"reviewerTimeoutSeconds": 300}}"#,
    );
    project.write(
        ".claude/claude-auto-review/lessons.json",
        r#"{"lessons": [{"scope": "*.py", "triggers": ["x"], "lesson": "a"}, {"scope": "*.py", "triggers": ["y"], "lesson": "b"}]}"#,
    );
    project.write(
        ".claude/claude-auto-review/hook-errors.jsonl",
        "{\"ts\":1800000000,\"error\":\"stop gate: disk full\"}\n",
    );
    write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    let run = project.run(&["status"]);
    assert_eq!(run.code, 0, "{run:?}");
    let out = run.stdout;
    assert!(out.contains("enabled: yes"), "{out}");
    assert!(
        out.contains("    Stop: yes (timeout 100 s)\n") && out.contains("    PostToolUse: NO\n"),
        "{out}"
    );
    assert!(
        out.contains("not above reviewerTimeoutSeconds (300)"),
        "{out}"
    );
    assert!(out.contains("  reviewerBackend: manual\n"), "{out}");
    assert!(out.contains("lessons\n  project: 2 lessons in"), "{out}");
    assert!(
        out.contains("session test-session: 1 unreviewed file,")
            && out.contains("pending review R1"),
        "{out}"
    );
    assert!(out.contains("stop gate: disk full"), "{out}");
    let review = project.run(&["review", "status", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&review.stdout).unwrap();
    assert_eq!(value["sessions"][0]["pending_review"], "R1");
    assert_eq!(value["sessions"][0]["unreviewed"], json!(["a.py"]));
}

#[test]
fn submit_without_session_finds_the_pending_request_and_refuses_when_none() {
    let project = TestProject::new();
    let none = project.run(&["review", "submit", "-"]);
    assert_eq!(none.code, 2, "{none:?}");
    write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    let findings = project.write(
        "findings.json",
        r#"{"findings": [{"severity": "P3", "file": "a.py", "line": 1, "title": "Name x"}]}"#,
    );
    let run = project.run(&["review", "submit", findings.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("recorded review R1 for session test-session"),
        "{}",
        run.stderr
    );
    let again = project.run(&["review", "submit", findings.to_str().unwrap()]);
    assert_eq!(again.code, 2, "nothing is pending any more: {again:?}");
    let broken = project.write("broken.json", "{\"findings\": [");
    write_file(&project, "a.py", "x = 2\n");
    stop(&project);
    let run = project.run(&[
        "review",
        "submit",
        "--session",
        SESSION,
        broken.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn config_wizard_asks_on_a_terminal() {
    // `script` gives car a terminal on stdin, the way a person runs the wizard.
    let project = TestProject::new();
    set_settings(&project, json!({"maxStopPasses": 9, "customKey": true}));
    let car = assert_cmd::cargo::cargo_bin("car");
    let mut script = std::process::Command::new("script");
    let output = crate::support::isolate(&mut script, project.home())
        .args(["-qec", &format!("{} config", car.display()), "/dev/null"])
        .current_dir(project.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"gpt\nclaude\nsonnet\n\np1\n\n45\n")?;
            child.wait_with_output()
        })
        .expect("`script` (util-linux) runs the wizard on a pseudo-terminal");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Reviewer backend (manual, claude, codex, opencode, command) [manual]"),
        "{text}"
    );
    assert!(
        text.contains("(maxStopPasses) [9]"),
        "the current value is offered: {text}"
    );
    let car_key = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(car_key["reviewerBackend"], "claude");
    assert_eq!(car_key["reviewerModel"], "sonnet");
    assert_eq!(car_key["minimumBlockingSeverity"], "P1");
    assert_eq!(car_key["maxStopPasses"], 9, "Enter keeps the current value");
    assert_eq!(car_key["reviewerTimeoutSeconds"], 45);
    assert_eq!(car_key["customKey"], true);
    assert_eq!(
        car_key["deepReviewBackend"], "claude",
        "the deep review's default follows a reviewer CLI"
    );
}

/// Answers piped in (not a terminal) are applied; accepting every default leaves a deep review
/// that can run (its reviewer is never the agent itself); the `command` backend is not asked for
/// a model; `--severity` is the Python tool's spelling of `--minimum-blocking-severity`.
#[test]
fn config_wizard_takes_piped_answers_and_its_defaults_leave_deep_review_usable() {
    let project = TestProject::new();
    let piped = |answers: &str| {
        project
            .car()
            .arg("config")
            .write_stdin(answers.to_string())
            .output()
            .unwrap()
    };
    let output = piped("\n\n\n\n\n\n\n");
    assert!(output.status.success(), "{output:?}");
    let car_key = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(car_key["reviewerBackend"], "manual");
    assert_eq!(car_key["deepReviewBackend"], "codex", "{car_key}");
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("reviewer: codex"),
        "{}",
        status.stdout
    );

    let output = piped("command\nmy-reviewer --json\n\np2\n\n\n");
    let asked = String::from_utf8_lossy(&output.stderr);
    assert!(!asked.contains("Reviewer model"), "{asked}");
    let car_key = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(car_key["reviewerCommand"], json!(["my-reviewer", "--json"]));

    let run = project.run(&["config", "--non-interactive", "--severity", "P1"]);
    assert_eq!(run.code, 0, "{run:?}");
    let car_key = &project.read_json(".claude/settings.json")["claude-auto-review"];
    assert_eq!(car_key["minimumBlockingSeverity"], "P1");
}

#[test]
fn offers_before_any_session_are_an_empty_list() {
    let project = TestProject::new();
    let run = project.run(&["review", "offers"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("no P3 offers"), "{run:?}");
    let run = project.run(&["review", "offers", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(answer["offers"], serde_json::json!([]));
    let run = project.run(&["review", "offers", "--session", "nope"]);
    assert_eq!(
        run.code, 2,
        "an unknown session named explicitly is an error: {run:?}"
    );
}

/// Regression: `car status` resolved the user's config folder with its own rule (it accepted a
/// relative `XDG_CONFIG_HOME`), so it could name a different user lessons file than the hook
/// reads. Both now go through one resolution: a relative XDG variable is ignored.
#[test]
fn status_names_the_user_lessons_file_the_hook_reads() {
    let project = TestProject::new();
    let user_file = project.home().join(".config/car/lessons.json");
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    std::fs::write(
        &user_file,
        r#"{"lessons": [{"id": "u1", "scope": "*.py", "triggers": ["requests.get(url)"],
            "lesson": "pass a timeout to requests", "weight": 3}]}"#,
    )
    .unwrap();
    let status = project
        .car()
        .env("XDG_CONFIG_HOME", "relative/config")
        .arg("status")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&status.stdout);
    assert!(
        stdout.contains(&format!("user-wide: 1 lesson in {}", user_file.display())),
        "{stdout}"
    );
    project.write("fetch.py", "import requests\nrequests.get(url)\n");
    let payload = project.write_payload("fetch.py", "import requests\nrequests.get(url)\n", None);
    let answer = project.hook_with_env(
        "post-tool-use",
        &payload,
        &[("XDG_CONFIG_HOME", "relative/config")],
    );
    assert!(
        answer.context().contains("pass a timeout to requests")
            || answer.reason().contains("pass a timeout to requests"),
        "{answer:?}"
    );
}

/// Issue 39, item 2: `car install` and `car status` warn about a reviewer CLI that is not
/// installed, for the stop gate and for the deep review (codex unless set), saying what it costs.
#[test]
fn install_and_status_warn_about_missing_reviewer_clis_for_the_gate_and_the_deep_review() {
    let project = TestProject::new();
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    let run_without_reviewers = |args: &[&str]| {
        let output = project
            .car()
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (_, installed) = run_without_reviewers(&["install"]);
    assert!(
        installed.contains("warning: the deep review's reviewer CLI `codex` is not on PATH: `car deep-review run` stops"),
        "{installed}"
    );
    assert!(
        !installed.contains("the stop gate's reviewer CLI"),
        "the gate's default reviewer is manual: {installed}"
    );
    set_settings(
        &project,
        json!({"reviewerBackend": "opencode", "deepReviewBackend": "claude"}),
    );
    let (_, installed) = run_without_reviewers(&["install"]);
    assert!(
        installed.contains("warning: the stop gate's reviewer CLI `opencode` is not on PATH: stops are let go with the changes unreviewed")
            && installed.contains("the deep review's reviewer CLI `claude` is not on PATH"),
        "{installed}"
    );
    let (status, _) = run_without_reviewers(&["status"]);
    assert!(
        status.contains("warning: the stop gate's reviewer CLI `opencode` is not on PATH")
            && status.contains("warning: the deep review's reviewer CLI `claude` is not on PATH"),
        "{status}"
    );
    let (json_status, _) = run_without_reviewers(&["status", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json_status).unwrap();
    assert_eq!(value["deep_review"]["missing_cli"], "claude", "{value}");
    assert_eq!(
        value["reviewer"]["found"],
        serde_json::Value::Null,
        "{value}"
    );
}
