//! The gate with reviewer CLIs: fake `claude`, `codex`, `opencode` and a `command` reviewer on
//! PATH record the exact argv, stdin and environment car gives them.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::review_helpers::*;
use crate::support::{HookAnswer, TestProject};

fn stop_with(project: &TestProject, fakes: &FakeClis) -> HookAnswer {
    let path = fakes.path_env();
    project.hook_with_env(
        "stop",
        &stop_payload(project, SESSION, Some("Refactored the loader. All done.")),
        &[("PATH", path.as_str())],
    )
}

fn p1_answer() -> String {
    json!({"verdict": "PASS", "findings": [
        finding("F1", "P1", "src/app.py", 2, "Loader returns None"),
        finding("F2", "P3", "src/app.py", 1, "Rename loader")]})
    .to_string()
}

#[test]
fn claude_runs_read_only_with_hooks_disabled_and_its_verdict_is_ignored() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "claude", "reviewerModel": "sonnet"}),
    );
    write_file(&project, "src/app.py", "def load(p):\n    return None\n");
    let fakes = FakeClis::new();
    let envelope = json!({"type": "result", "is_error": false, "result": format!("Review:\n```json\n{}\n```", p1_answer())});
    fakes.answer(&envelope.to_string());
    let answer = stop_with(&project, &fakes);
    assert_eq!(
        fakes.argv("claude"),
        [
            "-p",
            "--output-format",
            "json",
            "--allowedTools",
            "Read,Grep,Glob",
            "--disallowedTools",
            "Bash,Edit,Write,MultiEdit,NotebookEdit",
            "--settings",
            r#"{"disableAllHooks":true}"#,
            "--model",
            "sonnet"
        ]
    );
    assert_eq!(fakes.nested("claude"), "1", "the recursion guard is set");
    let prompt = fakes.stdin("claude");
    assert!(
        prompt.contains("+def load(p):") && prompt.contains("# Review rules"),
        "{prompt}"
    );
    assert!(answer.is_block(), "a model's PASS is ignored: {answer:?}");
    assert!(answer.reason().contains("[P1] F1 src/app.py:2"));
    assert!(
        !answer.reason().contains("Rename loader"),
        "P3 never in a fix request"
    );
    assert!(
        project.exists(".claude/claude-auto-review/clients/test-session/reviews/R1.answer.txt")
    );
}

#[test]
fn codex_gets_sandbox_schema_and_last_message_file() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "codex", "reviewerModel": "gpt-5-codex"}),
    );
    write_file(&project, "src/app.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.answer(r#"{"findings": [], "known_limits": []}"#);
    let answer = stop_with(&project, &fakes);
    assert_eq!(answer.json, json!({}), "{answer:?}");
    let argv = fakes.argv("codex");
    let reviews = project
        .path()
        .join(".claude/claude-auto-review/clients/test-session/reviews");
    let schema = reviews.join("R1.schema.json");
    let last = reviews.join("R1.last-message.txt");
    assert_eq!(
        argv,
        [
            "exec",
            "--sandbox",
            "read-only",
            "--skip-git-repo-check",
            "--output-schema",
            &schema.to_string_lossy(),
            "--output-last-message",
            &last.to_string_lossy(),
            "--model",
            "gpt-5-codex",
            "-"
        ]
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    assert_eq!(schema["required"], json!(["findings", "known_limits"]));
    assert!(fakes.stdin("codex").contains("src/app.py"));
    std::fs::remove_file(fakes.path("codex.argv")).unwrap();
    assert_eq!(stop_with(&project, &fakes).json, json!({}));
    assert!(
        !fakes.was_called("codex"),
        "reviewed versions are not reviewed again"
    );
}

#[test]
fn opencode_gets_the_prompt_on_stdin_and_prose_around_the_json_is_fine() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "opencode", "reviewerModel": "anthropic/claude-sonnet-4"}),
    );
    write_file(&project, "src/app.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.answer(&format!(
        "I looked at the diff.\n{}\nThat is all.",
        p1_answer()
    ));
    let answer = stop_with(&project, &fakes);
    let argv = fakes.argv("opencode");
    assert_eq!(
        &argv[..5],
        [
            "run",
            "--agent",
            "plan",
            "--model",
            "anthropic/claude-sonnet-4"
        ]
    );
    assert!(argv[5].contains("stdin"));
    assert!(fakes.stdin("opencode").contains("src/app.py"));
    assert!(
        answer.is_block() && answer.reason().contains("F1"),
        "{answer:?}"
    );
}

