//! Reviewer backends: one way to hand a prompt to the configured reviewer CLI (claude, codex,
//! opencode, or any command) and get its text back. Used by the review gate, the model classifier
//! and `car lessons distill`.
//!
//! | backend | argv (prompt on stdin) |
//! | --- | --- |
//! | claude | `claude -p --output-format json --allowedTools Read,Grep,Glob --disallowedTools … --settings {"disableAllHooks":true} [--model M]` |
//! | codex | `codex exec --sandbox read-only --skip-git-repo-check [--output-schema F] --output-last-message F [--model M] -` |
//! | opencode | `opencode run --agent plan [--model M] <instruction>` |
//! | command | `reviewerCommand` as given |
//!
//! Invariants: the prompt never goes through a shell; the nested run is read-only, has hooks
//! disabled and carries [`NESTED_ENV`] so car's own hooks never gate a reviewer; a missing CLI, a
//! timeout, a failure or empty output is an error, never an empty "clean" answer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::process::{ProcessError, run_command};
use crate::settings::{ReviewerBackend, Settings};

/// The most of a reviewer's answer car reads (a findings answer is a few kilobytes).
const MAX_ANSWER_BYTES: u64 = crate::process::MAX_OUTPUT_BYTES as u64;

/// Set for every reviewer run; car's hooks answer `{}` at once when they see it.
pub(crate) const NESTED_ENV: &str = "CAR_NESTED_REVIEW";

/// Tools a nested claude run must never use (it only reads).
const CLAUDE_DENIED_TOOLS: &str = "Bash,Edit,Write,MultiEdit,NotebookEdit";

/// The one-line instruction opencode gets as its message; the prompt itself comes on stdin.
const OPENCODE_INSTRUCTION: &str =
    "Follow the review request given on stdin; answer with the findings JSON only.";

#[derive(Debug, thiserror::Error)]
pub(crate) enum BackendError {
    #[error("reviewerBackend is \"manual\": there is no reviewer CLI to ask")]
    Manual,
    #[error("the reviewer CLI `{program}` is not on PATH")]
    NotFound { program: String },
    #[error("the reviewer CLI `{program}` could not be started: {message}")]
    Spawn { program: String, message: String },
    #[error("the reviewer CLI `{program}` did not answer within {seconds} s and was stopped")]
    Timeout { program: String, seconds: u64 },
    #[error("the reviewer CLI `{program}` failed (exit {code}): {stderr}")]
    Failed {
        program: String,
        code: String,
        stderr: String,
    },
    #[error("the reviewer CLI `{program}` printed nothing")]
    Empty { program: String },
    #[error("{path}: {message}")]
    Scratch { path: PathBuf, message: String },
}

impl BackendError {
    /// Whether another attempt could help (a crash or an empty answer, not a missing CLI or a
    /// timeout that already used the budget).
    pub(crate) fn is_retryable(&self) -> bool {
        matches!(
            self,
            BackendError::Failed { .. } | BackendError::Empty { .. }
        )
    }

    /// What the agent may do about it. Never "choose another reviewer": swapping the
    /// independent reviewer for a self-review is the person's call ([`BackendError::person_hint`]).
    pub(crate) fn hint(&self, settings: &Settings) -> String {
        match self {
            BackendError::NotFound { program } => {
                format!("`{program}` must be installed or put on PATH (the person is told how)")
            }
            BackendError::Timeout { .. } => format!(
                "the reviewer needs more than reviewerTimeoutSeconds ({} s); the person is told how to raise it",
                settings.reviewer_timeout_seconds
            ),
            BackendError::Manual => "run the review yourself and submit it".to_string(),
            _ => "check that the reviewer CLI works on its own (is it logged in?)".to_string(),
        }
    }

