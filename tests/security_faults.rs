//! Regression tests for issue 15's faults (items 5, 6 and 8): a torn log line, a damaged lesson
//! index and a pathological regex never switch car off or hold a hook.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::review_helpers::{SESSION, stop, write_file};
use crate::support::TestProject;

fn append(project: &TestProject, relative: &str, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(project.path().join(relative))
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn events_file() -> String {
    format!(".claude/claude-auto-review/clients/{SESSION}/events.jsonl")
}

#[test]
fn a_torn_utf8_character_in_the_event_log_does_not_switch_the_gate_off() {
    let project = TestProject::new();
    write_file(&project, "a.py", "x = 1\n");
    // Half of "é" at the end of the log, as a full disk or a kill leaves it, before any stop
    // (no snapshot cache yet) ...
    append(
        &project,
        &events_file(),
        b"{\"ts\":1,\"session\":\"test-session\",\"file\":\"\xc3",
    );
    let answer = stop(&project);
    assert!(!answer.system_message().contains("failed"), "{answer:?}");
    assert!(
        answer.is_block(),
        "the gate still asks for the review: {answer:?}"
    );
    // ... and after one (the cache is ahead of the torn bytes).
    write_file(&project, "b.py", "y = 2\n");
    append(&project, &events_file(), b"{\"ts\":2,\"file\":\"\xe2\x82");
    let answer = stop(&project);
    assert!(!answer.system_message().contains("failed"), "{answer:?}");
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("b.py"), "{}", answer.reason());
    // Every event written after the torn line is still read.
    write_file(&project, "c.py", "z = 3\n");
    let answer = stop(&project);
    assert!(answer.reason().contains("c.py"), "{}", answer.reason());
    let log = std::fs::read(project.path().join(events_file())).unwrap();
    let log = String::from_utf8_lossy(&log);
    assert_eq!(log.matches("\"event\":\"edit_tracked\"").count(), 3);
    assert_eq!(log.matches("\"event\":\"stop_blocked\"").count(), 3);
    let status = project.run(&["review", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
}

/// Damages the project's lesson index with `damage` and checks that the next edit still warns,
/// in time, and leaves a rebuilt index behind.
fn edit_after_damage(damage: impl Fn(&mut Vec<u8>)) {
    let project = TestProject::new();
    let run = project.add_lesson("*.py", "os.system(", "use subprocess.run");
    assert_eq!(run.code, 0, "{run:?}");
    let index = project
        .path()
        .join(".claude/claude-auto-review/lessons.json.index");
    project.write("a.py", "os.system('ls')\n");
    let warned = project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "", "os.system('ls')"),
    );
    assert!(
        warned.context().contains("use subprocess.run"),
        "{warned:?}"
    );
    let mut bytes = std::fs::read(&index).expect("the edit built the index");
    damage(&mut bytes);
    std::fs::write(&index, &bytes).unwrap();
    project.write("b.py", "os.system('pwd')\n");
    let started = Instant::now();
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("b.py", "", "os.system('pwd')"),
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        answer.context().contains("use subprocess.run"),
        "{answer:?}"
    );
    assert_ne!(
        std::fs::read(&index).unwrap(),
        bytes,
        "the damaged index was rebuilt"
    );
}

/// Where the section sizes start in the index header (after magic, stamp, count and bits).
const SIZES_AT: usize = 44;

#[test]
fn an_index_claiming_a_huge_section_is_rebuilt_without_allocating_it() {
    edit_after_damage(|bytes| {
        bytes[SIZES_AT + 8..SIZES_AT + 16].copy_from_slice(&(4u64 << 40).to_le_bytes());
    });
}

#[test]
fn a_zero_filled_index_body_is_rebuilt_not_spun_on() {
    edit_after_damage(|bytes| {
        let body = SIZES_AT + 8 * 9;
        bytes[body..].fill(0);
    });
}

#[test]
fn a_truncated_or_scrambled_index_is_rebuilt() {
    edit_after_damage(|bytes| bytes.truncate(bytes.len() / 2));
    edit_after_damage(|bytes| {
        let middle = bytes.len() / 2;
        for byte in &mut bytes[SIZES_AT + 80..middle] {
            *byte = byte.wrapping_mul(31).wrapping_add(7);
        }
    });
}

/// Adds a regex lesson and edits `a.txt` to hold `content`; the answer and how long it took.
fn edit_against_regex(pattern: &str, content: &str) -> (crate::support::HookAnswer, Duration) {
    let project = TestProject::new();
    let trigger = format!("regex:{pattern}");
    let run = project.add_lesson("*.txt", &trigger, "costly");
    assert_eq!(run.code, 0, "{run:?}");
    let payload = project.write_payload("a.txt", content, None);
    let started = Instant::now();
    let answer = project.hook("post-tool-use", &payload);
    (answer, started.elapsed())
}

#[test]
fn one_regex_on_a_megabyte_line_finishes_fast() {
    for length in [50_000, 1 << 20] {
        let (answer, took) = edit_against_regex("(?:a{100}){100}(?=z)", &"a".repeat(length));
        assert!(took < Duration::from_secs(3), "{length}: took {took:?}");
        assert!(!answer.is_block(), "{answer:?}");
    }
}