#[test]
fn command_reviewer_gets_prompt_on_stdin_and_prints_findings() {
    let project = TestProject::new();
    let fakes = FakeClis::new();
    let reviewer = fakes.path("reviewer");
    set_settings(
        &project,
        json!({"reviewerBackend": "command", "reviewerCommand": [reviewer, "--strict"]}),
    );
    write_file(&project, "src/app.py", "x = 1\n");
    fakes.answer(
        &json!({"findings": [finding("F1", "P3", "src/app.py", 1, "Name x better")]}).to_string(),
    );
    let answer = stop_with(&project, &fakes);
    assert_eq!(fakes.argv("reviewer"), ["--strict"]);
    assert!(fakes.stdin("reviewer").contains("## Answer format"));
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains("src/app.py:1: Name x better")
    );
}

/// Issue 39, item 2: a reviewer CLI that is not installed is nothing the agent can fix, so the
/// first stop is let go at once (it used to block up to maxStopPasses), says how to fix it, and
/// leaves the changes pending and named; the saved request can be reviewed by hand.
#[test]
fn missing_reviewer_cli_lets_the_agent_stop_with_the_changes_pending_and_named() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "codex", "maxStopPasses": 3}),
    );
    write_file(&project, "a.py", "x = 1\n");
    write_file(&project, "b.py", "y = 2\n");
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let answer = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(
        !answer.is_block(),
        "the agent cannot install codex: {answer:?}"
    );
    let message = answer.system_message();
    for expected in [
        "the reviewer CLI `codex` (reviewerBackend codex) is not installed, so no review ran",
        "these changes stay pending, unreviewed: a.py, b.py",
        "install `codex`",
        "config --backend",
        "review submit --session test-session FILE",
        "clients/test-session/reviews/R1.prompt.md",
    ] {
        assert!(message.contains(expected), "{expected:?} in {message}");
    }
    let again = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(!again.is_block(), "{again:?}");
    assert!(
        again
            .system_message()
            .contains("`codex` is still not installed, so no review ran; these changes stay pending, unreviewed: a.py, b.py"),
        "{}",
        again.stdout
    );
    let row = status_row(&project);
    assert_eq!(
        row["pending_review"], "R1",
        "the changes stay pending: {row}"
    );
    let names = event_names(&project, SESSION);
    assert!(!names.contains(&"review_failed".to_string()), "{names:?}");
    // The stop let through reached the person only; the agent is told with its next answer that
    // carries context, once.
    let next = write_file(&project, "c.py", "z = 3\n");
    let context = next.context();
    for expected in [
        "at your last stop no review ran: the reviewer CLI `codex` is not installed",
        "Unreviewed, still pending: a.py, b.py",
        "review submit --session test-session FILE",
    ] {
        assert!(context.contains(expected), "{expected:?} in {context}");
    }
    let after = write_file(&project, "c.py", "z = 4\n");
    assert!(
        !after.context().contains("last stop"),
        "told once: {}",
        after.stdout
    );
    // Reviewed by hand: the saved request is the one submit records.
    assert_eq!(submit(&project, &json!({"findings": []})).code, 0);
    // a.py and b.py were reviewed by hand; c.py, written after, is what stays pending.
    let done = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(!done.is_block(), "{done:?}");
    assert!(
        done.system_message()
            .contains("these changes stay pending, unreviewed: c.py"),
        "{}",
        done.stdout
    );
}

/// A session resumed after a stop let through for a missing reviewer: SessionStart tells the
/// agent what its last stop could not.
#[test]
fn a_resumed_session_tells_the_agent_what_its_last_stop_could_not() {
    let project = TestProject::new();
    set_settings(&project, json!({"reviewerBackend": "codex"}));
    write_file(&project, "a.py", "x = 1\n");
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let stop = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(!stop.is_block(), "{stop:?}");
    assert_eq!(stop.context(), "", "a stop carries nothing to the model");
    let resume = json!({
        "session_id": SESSION,
        "cwd": project.path(),
        "hook_event_name": "SessionStart",
        "source": "resume",
    })
    .to_string();
    let started = project.hook("session-start", &resume);
    assert!(
        started
            .context()
            .contains("at your last stop no review ran: the reviewer CLI `codex` is not installed"),
        "{}",
        started.stdout
    );
    let again = project.hook("session-start", &resume);
    assert!(!again.context().contains("last stop"), "{}", again.stdout);
}

