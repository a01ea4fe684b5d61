//! One check per edit (issue 40, item 7): the verdict PreToolUse made on the content a write
//! would leave is taken by the PostToolUse call that finds that content on disk, so the checker
//! runs once per write. Proven without timing: the checker is a stand-in that records each of its
//! runs (the project's Python through `pythonInterpreter`, `bash` first on PATH) and then runs
//! the real one. The answers are those of a PostToolUse call alone, in a session of its own.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::pre_tool_use::{CLAUDE, CODEX, before_tool};
use crate::support::{HookAnswer, TestProject, is_installed};

/// A checker stand-in outside the project: records each run in its log, then runs `real`.
struct StandIn {
    dir: tempfile::TempDir,
    program: PathBuf,
}

impl StandIn {
    fn new(name: &str, real: &str) -> StandIn {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join(name);
        let log = dir.path().join("runs.log");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\necho run >> '{}'\nexec '{real}' \"$@\"\n",
                log.display()
            ),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        StandIn { dir, program }
    }

    /// How many times the checker ran.
    fn runs(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("runs.log"))
            .map_or(0, |log| log.lines().count())
    }

    /// PATH with the stand-in's folder first.
    fn path_first(&self) -> String {
        let rest = std::env::var("PATH").unwrap_or_default();
        format!("{}:{rest}", self.dir.path().display())
    }
}

/// The real Python's own path (not a shim), when there is one.
fn real_python() -> Option<String> {
    if !is_installed("python3") {
        return None;
    }
    let output = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let path = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (!path.is_empty()).then_some(path)
}

/// A committed project whose Python is `python` (a stand-in).
fn python_project(python: &Path, files: &[(&str, &str)]) -> TestProject {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        &json!({"claude-auto-review": {"pythonInterpreter": python}}).to_string(),
    );
    for (file, content) in files {
        project.write(file, content);
    }
    project.commit_all();
    project
}

/// A Python stand-in and a committed project holding `files` that runs it; `None` (the test is
/// skipped, saying so) without a python3.
fn python_pair(files: &[(&str, &str)]) -> Option<(StandIn, TestProject)> {
    let Some(real) = real_python() else {
        eprintln!("skipped: no python3");
        return None;
    };
    let python = StandIn::new("python-stand-in", &real);
    let project = python_project(&python.program, files);
    Some((python, project))
}

/// Claude Code's Edit of `file`, before it runs.
fn pre_edit(project: &TestProject, file: &str, old: &str, new: &str) -> HookAnswer {
    let input = json!({"file_path": project.path().join(file), "old_string": old, "new_string": new, "replace_all": false});
    project.hook_as(
        "claude",
        "pre-tool-use",
        &before_tool(project, CLAUDE, "Edit", input),
    )
}

/// The Edit as the tool runs it (the file on disk changes), then its PostToolUse call in
/// `session` (Claude Code's payload, `originalFile` and `structuredPatch` included).
fn post_edit(project: &TestProject, session: &str, file: &str, old: &str, new: &str) -> HookAnswer {
    let original = project.read(file);
    let edited = original.replacen(old, new, 1);
    project.write(file, &edited);
    post_edit_of(project, session, file, old, new, &original)
}

/// The PostToolUse call of the Edit, the file on disk as it is.
fn post_edit_of(
    project: &TestProject,
    session: &str,
    file: &str,
    old: &str,
    new: &str,
    original: &str,
) -> HookAnswer {
    let line = original
        .lines()
        .position(|text| text.contains(old))
        .expect("old_string is in the file")
        + 1;
    let mut payload = project.fixture_json(CLAUDE);
    payload["session_id"] = Value::from(session);
    payload["hook_event_name"] = Value::from("PostToolUse");
    payload["tool_name"] = Value::from("Edit");
    payload["tool_input"] = json!({"file_path": project.path().join(file), "old_string": old, "new_string": new, "replace_all": false});
    let old_line = original.lines().nth(line - 1).unwrap();
    let new_line = old_line.replacen(old, new, 1);
    payload["tool_response"] = json!({
        "filePath": project.path().join(file), "oldString": old, "newString": new,
        "originalFile": original, "userModified": false, "replaceAll": false,
        "structuredPatch": [{"oldStart": line, "oldLines": 1, "newStart": line, "newLines": 1,
                             "lines": [format!("-{old_line}"), format!("+{new_line}")]}]
    });
    project.hook_as("claude", "post-tool-use", &payload.to_string())
}