#[test]
fn one_costly_regex_is_stopped_at_the_edit_budget() {
    // 1,500 distinct random lines of a and b (a repeated line would let the lazy DFA reuse its
    // states): seconds for this pattern, far past the 150 ms budget.
    let mut state: u64 = 11;
    let mut content = String::new();
    for index in 0..1_500_000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        content.push(if (state >> 33) & 1 == 0 { 'a' } else { 'b' });
        if index % 1000 == 999 {
            content.push('\n');
        }
    }
    let (answer, took) = edit_against_regex("(?:a|b)*a(?:a|b){200}z", &content);
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(
        answer
            .system_message()
            .contains("regex triggers were not tried"),
        "{answer:?}"
    );
}

/// Runs `car hook EVENT` with `payload` from a working directory that is deleted before car
/// starts (an agent whose folder was removed under it); returns exit code, stdout and stderr.
fn hook_from_a_deleted_directory(
    project: &TestProject,
    event: &str,
    payload: &str,
) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let parent = tempfile::tempdir().unwrap();
    let gone = parent.path().join("gone");
    std::fs::create_dir(&gone).unwrap();
    // car's own command line and environment, run by a shell that enters the folder, removes it,
    // then becomes car: car starts in a directory that no longer exists.
    let car = project.car_std();
    let mut shell = std::process::Command::new("sh");
    shell
        .args([
            "-c",
            "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\"",
            "sh",
        ])
        .arg(&gone)
        .arg(car.get_program())
        .args(["hook", event])
        .current_dir(parent.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in car.get_envs() {
        match value {
            Some(value) => shell.env(key, value),
            None => shell.env_remove(key),
        };
    }
    let mut process = shell.spawn().unwrap();
    let mut stdin = process.stdin.take().unwrap();
    stdin.write_all(payload.as_bytes()).unwrap();
    drop(stdin);
    let output = process.wait_with_output().unwrap();
    assert!(!gone.exists(), "the folder was removed before car ran");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Regression: with the process's own directory deleted, every hook exited 2 with an empty stdout
/// ("cannot read the current directory"), which Claude Code takes as a blocking stop, so the
/// breaker never ran. The payload's cwd is what counts: the hooks answer JSON with exit 0, check
/// the edit (the interpreter runs) and gate the stop.
#[test]
fn a_deleted_working_directory_never_wedges_a_hook() {
    let project = TestProject::new();
    project.write("app.py", "def f(:\n    return 1\n");
    let payload = project.write_payload("app.py", "def f(:\n    return 1\n", None);
    let (code, stdout, stderr) = hook_from_a_deleted_directory(&project, "post-tool-use", &payload);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        answer["decision"], "block",
        "the syntax error is still caught: {answer}"
    );
    let stop = serde_json::json!({"session_id": "test-session", "cwd": project.path(),
        "hook_event_name": "Stop", "stop_hook_active": false})
    .to_string();
    let (code, stdout, stderr) = hook_from_a_deleted_directory(&project, "stop", &stop);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(answer["decision"], "block", "the gate still runs: {answer}");
}

/// Regression (hardening round 2): after parallel hooks wrote the same error, a stale candidate
/// was sometimes left beside the lesson it had become (a hook that read the lessons before the
/// promotion recorded the error as new). Now the lessons are read under the candidates lock
/// every promotion holds.
#[test]
fn parallel_identical_errors_leave_no_candidate_beside_its_lesson() {
    let project = TestProject::new();
    let write = |file: &str, content: &str| {
        project.write(file, content);
        project.hook("post-tool-use", &project.write_payload(file, content, None))
    };
    // Seen once and fixed: a candidate with its fix, waiting for a second sighting.
    let first = write("src/a.py", "import fastjsonx\n");
    assert!(first.is_block(), "{first:?}");
    write("src/a.py", "import json\n");
    // 24 agents' hooks write the same mistake at once: one promotes it.
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24)
            .map(|index| {
                let write = &write;
                scope.spawn(move || write(&format!("src/b{index}.py"), "import fastjsonx\n"))
            })
            .collect();
        for handle in handles {
            assert_eq!(handle.join().unwrap().code, 0);
        }
    });
    let lessons = project.read_json(".claude/claude-auto-review/lessons.json");
    let learned: Vec<&serde_json::Value> = lessons["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|lesson| lesson["triggers"].to_string().contains("fastjsonx"))
        .collect();
    assert_eq!(learned.len(), 1, "{lessons}");
    let pool = std::fs::read_to_string(
        project
            .path()
            .join(".claude/claude-auto-review/lesson_candidates.json"),
    )
    .unwrap_or_default();
    assert!(!pool.contains("fastjsonx"), "a stale candidate: {pool}");
}

/// Issue 22 item 6, the bound: a hook that finds the lesson index being built by another (its
/// lock held) waits for that build only as long as a hook waits for any lock, then matches the
/// lessons in memory: it still warns, and leaves the build to the other.
#[test]
fn a_hook_waiting_for_another_index_build_still_warns() {
    let project = TestProject::new();
    assert_eq!(
        project
            .add_lesson("*.py", "import os.path", "use pathlib")
            .code,
        0
    );
    let state = project.path().join(".claude/claude-auto-review");
    let index = state.join("lessons.json.index");
    let _ = std::fs::remove_file(&index);
    let builder = std::fs::File::create(state.join("lessons.json.index.lock")).unwrap();
    builder.lock().unwrap();
    project.write("a.py", "import os.path\n");
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "", "import os.path"),
    );
    assert!(answer.context().contains("use pathlib"), "{answer:?}");
    assert!(!index.exists(), "the build was left to the lock's holder");
    drop(builder);
}
