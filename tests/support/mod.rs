//! The integration-test harness: a temporary git project, payload fixtures rewritten to point into
//! it, and the built `car` binary run the way an agent or a user runs it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// Where the fixture payloads use this prefix for the project root.
const FIXTURE_ROOT: &str = "/home/user/proj";

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hook-payloads")
}

pub fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpora")
        .join(name)
}

/// JSON with `//` line comments (as Gemini CLI's settings allow) read as a value.
pub fn read_jsonc(text: &str) -> Value {
    let stripped: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&stripped).unwrap_or_else(|error| panic!("{error}: {text}"))
}

/// Whether `program` is on PATH (tests of the real-tool checks adapt to what is installed).
pub fn is_installed(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Every file under `dir` with its bytes, sorted: to show that nothing there changed.
pub fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.path());
            } else {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                files.push((entry.path().display().to_string(), bytes));
            }
        }
    }
    files.sort();
    files
}

/// Gives `command` its own user folders under `home`: `HOME` and every XDG base folder, with each
/// `XDG_*` variable the test run inherited removed first, so no test reads or writes the user's
/// own configuration, cache or data whatever the environment `cargo test` runs in.
pub fn isolate<'a>(
    command: &'a mut std::process::Command,
    home: &Path,
) -> &'a mut std::process::Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("XDG_") {
            command.env_remove(&name);
        }
    }
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
}

/// A throwaway project (a git repository) with an isolated HOME.
pub struct TestProject {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
    now: Option<String>,
}

/// What a hook answered.
#[derive(Debug)]
pub struct HookAnswer {
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// The agents whose real payloads are captured, for tests of shell-made changes: (agent,
/// captured folder, its shell-tool payload, its stop payload).
pub const SHELL_AGENTS: [(&str, &str, &str, &str); 3] = [
    (
        "claude",
        "claude-code-2.1.332",
        "05-PostToolUse-Bash.json",
        "04-Stop.json",
    ),
    (
        "codex",
        "codex-0.171.0",
        "04-PostToolUse-Bash.json",
        "03-Stop.json",
    ),
    (
        "gemini",
        "gemini-cli-0.61.0",
        "04-AfterTool-run_shell_command.json",
        "03-AfterAgent.json",
    ),
];

impl HookAnswer {
    pub fn is_block(&self) -> bool {
        self.json.get("decision").and_then(Value::as_str) == Some("block")
    }

    /// Whether the agent was held back in any agent's words (Gemini CLI says `deny` where the
    /// others say `block`).
    pub fn holds_back(&self) -> bool {
        matches!(self.json["decision"].as_str(), Some("block" | "deny"))
    }

    pub fn reason(&self) -> String {
        self.json["reason"].as_str().unwrap_or_default().to_string()
    }

