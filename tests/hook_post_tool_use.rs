//! The PostToolUse hook driven with every agent's edit payload fixture: what it answers, and what
//! it records for the stop gate.

use serde_json::Value;

use crate::review_helpers::pinned_project;
use crate::support::TestProject;

const SESSION: &str = "3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60";

/// The events a session recorded, as JSON values.
fn events(project: &TestProject, session: &str) -> Vec<Value> {
    let path = format!(".claude/claude-auto-review/clients/{session}/events.jsonl");
    if !project.exists(&path) {
        return Vec::new();
    }
    project
        .read(&path)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn tracked_files(project: &TestProject, session: &str) -> Vec<String> {
    events(project, session)
        .iter()
        .filter(|event| event["event"] == "edit_tracked")
        .map(|event| event["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn garbage_stdin_fails_open() {
    let project = pinned_project();
    let mut answers = serde_json::Map::new();
    for payload in [
        "",
        "not json",
        "{\"cwd\":",
        "[1,2]",
        "{\"hook_event_name\":\"PostToolUse\"}",
    ] {
        let answer = project.hook("post-tool-use", payload);
        assert_eq!(answer.code, 0, "payload {payload:?}");
        assert!(!answer.is_block());
        answers.insert(payload.to_string(), answer.redacted(&project));
    }
    // Each says what was wrong with the payload, and blocks nothing.
    insta::assert_json_snapshot!("garbage_payloads", answers);
    assert!(
        !project.exists(".claude"),
        "nothing may be written for a bad payload"
    );
}

#[test]
fn edit_with_structured_patch_is_tracked_with_its_hash() {
    let project = TestProject::new();
    let content = "import sys\n\n\ndef load(path):\n    import os.path\n    if not os.path.exists(path):\n        return None\n    return open(path).read()\n";
    project.write("src/app.py", content);
    let answer = project.post_fixture("claude-post-edit.json");
    assert_eq!(answer.code, 0);
    assert!(!answer.is_block(), "{answer:?}");
    let recorded = events(&project, SESSION);
    let tracked = recorded
        .iter()
        .find(|event| event["event"] == "edit_tracked")
        .expect("edit_tracked event");
    assert_eq!(tracked["file"], "src/app.py");
    assert_eq!(tracked["tool"], "Edit");
    use sha2::Digest;
    let expected: String = sha2::Sha256::digest(content.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(tracked["hash"], expected.as_str());
    assert!(recorded.iter().any(|event| event["event"] == "validated"));
}

#[test]
fn every_claude_edit_fixture_is_tracked() {
    let cases = [
        (
            "claude-post-edit-minimal.json",
            "src/app.py",
            "def load(path):\n    return open(path, encoding=\"utf-8\").read()\n",
        ),
        (
            "claude-post-multiedit.json",
            "src/Theme.swift",
            "import UIKit\n\nfunc style(label: UILabel, title: UILabel) {\n    label.textColor = DankeTheme.secondaryText\n    title.textColor = DankeTheme.textPrimary\n}\n",
        ),
        (
            "claude-post-write-create.json",
            "config/settings.json",
            "{\n  \"name\": \"demo\",\n  \"retries\": 3,\n}\n",
        ),
        (
            "claude-post-write-update.json",
            "scripts/deploy.sh",
            "#!/usr/bin/env bash\nset -euo pipefail\nfor host in \"$@\"; do\n  echo \"deploying to $host\"\n  if ping -c1 \"$host\" >/dev/null; then\n    scp build.tar.gz \"$host:/tmp/\"\n  fi\ndone\n",
        ),
    ];
    for (fixture, file, content) in cases {
        let project = TestProject::new();
        project.write(file, content);
        let answer = project.post_fixture(fixture);
        assert_eq!(answer.code, 0, "{fixture}");
        assert_eq!(
            tracked_files(&project, SESSION),
            vec![file.to_string()],
            "{fixture}"
        );
    }
}

#[test]
fn notebook_cell_is_tracked_without_reading_the_notebook() {
    let project = TestProject::new();
    let answer = project.post_fixture("claude-post-notebookedit.json");
    assert_eq!(answer.code, 0);
    assert_eq!(tracked_files(&project, SESSION), vec!["analysis.ipynb"]);
}

#[test]
fn other_agents_edits_are_tracked() {
    let project = TestProject::new();
    project.write(
        "src/app.py",
        "def load(path):\n    with open(path) as fh:\n        return fh.read(\n",
    );
    project.write(
        "src/util.py",
        "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
    );
    let answer = project.post_fixture("codex-post-apply-patch.json");
    assert_eq!(answer.code, 0);
    assert_eq!(
        tracked_files(&project, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
        vec!["src/app.py", "src/util.py"]
    );

    project.write("src/app.py", "return open(path, encoding='utf-8').read()\n");
    assert_eq!(
        project.post_fixture("gemini-after-tool-replace.json").code,
        0
    );
    assert_eq!(
        tracked_files(&project, "51e2c0d4-7a3b-4f1e-9c2d-8b6a5e4f3d21"),
        vec!["src/app.py"]
    );

    let cursor = project.post_fixture("cursor-after-file-edit.json");
    assert_eq!(
        cursor.json,
        serde_json::json!({}),
        "afterFileEdit can only observe"
    );
    assert_eq!(
        tracked_files(&project, "c0a8f1d2-1111-4222-8333-944455556666"),
        vec!["src/app.py"]
    );
}

#[test]
fn deleted_file_is_reported_and_nothing_is_written() {
    let project = pinned_project();
    let answer = project.post_fixture("claude-post-edit-minimal.json");
    assert_eq!(answer.code, 0);
    assert!(!answer.is_block());
    insta::assert_json_snapshot!("deleted_file", answer.redacted(&project));
    assert!(events(&project, SESSION).is_empty());
}

#[test]
fn file_outside_the_project_is_never_tracked() {
    let project = pinned_project();
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("x.py");
    std::fs::write(&outside, "x = 1\n").unwrap();
    let payload = serde_json::json!({
        "session_id": "s", "cwd": project.path(), "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": outside, "content": "x = 1\n"},
        "tool_response": {"type": "create", "originalFile": null}
    });
    let answer = project.hook("post-tool-use", &payload.to_string());
    insta::assert_json_snapshot!(
        "file_outside_the_project",
        answer.redacted_with(&project, &[(elsewhere.path(), "[elsewhere]")])
    );
    assert!(events(&project, "s").is_empty());
}

#[test]
fn binary_large_and_non_utf8_files_are_skipped_with_a_note() {
    let project = pinned_project();
    let cases: [(&str, Vec<u8>); 3] = [
        ("blob.py", b"a\0b".to_vec()),
        ("latin.py", vec![0x63, 0x61, 0x66, 0xe9, 0x0a]),
        ("huge.py", vec![b'#'; 3 * 1024 * 1024]),
    ];
    let mut answers = serde_json::Map::new();
    for (file, bytes) in cases {
        std::fs::write(project.path().join(file), &bytes).unwrap();
        let answer = project.hook("post-tool-use", &project.edit_payload(file, "x", "y"));
        assert_eq!(answer.code, 0);
        answers.insert(file.to_string(), answer.redacted(&project));
    }
    insta::assert_json_snapshot!("files_not_checked", answers);
    // A file over the read bound is not read but its edit is tracked, so the stop reviews it.
    let tracked: Vec<String> = events(&project, "test-session")
        .iter()
        .filter(|event| event["event"] == "edit_tracked")
        .map(|event| event["file"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(tracked, ["huge.py"]);
}

#[test]
fn unknown_tools_are_ignored() {
    let project = TestProject::new();
    let answer = project.post_fixture("claude-post-bash-rm.json");
    assert_eq!(answer.json, serde_json::json!({}));
}

#[test]
fn linked_worktree_shares_the_main_checkout_state_and_reviews_its_own_files() {
    let project = pinned_project();
    project.write("README.md", "x\n");
    project.commit_all();
    // Worktrees usually live beside the main checkout, not inside it.
    let beside = tempfile::tempdir().unwrap();
    let worktree = beside.path().join("feature");
    let status = std::process::Command::new("git")
        .args([
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "-b",
            "side",
        ])
        .current_dir(project.path())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(worktree.join("new.py"), "y = 2\n").unwrap();
    let payload = serde_json::json!({
        "session_id": "wt-session", "cwd": worktree, "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": worktree.join("new.py"), "content": "y = 2\n"},
        "tool_response": {"type": "create", "originalFile": null}
    });
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0, "{answer:?}");
    assert_eq!(tracked_files(&project, "wt-session"), vec!["new.py"]);
    assert!(
        !worktree.join(".claude").exists(),
        "state stays in the main checkout"
    );

    let stop = serde_json::json!({
        "session_id": "wt-session", "cwd": worktree, "hook_event_name": "Stop",
        "stop_hook_active": false, "last_assistant_message": "Added new.py."
    });
    let answer = project.hook("stop", &stop.to_string());
    assert!(answer.is_block(), "{answer:?}");
    // The worktree's file is reviewed.
    insta::assert_json_snapshot!(
        "linked_worktree_review",
        crate::review_helpers::request_view_with(&answer, &project, &[(beside.path(), "[beside]")])
    );
}

#[test]
fn disabled_in_settings_does_nothing() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"enabled": false}}"#,
    );
    project.write("src/app.py", "x = 1\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("src/app.py", "", "x = 1\n"),
    );
    assert_eq!(answer.json, serde_json::json!({}));
    assert!(events(&project, "test-session").is_empty());
}

