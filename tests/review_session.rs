//! Session state under stress: two sessions at once, parallel hooks, torn lines, edits made
//! outside the edit tools, linked worktrees, and SessionEnd cleaning stale sessions.

use serde_json::{Value, json};

use crate::review_helpers::*;
use crate::support::TestProject;

fn write_as(project: &TestProject, session: &str, relative: &str, content: &str) {
    let mut payload: serde_json::Value =
        serde_json::from_str(&project.write_payload(relative, content, None)).unwrap();
    payload["session_id"] = json!(session);
    assert_eq!(project.hook("post-tool-use", &payload.to_string()).code, 0);
}

#[test]
fn two_sessions_in_one_project_never_mix() {
    let project = pinned_project();
    write_as(&project, "session-a", "a.py", "a = 1\n");
    write_as(&project, "session-b", "b.py", "b = 1\n");
    let answer = project.hook("stop", &stop_payload(&project, "session-a", Some("Done.")));
    // Session a's request names a.py alone.
    insta::assert_json_snapshot!("one_session_request", request_view(&answer, &project));
    let files = |session: &str| -> Vec<String> {
        events(&project, session)
            .iter()
            .filter(|event| event["event"] == "edit_tracked")
            .map(|event| event["file"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(files("session-a"), ["a.py"]);
    assert_eq!(files("session-b"), ["b.py"]);
    assert!(
        events(&project, "session-b")
            .iter()
            .all(|event| event["session"] == "session-b")
    );
}

#[test]
fn parallel_post_tool_use_hooks_lose_no_event() {
    let project = TestProject::new();
    let count = 24;
    let children: Vec<_> = (0..count)
        .map(|index| {
            let relative = format!("src/mod_{index}.py");
            let payload = project.write_payload(&relative, &format!("value = {index}\n"), None);
            let mut command = project.car_std();
            command
                .args(["hook", "post-tool-use"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = command.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let all = events(&project, SESSION);
    let tracked = all
        .iter()
        .filter(|event| event["event"] == "edit_tracked")
        .count();
    assert_eq!(tracked, count);
    let baselines = all
        .iter()
        .filter(|event| event["event"] == "baseline_captured")
        .count();
    assert_eq!(baselines, count);
    let raw = project.read(".claude/claude-auto-review/clients/test-session/events.jsonl");
    assert!(
        raw.lines()
            .all(|line| serde_json::from_str::<serde_json::Value>(line).is_ok())
    );
}

#[test]
fn a_torn_last_line_is_skipped_and_the_gate_still_decides() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    let log = project
        .path()
        .join(".claude/claude-auto-review/clients/test-session/events.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"ts\":5,\"session\":\"test-session\",\"event\":\"edit_tr");
    std::fs::write(&log, text).unwrap();
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("request_after_a_torn_line", request_view(&answer, &project));
    let status = project.run(&["review", "status"]);
    assert!(
        status.stdout.contains("1 unreadable log lines skipped"),
        "{status:?}"
    );
}

#[test]
fn bash_deletions_are_reconciled_with_git_status_and_older_dirt_is_ignored() {
    let project = pinned_project();
    project.write("src/legacy_loader.py", "def old():\n    pass\n");
    project.write("src/app.py", "import sys\n");
    project.write("notes.txt", "committed\n");
    project.commit_all();
    project.write("notes.txt", "the user's own uncommitted work\n");
    write_file(&project, "src/app.py", "import os\n");
    // The agent's Bash tool removes a file; the PostToolUse hook sees no edit.
    std::fs::remove_file(project.path().join("src/legacy_loader.py")).unwrap();
    let answer = project.post_fixture("claude-post-bash-rm.json");
    assert_eq!(answer.code, 0);
    let answer = stop(&project);
    assert!(answer.is_block());
    // The edit and the deletion, with its diff; notes.txt, dirty before the session, is not
    // the session's.
    insta::assert_json_snapshot!(
        "request_with_a_bash_deletion",
        request_view(&answer, &project)
    );
    let reconciled: Vec<_> = events(&project, SESSION)
        .into_iter()
        .filter(|event| event["event"] == "reconciled")
        .collect();
    assert_eq!(reconciled.len(), 1);
    assert_eq!(reconciled[0]["hash"], serde_json::Value::Null);
}

#[test]
fn the_baseline_makes_the_review_session_scoped() {
    let project = pinned_project();
    project.write(
        "src/big.py",
        "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 8\n",
    );
    project.commit_all();
    write_file(
        &project,
        "src/big.py",
        "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 9\n",
    );
    write_file(
        &project,
        "src/big.py",
        "a = 0\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 9\n",
    );
    let baseline = events(&project, SESSION)
        .into_iter()
        .filter(|event| event["event"] == "baseline_captured")
        .collect::<Vec<_>>();
    assert_eq!(baseline.len(), 1, "captured before the first edit only");
    // Both of the session's changes against the baseline, not just the last edit.
    insta::assert_json_snapshot!(
        "session_scoped_request",
        request_view(&stop(&project), &project)
    );
}

#[test]
fn session_end_closes_the_session_and_removes_only_stale_ones() {
    let mut project = TestProject::new();
    let start = 1_800_000_000_i64;
    project.at(start);
    write_as(&project, "stale", "old.py", "x = 1\n");
    project.at(start + 30 * 3600);
    write_as(&project, "live", "live.py", "x = 1\n");
    write_as(&project, "ending", "end.py", "x = 1\n");
    project.at(start + 31 * 3600);
    let mut payload = project.fixture_json("claude-session-end.json");
    payload["session_id"] = json!("ending");
    let started = std::time::Instant::now();
    let answer = project.hook("session-end", &payload.to_string());
    let elapsed = started.elapsed();
    assert!(answer.json.get("decision").is_none(), "{answer:?}");
    // A postponed review is not forgotten.
    insta::assert_json_snapshot!("session_end_unreviewed", answer.redacted(&project));
    assert!(elapsed.as_millis() < 1000, "{elapsed:?}");
    let clients = project.path().join(".claude/claude-auto-review/clients");
    assert!(!clients.join("stale").exists(), "stale session removed");
    assert!(
        clients.join("live").exists(),
        "a live session is never touched"
    );
    assert!(clients.join("ending").exists());
    assert_eq!(
        event_names(&project, "ending").last().unwrap(),
        "session_ended"
    );
    let lifecycle = project.read(".claude/claude-auto-review/state.jsonl");
    assert!(
        lifecycle.contains("\"event\":\"session_removed\",\"removed\":\"stale\""),
        "{lifecycle}"
    );
    assert!(
        lifecycle.contains("\"event\":\"session_ended\",\"reason\":\"prompt_input_exit\",\"unreviewed\":[\"end.py\"]"),
        "{lifecycle}"
    );
}

#[test]
fn a_file_deleted_by_an_edit_tool_is_reviewed_with_its_removed_lines() {
    let project = pinned_project();
    project.write("src/old.py", "def legacy():\n    return 1\n");
    project.commit_all();
    std::fs::remove_file(project.path().join("src/old.py")).unwrap();
    let mut payload = project.fixture_json("codex-post-apply-patch.json");
    payload["session_id"] = json!("codex-session");
    payload["tool_input"]["command"] =
        json!("*** Begin Patch\n*** Delete File: src/old.py\n*** End Patch\n");
    assert_eq!(project.hook("post-tool-use", &payload.to_string()).code, 0);
    assert!(event_names(&project, "codex-session").contains(&"file_deleted".to_string()));
    let mut stop = project.fixture_json("codex-stop.json");
    stop["session_id"] = json!("codex-session");
    let answer = project.hook("stop", &stop.to_string());
    assert_eq!(answer.json["decision"], "block", "{answer:?}");
    insta::assert_json_snapshot!(
        "request_with_a_deleted_file",
        request_view(&answer, &project)
    );
}

/// Regression (issue 25): `car review status` showed the time of the command as a session's last
/// event, not the time in its log.
#[test]
fn review_status_shows_the_logs_last_event_time() {
    let mut project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    // Changed outside the edit tools: the look reconciles it, which is not a logged event.
    project.write("a.py", "x = 2\n");
    project.at(NOW + 3_600);
    let status = project.run(&["review", "status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(
        json["sessions"][0]["last_event"], "2026-11-29T12:00:00+00:00",
        "{status:?}"
    );
    let text = project.run(&["review", "status"]).stdout;
    assert!(
        text.contains("(last event 2026-11-29T12:00:00+00:00"),
        "{text}"
    );
}

#[test]
fn a_review_request_made_before_the_first_stop_is_the_one_the_stop_needs() {
    let project = pinned_project();
    // Nothing recorded yet: said, not a crash.
    let none = project.run(&["review", "prompt", "--new"]);
    assert_eq!(none.code, 2, "{none:?}");
    assert!(
        none.stderr.contains("no session has recorded anything"),
        "{none:?}"
    );
    write_file(&project, "src/app.py", "def load(path):\n    return path\n");
    // No stop yet: no pending request, so the plain prompt has nothing to print.
    assert_ne!(project.run(&["review", "prompt"]).code, 0);
    let made = project.run(&["review", "prompt", "--new"]);
    assert_eq!(made.code, 0, "{made:?}");
    assert!(made.stdout.contains("src/app.py"), "{made:?}");
    assert!(
        made.stderr
            .contains("review R1 of session test-session; record the findings with: car review submit --session test-session"),
        "{made:?}"
    );
    // Asked again for the same versions: the same request, said so, not a second one.
    let again = project.run(&["review", "prompt", "--new", "--session", SESSION]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again
            .stderr
            .contains("review R1 already asks for exactly these versions"),
        "{again:?}"
    );
    assert_eq!(again.stdout, made.stdout);
    // The plain prompt now prints it too.
    assert_eq!(project.run(&["review", "prompt"]).stdout, made.stdout);
    let requested = |project: &TestProject| {
        events(project, SESSION)
            .iter()
            .filter(|event| event["event"] == "review_requested")
            .count()
    };
    assert_eq!(requested(&project), 1);
    // The review recorded before the stop covers the versions: the first stop passes.
    let submitted = submit(&project, &json!({"findings": []}));
    assert_eq!(submitted.code, 0, "{submitted:?}");
    let answer = stop(&project);
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        stages(&project, SESSION).contains(&"changes=none".to_string()),
        "{:?}",
        stages(&project, SESSION)
    );
    assert_eq!(requested(&project), 1);
    // Everything reviewed: nothing to ask for.
    let nothing = project.run(&["review", "prompt", "--new"]);
    assert_eq!(nothing.code, 2, "{nothing:?}");
    assert!(
        nothing
            .stderr
            .contains("session test-session has no unreviewed change: nothing to review"),
        "{nothing:?}"
    );
    let unknown = project.run(&["review", "prompt", "--new", "--session", "nope"]);
    assert!(
        unknown.stderr.contains("no session \"nope\""),
        "{unknown:?}"
    );
}

#[test]
fn an_edit_after_an_early_request_makes_the_stop_ask_again() {
    let project = pinned_project();
    write_file(&project, "a.py", "a = 1\n");
    assert_eq!(project.run(&["review", "prompt", "--new"]).code, 0);
    write_file(&project, "b.py", "b = 1\n");
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    let requests: Vec<Value> = events(&project, SESSION)
        .into_iter()
        .filter(|event| event["event"] == "review_requested")
        .collect();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let files = requests[1]["files"].as_object().unwrap();
    assert!(
        files.contains_key("a.py") && files.contains_key("b.py"),
        "{requests:?}"
    );
}