    /// What the person can do about it, choosing another reviewer included.
    pub(crate) fn person_hint(&self, settings: &Settings) -> String {
        match self {
            BackendError::NotFound { program } => format!(
                "install `{program}` or put it on PATH, or choose another reviewer: car config --backend manual"
            ),
            BackendError::Timeout { .. } => format!(
                "raise reviewerTimeoutSeconds (now {}) with `car config --timeout N`, then reinstall (`car install`) so the Stop hook's timeout follows",
                settings.reviewer_timeout_seconds
            ),
            BackendError::Manual => "run the review and submit it".to_string(),
            _ => "check that the reviewer CLI works on its own (is it logged in?), or choose another reviewer: car config --backend …".to_string(),
        }
    }
}

/// Extra files a reviewer run may use.
#[derive(Debug, Clone, Default)]
pub(crate) struct AskOptions {
    /// A JSON schema the answer must follow (codex `--output-schema`).
    pub(crate) output_schema: Option<Value>,
    /// Where to keep the run's files (`<prefix>.schema.json`, `<prefix>.last-message.txt`);
    /// a temporary folder when `None`.
    pub(crate) files_prefix: Option<PathBuf>,
}

/// The files of one run, named in the argv.
#[derive(Debug, Clone)]
pub(crate) struct RunFiles {
    pub(crate) schema: Option<PathBuf>,
    pub(crate) last_message: PathBuf,
}

/// The argv of one reviewer run (program first). The prompt goes on stdin.
pub(crate) fn argv(settings: &Settings, files: &RunFiles) -> Result<Vec<String>, BackendError> {
    let strings = |items: &[&str]| {
        items
            .iter()
            .map(|item| item.to_string())
            .collect::<Vec<_>>()
    };
    let mut argv = match settings.reviewer_backend {
        ReviewerBackend::Manual => return Err(BackendError::Manual),
        ReviewerBackend::Command => return Ok(settings.reviewer_command.clone()),
        ReviewerBackend::Claude => strings(&[
            "claude",
            "-p",
            "--output-format",
            "json",
            "--allowedTools",
            "Read,Grep,Glob",
            "--disallowedTools",
            CLAUDE_DENIED_TOOLS,
            "--settings",
            r#"{"disableAllHooks":true}"#,
        ]),
        ReviewerBackend::Codex => codex_argv(files),
        ReviewerBackend::Opencode => strings(&["opencode", "run", "--agent", "plan"]),
    };
    if let Some(model) = &settings.reviewer_model {
        argv.push("--model".into());
        argv.push(model.clone());
    }
    match settings.reviewer_backend {
        // `-` makes codex read the prompt from stdin.
        ReviewerBackend::Codex => argv.push("-".into()),
        ReviewerBackend::Opencode => argv.push(OPENCODE_INSTRUCTION.into()),
        _ => {}
    }
    Ok(argv)
}

/// `codex exec` read-only, with the answer's schema and the file its last message goes to.
fn codex_argv(files: &RunFiles) -> Vec<String> {
    let mut argv: Vec<String> = [
        "codex",
        "exec",
        "--sandbox",
        "read-only",
        "--skip-git-repo-check",
    ]
    .iter()
    .map(|item| item.to_string())
    .collect();
    if let Some(schema) = &files.schema {
        argv.push("--output-schema".into());
        argv.push(schema.to_string_lossy().into_owned());
    }
    argv.push("--output-last-message".into());
    argv.push(files.last_message.to_string_lossy().into_owned());
    argv
}

/// The reviewer CLI `backend` would run when it cannot be found (not on PATH, or a
/// `reviewerCommand` path that is not there): asking it cannot work until a person installs it
/// or chooses another reviewer. `None` for `manual` and for a CLI that is there.
pub(crate) fn missing_program(
    settings: &Settings,
    backend: &ReviewerBackend,
    working_dir: &Path,
) -> Option<String> {
    let program = settings.program_of(backend)?;
    (!is_installed(&program, working_dir)).then_some(program)
}

/// Which reviewer a missing CLI was wanted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReviewerUse {
    /// The stop gate's `reviewerBackend`.
    Gate,
    /// `car deep-review run`'s `deepReviewBackend` (codex unless set).
    DeepReview,
}