#[test]
fn broken_settings_are_named_and_defaults_used() {
    let project = pinned_project();
    project.write(".claude/settings.json", "{\"claude-auto-review\": ");
    project.write("src/app.py", "x = 1\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("src/app.py", "", "x = 1\n"),
    );
    assert_eq!(answer.code, 0);
    insta::assert_json_snapshot!("broken_settings", answer.redacted(&project));
    assert_eq!(tracked_files(&project, "test-session"), vec!["src/app.py"]);
}

#[test]
fn nested_reviewer_runs_are_never_checked() {
    let project = TestProject::new();
    project.write("src/app.py", "x = 1\n");
    let output = project
        .car()
        .args(["hook", "post-tool-use"])
        .env("CAR_NESTED_REVIEW", "1")
        .write_stdin(project.edit_payload("src/app.py", "", "x = 1\n"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "{}");
    assert!(events(&project, "test-session").is_empty());
}

#[test]
fn warnings_of_a_configured_linter_reach_the_agent_without_blocking() {
    let project = pinned_project();
    project.write(
        ".claude/claude-auto-review/validators/todo.json",
        r#"{"rules": [{"id": "todo-grep", "severity": "warning", "scope": "*.py",
            "command": {"argv": ["sh", "-c", "grep -n TODO \"$1\" | sed \"s|^\\([0-9]*\\):|$1:\\1:1: |\"; exit 1", "sh", "{file}"]}}]}"#,
    );
    let file = project.write("src/job.py", "x = 1  # TODO remove\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("src/job.py", "", "x = 1  # TODO remove\n"),
    );
    assert!(!answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("linter_warning", answer.redacted(&project));
    assert!(file.exists());
}

