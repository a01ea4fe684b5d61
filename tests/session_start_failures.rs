//! Regression tests for issue 38 items 3 and 4: SessionStart failed silently. With a git that
//! hangs, no git at all, or a repository git cannot read, no baseline was recorded and nothing
//! said so; a corrupt `lessons.json` made the briefing vanish (and the PreToolUse hook's lesson
//! checks) without a word. Each is now one line for the person, naming what failed; the stop
//! falls back as documented (the session's first record takes the baseline).

use serde_json::json;

use crate::security_reads::make_executable;
use crate::session_start::{committed_project, session_folders, session_start};
use crate::support::{HookAnswer, SHELL_AGENTS, TestProject};

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

/// Claude Code's SessionStart, with `path` as PATH.
fn start_with_path(project: &TestProject, path: &str) -> HookAnswer {
    let (_, folder, _, stop) = SHELL_AGENTS[0];
    let mut command = project.car();
    command
        .env("PATH", path)
        .args(["hook", "session-start", "--agent", "claude"]);
    let output = command
        .write_stdin(session_start(project, folder, stop, "startup"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    HookAnswer {
        json: serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("{stdout}")),
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// A folder holding a `git` that runs `script` (a shell script body).
fn fake_git(script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().join("git");
    std::fs::write(&git, format!("#!/bin/sh\n{script}\n")).unwrap();
    make_executable(&git);
    dir
}

fn holds_a_baseline(project: &TestProject) -> bool {
    session_folders(project)
        .into_iter()
        .any(|folder| folder.join("start-baseline.json").exists())
}

fn assert_says_no_baseline(answer: &HookAnswer, why: &str) {
    assert_eq!(answer.code, 0);
    assert!(!answer.holds_back(), "{}", answer.stdout);
    let message = answer.system_message();
    assert!(
        message.contains("car: no baseline of what was already changed at the session's start")
            && message.contains(why)
            && message.contains("the session's first edit or shell command takes it instead"),
        "{message}"
    );
}

#[test]
fn a_git_that_hangs_is_named_and_the_hook_answers_within_its_budget() {
    let project = committed_project();
    let hanging = fake_git("exec sleep 60");
    let path = format!("{}:/usr/bin:/bin", hanging.path().display());
    let answer = start_with_path(&project, &path);
    assert_says_no_baseline(&answer, "`git status` did not answer within");
    assert!(!holds_a_baseline(&project));
}

#[test]
fn a_missing_git_is_named() {
    let project = committed_project();
    let empty = tempfile::tempdir().unwrap();
    let answer = start_with_path(&project, &empty.path().display().to_string());
    assert_says_no_baseline(&answer, "`git` is not on PATH");
    assert!(!holds_a_baseline(&project));
}

#[test]
fn a_repository_git_cannot_read_is_named_with_gits_own_words() {
    let project = committed_project();
    project.write(".git/HEAD", "garbage\n");
    let answer = start_with_path(&project, &std::env::var("PATH").unwrap());
    assert_says_no_baseline(&answer, "`git status` failed (exit 128): fatal:");
    assert!(!holds_a_baseline(&project));
}

#[test]
fn with_git_working_the_baseline_is_held_and_nothing_is_said() {
    let project = committed_project();
    let answer = start_with_path(&project, &std::env::var("PATH").unwrap());
    assert_eq!(answer.json, json!({}), "{}", answer.stdout);
    assert!(holds_a_baseline(&project));
}

/// A corrupt lessons file is named, file and line, at the session's start (no briefing) and
/// before a write (no lesson checks), as it already was after an edit; the file is left as it is.
#[test]
fn a_corrupt_lessons_file_is_named_in_every_hook() {
    let project = committed_project();
    let broken =
        "{\"lessons\": [\n  {\"scope\": \"*.py\", \"triggers\": [\"import os.path\"],,\n]}\n";
    project.write(LESSONS, broken);
    let started = start_with_path(&project, &std::env::var("PATH").unwrap());
    let message = started.system_message();
    assert!(
        message.contains("lessons.json:2:") && message.contains("no lessons briefing this session"),
        "{}",
        started.stdout
    );
    assert!(started.json.get("hookSpecificOutput").is_none());
    let before_write = crate::pre_tool_use::write(&project, "app.py", "import os.path\n");
    assert!(
        before_write.system_message().contains("lessons.json:2:"),
        "{}",
        before_write.stdout
    );
    assert_eq!(project.read(LESSONS), broken);
}
