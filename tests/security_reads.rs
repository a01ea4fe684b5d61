//! Regression tests for issue 15's reads (items 4 and 7): every read has a bound and reads only a
//! regular file — FIFOs, devices and huge files in the project or as a transcript, a reviewer that
//! prints without end, and a stdin that never closes all get an answer at once.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::review_helpers::{SESSION, set_settings, stop_payload, write_file};
use crate::support::{HookAnswer, TestProject};

/// Makes a FIFO (nothing ever writes to it: opening it for reading would wait forever).
pub fn mkfifo(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Runs a hook and times it.
fn timed(project: &TestProject, event: &str, payload: &str) -> (HookAnswer, Duration) {
    let started = Instant::now();
    let answer = project.hook(event, payload);
    (answer, started.elapsed())
}

#[test]
fn an_edit_of_a_fifo_is_refused_at_once() {
    let project = TestProject::new();
    mkfifo(&project.path().join("src/pipe.py"));
    let payload = project.edit_payload("src/pipe.py", "a", "b");
    let (answer, took) = timed(&project, "post-tool-use", &payload);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        answer
            .system_message()
            .contains("src/pipe.py: not a regular file (a FIFO); not checked"),
        "{answer:?}"
    );
}

#[test]
fn a_fifo_transcript_and_a_tracked_file_replaced_by_a_fifo_do_not_hold_the_stop() {
    let project = TestProject::new();
    project.write("a.py", "x = 0\n");
    project.commit_all();
    write_file(&project, "a.py", "x = 1\n");
    std::fs::remove_file(project.path().join("a.py")).unwrap();
    mkfifo(&project.path().join("a.py"));
    mkfifo(&project.path().join("transcript.jsonl"));
    let mut payload: serde_json::Value =
        serde_json::from_str(&stop_payload(&project, SESSION, None)).unwrap();
    payload["transcript_path"] = json!(project.path().join("transcript.jsonl"));
    let (answer, took) = timed(&project, "stop", &payload.to_string());
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        answer.is_block(),
        "the review is still requested: {answer:?}"
    );
    assert!(answer.reason().contains("a.py"), "{}", answer.reason());
}

#[test]
fn dev_zero_as_transcript_and_a_huge_sparse_file_are_not_read() {
    let project = TestProject::new();
    write_file(&project, "a.py", "x = 1\n");
    let huge = std::fs::File::create(project.path().join("huge.py")).unwrap();
    huge.set_len(3 << 30).unwrap();
    let mut payload: serde_json::Value =
        serde_json::from_str(&stop_payload(&project, SESSION, None)).unwrap();
    payload["transcript_path"] = json!("/dev/zero");
    // The hook runs with 1 GiB of address space, far less than either file: reading one whole
    // would make the hook abort instead of answering. What is asserted is that answer, not a
    // memory figure (a peak RSS counts car's child processes too and varies with the machine's
    // load).
    let Measured { answer, took, .. } =
        capped_hook(&project, "stop", &payload.to_string(), 1 << 30);
    // Reading either would take seconds and gigabytes; the bound is generous for a loaded CI.
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains("huge.py"),
        "the huge file is listed: {reason}"
    );
    assert!(
        reason.contains("huge.py") && !reason.contains("\u{0}"),
        "and not read into the prompt"
    );
    // The same edit through the hook: its size is over the bound, so it is skipped with a note
    // before any byte of it is read.
    let payload = project.edit_payload("huge.py", "a", "b");
    let Measured { answer, .. } = capped_hook(&project, "post-tool-use", &payload, 1 << 30);
    assert_eq!(answer.code, 0);
    assert!(
        answer.system_message().contains("larger than 2 MiB"),
        "{answer:?}"
    );
    assert_eq!(
        answer.context(),
        "",
        "nothing of it was matched: {answer:?}"
    );
}

#[test]
fn a_reviewer_printing_without_end_costs_bounded_memory() {
    let project = TestProject::new();
    let scripts = tempfile::tempdir().unwrap();
    let script = scripts.path().join("flood.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat > /dev/null\nyes aaaaaaaaaaaaaaaaaaaaaaa | head -c 500000000\n",
    )
    .unwrap();
    make_executable(&script);
    set_settings(
        &project,
        json!({"reviewerBackend": "command", "reviewerCommand": [script], "reviewerTimeoutSeconds": 60}),
    );
    write_file(&project, "a.py", "x = 1\n");
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let Measured {
        answer,
        took,
        peak_bytes,
    } = capped_hook(&project, "stop", &payload, 1 << 30);
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(peak_bytes < 128 << 20, "peak memory {peak_bytes} bytes");
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("unusable"), "{}", answer.reason());
}

#[test]
fn a_stdin_that_never_closes_gets_an_answer() {
    let project = TestProject::new();
    let started = Instant::now();
    let mut child = project
        .car_std()
        .args(["hook", "post-tool-use"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"cwd\": ").unwrap();
    // The writer stays for 30 s, then goes away (a hook without a time limit answers only then).
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(30));
        drop(stdin);
    });
    let output = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("no complete hook payload arrived on stdin within 5 s"),
        "{message}"
    );
}

/// The peak memory a hook may reach in the tests below: car and the checker it starts (rustfmt,
/// python3) take tens of megabytes; each test's bait would take 512 MiB or more if it were read.
const SMALL_PEAK: u64 = 300 << 20;

