//! Helpers for the review gate tests: settings, stop payloads, fake reviewer CLIs on PATH, and
//! reading a session's events back.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{HookAnswer, Run, TestProject};

pub const SESSION: &str = "test-session";

/// 2026-11-29T12:00:00Z: the clock of the tests whose answers are snapshotted.
pub const NOW: i64 = 1_795_953_600;

/// An empty git project with the clock pinned at [`NOW`], so every date in an answer is stable.
pub fn pinned_project() -> TestProject {
    let mut project = TestProject::new();
    project.at(NOW);
    project
}

/// Writes car's settings key (other keys of the file are kept).
pub fn set_settings(project: &TestProject, settings: Value) {
    let path = project.path().join(".claude/settings.json");
    let mut document: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({}));
    document["claude-auto-review"] = settings;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
}

/// A Claude Stop payload for `session` with `message` as the last assistant message.
pub fn stop_payload(project: &TestProject, session: &str, message: Option<&str>) -> String {
    let mut payload = project.fixture_json("claude-stop.json");
    payload["session_id"] = json!(session);
    payload["transcript_path"] = json!(project.path().join("no-transcript.jsonl"));
    match message {
        Some(text) => payload["last_assistant_message"] = json!(text),
        None => {
            payload
                .as_object_mut()
                .unwrap()
                .remove("last_assistant_message");
        }
    }
    payload.to_string()
}

/// Stops the test session with a "done" message.
pub fn stop(project: &TestProject) -> HookAnswer {
    project.hook(
        "stop",
        &stop_payload(project, SESSION, Some("I changed the loader. All done.")),
    )
}

/// Writes `relative` through a real PostToolUse Write hook of the test session.
pub fn write_file(project: &TestProject, relative: &str, content: &str) -> HookAnswer {
    let original = std::fs::read_to_string(project.path().join(relative)).ok();
    let payload = project.write_payload(relative, content, original.as_deref());
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.code, 0);
    answer
}

