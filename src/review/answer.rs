//! One reviewer call, as both loops make it: the prompt goes to the configured backend with the
//! findings schema, the raw answer is kept in a file beside the prompt, and the answer is read
//! once into a [`Review`] whose files are project-relative. Each loop decides what a failure
//! means for it (the gate retries once within its timeout and blocks with what failed; the deep
//! review stops the round) and words it.
//!
//! Invariants: an answer is kept before it is judged, so an unusable one can be read by a person;
//! no answer, an empty one or one without findings JSON is an [`Unanswered`], never a clean
//! review.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::project::Project;
use crate::review::findings::{FindingsError, Review};
use crate::review::prompt::findings_schema;
use crate::reviewer::{self, AskOptions, BackendError};
use crate::settings::Settings;

/// What one call needs: who answers (the settings' backend), where, what, for how long, and
/// where the backend's files and the raw answer go.
pub(crate) struct Question<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) project: &'a Project,
    pub(crate) prompt: &'a str,
    pub(crate) timeout: Duration,
    /// The prefix of the files a backend keeps for the call (its schema, its last message).
    pub(crate) files_prefix: PathBuf,
    /// Where the raw answer is kept.
    pub(crate) answer_file: &'a Path,
}

/// Why a call gave no review.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// The backend did not answer (missing, failed, timed out, answered nothing).
    Backend(BackendError),
    /// It answered, but the answer holds no valid findings JSON.
    Unusable(FindingsError),
}

/// Asks the reviewer and reads its answer (see the module invariants).
pub(crate) fn ask(question: &Question<'_>) -> Result<Review, Unanswered> {
    let options = AskOptions {
        output_schema: Some(findings_schema()),
        files_prefix: Some(question.files_prefix.clone()),
    };
    let answer = reviewer::ask_with(
        question.settings,
        question.project.checkout(),
        question.prompt,
        question.timeout,
        &options,
    )
    .map_err(Unanswered::Backend)?;
    // Keeping the answer is for a person reading it later; failing to keep it changes no verdict.
    let _ = crate::files::write_atomic(question.answer_file, answer.as_bytes());
    Review::parse_text(&answer)
        .map(|review| review.relative_to(question.project))
        .map_err(Unanswered::Unusable)
}
