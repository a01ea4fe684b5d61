//! Reviewer backends: one way to hand a prompt to the configured reviewer CLI (claude, codex,
//! opencode, or any command) and get its text back. Used by the review gate, the model classifier
//! and `car lessons distill`.
//!
//! Invariants: the prompt never goes through a shell; the nested run is read-only, has hooks
//! disabled and carries [`NESTED_ENV`] so car's own hooks never gate a reviewer; a missing CLI, a
//! timeout, a failure or empty output is an error, never an empty "clean" answer.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::setup::settings::{ReviewerBackend, Settings};
use crate::validate::process::{ProcessError, run_command};

/// Set for every reviewer run; car's hooks answer `{}` at once when they see it.
pub const NESTED_ENV: &str = "CAR_NESTED_REVIEW";

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
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
}

/// The argv of one reviewer run (program first). The prompt goes on stdin.
pub fn argv(settings: &Settings) -> Result<Vec<String>, BackendError> {
    let model = settings.reviewer_model.clone();
    let mut argv: Vec<String> = match settings.reviewer_backend {
        ReviewerBackend::Manual => return Err(BackendError::Manual),
        ReviewerBackend::Claude => vec![
            "claude".into(),
            "-p".into(),
            "--output-format".into(),
            "text".into(),
            "--allowedTools".into(),
            "Read,Grep,Glob".into(),
            "--settings".into(),
            r#"{"disableAllHooks":true}"#.into(),
        ],
        ReviewerBackend::Codex => vec![
            "codex".into(),
            "exec".into(),
            "--sandbox".into(),
            "read-only".into(),
            "--skip-git-repo-check".into(),
        ],
        ReviewerBackend::Opencode => vec!["opencode".into(), "run".into()],
        ReviewerBackend::Command => settings.reviewer_command.clone(),
    };
    if let Some(model) = model
        && settings.reviewer_backend != ReviewerBackend::Command
    {
        argv.push("--model".into());
        argv.push(model);
    }
    if settings.reviewer_backend == ReviewerBackend::Codex {
        // `-` makes codex read the prompt from stdin.
        argv.push("-".into());
    }
    Ok(argv)
}

/// Sends `prompt` to the configured reviewer and returns what it printed.
pub fn ask(
    settings: &Settings,
    working_dir: &Path,
    prompt: &str,
    timeout: Duration,
) -> Result<String, BackendError> {
    let argv = argv(settings)?;
    let Some((program, args)) = argv.split_first() else {
        return Err(BackendError::NotFound {
            program: String::new(),
        });
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(working_dir)
        .env(NESTED_ENV, "1");
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
            seconds: timeout.as_secs(),
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
    if output.stdout.trim().is_empty() {
        return Err(BackendError::Empty {
            program: program.clone(),
        });
    }
    Ok(output.stdout)
}

/// The last `limit` characters of `text`, for error messages.
fn tail(text: &str, limit: usize) -> String {
    let trimmed = text.trim();
    let count = trimmed.chars().count();
    trimmed.chars().skip(count.saturating_sub(limit)).collect()
}
