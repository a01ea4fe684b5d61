//! Why distill discards a proposal, and why a reviewer's answer gave none: each reason names the
//! trigger, the lesson or candidate, the example or the project file involved. `car lessons
//! distill` shows the reason after the proposal (`--json`: the `reason` string).

use crate::learning::precision::Refusal;
use crate::lessons::distill::MIN_REQUIRED_TEXT;
use crate::lessons::trigger::TriggerError;
use crate::reviewer::BackendError;

/// Why a proposed general lesson was discarded.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum DiscardReason {
    #[error(transparent)]
    BadTrigger(#[from] TriggerError),
    #[error("no triggers")]
    NoTriggers,
    #[error("replaces no lesson")]
    ReplacesNothing,
    /// A regex trigger that requires no literal text at all.
    #[error("{trigger:?} is generic: it requires no specific text")]
    NoRequiredText { trigger: String },
    /// Its required text fails the precision rules (a keyword, no letters, …).
    #[error("{trigger:?} is generic: {refusal}")]
    Imprecise { trigger: String, refusal: Refusal },
    #[error(
        "{trigger:?} is generic: it only requires {text:?} (fewer than {MIN_REQUIRED_TEXT} characters)"
    )]
    TooLittleText { trigger: String, text: String },
    #[error("replaces {id}, which is not a lesson of {scope}")]
    NotALesson { id: String, scope: String },
    #[error("does not match {text:?}, a trigger of {id}")]
    MissesTrigger { text: String, id: String },
    #[error("does not match {text:?}, an example of {id}")]
    MissesExample { text: String, id: String },
    #[error("matches {text:?}, a no_match example of {id}")]
    MatchesNoMatchExample { text: String, id: String },
    /// Evidence rules ([`super::evidence::check`]): a lesson or candidate the scope lacks.
    #[error("replaces {name}, which is not in {scope}")]
    NotInScope { name: String, scope: String },
    #[error("does not match {text:?}, a bad example of {name}")]
    MissesBadExample { text: String, name: String },
    #[error("matches {text:?}, a fixed example of {scope}")]
    MatchesFixedExample { text: String, scope: String },
    /// What it replaces carries no fixed example (`no_match`, a fix): nothing shows what correct
    /// code looks like, so it cannot be verified as a learned lesson is.
    #[error(
        "nothing to check it against: what it replaces in {scope} has no fixed examples (`no_match`)"
    )]
    NothingToCheckAgainst { scope: String },
    /// The project's files could not be searched.
    #[error("{why}")]
    Unchecked { why: String },
    /// Its text is generic advice that names nothing concrete (seed 003: discarded).
    #[error("its text {text:?} is generic advice: it names no code")]
    GenericAdvice { text: String },
    /// It would fire on a line of the project's own files (`excerpt` is that line, shortened).
    #[error("fires on {path}:{line}, a file of the project (`{excerpt}`)")]
    FiresInProject {
        path: String,
        line: usize,
        excerpt: String,
    },
}

/// Why the reviewer CLI gave no proposals for a scope.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AnswerProblem {
    #[error(transparent)]
    Reviewer(#[from] BackendError),
    #[error("the answer holds no JSON object")]
    NoJson,
    #[error("the answer is not valid JSON: {message}")]
    NotJson { message: String },
    #[error("the answer has no \"proposals\" array")]
    NoProposals,
}

/// A reason as the `reason` string of `car lessons distill --json`.
pub(crate) fn serialize_reason<S: serde::Serializer>(
    reason: &DiscardReason,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(reason)
}