/// The session's events, parsed.
pub fn events(project: &TestProject, session: &str) -> Vec<Value> {
    let path = project
        .path()
        .join(".claude/claude-auto-review/clients")
        .join(session)
        .join("events.jsonl");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The names of the session's events, in order.
pub fn event_names(project: &TestProject, session: &str) -> Vec<String> {
    events(project, session)
        .iter()
        .map(|event| event["event"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Stage events as `stage=outcome`.
pub fn stages(project: &TestProject, session: &str) -> Vec<String> {
    events(project, session)
        .iter()
        .filter(|event| event["event"] == "stop_stage")
        .map(|event| {
            format!(
                "{}={}",
                event["stage"].as_str().unwrap(),
                event["outcome"].as_str().unwrap()
            )
        })
        .collect()
}

/// `car review submit --session SESSION -` with `findings` on stdin.
pub fn submit(project: &TestProject, findings: &Value) -> Run {
    let output = project
        .car()
        .args(["review", "submit", "--session", SESSION, "-"])
        .write_stdin(findings.to_string())
        .output()
        .unwrap();
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// A folder of fake reviewer CLIs that record their argv, stdin and environment and print the
/// answer in `<dir>/answer.txt` (codex writes it to its `--output-last-message` file).
pub struct FakeClis {
    pub dir: tempfile::TempDir,
}

const FAKE_SCRIPT: &str = r#"#!/bin/sh
name=$(basename "$0")
dir=$(dirname "$0")
: > "$dir/$name.argv"
for arg in "$@"; do printf '%s\n' "$arg" >> "$dir/$name.argv"; done
cat > "$dir/$name.stdin"
printf '%s' "$CAR_NESTED_REVIEW" > "$dir/$name.nested"
echo $$ > "$dir/$name.pid"
if [ -f "$dir/hang" ]; then sleep 30 & echo $! > "$dir/$name.child"; wait; fi
last=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--output-last-message" ]; then last="$2"; fi
  shift
done
if [ -n "$last" ]; then cat "$dir/answer.txt" > "$last"; echo "codex progress noise"; else cat "$dir/answer.txt"; fi
"#;

impl FakeClis {
    pub fn new() -> FakeClis {
        let dir = tempfile::tempdir().unwrap();
        for name in ["claude", "codex", "opencode", "reviewer"] {
            let path = dir.path().join(name);
            std::fs::write(&path, FAKE_SCRIPT).unwrap();
            make_executable(&path);
        }
        FakeClis { dir }
    }

    pub fn answer(&self, text: &str) {
        std::fs::write(self.dir.path().join("answer.txt"), text).unwrap();
    }

    pub fn hang(&self) {
        std::fs::write(self.dir.path().join("hang"), "").unwrap();
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The argv a fake recorded (program name excluded).
    pub fn argv(&self, name: &str) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.argv")))
            .unwrap_or_else(|_| panic!("{name} was not called"))
            .lines()
            .map(String::from)
            .collect()
    }

    pub fn stdin(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.stdin"))).unwrap()
    }

    pub fn nested(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.nested"))).unwrap()
    }

    /// Whether the process whose pid the fake wrote to `<name>.<suffix>` still runs.
    pub fn is_running(&self, name: &str, suffix: &str) -> bool {
        let pid = std::fs::read_to_string(self.dir.path().join(format!("{name}.{suffix}")))
            .unwrap_or_else(|_| panic!("{name}.{suffix} missing"));
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
        // A zombie waiting for its parent has finished running.
        stat.is_ok_and(|stat| !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'))
    }

    pub fn was_called(&self, name: &str) -> bool {
        self.dir.path().join(format!("{name}.argv")).exists()
    }

    /// PATH with the fakes first.
    pub fn path_env(&self) -> String {
        format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `command` reviewer running `script` (a shell script that reads the prompt on stdin and
/// prints findings JSON), wired into the project's settings. Keep the fakes alive while it runs.
pub fn scripted_reviewer(project: &TestProject, script: &str) -> FakeClis {
    let fakes = FakeClis::new();
    std::fs::write(fakes.path("reviewer"), script).unwrap();
    set_settings(
        project,
        json!({"reviewerBackend": "command", "reviewerCommand": [fakes.path("reviewer")]}),
    );
    fakes
}

/// One finding as JSON.
pub fn finding(id: &str, severity: &str, file: &str, line: u64, title: &str) -> Value {
    json!({
        "id": id, "severity": severity, "file": file, "line": line, "title": title,
        "wrong_output": format!("{title}: load('missing.txt') returns None and render() raises TypeError"),
        "suggestion": format!("fix {title}")
    })
}

/// A `command` reviewer scripted per call (the gate's and the deep review's tests share it): its
/// n-th call (from 1) keeps the prompt as `prompt.<n>`, sleeps when `sleep` exists, answers
/// `answer.<n>` (else `answer`) and, when `exit.<n>` exists, prints that answer on stderr and
/// exits with that code instead.
pub const SCRIPTED_REVIEWER: &str = r#"#!/bin/sh
dir=$(dirname "$0")
n=$(cat "$dir/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$dir/count"
cat > "$dir/prompt.$n"
if [ -f "$dir/sleep" ]; then sleep 30; fi
answer="$dir/answer"
if [ -f "$dir/answer.$n" ]; then answer="$dir/answer.$n"; fi
if [ -f "$dir/exit.$n" ]; then cat "$answer" >&2; exit "$(cat "$dir/exit.$n")"; fi
cat "$answer"
"#;

/// [`SCRIPTED_REVIEWER`] installed as a project's `command` backend.
pub struct ScriptedReviewer {
    pub dir: tempfile::TempDir,
}

impl ScriptedReviewer {
    /// Installs the reviewer as the project's `command` backend, with `extra` settings.
    pub fn install(project: &TestProject, extra: Value) -> ScriptedReviewer {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("reviewer");
        std::fs::write(&script, SCRIPTED_REVIEWER).unwrap();
        make_executable(&script);
        let mut settings = json!({"reviewerBackend": "command", "reviewerCommand": [script]});
        if let Value::Object(extra) = extra {
            for (key, value) in extra {
                settings[key] = value;
            }
        }
        set_settings(project, settings);
        let reviewer = ScriptedReviewer { dir };
        reviewer.always(&json!({"findings": []}));
        reviewer
    }

    /// The answer of every call without its own.
    pub fn always(&self, findings: &Value) {
        std::fs::write(self.dir.path().join("answer"), findings.to_string()).unwrap();
    }

    /// The answer of call `n`.
    pub fn answer(&self, n: usize, findings: &Value) {
        std::fs::write(
            self.dir.path().join(format!("answer.{n}")),
            findings.to_string(),
        )
        .unwrap();
    }

    /// Call `n` fails: exit `code`, `stderr` on stderr.
    pub fn fail(&self, n: usize, code: i32, stderr: &str) {
        std::fs::write(self.dir.path().join(format!("answer.{n}")), stderr).unwrap();
        std::fs::write(self.dir.path().join(format!("exit.{n}")), code.to_string()).unwrap();
    }

    pub fn calls(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("count"))
            .map_or(0, |text| text.trim().parse().unwrap_or(0))
    }

    /// The prompt of call `n`.
    pub fn prompt(&self, n: usize) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("prompt.{n}")))
            .unwrap_or_else(|_| panic!("the reviewer was not called {n} times"))
    }
}

/// Stops the test session with `message` as the agent's last words.
pub fn stop_saying(project: &TestProject, message: &str) -> HookAnswer {
    project.hook("stop", &stop_payload(project, SESSION, Some(message)))
}

/// `car review status --json`, the test session's row.
pub fn status_row(project: &TestProject) -> Value {
    let run = project.run(&["review", "status", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    value["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["session"] == SESSION)
        .cloned()
        .unwrap_or_else(|| panic!("no row for {SESSION}: {value}"))
}

/// Runs a PostToolUse hook for a Bash command the test already carried out on disk.
pub fn bash_ran(project: &TestProject, command: &str) -> HookAnswer {
    let mut payload = project.fixture_json("claude-post-bash-rm.json");
    payload["session_id"] = json!(SESSION);
    payload["tool_input"]["command"] = json!(command);
    payload["tool_response"]["stdout"] = json!("");
    project.hook("post-tool-use", &payload.to_string())
}

/// A stop answer for a snapshot: redacted, and an embedded review request without its fixed parts
/// (the review rules and the answer format, snapshotted in full once, as
/// `review_gate__manual_review_request`), so the snapshot shows what the request says about this
/// session: its header, its sections and its diff.
pub fn request_view(answer: &HookAnswer, project: &TestProject) -> Value {
    request_view_with(answer, project, &[])
}

/// [`request_view`] with other temporary paths named (see `HookAnswer::redacted_with`).
pub fn request_view_with(
    answer: &HookAnswer,
    project: &TestProject,
    others: &[(&Path, &str)],
) -> Value {
    let mut redacted = answer.redacted_with(project, others);
    let request = answer.review_request();
    if !request.is_empty() {
        let json = serde_json::json!({ "request": request });
        let wrapped = HookAnswer {
            stdout: json.to_string(),
            json,
            stderr: String::new(),
            code: 0,
        };
        redacted["request"] = wrapped.redacted_with(project, others)["request"].clone();
    }
    for key in ["reason", "followup_message", "request"] {
        if let Some(Value::String(text)) = redacted.get_mut(key) {
            *text = without_fixed_parts(text);
        }
    }
    redacted
}

fn without_fixed_parts(text: &str) -> String {
    const ELIDED: &str = "[… as in the manual_review_request snapshot …]";
    let mut text = text.to_string();
    if let (Some(start), Some(end)) = (text.find("<rules>\n"), text.find("\n</rules>")) {
        text.replace_range(start + "<rules>\n".len()..end, ELIDED);
    }
    if let Some(start) = text.find("\n## Answer format\n") {
        text.replace_range(start + "\n## Answer format\n".len().., ELIDED);
    }
    text
}
