//! Whole-process benchmark of what a read costs the agent now that car's PostToolUse hook runs on
//! Claude Code's `Read` (and Gemini CLI's `read_file`): one `car hook post-tool-use` process per
//! read, which gives the lessons of the file the first time and is otherwise a look at the
//! briefing cache's first line. And the look for a reading program in a shell command, which the
//! shell command's PostToolUse hook already ran for (the bash grammar, only when the command
//! names one). A project of 1,000 lessons over `*.ts`, `*.py`, `*.rs`, `*.go`, `src/**/*.swift`.
//!
//! Cases, interleaved one run each per round (the machine's drift moves them alike):
//! - the floor: `car --version` (a process start);
//! - a Read of `README.md`, which no lesson's scope covers;
//! - a Read of `app.py` whose lessons this session was given before (every read after the first);
//! - the first Read of `app.py` in a session (3 lessons given, the session's list written);
//! - a shell command that reads nothing (`ls -la`) and one that shows `app.py`
//!   (`sed -n '1,80p' app.py`, its lessons given before), as Codex reads.
//!
//! Where valgrind is installed, the instructions of each (callgrind; programs car starts are not
//! counted). Run: `cargo bench --bench read_hook` (prints medians; no pass/fail).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use common::{NOW, commit_all, instructions, project, report, time_hook, valgrind_installed};

const RUNS: usize = 40;
const WARMUP: usize = 3;

struct Case {
    label: &'static str,
    /// The payload of run `index` in the project.
    payload: fn(&Path, usize) -> String,
    times: Vec<Duration>,
}

fn main() {
    let car = &common::car_binary();
    let temp = tempfile::tempdir().expect("temp dir");
    let root = project(&temp.path().join("project"), 1_000);
    std::fs::write(root.join("README.md"), "# a project\n").expect("readme");
    let python: String = (0..100)
        .map(|line| format!("value_{line} = {line}\n"))
        .collect();
    std::fs::write(root.join("app.py"), python).expect("app.py");
    commit_all(&root, "start");
    let mut cases = vec![
        Case {
            label: "Read README.md (no scope covers it)",
            payload: |root, _| read(root, "read-bench", "README.md"),
            times: Vec::new(),
        },
        Case {
            label: "Read app.py (its lessons given before)",
            payload: |root, _| read(root, "read-bench", "app.py"),
            times: Vec::new(),
        },
        Case {
            label: "Read app.py, first of a session (3 given)",
            payload: |root, index| read(root, &format!("first-read-{index}"), "app.py"),
            times: Vec::new(),
        },
        Case {
            label: "Bash `ls -la` (reads no file)",
            payload: |root, _| shell(root, "ls -la"),
            times: Vec::new(),
        },
        Case {
            label: "Bash `sed -n '1,80p' app.py` (given before)",
            payload: |root, _| shell(root, "sed -n '1,80p' app.py"),
            times: Vec::new(),
        },
    ];
    let mut floor = Vec::new();
    for round in 0..WARMUP + RUNS {
        let started = Instant::now();
        let status = Command::new(car)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .expect("car runs");
        assert!(status.success());
        let elapsed = started.elapsed();
        if round >= WARMUP {
            floor.push(elapsed);
        }
        for case in &mut cases {
            let elapsed = time_hook(
                car,
                &root,
                "post-tool-use",
                &(case.payload)(&root, round),
                NOW,
            );
            if round >= WARMUP {
                case.times.push(elapsed);
            }
        }
    }
    println!("read hook, 1,000 lessons, {RUNS} runs each (whole process):");
    report("process start (car --version)", &floor);
    for case in &cases {
        report(case.label, &case.times);
    }
    if !valgrind_installed() {
        return;
    }
    println!("instructions (callgrind):");
    let floor = instructions(Command::new(car).arg("--version").current_dir(&root), "");
    println!("  {:<46} {floor}", "process start (car --version)");
    for case in &cases {
        let payload = (case.payload)(&root, WARMUP + RUNS);
        let mut command = Command::new(car);
        command
            .args(["hook", "post-tool-use"])
            .current_dir(&root)
            .env("CAR_NOW", NOW.to_string());
        println!(
            "  {:<46} {}",
            case.label,
            instructions(&mut command, &payload)
        );
    }
}

/// Claude Code's PostToolUse payload of its Read tool on `file`.
fn read(root: &Path, session: &str, file: &str) -> String {
    let path = root.join(file);
    let content = std::fs::read_to_string(&path).expect("the read file exists");
    json!({"session_id": session, "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Read", "tool_input": {"file_path": path},
           "tool_response": {"type": "text", "file": {"filePath": path, "content": content,
                             "numLines": 100, "startLine": 1, "totalLines": 100}}})
    .to_string()
}

/// Claude Code's PostToolUse payload of its Bash tool running `command`.
fn shell(root: &Path, command: &str) -> String {
    json!({"session_id": "read-bench", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Bash", "tool_input": {"command": command, "description": "look"},
           "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
           "duration_ms": 12})
    .to_string()
}