/// Each configured reviewer whose CLI is not installed, with the program and the backend name.
pub(crate) fn missing_clis(settings: &Settings, working_dir: &Path) -> Vec<(ReviewerUse, String)> {
    [
        (ReviewerUse::Gate, &settings.reviewer_backend),
        (ReviewerUse::DeepReview, &settings.deep_review_backend),
    ]
    .into_iter()
    .filter_map(|(used_by, backend)| {
        missing_program(settings, backend, working_dir).map(|program| (used_by, program))
    })
    .collect()
}

/// The warning a person reads about a reviewer CLI that is not installed (`car status`,
/// `car install`, `car config`): what it costs and how to fix it.
pub(crate) fn missing_cli_warning(used_by: ReviewerUse, program: &str) -> String {
    match used_by {
        ReviewerUse::Gate => format!(
            "warning: the stop gate's reviewer CLI `{program}` is not on PATH: stops are let go with the changes unreviewed until it is installed (or choose another: car config --backend …; or review by hand: car review submit)"
        ),
        ReviewerUse::DeepReview => format!(
            "warning: the deep review's reviewer CLI `{program}` is not on PATH: `car deep-review run` stops (exit 2) until it is installed (or set \"deepReviewBackend\" in .claude/settings.json)"
        ),
    }
}

/// Whether `program` (a name looked up on PATH, or a path relative to `working_dir`) exists.
fn is_installed(program: &str, working_dir: &Path) -> bool {
    let on_disk = if program.contains('/') {
        working_dir.join(program).to_string_lossy().into_owned()
    } else {
        program.to_string()
    };
    crate::process::find_on_path(&on_disk).is_some()
}

/// Sends `prompt` to the configured reviewer and returns what it answered (plain text).
pub(crate) fn ask(
    settings: &Settings,
    working_dir: &Path,
    prompt: &str,
    timeout: Duration,
) -> Result<String, BackendError> {
    ask_with(
        settings,
        working_dir,
        prompt,
        timeout,
        &AskOptions::default(),
    )
}

/// [`ask`] with an output schema and named run files.
pub(crate) fn ask_with(
    settings: &Settings,
    working_dir: &Path,
    prompt: &str,
    timeout: Duration,
    options: &AskOptions,
) -> Result<String, BackendError> {
    let scratch = tempfile::tempdir().map_err(|error| BackendError::Scratch {
        path: std::env::temp_dir(),
        message: error.to_string(),
    })?;
    let files = run_files(scratch.path(), options)?;
    let argv = argv(settings, &files)?;
    let Some((program, args)) = argv.split_first() else {
        return Err(BackendError::NotFound {
            program: String::new(),
        });
    };
    // The guard starts the program, so a missing one is found here, by name.
    if !is_installed(program, working_dir) {
        return Err(BackendError::NotFound {
            program: program.clone(),
        });
    }
    let mut command = crate::process::guarded_command(program, args);
    command.current_dir(working_dir).env(NESTED_ENV, "1");
    let output =
        run_command(command, Some(prompt.as_bytes()), timeout).map_err(|error| match error {
            ProcessError::NotFound { program } => BackendError::NotFound { program },
            ProcessError::Spawn { program, source } => BackendError::Spawn {
                program,
                message: source.to_string(),
            },
        })?;
    if output.timed_out {
        return Err(BackendError::Timeout {
            program: program.clone(),
            seconds: timeout.as_millis().div_ceil(1000) as u64,
        });
    }
    if output.code == Some(i32::from(crate::process::GUARD_NOT_STARTED))
        && output.stderr.contains("could not be started")
    {
        return Err(BackendError::Spawn {
            program: program.clone(),
            message: tail(&output.stderr, 400),
        });
    }
    if !output.success() {
        return Err(BackendError::Failed {
            program: program.clone(),
            code: output
                .code
                .map_or_else(|| "signal".to_string(), |code| code.to_string()),
            stderr: tail(&output.stderr, 400),
        });
    }
    if let Some(message) = claude_error(settings, &output.stdout) {
        return Err(BackendError::Failed {
            program: program.clone(),
            code: "0, is_error".into(),
            stderr: tail(&message, 400),
        });
    }
    let answer = answer_text(settings, &files, &output.stdout);
    if answer.trim().is_empty() {
        return Err(BackendError::Empty {
            program: program.clone(),
        });
    }
    Ok(answer)
}