/// The session id of the captured Claude Code payloads (the pair's session).
fn claude_session(project: &TestProject) -> String {
    project.fixture_json(CLAUDE)["session_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The kept verdicts of every session of the project.
fn kept_verdict_files(project: &TestProject) -> Vec<PathBuf> {
    let clients = project.path().join(".claude/claude-auto-review/clients");
    let Ok(sessions) = std::fs::read_dir(clients) else {
        return Vec::new();
    };
    sessions
        .flatten()
        .map(|session| session.path().join("kept-verdicts.json"))
        .filter(|file| file.is_file())
        .collect()
}

const APP: &str = "def load(path):\n    return 1\n\n\ndef save(path):\n    return 2\n";

/// The pair runs the interpreter once, and answers as the PostToolUse call alone does, for a
/// clean edit and for one that leaves an error in a file already broken (let through before,
/// blocked after).
#[test]
fn the_pair_runs_the_python_check_once_and_answers_as_before() {
    let Some((python, project)) = python_pair(&[("app.py", APP), ("old.py", "def a(:\n")]) else {
        return;
    };
    let pair = claude_session(&project);

    crate::pre_tool_use::assert_silent(&pre_edit(&project, "app.py", "return 1", "return 10"));
    assert_eq!(python.runs(), 1);
    let after = post_edit(&project, &pair, "app.py", "return 1", "return 10");
    assert_eq!(python.runs(), 1, "the PostToolUse call took the verdict");
    // The same edit alone, in another session: the interpreter runs, the answer is the same.
    std::fs::write(project.path().join("app.py"), APP).unwrap();
    let alone = post_edit(&project, "alone", "app.py", "return 1", "return 10");
    assert_eq!(python.runs(), 2);
    assert_eq!(after.json, alone.json);

    // An error in a file broken already: let through, then blocked with the very same words.
    let broken = "def a(:\n";
    crate::pre_tool_use::assert_silent(&pre_edit(&project, "old.py", "def a(:", "def a(:\nb = (1"));
    // (A compiler error's severity depends on the Python the project requires: its verdict is
    // not kept, so this one is checked again.)
    let after = post_edit(&project, &pair, "old.py", "def a(:", "def a(:\nb = (1");
    assert!(after.is_block(), "{}", after.stdout);
    std::fs::write(project.path().join("old.py"), broken).unwrap();
    let alone = post_edit(&project, "alone", "old.py", "def a(:", "def a(:\nb = (1");
    assert_eq!(after.json, alone.json);
}

/// Codex: its patch, applied before it runs, and the file its PostToolUse call finds.
#[test]
fn a_codex_patch_is_checked_once() {
    let Some((python, project)) = python_pair(&[("app.py", APP)]) else {
        return;
    };
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-    return 2\n+    return 20\n*** End Patch\n";
    let pre = before_tool(&project, CODEX, "apply_patch", json!({"command": patch}));
    crate::pre_tool_use::assert_silent(&project.hook_as("codex", "pre-tool-use", &pre));
    assert_eq!(python.runs(), 1);
    project.write("app.py", &APP.replace("return 2", "return 20"));
    let mut post: Value = serde_json::from_str(&pre).unwrap();
    post["hook_event_name"] = Value::from("PostToolUse");
    post["tool_response"] = Value::from(
        "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM app.py\n",
    );
    let after = project.hook_as("codex", "post-tool-use", &post.to_string());
    assert_eq!(after.code, 0);
    assert_eq!(python.runs(), 1, "the PostToolUse call took the verdict");
}

/// What PreToolUse saw is not what the disk holds (the tool or a person wrote something else):
/// checked again. An edit that adds an import is checked again too (what is installed and the
/// project's other files decide it, and a parallel tool call may change them).
#[test]
fn other_content_on_disk_or_an_added_import_is_checked_again() {
    let Some((python, project)) = python_pair(&[("app.py", APP)]) else {
        return;
    };
    let pair = claude_session(&project);
    pre_edit(&project, "app.py", "return 1", "return 10");
    assert_eq!(python.runs(), 1);
    // The disk holds `return 11`, not the `return 10` PreToolUse checked.
    project.write("app.py", &APP.replace("return 1", "return 11"));
    let after = post_edit_of(&project, &pair, "app.py", "return 1", "return 11", APP);
    assert_eq!(after.code, 0);
    assert_eq!(python.runs(), 2, "checked again");

    project.write("app.py", APP);
    let runs = python.runs();
    pre_edit(
        &project,
        "app.py",
        "def save(path):",
        "import os\ndef save(path):",
    );
    post_edit(
        &project,
        &pair,
        "app.py",
        "def save(path):",
        "import os\ndef save(path):",
    );
    assert_eq!(
        python.runs(),
        runs + 2,
        "an added import is checked after the write"
    );
}

/// The checkers changed between the two hooks (another interpreter configured): the verdict of
/// the old one is not taken.
#[test]
fn a_changed_checker_set_is_checked_again() {
    let Some(real) = real_python() else {
        eprintln!("skipped: no python3");
        return;
    };
    let first = StandIn::new("python-stand-in", &real);
    let second = StandIn::new("python-stand-in", &real);
    let project = python_project(&first.program, &[("app.py", APP)]);
    let pair = claude_session(&project);
    pre_edit(&project, "app.py", "return 1", "return 10");
    assert_eq!(first.runs(), 1);
    project.write(
        ".claude/settings.json",
        &json!({"claude-auto-review": {"pythonInterpreter": second.program}}).to_string(),
    );
    post_edit(&project, &pair, "app.py", "return 1", "return 10");
    assert_eq!((first.runs(), second.runs()), (1, 1));
}

/// `bash` first on PATH is the checker of a shell script. The pair runs it once for the new
/// content (PreToolUse also asks whether the file is clean now), and blocks after the write in the
/// words of the PostToolUse call alone; a PATH that finds another bash after PreToolUse is another
/// checker, and the script is checked again.
#[test]
fn a_shell_script_is_checked_once_and_again_under_another_bash() {
    if !Path::new("/bin/bash").is_file() {
        eprintln!("skipped: no /bin/bash");
        return;
    }
    let bash = StandIn::new("bash", "/bin/bash");
    let other = StandIn::new("bash", "/bin/bash");
    let project = TestProject::new();
    let broken = "echo one\nif true; then\n";
    project.write("run.sh", broken);
    project.commit_all();
    let hook = |path: &str, event: &str, payload: &str| {
        let output = project
            .car()
            .env("PATH", path)
            .args(["hook", event, "--agent", "claude"])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let edit = |session: &str, event: &str, old: &str, new: &str, original: &str| {
        let input = json!({"file_path": project.path().join("run.sh"), "old_string": old, "new_string": new, "replace_all": false});
        let mut payload: Value =
            serde_json::from_str(&before_tool(&project, CLAUDE, "Edit", input)).unwrap();
        payload["session_id"] = Value::from(session);
        if event == "post-tool-use" {
            payload["hook_event_name"] = Value::from("PostToolUse");
            payload["tool_response"] = json!({"filePath": project.path().join("run.sh"),
                "oldString": old, "newString": new, "originalFile": original});
        }
        payload.to_string()
    };
    let first = bash.path_first();
    let pre = hook(
        &first,
        "pre-tool-use",
        &edit("pair", "pre-tool-use", "echo one", "echo (", broken),
    );
    assert!(
        pre.get("hookSpecificOutput").is_none(),
        "broken already: let through: {pre}"
    );
    let checked = bash.runs();
    assert_eq!(checked, 2, "the new content, and the file as it is now");
    let written = broken.replace("echo one", "echo (");
    project.write("run.sh", &written);
    let post = edit("pair", "post-tool-use", "echo one", "echo (", broken);
    let after = hook(&first, "post-tool-use", &post);
    assert_eq!(
        bash.runs(),
        checked,
        "the PostToolUse call took the verdict"
    );
    assert_eq!(after["decision"], "block", "{after}");
    let alone = edit("alone", "post-tool-use", "echo one", "echo (", broken);
    assert_eq!(hook(&first, "post-tool-use", &alone), after);
    assert_eq!(bash.runs(), checked + 1);

    // Another bash first on PATH after PreToolUse: checked again, by that one.
    let pre = edit("pair", "pre-tool-use", "echo (", "echo two", &written);
    hook(&first, "pre-tool-use", &pre);
    let checked = bash.runs();
    project.write("run.sh", &written.replace("echo (", "echo two"));
    let post = edit("pair", "post-tool-use", "echo (", "echo two", &written);
    hook(&other.path_first(), "post-tool-use", &post);
    assert_eq!(
        (bash.runs(), other.runs()),
        (checked, 1),
        "another bash checks again"
    );
}

/// A kept-verdicts file that is not JSON is no verdict: the PostToolUse call checks, answers as
/// it would alone, and the next PreToolUse call replaces the file.
#[test]
fn a_corrupt_kept_verdicts_file_is_ignored() {
    let Some((python, project)) = python_pair(&[("app.py", APP)]) else {
        return;
    };
    let pair = claude_session(&project);
    pre_edit(&project, "app.py", "return 1", "return 10");
    let kept = kept_verdict_files(&project);
    assert_eq!(kept.len(), 1, "PreToolUse kept its verdict");
    std::fs::write(&kept[0], "{\"verdicts\": [{\"file\": \"app.py\", \"key\": ").unwrap();
    let after = post_edit(&project, &pair, "app.py", "return 1", "return 10");
    assert_eq!(python.runs(), 2, "checked again");
    assert_eq!(after.code, 0);
    assert!(after.json.get("decision").is_none(), "{}", after.stdout);
    pre_edit(&project, "app.py", "return 10", "return 100");
    let text = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(serde_json::from_str::<Value>(&text).is_ok(), "{text}");
}
