//! Regression tests for issue 15 item 3: links committed inside car's state folder never redirect
//! car's reads or writes; car refuses them with a message that names the link.

use std::os::unix::fs::symlink;

use crate::review_helpers::{SESSION, stop};
use crate::support::{TestProject, snapshot};

const STATE: &str = ".claude/claude-auto-review";

/// A folder outside the project holding files a redirected write would change.
fn victim() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bashrc"), "# the user's own file\n").unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    dir
}

#[test]
fn links_to_outside_files_in_the_state_folder_are_refused_not_followed() {
    let project = TestProject::new();
    let outside = victim();
    let state = project.path().join(STATE);
    std::fs::create_dir_all(&state).unwrap();
    for name in [
        "state.jsonl",
        "hook-errors.jsonl",
        "lessons.json.lock",
        "lessons.json.index",
    ] {
        symlink(outside.path().join("bashrc"), state.join(name)).unwrap();
    }
    let run = project.add_lesson("*.py", "os.system(", "use subprocess");
    assert_eq!(run.code, 2, "the lock is a link: {run:?}");
    assert!(
        run.stderr
            .contains("lessons.json.lock: a symbolic link inside car's state folder"),
        "{}",
        run.stderr
    );
    std::fs::remove_file(state.join("lessons.json.lock")).unwrap();
    let run = project.add_lesson("*.py", "os.system(", "use subprocess");
    assert_eq!(run.code, 0, "{run:?}");
    std::fs::remove_file(state.join("lessons.json.lock")).unwrap();
    symlink(
        outside.path().join("bashrc"),
        state.join("lessons.json.lock"),
    )
    .unwrap();
    let before = snapshot(outside.path());
    project.write("a.py", "import os\nos.system('ls')\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "", "os.system('ls')"),
    );
    assert!(
        answer.context().contains("use subprocess"),
        "the lesson still fires: {answer:?}"
    );
    // Heeding it records an outcome under the lock: refused, and said.
    project.write("a.py", "import subprocess\nsubprocess.run(['ls'])\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "os.system('ls')", "subprocess.run(['ls'])"),
    );
    assert!(
        answer
            .system_message()
            .contains("a symbolic link inside car's state folder"),
        "{answer:?}"
    );
    let answer = stop(&project);
    assert!(
        answer
            .system_message()
            .contains("state.jsonl: a symbolic link inside car's state folder"),
        "{answer:?}"
    );
    assert_eq!(snapshot(outside.path()), before, "nothing outside changed");
}

#[test]
fn a_linked_clients_folder_or_state_folder_is_refused() {
    let project = TestProject::new();
    let outside = victim();
    let state = project.path().join(STATE);
    std::fs::create_dir_all(&state).unwrap();
    symlink(outside.path().join("folder"), state.join("clients")).unwrap();
    let before = snapshot(outside.path());
    project.write("a.py", "x = 1\n");
    let answer = project.hook("post-tool-use", &project.edit_payload("a.py", "", "x = 1"));
    assert!(
        answer
            .system_message()
            .contains("clients: a symbolic link inside car's state folder"),
        "{answer:?}"
    );
    let end = project.fixture_json("claude-session-end.json");
    project.hook("session-end", &end.to_string());
    assert_eq!(snapshot(outside.path()), before);
    assert!(project.run(&["review", "status"]).code == 0);

    // The whole state folder a link (committed as .claude/claude-auto-review -> elsewhere).
    let other = TestProject::new();
    std::fs::create_dir_all(other.path().join(".claude")).unwrap();
    symlink(outside.path().join("folder"), other.path().join(STATE)).unwrap();
    other.write("a.py", "x = 1\n");
    let answer = other.hook("post-tool-use", &other.edit_payload("a.py", "", "x = 1"));
    assert!(
        answer
            .system_message()
            .contains("claude-auto-review: a symbolic link inside car's state folder"),
        "{answer:?}"
    );
    let _ = SESSION;
    assert_eq!(snapshot(outside.path()), before);
}

/// An Edit of `relative` by `session` (the file is written first).
pub fn edit_as(project: &TestProject, session: &str, relative: &str, content: &str) {
    project.write(relative, content);
    let payload = project.edit_payload_as(session, relative, "", content.trim_end());
    let answer = project.hook("post-tool-use", &payload);
    assert!(!answer.is_block(), "{answer:?}");
}

#[test]
fn session_ids_that_sanitise_alike_keep_apart() {
    let project = TestProject::new();
    let sessions = ["a/b", "a_b", "a\nb"];
    for (index, session) in sessions.iter().enumerate() {
        edit_as(
            &project,
            session,
            &format!("f{index}.py"),
            &format!("x = {index}\n"),
        );
    }
    let folders = std::fs::read_dir(project.path().join(STATE).join("clients"))
        .unwrap()
        .count();
    assert_eq!(folders, 3, "one folder per session");
    for (index, session) in sessions.iter().enumerate() {
        let payload = crate::review_helpers::stop_payload(&project, session, Some("Done."));
        let answer = project.hook("stop", &payload);
        let reason = answer.reason();
        assert!(
            reason.contains(&format!("f{index}.py")),
            "{session:?}: {reason}"
        );
        assert!(
            reason.contains("(1 changed file:"),
            "{session:?} sees only its own file: {reason}"
        );
    }
}

