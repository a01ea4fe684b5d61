//! What the whole-process benchmarks share: a git project with a generated lesson library, Claude
//! Code's Edit payload, one hook process, and the median / p90 / min line each case prints.

// Every bench compiles this module as its own and uses only part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// The clock of the hooks; the lessons were last hit a day before.
pub const NOW: i64 = 1_780_000_000;
pub const DAY: i64 = 86_400;
pub const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

/// An added line no lesson fires on, and one that fires lesson 0 (`OldThing0.value`).
pub const MISS_LINE: &str = "  const total = values.reduce((a, b) => a + b, 0);";
pub const HIT_LINE: &str = "  render(OldThing0.value);";

/// The car the benchmark runs: cargo's release build, or the binary `CAR_BENCH_CAR` names (the
/// packaged one `packaging/build-dist` made, say), so two builds of the same commit compare.
pub fn car_binary() -> String {
    match std::env::var("CAR_BENCH_CAR") {
        Ok(path) if !path.is_empty() => {
            assert!(
                Path::new(&path).is_file(),
                "CAR_BENCH_CAR={path} is not a file"
            );
            eprintln!("measuring CAR_BENCH_CAR={path}");
            path
        }
        _ => env!("CARGO_BIN_EXE_car").to_string(),
    }
}

/// A git project with `count` lessons and a small TypeScript file holding both edits' lines.
pub fn project(root: &Path, count: usize) -> PathBuf {
    std::fs::create_dir_all(root).expect("project dir");
    run(Command::new("git").args(["init", "-q"]).current_dir(root));
    let dir = root.join(".claude/claude-auto-review");
    std::fs::create_dir_all(&dir).expect("state dir");
    std::fs::write(dir.join("lessons.json"), seed(count)).expect("lessons written");
    std::fs::write(
        root.join("small.ts"),
        format!("export function total(values: number[]): number {{\n{MISS_LINE}\n{HIT_LINE}\n  return 0;\n}}\n"),
    )
    .expect("write");
    root.to_path_buf()
}

/// Commits everything in `root` with `message`.
pub fn commit_all(root: &Path, message: &str) {
    run(Command::new("git").args(["add", "-A"]).current_dir(root));
    run(Command::new("git")
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-qm",
            message,
        ])
        .current_dir(root));
}

/// `count` lessons in the seed format: mostly literal triggers, some regexes, spread over
/// scopes, each with an unknown field; all last hit a day before [`NOW`].
pub fn seed(count: usize) -> String {
    let scopes = ["*.ts", "*.py", "*.rs", "*.go", "src/**/*.swift"];
    let lessons: Vec<_> = (0..count)
        .map(|index| {
            let trigger = if index % 10 == 0 {
                format!("regex:(?<!_)legacyHelper{index}\\(")
            } else {
                format!("deprecatedCall{index}(")
            };
            json!({
                "scope": scopes[index % scopes.len()],
                "triggers": [trigger, format!("OldThing{index}.value")],
                "lesson": format!("lesson number {index}: use the new API"),
                "weight": 3, "hits": 1, "last_hit": NOW - DAY, "created": "2026-05-21",
                "team": "web"
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"lessons": lessons})).expect("json")
}

/// Claude Code's Edit payload for a file that now holds `line`, by `session`: the line was
/// inserted, and the response carries the file as it was before (`originalFile`), as Claude Code
/// sends it.
pub fn edit_payload(root: &Path, session: &str, file: &str, line: &str) -> String {
    let content = std::fs::read_to_string(root.join(file)).expect("the edited file exists");
    let original = content.replacen(&format!("{line}\n"), "", 1);
    json!({
        "session_id": session,
        "cwd": root,
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": root.join(file), "old_string": "", "new_string": line},
        "tool_response": {"filePath": root.join(file), "oldString": "", "newString": line,
                          "originalFile": original, "userModified": false}
    })
    .to_string()
}

/// One whole-process hook call.
pub fn time_hook(car: &str, root: &Path, hook: &str, payload: &str, now: i64) -> Duration {
    let started = Instant::now();
    let output = spawn_hook(car, root, hook, payload, now)
        .wait_with_output()
        .expect("car finishes");
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{output:?}");
    elapsed
}

/// `car hook HOOK` started in `root` with `payload` on its stdin (closed), its answer piped.
pub fn spawn_hook(
    car: &str,
    root: &Path,
    hook: &str,
    payload: &str,
    now: i64,
) -> std::process::Child {
    let mut child = Command::new(car)
        .args(["hook", hook])
        .current_dir(root)
        .env("CAR_NOW", now.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("car runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("payload written");
    child
}

/// Whether valgrind can count instructions here; when not, a line says the counts are skipped.
pub fn valgrind_installed() -> bool {
    let installed = Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !installed {
        println!("instruction counts: valgrind is not installed; skipped");
    }
    installed
}

/// The instructions `command` (a car process) runs, from callgrind's "Collected" line: the
/// figure that stays put on a noisy machine. The programs car starts are not counted.
pub fn instructions(command: &mut Command, stdin: &str) -> String {
    let out = tempfile::NamedTempFile::new().expect("temp file");
    let program = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
    let mut counted = Command::new("valgrind");
    counted
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.path().display()))
        .arg(program)
        .args(args);
    if let Some(dir) = command.get_current_dir() {
        counted.current_dir(dir);
    }
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            counted.env(key, value);
        }
    }
    let mut child = counted
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("valgrind starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    let output = child.wait_with_output().expect("valgrind finishes");
    let log = String::from_utf8_lossy(&output.stderr);
    log.lines()
        .find_map(|line| {
            line.split_once("Collected :")
                .map(|(_, count)| count.trim().to_string())
        })
        .unwrap_or_else(|| "?".to_string())
}

pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

/// The median of per-round ratios `a[i] / b[i]` (the two runs of a round are next to each other,
/// so a slow spell of the shared machine hits both).
pub fn paired_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut paired: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    paired.sort_by(f64::total_cmp);
    paired[paired.len() / 2]
}

pub fn report(label: &str, times: &[Duration]) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let p90 = sorted[sorted.len() * 9 / 10];
    println!(
        "{label:<46} median {:>7.2} ms   p90 {:>7.2} ms   min {:>7.2} ms",
        ms(median(times)),
        ms(p90),
        ms(sorted[0])
    );
}

pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

pub fn run(command: &mut Command) {
    let status = command.status().expect("command runs");
    assert!(status.success());
}

/// `car report`'s benchmark and size test: a project's state as a large team would have it: `lessons` lessons and `events` events spread
/// over 20 sessions (edits, warnings, checker errors, stops and reviews).
pub fn report_state(root: &Path, lessons: usize, events: usize, now: i64) {
    let state = root.join(".claude/claude-auto-review");
    std::fs::create_dir_all(&state).expect("state written");
    let list: Vec<_> = (0..lessons)
        .map(|index| {
            json!({"id": format!("lesson{index:05}"), "scope": "*.ts",
                   "triggers": [format!("deprecatedCall{index}(")],
                   "lesson": format!("lesson number {index}: use the new API"),
                   "weight": 1 + index % 9, "hits": index % 4, "created": "2026-05-21"})
        })
        .collect();
    std::fs::write(
        state.join("lessons.json"),
        serde_json::to_string(&json!({"lessons": list})).expect("state written"),
    )
    .expect("state written");
    let hits: String = (0..lessons)
        .map(|index| {
            format!(
                "{{\"id\":\"lesson{index:05}\",\"at\":{},\"outcome\":\"heeded\"}}\n",
                now - 3600
            )
        })
        .collect();
    std::fs::write(state.join("lessons.json.hits"), hits).expect("state written");
    let sessions = 20;
    for session in 0..sessions {
        let id = format!("session-{session:02}");
        let dir = state.join("clients").join(&id);
        std::fs::create_dir_all(&dir).expect("state written");
        let mut log = String::new();
        for index in 0..events / sessions {
            let ts = now - 86_400 + (index as i64);
            let lesson = (session * 7919 + index) % lessons.max(1);
            let event = match index % 10 {
                0 => json!({"event": "lesson_warned", "file": "src/a.ts", "warnings": [
                    {"lesson_id": format!("lesson{lesson:05}"), "weight": 3,
                     "lesson": format!("lesson number {lesson}"), "trigger": "deprecatedCall(",
                     "file": "src/a.ts", "line": index}]}),
                1 => json!({"event": "validated", "file": "src/a.ts", "errors": [
                    {"file": "src/a.ts", "line": 3, "column": 1, "severity": "error",
                     "validator": "tree-sitter-typescript", "message": "syntax error"}]}),
                2 => {
                    json!({"event": "stop_stage", "stage": "changes", "outcome": "pending", "detail": "1 file"})
                }
                3 => json!({"event": "stop_blocked", "kind": "findings", "fingerprint": "f"}),
                4 => {
                    json!({"event": "review_completed", "review": format!("R{index}"), "files": {},
                    "findings": [{"id": "F1", "severity": "P2", "file": "src/a.ts", "line": 2,
                                  "title": "a finding", "wrong_output": "f(1) returns 2"}]})
                }
                _ => json!({"event": "edit_tracked", "file": format!("src/f{}.ts", index % 50),
                    "tool": "Edit", "hash": "00"}),
            };
            let mut record = json!({"ts": ts, "session": id});
            for (key, value) in event.as_object().expect("an object") {
                record[key] = value.clone();
            }
            log.push_str(&record.to_string());
            log.push('\n');
        }
        std::fs::write(dir.join("events.jsonl"), log).expect("state written");
    }
}