/// Names the run's files and writes the schema.
fn run_files(scratch: &Path, options: &AskOptions) -> Result<RunFiles, BackendError> {
    let prefix = options
        .files_prefix
        .clone()
        .unwrap_or_else(|| scratch.join("run"));
    let with_suffix = |suffix: &str| {
        let mut name = prefix.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        prefix.with_file_name(name)
    };
    let schema = match &options.output_schema {
        Some(schema) => {
            let path = with_suffix(crate::state::names::SCHEMA_SUFFIX);
            crate::files::write_atomic(&path, schema.to_string().as_bytes()).map_err(|error| {
                BackendError::Scratch {
                    path: path.clone(),
                    message: error.to_string(),
                }
            })?;
            Some(path)
        }
        None => None,
    };
    let last_message = with_suffix(crate::state::names::LAST_MESSAGE_SUFFIX);
    let _ = std::fs::remove_file(&last_message);
    Ok(RunFiles {
        schema,
        last_message,
    })
}

/// The reviewer's answer: codex's last-message file, claude's JSON `result`, else stdout.
fn answer_text(settings: &Settings, files: &RunFiles, stdout: &str) -> String {
    match settings.reviewer_backend {
        ReviewerBackend::Codex => crate::files::read_bounded(&files.last_message, MAX_ANSWER_BYTES)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .filter(|text| !text.trim().is_empty())
            .unwrap_or_else(|| stdout.to_string()),
        ReviewerBackend::Claude => serde_json::from_str::<Value>(stdout.trim())
            .ok()
            .and_then(|value| {
                value
                    .get("result")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_else(|| stdout.to_string()),
        _ => stdout.to_string(),
    }
}

/// Claude's JSON envelope can report a failure with exit 0 (`"is_error": true`).
fn claude_error(settings: &Settings, stdout: &str) -> Option<String> {
    if settings.reviewer_backend != ReviewerBackend::Claude {
        return None;
    }
    let value: Value = serde_json::from_str(stdout.trim()).ok()?;
    (value.get("is_error") == Some(&Value::Bool(true))).then(|| {
        value
            .get("result")
            .and_then(Value::as_str)
            .unwrap_or("is_error without a message")
            .to_string()
    })
}

/// The last `limit` characters of `text`, for error messages.
fn tail(text: &str, limit: usize) -> String {
    let trimmed = text.trim();
    let count = trimmed.chars().count();
    trimmed.chars().skip(count.saturating_sub(limit)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> RunFiles {
        RunFiles {
            schema: Some(PathBuf::from("/r/R1.schema.json")),
            last_message: PathBuf::from("/r/R1.last-message.txt"),
        }
    }

    #[test]
    fn codex_is_read_only_with_schema_and_last_message() {
        let settings = Settings {
            reviewer_backend: ReviewerBackend::Codex,
            reviewer_model: Some("gpt-5".into()),
            ..Settings::default()
        };
        assert_eq!(
            argv(&settings, &files()).unwrap().join(" "),
            "codex exec --sandbox read-only --skip-git-repo-check --output-schema /r/R1.schema.json \
             --output-last-message /r/R1.last-message.txt --model gpt-5 -"
        );
    }

    #[test]
    fn manual_has_no_argv() {
        assert!(matches!(
            argv(&Settings::default(), &files()),
            Err(BackendError::Manual)
        ));
    }
}