#[test]
fn a_home_that_does_not_exist_is_never_created() {
    let project = TestProject::new();
    let parent = tempfile::tempdir().unwrap();
    let missing = parent.path().join("nonexistent-home");
    assert!(!missing.exists());
    let home = missing.to_string_lossy().into_owned();
    let env = [
        ("HOME", home.as_str()),
        ("XDG_CONFIG_HOME", ""),
        ("XDG_CACHE_HOME", ""),
    ];
    project.write("a.py", "import os\nx = 1\n");
    project.write("b.ts", "const x: number = 1;\n");
    for (file, line) in [("a.py", "x = 1"), ("b.ts", "const x: number = 1;")] {
        let answer =
            project.hook_with_env("post-tool-use", &project.edit_payload(file, "", line), &env);
        assert!(!answer.is_block(), "{answer:?}");
    }
    let stop = crate::review_helpers::stop_payload(&project, SESSION, Some("Done."));
    project.hook_with_env("stop", &stop, &env);
    let end = project.fixture("claude-session-end.json");
    project.hook_with_env("session-end", &end, &env);
    for args in [
        vec!["check", "a.py", "b.ts"],
        vec!["lessons", "list"],
        vec!["status"],
    ] {
        let mut command = project.car();
        for (key, value) in env {
            command.env(key, value);
        }
        command.args(&args).output().unwrap();
    }
    assert!(!missing.exists(), "car created {}", missing.display());
}

#[test]
fn a_bad_lesson_entry_is_mentioned_once_per_session() {
    let project = TestProject::new();
    project.write(
        &format!("{STATE}/lessons.json"),
        r#"{"lessons": [
            {"scope": "*.py", "triggers": ["os.system("], "lesson": "use subprocess.run"},
            {"scope": "*.py", "lesson": "a lesson without a trigger"}
        ]}"#,
    );
    let edit = |session: &str, line: &str| {
        project.write("a.py", &format!("{line}\n"));
        project.hook(
            "post-tool-use",
            &project.edit_payload_as(session, "a.py", "", line),
        )
    };
    let first = edit("s1", "os.system('ls')");
    assert!(
        first.context().contains("use subprocess.run"),
        "the good lesson works: {first:?}"
    );
    let message = first.system_message();
    assert!(
        message.contains("lessons.json: lesson #2: ")
            && message.contains("ignored (kept in the file)"),
        "{message}"
    );
    let second = edit("s1", "x = 2");
    assert!(
        !second.system_message().contains("lesson #2"),
        "once: {second:?}"
    );
    let other = edit("s2", "x = 3");
    assert!(
        other.system_message().contains("lesson #2"),
        "once per session: {other:?}"
    );
}

/// A team may link `lessons.json` to a shared file in the repository (issue 14: written through),
/// but a link that leads out of the project is refused like any other link in the state folder.
#[test]
fn a_lessons_file_linked_out_of_the_project_is_refused() {
    let project = TestProject::new();
    let outside = victim();
    let state = project.path().join(STATE);
    std::fs::create_dir_all(&state).unwrap();
    symlink(outside.path().join("bashrc"), state.join("lessons.json")).unwrap();
    let before = snapshot(outside.path());
    let run = project.add_lesson("*.py", "os.system(", "use subprocess");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("lessons.json: a symbolic link inside car's state folder"),
        "{}",
        run.stderr
    );
    assert_eq!(snapshot(outside.path()), before, "nothing outside changed");
}

/// Regression: a payload without a session id and a session that calls itself `unknown-session`
/// shared one folder (the id fallback was that very name), so one's edits were the other's.
#[test]
fn a_missing_session_id_never_shares_a_real_sessions_folder() {
    let project = TestProject::new();
    project.write("a.py", "x = 1\n");
    let mut named: serde_json::Value =
        serde_json::from_str(&project.write_payload("a.py", "x = 1\n", None)).unwrap();
    named["session_id"] = serde_json::json!("unknown-session");
    let mut anonymous = named.clone();
    anonymous.as_object_mut().unwrap().remove("session_id");
    let mut blank = named.clone();
    blank["session_id"] = serde_json::json!("  ");
    for payload in [&named, &anonymous, &blank] {
        let answer = project.hook("post-tool-use", &payload.to_string());
        assert_eq!(answer.code, 0, "{answer:?}");
    }
    let clients: Vec<String> =
        std::fs::read_dir(project.path().join(".claude/claude-auto-review/clients"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
    assert_eq!(clients.len(), 2, "{clients:?}");
    assert!(
        clients.contains(&"unknown-session".to_string()),
        "{clients:?}"
    );
}

/// Regression (hardening round 2): an empty lessons.json (truncated, a bad merge) silently meant
/// "no lessons". It still checks nothing, but the hook says so once per session and
/// `car lessons list` warns; the file is left as it is.
#[test]
fn an_empty_lessons_file_is_named_not_silently_empty() {
    let project = TestProject::new();
    project.write(".claude/claude-auto-review/lessons.json", "");
    project.write("a.py", "x = 1\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "x = 1\n", None),
    );
    assert!(
        answer
            .system_message()
            .contains("lessons.json: the file is empty, so no lessons are checked"),
        "{answer:?}"
    );
    let again = project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "x = 2\n", Some("x = 1\n")),
    );
    assert!(!again.system_message().contains("empty"), "once: {again:?}");
    let list = project.run(&["lessons", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert!(list.stderr.contains("the file is empty"), "{list:?}");
    assert_eq!(project.read(".claude/claude-auto-review/lessons.json"), "");
}
