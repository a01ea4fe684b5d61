//! Regression tests for issue 38 items 1, 2 and 8 (the PreToolUse hook under hostile edits): the
//! file as the tool would leave it is never built past car's 2 MiB read bound (checked under an
//! address-space cap, not by measuring memory); a stop can never become a wall (the list of
//! stopped writes holds a whole patch, loses no entry to a parallel hook, and a stop that cannot
//! be remembered is not made); a Codex patch Codex itself would refuse gets no verdict.

use std::io::Write;
use std::process::Stdio;

use serde_json::json;

use crate::pre_tool_use::{CODEX, assert_silent, before_tool, claude, committed, denied, write};
use crate::security_reads::capped_hook;
use crate::support::{HookAnswer, TestProject};

/// What every hook here runs under: far below what building the oversized results would take.
const MEMORY_CAP: u64 = 1 << 30;

fn codex_patch(project: &TestProject, patch: &str) -> HookAnswer {
    project.hook_as(
        "codex",
        "pre-tool-use",
        &before_tool(project, CODEX, "apply_patch", json!({"command": patch})),
    )
}

/// A 4 KB `replace_all` on a file of a million matches would make 4 GB; two chained `replace_all`
/// edits of a MultiEdit that each multiply the text by 50 would make 3.2 GB. car counts before it
/// builds: no verdict, the write goes through, and the person reads which file was not checked.
#[test]
fn an_edit_that_would_grow_the_file_past_the_bound_gets_no_verdict_under_a_memory_cap() {
    let project = committed(&[("big.py", &"a".repeat(1_000_000))]);
    let path = project.path().join("big.py");
    let replace_all = before_tool(
        &project,
        crate::pre_tool_use::CLAUDE,
        "Edit",
        json!({"file_path": path, "old_string": "a", "new_string": "b".repeat(4_000), "replace_all": true}),
    );
    let times_fifty = |from: &str, to: &str| json!({"old_string": from, "new_string": to.repeat(50), "replace_all": true});
    let multi_edit = before_tool(
        &project,
        crate::pre_tool_use::CLAUDE,
        "MultiEdit",
        json!({"file_path": path, "edits": [times_fifty("a", "c"), times_fifty("c", "d")]}),
    );
    for payload in [replace_all, multi_edit] {
        let answer = capped_hook(&project, "pre-tool-use", &payload, MEMORY_CAP).answer;
        assert_eq!(answer.code, 0, "{answer:?}");
        assert_silent(&answer);
        assert_eq!(
            answer.system_message(),
            "car: big.py: the edit would leave it larger than 2 MiB; not checked before the write",
            "{answer:?}"
        );
    }
    // Within the bound the edit is still checked and a broken result stopped.
    let small = committed(&[("small.py", "x = 1\n")]);
    let answer = claude(
        &small,
        "Edit",
        json!({"file_path": small.path().join("small.py"), "old_string": "1", "new_string": "(1", "replace_all": true}),
    );
    denied(&answer);
}

/// A broken patch of 51 files: the list of stopped writes used to keep 50, so the patch evicted
/// its own first entry and was denied on every send. The same patch sent again now goes through.
/// JSON files: checked in process, so 120 of them stay far within the hook's time budget on a
/// loaded machine (120 Python files start the interpreter 120 times).
#[test]
fn a_patch_stopping_many_files_goes_through_when_sent_again() {
    let project = committed(&[("README.md", "x\n")]);
    let mut patch = String::from("*** Begin Patch\n");
    for index in 0..120 {
        patch.push_str(&format!("*** Add File: bad_{index}.json\n+{{\"a\": ]\n"));
    }
    patch.push_str("*** End Patch\n");
    let reason = denied(&codex_patch(&project, &patch));
    assert!(
        reason.contains("bad_0.json:1:") && reason.contains("bad_119.json:1:"),
        "{reason}"
    );
    let again = codex_patch(&project, &patch);
    assert_silent(&again);
    assert!(
        again
            .system_message()
            .contains("let the write of bad_0.json through"),
        "{again:?}"
    );
    assert!(
        again
            .system_message()
            .contains("let the write of bad_119.json through"),
        "{again:?}"
    );
}

/// Two PreToolUse calls of one session at once, each stopping its own write: both are remembered
/// (the list is changed under its lock), so each goes through when sent again.
#[test]
fn parallel_stops_of_one_session_are_both_remembered() {
    let project = committed(&[("README.md", "x\n")]);
    let payload = |file: &str| {
        before_tool(
            &project,
            crate::pre_tool_use::CLAUDE,
            "Write",
            json!({"file_path": project.path().join(file), "content": "def f(:\n"}),
        )
    };
    for round in 0..3 {
        let files = [format!("a{round}.py"), format!("b{round}.py")];
        let hooks: Vec<_> = files
            .iter()
            .map(|file| {
                let mut hook = project
                    .car_std()
                    .args(["hook", "pre-tool-use", "--agent", "claude"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let text = payload(file);
                hook.stdin
                    .take()
                    .unwrap()
                    .write_all(text.as_bytes())
                    .unwrap();
                hook
            })
            .collect();
        for hook in hooks {
            let output = hook.wait_with_output().unwrap();
            assert!(String::from_utf8_lossy(&output.stdout).contains("\"deny\""));
        }
        for file in &files {
            let again = write(&project, file, "def f(:\n");
            assert_silent(&again);
        }
    }
}

/// When car cannot remember a stop (its list cannot be written: here a folder stands where the
/// list goes, as a read-only state folder or a full disk would refuse the write), it does not
/// stop the write: a stop it could never let through would be a wall.
#[test]
fn a_stop_that_cannot_be_remembered_is_not_made() {
    let project = committed(&[("README.md", "x\n")]);
    let session = project.fixture_json(crate::pre_tool_use::CLAUDE)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let list = project
        .path()
        .join(".claude/claude-auto-review/clients")
        .join(&session)
        .join("stopped-writes.json");
    std::fs::create_dir_all(list.join("in-the-way")).unwrap();
    for _ in 0..2 {
        let answer = write(&project, "a.py", "def f(:\n");
        assert_silent(&answer);
        let message = answer.system_message();
        assert!(
            message.contains("could not remember the stop of this write")
                && message.contains("stopped-writes.json"),
            "{message}"
        );
    }
}

/// Codex refuses a patch without `*** Begin Patch` / `*** End Patch`; car used to apply it anyway
/// and deny it. Now such a patch gets no verdict; the same patch in its envelope is stopped.
#[test]
fn a_codex_patch_codex_would_refuse_gets_no_verdict() {
    let project = committed(&[("README.md", "x\n")]);
    let body = "*** Add File: bad.py\n+def f(:\n+    pass\n";
    assert_silent(&codex_patch(&project, &format!("{body}*** End Patch\n")));
    assert_silent(&codex_patch(&project, &format!("*** Begin Patch\n{body}")));
    denied(&codex_patch(
        &project,
        &format!("*** Begin Patch\n{body}*** End Patch\n"),
    ));
}