/// Validator errors are the agent's to fix: with the reviewer CLI missing they still block,
/// saying what failed.
#[test]
fn missing_reviewer_cli_still_blocks_on_validator_errors() {
    let project = TestProject::new();
    set_settings(&project, json!({"reviewerBackend": "codex"}));
    write_file(&project, "config/app.json", "{\"name\": \"demo\",}\n");
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let answer = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains("`codex` is not on PATH")
            && answer.reason().contains("config/app.json:1"),
        "{}",
        answer.reason()
    );
    assert!(
        !answer.reason().contains("manual") && !answer.reason().contains("car config"),
        "swapping the reviewer for self-review is the person's call: {}",
        answer.reason()
    );
}

#[test]
fn unparseable_or_empty_output_is_never_clean() {
    let project = TestProject::new();
    set_settings(&project, json!({"reviewerBackend": "opencode"}));
    write_file(&project, "a.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.answer("Looks good to me. PASS");
    let answer = stop_with(&project, &fakes);
    assert!(answer.is_block());
    assert!(answer.reason().contains("unusable"), "{}", answer.reason());
    fakes.answer("");
    write_file(&project, "a.py", "x = 2\n");
    let answer = stop_with(&project, &fakes);
    assert!(answer.is_block());
    assert!(
        answer.reason().contains("printed nothing"),
        "{}",
        answer.reason()
    );
}

#[test]
fn hanging_reviewer_is_killed_at_its_timeout() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "claude", "reviewerTimeoutSeconds": 2}),
    );
    write_file(&project, "a.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.hang();
    fakes.answer("{}");
    let started = Instant::now();
    let answer = stop_with(&project, &fakes);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    assert!(answer.is_block());
    assert!(
        answer.reason().contains("did not answer within 2 s"),
        "{}",
        answer.reason()
    );
    assert!(answer.reason().contains("reviewerTimeoutSeconds"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !fakes.is_running("claude", "pid"),
        "the reviewer was killed"
    );
    assert!(
        !fakes.is_running("claude", "child"),
        "and everything it started"
    );
}

#[test]
fn model_classifier_falls_back_to_builtin_when_the_cli_fails() {
    let project = TestProject::new();
    set_settings(
        &project,
        json!({"reviewerBackend": "claude", "classifierBackend": "model"}),
    );
    write_file(&project, "a.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.answer(&json!({"result": "INCOMPLETE"}).to_string());
    let payload = stop_payload(&project, SESSION, Some("Refactoring is finished."));
    let path = fakes.path_env();
    let answer = project.hook_with_env("stop", &payload, &[("PATH", path.as_str())]);
    assert!(!answer.is_block(), "the model said incomplete: {answer:?}");
    let result = events(&project, SESSION)
        .into_iter()
        .find(|e| e["event"] == "classifier_result")
        .unwrap();
    assert_eq!(result["source"], "model");
    let empty = tempfile::tempdir().unwrap();
    let no_cli = format!("{}:/usr/bin:/bin", empty.path().display());
    let payload = stop_payload(&project, SESSION, Some("Should I continue with the tests?"));
    let answer = project.hook_with_env("stop", &payload, &[("PATH", no_cli.as_str())]);
    assert!(!answer.is_block(), "{answer:?}");
    let last = events(&project, SESSION)
        .into_iter()
        .rev()
        .find(|e| e["event"] == "classifier_result")
        .unwrap();
    assert_eq!(last["source"], "builtin");
    assert!(last["reason"].as_str().unwrap().contains("model failed"));
}

#[test]
fn nested_reviewer_runs_are_never_gated() {
    let project = TestProject::new();
    write_file(&project, "a.py", "x = 1\n");
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let answer = project.hook_with_env("stop", &payload, &[("CAR_NESTED_REVIEW", "1")]);
    assert_eq!(answer.json, json!({}));
}

#[test]
fn claude_reporting_an_error_is_a_failed_review() {
    let project = TestProject::new();
    set_settings(&project, json!({"reviewerBackend": "claude"}));
    write_file(&project, "a.py", "x = 1\n");
    let fakes = FakeClis::new();
    fakes.answer(
        &json!({"type": "result", "is_error": true, "result": "Credit balance is too low"})
            .to_string(),
    );
    let answer = stop_with(&project, &fakes);
    assert!(answer.is_block());
    assert!(
        answer.reason().contains("Credit balance is too low"),
        "{}",
        answer.reason()
    );
}
