//! Why car did not learn from a signal: every refusal is a value with a stable kind (for `car
//! lessons candidates --refused --json`, the report and the benchmark) and a sentence a person
//! can act on, carried with what it is about ([`Refused`]). Refusals are recorded, never
//! dropped ([`crate::learning::refusal::log`]): *never refuse silently*.

pub(crate) mod log;

use crate::learning::precision;
use crate::learning::synthesis::NoPattern;
use crate::lessons::provenance::{Evidence, Source};

/// Why a signal taught nothing (yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// A checker error's subject is no specific name (`x`, `'data.csv'`, `items`).
    #[error("{0}")]
    Subject(precision::Refusal),
    /// No specific pattern covers what the fix changed (or what the sightings share).
    #[error("{0}")]
    NoPattern(NoPattern),
    /// The pattern does not fire where the mistake was written (it lies in a comment or string).
    #[error("`{trigger}` does not fire on the line it was learned from ({line:?})")]
    MissesMistake { trigger: String, line: String },
    /// Every pattern the examples allow matches the fixed line too.
    #[error(
        "`{trigger}` also matches the fixed line {fixed:?}, and nothing the fix added tells them apart"
    )]
    MatchesFix { trigger: String, fixed: String },
    /// The pattern fires on correct code of the project, as the lesson would match it.
    #[error("`{trigger}` fires on correct code of the project: {file}:{line}: {text}")]
    FiresOnCorrectCode {
        trigger: String,
        file: String,
        line: usize,
        text: String,
    },
    /// The project writes it so often that it is the team's way, not a mistake.
    #[error(
        "the project already holds `{trigger}` {count} times: a pattern the team uses, not a slip"
    )]
    Established { trigger: String, count: usize },
    /// The project's files could not be searched (git missing, slow or failing).
    #[error("`{trigger}` could not be checked against the project's code ({why})")]
    Unchecked { trigger: String, why: String },
    /// A change the checker rejects too is not the fix of the first error.
    #[error(
        "the change of {file}:{line} still fails the checker ({error}), so it is not taken as the fix"
    )]
    FixStillFails {
        file: String,
        line: usize,
        error: String,
    },
    /// The checker no longer reports the subject although the file still writes it: what changed
    /// is the environment (a package got installed, a rule was edited), not the code.
    #[error(
        "`{trigger}` no longer errs in {file} although it is still written there: the environment changed, not the code"
    )]
    StillWritten { trigger: String, file: String },
    /// The person did not make this change.
    #[error("{0}")]
    NotACorrection(NotACorrection),
    /// A person rejected the lesson this would make (`car lessons review`): never proposed again.
    #[error(
        "a person rejected the lesson `{trigger}` ({id}) that this repeats; it is not proposed again (`car lessons review`)"
    )]
    RejectedByAPerson { id: String, trigger: String },
}

impl Refusal {
    /// Whether it keeps a mistake seen more than once from becoming a lesson (what the person is
    /// told about when it happens again and again), rather than one signal that teaches nothing.
    pub(crate) fn holds_back_a_candidate(&self) -> bool {
        matches!(
            self,
            Refusal::NoPattern(NoPattern::NoCommonPattern(_))
                | Refusal::MissesMistake { .. }
                | Refusal::MatchesFix { .. }
                | Refusal::FiresOnCorrectCode { .. }
                | Refusal::Established { .. }
                | Refusal::Unchecked { .. }
        )
    }

    /// A stable name for the kind of refusal.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Refusal::Subject(_) => "subject-not-specific",
            Refusal::NoPattern(NoPattern::NoCommonPattern(_)) => "no-common-pattern",
            Refusal::NoPattern(_) => "no-specific-pattern",
            Refusal::MissesMistake { .. } => "misses-the-mistake",
            Refusal::MatchesFix { .. } => "matches-the-fix",
            Refusal::FiresOnCorrectCode { .. } => "fires-on-correct-code",
            Refusal::Established { .. } => "established-in-project",
            Refusal::Unchecked { .. } => "unchecked",
            Refusal::FixStillFails { .. } => "fix-still-fails",
            Refusal::StillWritten { .. } => "still-written",
            Refusal::NotACorrection(_) => "not-a-correction",
            Refusal::RejectedByAPerson { .. } => "rejected-by-a-person",
        }
    }
}

/// One refusal of one signal, before it is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) refusal: Refusal,
    pub(crate) source: Source,
    /// The lesson's scope it would have had (`*.py`).
    pub(crate) scope: String,
    /// What it is about: the trigger, the error's subject, or the line.
    pub(crate) subject: String,
    pub(crate) evidence: Vec<Evidence>,
}

/// Why a change of a line the agent wrote is no person's correction (*rather miss than
/// false-alarm*): each names who or what made it instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotACorrection {
    /// The line is still there, only reformatted: a formatter's or format-on-save's work.
    #[error(
        "the line is still there, only reformatted (quotes, spacing, line breaks: a formatter's work, not a correction)"
    )]
    Reformatted,
    /// A lockfile: a package manager rewrites it.
    #[error("{0} is a lockfile: a package manager writes it, not a person")]
    Lockfile(String),
    /// A file that says it is generated: a generator rewrites it.
    #[error("{0} is generated ({1}): its generator wrote the change, not a person")]
    Generated(String, &'static str),
    /// Another agent session recorded writing exactly this content.
    #[error("agent session {0} wrote this version of the file, not a person")]
    AnotherSession(String),
    /// The file is back to its committed version: a checkout, reset, stash or pull brought it.
    #[error("the file now equals its committed version: a git operation brought the change")]
    Committed,
    /// HEAD moved since the agent wrote (a merge, pull, rebase or checkout) and brought a change
    /// to the file: git's, not a person's.
    #[error(
        "git's HEAD moved from {from} to {to} since the agent wrote it (a merge, pull, rebase or checkout) and brought a change to {file}: git's, not a person's"
    )]
    CameWithGit {
        file: String,
        from: String,
        to: String,
    },
    /// Git ignores the file: build output, rewritten by whatever builds it.
    #[error("{0} is ignored by git: build output, rewritten by what builds it, not a person")]
    Ignored(String),
    /// Most of the file changed at once: a generator or a tool rewrote it, not a person's hand.
    #[error(
        "{changed} of the file's {total} lines changed at once: a tool rewrote it, not a person"
    )]
    Rewritten { changed: usize, total: usize },
}
