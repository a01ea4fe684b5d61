//! Whole-process benchmark of the Stop hook without a reviewer call (DESIGN.md target: ≤ 20 ms
//! with 10,000 events in the session log). Three cases: a session with no edits (the fast path),
//! a session of 10,000 events whose changes were all reviewed (the allowed stop), and the same
//! session with a pending manual review request (the gate reuses it and blocks), warm (the
//! snapshot cache holds what earlier stops folded) and cold (the first stop reads the whole log);
//! then SessionStart (the session's baseline) and SessionEnd.
//!
//! Run: `cargo bench --bench stop_hook` (prints medians; no pass/fail).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{NOW, report, run, time_hook};
use serde_json::{Value, json};

const RUNS: usize = 60;
const EVENTS: usize = 10_000;
const FILES: usize = 50;

fn main() {
    let car = env!("CARGO_BIN_EXE_car");
    println!("Stop hook, whole process, {RUNS} runs each, no reviewer call");
    let empty = project();
    let times = time_stop(car, empty.path(), "no-edits");
    report("no edits in the session", &times);

    let reviewed = project();
    write_session(reviewed.path(), "bench", false);
    let times = time_stop(car, reviewed.path(), "bench");
    report(&format!("{EVENTS} events, all reviewed"), &times);

    let pending = project();
    write_session(pending.path(), "bench", true);
    let times = time_stop(car, pending.path(), "bench");
    report(&format!("{EVENTS} events, pending request"), &times);

    // The first stop of a session reads the whole log (no snapshot cache yet).
    let cold = project();
    write_session(cold.path(), "bench", true);
    let cache = cold
        .path()
        .join(".claude/claude-auto-review/clients/bench/snapshot.json");
    let times = time_stop_with(car, cold.path(), "bench", || {
        let _ = std::fs::remove_file(&cache);
    });
    report(&format!("{EVENTS} events, no cache (cold)"), &times);

    // SessionStart: the session's baseline (one `git status`), taken afresh each run.
    let starting = project();
    std::fs::write(starting.path().join("src/mod_0.py"), "value = 'dirty'\n").expect("write");
    let held = starting
        .path()
        .join(".claude/claude-auto-review/clients/starting/start-baseline.json");
    let times = time_hook_with(car, starting.path(), "session-start", "starting", || {
        let _ = std::fs::remove_file(&held);
    });
    report("session-start (the baseline)", &times);

    // SessionEnd with 40 live sessions and 5 stale ones to remove on every call.
    let ending = project();
    let clients = ending.path().join(".claude/claude-auto-review/clients");
    for index in 0..40 {
        write_session_log(&clients.join(format!("live-{index}")), 1_800_000_000);
    }
    let times = time_hook_with(car, ending.path(), "session-end", "bench", || {
        for index in 0..5 {
            write_session_log(&clients.join(format!("stale-{index}")), 1_700_000_000);
        }
    });
    report("session-end, 40 live + 5 stale", &times);
}

fn write_session_log(dir: &Path, ts: i64) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let line = json!({"ts": ts, "session": "x", "event": "file_deleted", "file": "a"});
    std::fs::write(dir.join("events.jsonl"), format!("{line}\n")).expect("write");
}

/// A git project with `FILES` committed files and settings that never trip the breaker.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    run(Command::new("git").args(["init", "-q"]).current_dir(root));
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    for index in 0..FILES {
        std::fs::write(
            root.join(format!("src/mod_{index}.py")),
            format!("value = {index}\n"),
        )
        .expect("write");
    }
    let settings = json!({"claude-auto-review": {"maxStopPasses": 100000}});
    std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).expect("write");
    common::commit_all(root, "init");
    dir
}

/// 10,000 events: edits with validations and lesson warnings over `FILES` files, then a review
/// of the final versions (completed, or requested and still pending).
fn write_session(root: &Path, session: &str, pending: bool) {
    let hash = |file: usize| {
        let content = format!("value = {file}\n");
        sha256_hex(content.as_bytes())
    };
    let mut lines = Vec::with_capacity(EVENTS);
    let mut push = |event: Value| {
        let mut record = json!({"ts": 1_800_000_000, "session": session});
        record
            .as_object_mut()
            .unwrap()
            .extend(event.as_object().unwrap().clone());
        lines.push(record.to_string());
    };
    let mut index = 0;
    while index < EVENTS - 2 {
        let file = format!("src/mod_{}.py", index % FILES);
        push(
            json!({"event": "edit_tracked", "file": file, "tool": "Edit", "hash": hash(index % FILES)}),
        );
        push(json!({"event": "validated", "file": file, "errors": []}));
        push(
            json!({"event": "lesson_warned", "file": file, "warnings": [{"lesson_id": "L7",
            "weight": 4, "lesson": "use the context manager", "trigger": "open(", "file": file, "line": 3}]}),
        );
        index += 3;
    }
    let files: serde_json::Map<String, Value> = (0..FILES)
        .map(|file| (format!("src/mod_{file}.py"), json!(hash(file))))
        .collect();
    push(
        json!({"event": "review_requested", "review": "R1", "backend": "manual", "files": files,
        "prompt_file": format!(".claude/claude-auto-review/clients/{session}/reviews/R1.prompt.md")}),
    );
    if !pending {
        push(json!({"event": "review_completed", "review": "R1", "files": files, "findings": []}));
    }
    let dir = root
        .join(".claude/claude-auto-review/clients")
        .join(session);
    std::fs::create_dir_all(dir.join("reviews")).expect("mkdir");
    std::fs::write(dir.join("reviews/R1.prompt.md"), "review request\n").expect("write");
    std::fs::write(dir.join("events.jsonl"), lines.join("\n") + "\n").expect("write");
}

fn time_stop(car: &str, root: &Path, session: &str) -> Vec<Duration> {
    time_stop_with(car, root, session, || {})
}

/// Times `car hook stop`; `before` runs ahead of each call, outside the timing.
fn time_stop_with(car: &str, root: &Path, session: &str, before: impl Fn()) -> Vec<Duration> {
    time_hook_with(car, root, "stop", session, before)
}

/// Times `car hook HOOK`; `before` runs ahead of each call, outside the timing.
fn time_hook_with(
    car: &str,
    root: &Path,
    hook: &str,
    session: &str,
    before: impl Fn(),
) -> Vec<Duration> {
    let payload = json!({"session_id": session, "cwd": root, "hook_event_name": "Stop",
        "stop_hook_active": false, "last_assistant_message": "All done.", "reason": "other"})
    .to_string();
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS + 3 {
        before();
        times.push(time_hook(car, root, hook, &payload, NOW));
    }
    times.drain(..3);
    times
}

fn sha256_hex(bytes: &[u8]) -> String {
    car::session::event::content_hash(bytes)
}