    /// The saved review request the block names ("Read the review request in PATH (…"), empty
    /// when it names none.
    pub fn review_request(&self) -> String {
        const LEAD: &str = "Read the review request in ";
        let text = [&self.json["reason"], &self.json["followup_message"]]
            .iter()
            .filter_map(|value| value.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let Some(start) = text.find(LEAD).map(|at| at + LEAD.len()) else {
            return String::new();
        };
        let Some(end) = text[start..].find(" (the changes") else {
            return String::new();
        };
        let path = &text[start..start + end];
        std::fs::read_to_string(path)
            .unwrap_or_else(|error| panic!("the review request {path} named in the block: {error}"))
    }

    /// What the agent reads at a blocked stop: the reason, and the review request it names.
    pub fn what_the_agent_reads(&self) -> String {
        format!("{}\n{}", self.reason(), self.review_request())
    }

    pub fn context(&self) -> String {
        self.json["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub fn system_message(&self) -> String {
        self.json["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The answer as the agent reads it, for snapshots: the project's temporary path written as
    /// `[project]` and the isolated HOME as `[home]`.
    pub fn redacted(&self, project: &TestProject) -> Value {
        self.redacted_with(project, &[])
    }

    /// [`HookAnswer::redacted`] with other temporary paths written as the names given
    /// (`(elsewhere, "[elsewhere]")`).
    pub fn redacted_with(&self, project: &TestProject, others: &[(&Path, &str)]) -> Value {
        let mut names: Vec<(String, &str)> = Vec::new();
        let known = [(project.path(), "[project]"), (project.home(), "[home]")];
        for (path, name) in others.iter().copied().chain(known) {
            // Both spellings: a temporary folder may be reached through a link (macOS /var).
            let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            names.push((canonical.to_string_lossy().into_owned(), name));
            names.push((path.to_string_lossy().into_owned(), name));
        }
        // Longest first, so a path inside another one keeps its own name.
        names.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        let mut text = self.stdout.trim().to_string();
        for (path, name) in names {
            text = text.replace(&path, name);
        }
        // What `tempfile` names its folders: none may be left for a snapshot to hold.
        let temporary = std::env::temp_dir().join(".tmp");
        assert!(
            !text.contains(temporary.to_string_lossy().as_ref()),
            "a temporary path is left in the answer: {text}"
        );
        serde_json::from_str(&text).unwrap()
    }
}

/// What a command printed.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl TestProject {
    /// An empty git repository.
    pub fn new() -> TestProject {
        let project = TestProject::plain();
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(project.path())
            .status()
            .expect("git must be installed for the tests");
        assert!(status.success());
        project
    }

    /// A folder that is not a git repository.
    pub fn plain() -> TestProject {
        TestProject {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            now: None,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// car's cache folder for every `car` this project runs (`$XDG_CACHE_HOME/car`).
    pub fn cache_dir(&self) -> PathBuf {
        self.home().join(".cache/car")
    }

    /// Pins `CAR_NOW` for every later command.
    pub fn at(&mut self, now: impl ToString) -> &mut TestProject {
        self.now = Some(now.to_string());
        self
    }

    pub fn write(&self, relative: &str, content: &str) -> PathBuf {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path().join(relative))
            .unwrap_or_else(|error| panic!("{relative}: {error}"))
    }

    pub fn exists(&self, relative: &str) -> bool {
        self.path().join(relative).exists()
    }

    pub fn read_json(&self, relative: &str) -> Value {
        serde_json::from_str(&self.read(relative)).unwrap()
    }

    /// Commits everything (for tests that need a git HEAD).
    pub fn commit_all(&self) {
        for args in [
            vec!["add", "-A"],
            vec![
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "-m",
                "snapshot",
            ],
        ] {
            let status = std::process::Command::new("git")
                .args(&args)
                .current_dir(self.path())
                .status()
                .unwrap();
            assert!(status.success());
        }
    }

    /// A payload fixture with the project prefix rewritten to this project.
    pub fn fixture(&self, name: &str) -> String {
        let text = std::fs::read_to_string(fixtures_dir().join(name))
            .unwrap_or_else(|error| panic!("fixture {name}: {error}"));
        text.replace(FIXTURE_ROOT, &self.path().to_string_lossy())
    }

    /// The captured shell-tool payload `captured/<folder>/<name>`, running `command`.
    pub fn shell_payload(&self, folder: &str, name: &str, command: &str) -> String {
        let mut payload = self.fixture_json(&format!("captured/{folder}/{name}"));
        payload["tool_input"]["command"] = Value::from(command);
        payload.to_string()
    }

    /// The fixture as JSON, for tests that adjust a field.
    pub fn fixture_json(&self, name: &str) -> Value {
        serde_json::from_str(&self.fixture(name)).unwrap()
    }

    /// `car` with the project as working directory, an isolated HOME and the pinned clock.
    pub fn car(&self) -> Command {
        Command::from_std(self.car_std())
    }

    /// [`TestProject::car`] as a plain `std::process::Command` (for tests that spawn it
    /// themselves: a stdin kept open, a memory cap, a kill).
    pub fn car_std(&self) -> std::process::Command {
        self.car_std_at(&assert_cmd::cargo::cargo_bin("car"))
    }

    /// [`TestProject::car_std`] running the binary at `program` (a copy put elsewhere).
    pub fn car_std_at(&self, program: &Path) -> std::process::Command {
        let mut command = std::process::Command::new(program);
        isolate(&mut command, self.home())
            .current_dir(self.path())
            .env_remove("CAR_NOW")
            // car check runs the project's own command rules only outside CI (tests set CI
            // themselves where that is the point).
            .env_remove("CI")
            .env_remove("NO_COLOR");
        if let Some(now) = &self.now {
            command.env("CAR_NOW", now);
        }
        command
    }

    /// Runs `car ARGS…`.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = self.car().args(args).output().unwrap();
        Run {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }

    /// Pipes `payload` into `car hook EVENT` and parses the answer (which must be one JSON object).
    pub fn hook(&self, event: &str, payload: &str) -> HookAnswer {
        self.hook_with_env(event, payload, &[])
    }

    /// [`TestProject::hook`] with extra environment variables.
    pub fn hook_with_env(&self, event: &str, payload: &str, env: &[(&str, &str)]) -> HookAnswer {
        let mut command = self.car();
        for (key, value) in env {
            command.env(key, value);
        }
        self.answer_of(command.args(["hook", event]), payload)
    }

    /// Pipes `payload` into `car hook EVENT --agent AGENT`, as `car install` wires it.
    pub fn hook_as(&self, agent: &str, event: &str, payload: &str) -> HookAnswer {
        self.answer_of(self.car().args(["hook", event, "--agent", agent]), payload)
    }

    fn answer_of(&self, command: &mut Command, payload: &str) -> HookAnswer {
        let output = command.write_stdin(payload.to_string()).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let json = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|error| panic!("hook answer is not JSON ({error}): {stdout:?}"));
        HookAnswer {
            json,
            stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }

    /// `git status --porcelain --untracked-files=all`: what git would offer to commit.
    pub fn git_status(&self) -> String {
        let output = std::process::Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=all"])
            .current_dir(self.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Runs the PostToolUse hook with a fixture.
    pub fn post_fixture(&self, name: &str) -> HookAnswer {
        self.hook("post-tool-use", &self.fixture(name))
    }

    /// Runs the SessionEnd hook with Claude's fixture.
    pub fn post_session_end(&self) -> HookAnswer {
        self.hook("session-end", &self.fixture("claude-session-end.json"))
    }

    /// An Edit payload for `relative` (the file must already hold `new_string`).
    pub fn edit_payload(&self, relative: &str, old_string: &str, new_string: &str) -> String {
        serde_json::json!({
            "session_id": "test-session",
            "cwd": self.path(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": self.path().join(relative),
                "old_string": old_string,
                "new_string": new_string
            },
            "tool_response": {"filePath": self.path().join(relative), "success": true}
        })
        .to_string()
    }

    /// [`TestProject::edit_payload`] from another session.
    pub fn edit_payload_as(&self, session: &str, relative: &str, old: &str, new: &str) -> String {
        let mut payload: Value =
            serde_json::from_str(&self.edit_payload(relative, old, new)).unwrap();
        payload["session_id"] = Value::from(session);
        payload.to_string()
    }

    /// `car lessons add --scope SCOPE --trigger TRIGGER --lesson LESSON`.
    pub fn add_lesson(&self, scope: &str, trigger: &str, lesson: &str) -> Run {
        self.add_lesson_with(scope, trigger, lesson, &[])
    }

    /// [`TestProject::add_lesson`] with `--weight WEIGHT`, asserting it was added.
    pub fn add_weighted_lesson(&self, scope: &str, trigger: &str, lesson: &str, weight: u32) {
        let run = self.add_lesson_with(scope, trigger, lesson, &["--weight", &weight.to_string()]);
        assert_eq!(run.code, 0, "{run:?}");
    }

    fn add_lesson_with(&self, scope: &str, trigger: &str, lesson: &str, extra: &[&str]) -> Run {
        let mut args = vec![
            "lessons",
            "add",
            "--scope",
            scope,
            "--trigger",
            trigger,
            "--lesson",
            lesson,
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// A Write payload for `relative`; writes the file first.
    pub fn write_payload(&self, relative: &str, content: &str, original: Option<&str>) -> String {
        self.write(relative, content);
        serde_json::json!({
            "session_id": "test-session",
            "cwd": self.path(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": self.path().join(relative), "content": content},
            "tool_response": {
                "type": if original.is_some() { "update" } else { "create" },
                "filePath": self.path().join(relative),
                "content": content,
                "originalFile": original
            }
        })
        .to_string()
    }
}
