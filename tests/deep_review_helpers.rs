//! Helpers for the deep review tests: a git project with a committed currency-conversion module
//! and a change to it, a scripted `command` reviewer that answers round by round and keeps every
//! prompt it got, and a scripted fixer.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::review_helpers::{SCRIPTED_REVIEWER, set_settings};
use crate::support::TestProject;

/// The committed module: converts an amount in local currency to USD.
pub const FX_COMMITTED: &str =
    "def to_usd(amount, rate_per_usd):\n    return amount / rate_per_usd\n";
/// The change under review: multiplies where it must divide.
pub const FX_CHANGED: &str =
    "def to_usd(amount, rate_per_usd):\n    return amount * rate_per_usd\n";

pub struct Scripted {
    pub dir: tempfile::TempDir,
}

impl Scripted {
    pub fn new() -> Scripted {
        let dir = tempfile::tempdir().unwrap();
        let scripted = Scripted { dir };
        scripted.write_executable("reviewer", SCRIPTED_REVIEWER);
        scripted.answer_always(r#"{"findings": []}"#);
        scripted
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write_executable(&self, name: &str, script: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, script).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    /// The answer of every call without its own.
    pub fn answer_always(&self, text: &str) {
        std::fs::write(self.path("answer"), text).unwrap();
    }

    /// The answer of the n-th call (1-based).
    pub fn answer(&self, call: usize, answer: &Value) {
        std::fs::write(self.path(&format!("answer.{call}")), answer.to_string()).unwrap();
    }

    pub fn sleep(&self) {
        std::fs::write(self.path("sleep"), "").unwrap();
    }

    pub fn calls(&self) -> usize {
        std::fs::read_to_string(self.path("count"))
            .map(|text| text.trim().parse().unwrap())
            .unwrap_or(0)
    }

    /// The prompt of the n-th call.
    pub fn prompt(&self, call: usize) -> String {
        std::fs::read_to_string(self.path(&format!("prompt.{call}")))
            .unwrap_or_else(|_| panic!("the reviewer was not called {call} times"))
    }
}

/// A finding about `fx.py` that names a concrete wrong output.
pub fn fx_finding(id: &str, severity: &str, line: u64, title: &str) -> Value {
    json!({
        "id": id, "severity": severity, "file": "fx.py", "line": line, "title": title,
        "wrong_output": "to_usd(1000, 4.0) returns 4000.0 instead of 250.0",
        "suggestion": "divide the local amount by the rate"
    })
}

/// A finding answer.
pub fn findings(list: &[Value]) -> Value {
    json!({"findings": list, "known_limits": []})
}

/// What `car deep-review …` printed.
#[derive(Debug)]
pub struct DeepRun {
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl DeepRun {
    pub fn status(&self) -> &str {
        self.json["status"].as_str().unwrap_or_default()
    }

    pub fn reason(&self) -> &str {
        self.json["reason"].as_str().unwrap_or_default()
    }

    pub fn guard(&self) -> &str {
        self.json["guard"].as_str().unwrap_or("null")
    }
}

/// A git project whose committed `fx.py` is changed, reviewed by a [`Scripted`] reviewer.
pub struct Deep {
    pub project: TestProject,
    pub reviewer: Scripted,
}

impl Deep {
    pub fn new() -> Deep {
        let project = TestProject::new();
        let reviewer = Scripted::new();
        set_settings(
            &project,
            json!({"reviewerBackend": "command", "reviewerCommand": [reviewer.path("reviewer")]}),
        );
        project.write("fx.py", FX_COMMITTED);
        project.commit_all();
        project.write("fx.py", FX_CHANGED);
        Deep { project, reviewer }
    }

    /// `car deep-review ARGS…`; stdout must be one JSON object when the command is run or loop.
    pub fn run(&self, args: &[&str]) -> DeepRun {
        self.run_with_env(args, &[])
    }

    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> DeepRun {
        let mut command = self.project.car();
        command.arg("deep-review").args(args);
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        DeepRun {
            json: serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
            stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }

    /// Changes `fx.py` (a new version of the diff).
    pub fn edit(&self, content: &str) {
        self.project.write("fx.py", content);
    }
}

/// Asserts a STOPPED verdict: exit 2, the reason contains `reason`, and no round was used.
#[track_caller]
pub fn assert_stopped(run: &DeepRun, reason: &str) {
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.status(), "STOPPED", "{run:?}");
    assert!(
        run.reason().contains(reason),
        "{:?} lacks {reason:?}",
        run.reason()
    );
    assert_eq!(run.json["findings"], json!([]));
}

/// Replaces 7-hex-digit commit abbreviations with `COMMIT` (they change with every test run).
pub fn redact_commits(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('(') {
        out.push_str(&rest[..=start]);
        rest = &rest[start + 1..];
        let is_commit = rest.len() > 7
            && rest.as_bytes()[7] == b')'
            && rest[..7].chars().all(|c| c.is_ascii_hexdigit());
        if is_commit {
            out.push_str("COMMIT");
            rest = &rest[7..];
        }
    }
    out.push_str(rest);
    out
}