#[test]
fn state_created_without_install_is_git_ignored() {
    // car used as a plugin: no `car install`, the first hook creates the state folder.
    let project = TestProject::new();
    project.write("src/app.py", "x = 1\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("src/app.py", "", "x = 1\n"),
    );
    assert_eq!(answer.code, 0);
    assert!(
        project.exists(".claude/claude-auto-review/.gitignore"),
        "{answer:?}"
    );
    let status = project.git_status();
    assert!(!status.contains("events.jsonl"), "{status}");
    assert!(status.contains("src/app.py"), "{status}");
}

/// Gemini CLI's `write_file` says what the file held before it ran (`returnDisplay`, as 0.61.0
/// sends it): a line that was already there, uncommitted, is not what the agent wrote, so the
/// lesson on it stays silent, while the lesson on the line the write added warns. Without the
/// payload's word car would diff against git HEAD and warn on the person's line too.
#[test]
fn gemini_write_file_is_diffed_against_the_content_it_replaced() {
    let project = TestProject::new();
    project.write(
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    project.commit_all();
    let before = "import os.path\n\n\ndef load(path):\n    return open(path).read()\n";
    let after = format!("{before}\n\ndef save(path, text):\n    open(path, 'w').write(text)\n");
    project.write("src/app.py", &after);
    for (trigger, lesson) in [
        ("import os.path", "this project uses pathlib"),
        (
            "open(path, 'w')",
            "write through a temporary file and rename",
        ),
    ] {
        assert_eq!(project.add_lesson("*.py", trigger, lesson).code, 0);
    }
    let mut payload =
        project.fixture_json("captured/gemini-cli-0.61.0/01-AfterTool-write_file.json");
    let file = project.path().join("src/app.py");
    payload["tool_input"]["file_path"] = serde_json::json!(file);
    payload["tool_input"]["content"] = serde_json::json!(after);
    let display = &mut payload["tool_response"]["returnDisplay"];
    display["filePath"] = serde_json::json!(file);
    display["originalContent"] = serde_json::json!(before);
    display["newContent"] = serde_json::json!(after);
    display["isNewFile"] = serde_json::json!(false);

    let answer = project.hook_as("gemini", "post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0, "{answer:?}");
    let context = answer.context();
    assert!(
        context.contains("write through a temporary file"),
        "{answer:?}"
    );
    // The lesson may come as one of the file's lessons, never as a warning.
    assert!(
        !context
            .lines()
            .any(|line| line.starts_with("⚠️") && line.contains("pathlib")),
        "the person's line is not the agent's: {context}"
    );
}