/// The hook answered (exit 0, JSON), and its peak memory stayed under [`SMALL_PEAK`].
fn assert_answered_small(measured: &Measured, what: &str) {
    assert_eq!(measured.answer.code, 0, "{what}: {:?}", measured.answer);
    assert!(
        measured.peak_bytes < SMALL_PEAK,
        "{what}: peak {} MiB",
        measured.peak_bytes >> 20
    );
}

/// Hardening round 2, the audit: the edit hook read the nearest `Cargo.toml` (for rustfmt's
/// edition) and the project's `.python-version` (for the interpreter cache's key) whole. Sparse
/// 600 MiB ones are not read now. (A cap on the address space alone would not show it: the
/// standard library's whole-file read gives up cleanly when it cannot reserve the file's size.)
#[test]
fn a_giant_manifest_or_python_pin_is_not_read_on_an_edit() {
    let project = TestProject::new();
    for name in ["Cargo.toml", ".python-version"] {
        let file = std::fs::File::create(project.path().join(name)).unwrap();
        file.set_len(600 << 20).unwrap();
    }
    // rustfmt is asked (and the manifest read) only when the grammar flags the file.
    let mut edits = Vec::new();
    if crate::support::is_installed("rustfmt") {
        edits.push(("src/lib.rs", "pub fn a() { let x = ; }"));
    }
    if crate::support::is_installed("python3") {
        edits.push(("a.py", "x = 1"));
    }
    assert!(
        !edits.is_empty(),
        "neither rustfmt nor python3 is installed"
    );
    for (file, line) in edits {
        project.write(file, &format!("{line}\n"));
        let payload = project.edit_payload(file, "", line);
        let measured = capped_hook(&project, "post-tool-use", &payload, 3 << 29);
        assert_answered_small(&measured, file);
    }
}

/// Hardening round 2, the audit: folding the hits at SessionEnd re-stamps the lesson index, and
/// read the index whole, through a link: a link to `/dev/zero` in its place filled memory.
#[test]
fn a_lesson_index_linked_to_dev_zero_is_not_read_when_hits_are_folded() {
    let mut project = TestProject::new();
    project.at(1_780_000_000);
    assert_eq!(
        project
            .add_lesson("*.py", "import os.path", "use pathlib")
            .code,
        0
    );
    project.write("a.py", "import os.path\n");
    let warned = project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "", "import os.path"),
    );
    assert!(warned.context().contains("use pathlib"), "{warned:?}");
    project.write("a.py", "from pathlib import Path\n");
    let heeded = project.edit_payload("a.py", "import os.path", "from pathlib import Path");
    assert_eq!(project.hook("post-tool-use", &heeded).code, 0);
    assert!(project.exists(".claude/claude-auto-review/lessons.json.hits"));
    // The day's maintenance done: SessionEnd folds the hit in place and patches the index.
    project.write(
        ".claude/claude-auto-review/lessons-maintained",
        "1780000000",
    );
    let index = project
        .path()
        .join(".claude/claude-auto-review/lessons.json.index");
    let _ = std::fs::remove_file(&index);
    std::os::unix::fs::symlink("/dev/zero", &index).unwrap();
    let end = project.fixture("claude-session-end.json");
    let measured = capped_hook(&project, "session-end", &end, 1 << 30);
    assert_answered_small(&measured, "session-end");
    assert!(
        !project.exists(".claude/claude-auto-review/lessons.json.hits"),
        "the hit was folded: {:?}",
        measured.answer
    );
    let lessons = project.read_json(".claude/claude-auto-review/lessons.json");
    assert_eq!(lessons["lessons"][0]["hits"], 1, "{lessons:#}");
}

/// A hook run with its time and peak memory.
pub struct Measured {
    pub answer: HookAnswer,
    pub took: Duration,
    /// Peak resident memory of the hook process, in bytes.
    pub peak_bytes: u64,
}

/// Runs a hook with its address space capped at `bytes` (RLIMIT_AS), timing it and measuring its
/// peak memory (`wait4`'s rusage of exactly this child).
pub fn capped_hook(project: &TestProject, event: &str, payload: &str, bytes: u64) -> Measured {
    let mut command = project.car_std();
    command.args(["hook", event]);
    cap_memory(&mut command, bytes);
    let started = Instant::now();
    #[allow(clippy::zombie_processes)] // reaped by `wait_measured` (wait4), for its rusage
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(payload.as_bytes());
    let mut stdout_pipe = child.stdout.take().unwrap();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout_pipe, &mut text);
        text
    });
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr_pipe, &mut text);
        text
    });
    let (code, peak_bytes) = wait_measured(child.id() as libc::pid_t);
    let took = started.elapsed();
    let stdout = stdout.join().unwrap();
    let json = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|error| panic!("hook answer is not JSON ({error}): {stdout:?}"));
    let answer = HookAnswer {
        json,
        stdout,
        stderr: stderr.join().unwrap(),
        code,
    };
    Measured {
        answer,
        took,
        peak_bytes,
    }
}

/// Waits for `pid`; its exit code (-1 for a signal) and peak resident memory in bytes.
fn wait_measured(pid: libc::pid_t) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: plain syscall on our own child; both out-parameters are valid for writes.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, usage.ru_maxrss as u64 * 1024)
}

/// Caps the child's address space (`setrlimit(RLIMIT_AS)` between fork and exec).
pub fn cap_memory(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

pub fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
