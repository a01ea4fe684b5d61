//! Why a deep review run did not review: every cause is a STOPPED verdict (exit 2) with its
//! reason and a hint — never a silent "no review".

use crate::review::deep::{context, diff, state};
use crate::review::findings::FindingsError;
use crate::reviewer::BackendError;
use crate::settings::Settings;

/// Why a run did not review (a STOPPED verdict, exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StopCause {
    #[error(transparent)]
    Context(#[from] context::ContextError),
    #[error(transparent)]
    Diff(#[from] diff::DiffError),
    #[error(transparent)]
    State(#[from] state::StateError),
    #[error(
        "the deep review's reviewer is \"manual\": a deep review needs a second model's CLI, not a self-review"
    )]
    Manual,
    #[error("the deep review's reviewer is \"command\" but reviewerCommand is empty")]
    NoCommand,
    #[error(transparent)]
    Reviewer(#[from] BackendError),
    #[error("the reviewer's answer is unusable: {error} (the raw answer is in {answer})")]
    Unusable {
        error: FindingsError,
        answer: String,
    },
    #[error("nothing to review: no change {scope}")]
    EmptyDiff {
        scope: String,
        /// The open loop's last round (`round 1 against 1a2b3c4`): it stays open.
        open_loop: Option<String>,
    },
    #[error(transparent)]
    Fixer(#[from] FixerError),
}

impl StopCause {
    /// What the user can do about it.
    pub(crate) fn hint(&self, settings: &Settings, timeout_seconds: u64) -> Option<String> {
        let backends = "set \"deepReviewBackend\" (codex, claude, opencode or command) under \
                        \"claude-auto-review\" in .claude/settings.json";
        Some(match self {
            StopCause::Context(context::ContextError::Missing { name, .. }) => format!(
                "create it with `car deep-review init {}`, or run `car deep-review run none` for the generic rubric",
                context::name_of(name)
            ),
            StopCause::Diff(diff::DiffError::InvalidRef { .. }) => {
                "give a branch, tag or commit git knows: --base main, --base HEAD~3".into()
            }
            StopCause::State(state::StateError::Corrupt { .. }) => {
                "fix the file by hand, or start over with `car deep-review reset --context NAME`"
                    .into()
            }
            StopCause::Manual => format!("{backends}; the stop gate keeps its manual review"),
            StopCause::NoCommand => {
                "set \"reviewerCommand\": [\"prog\", \"arg\", …] (the program gets the prompt on stdin)"
                    .into()
            }
            StopCause::Reviewer(BackendError::NotFound { program }) => format!(
                "install `{program}` or put it on PATH, or {backends}"
            ),
            StopCause::Reviewer(BackendError::Timeout { .. }) => format!(
                "allow more time: --timeout SECONDS (now {timeout_seconds}; the default is reviewerTimeoutSeconds, {})",
                settings.reviewer_timeout_seconds
            ),
            StopCause::Reviewer(_) | StopCause::Unusable { .. } => {
                "check that the reviewer CLI works on its own (is it logged in?) and run again"
                    .into()
            }
            StopCause::EmptyDiff {
                open_loop: Some(open_loop),
                ..
            } => format!(
                "the open loop's {open_loop} stays open: run with that --base and those --paths to review its change, or `car deep-review reset` to drop it"
            ),
            StopCause::EmptyDiff { .. } => {
                "a wrong --base? Pass the branch the change started from, or --allow-skipped when nothing to review is fine"
                    .into()
            }
            StopCause::Fixer(_) => "run the fixer command by hand to see what fails".into(),
            _ => return None,
        })
    }
}

/// Why the loop's fixer did not fix (the loop ends with STOPPED).
#[derive(Debug, thiserror::Error)]
pub(crate) enum FixerError {
    #[error("--fixer needs a command")]
    Empty,
    #[error("the fixer `{program}` is not on PATH")]
    NotFound { program: String },
    #[error("the fixer `{program}` could not be started: {message}")]
    Spawn { program: String, message: String },
    #[error("the fixer `{program}` did not finish within {seconds} s and was stopped")]
    Timeout { program: String, seconds: u64 },
    #[error("the fixer `{program}` failed (exit {code}): {stderr}")]
    Failed {
        program: String,
        code: String,
        stderr: String,
    },
}
