//! The stop-time review gate (seeds 000 and 001): session event logs, the gate's stages, review
//! prompts and backends, findings, known limits and the P3 offer list; and the deep review
//! (seed 002, [`deep`]), which shares the findings, the prompt pieces and the backends.

pub(crate) mod authored;
pub(crate) mod baseline;
pub(crate) mod changed_lines;
pub(crate) mod checkpoint;
pub(crate) mod classifier;
pub(crate) mod current;
pub(crate) mod deep;
pub mod event;
pub(crate) mod findings;
pub(crate) mod fixed;
pub(crate) mod gate;
pub(crate) mod guards;
pub(crate) mod ignored;
pub(crate) mod learning;
pub(crate) mod limits;
pub(crate) mod log;
pub(crate) mod lookup;
pub(crate) mod offers;
pub(crate) mod one_stop;
pub(crate) mod prompt;
pub(crate) mod reasons;
pub(crate) mod reconcile;
pub(crate) mod record;
pub(crate) mod rounds;
pub(crate) mod session_end;
pub(crate) mod snapshot;

pub(crate) use prompt::install_default_rules;

use crate::clock::Clock;
use crate::project::Project;
use crate::settings::Settings;

/// The session a review operation is about: which project, its settings as read for this call,
/// the session's id and the one clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Session<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) clock: Clock,
    pub(crate) id: &'a str,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ReviewError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Findings(#[from] findings::FindingsError),
    #[error(transparent)]
    Lookup(Box<lookup::LookupError>),
    #[error("no session {session:?} in {folder}")]
    NoSession {
        session: String,
        folder: std::path::PathBuf,
    },
    #[error("no session has recorded anything in this project yet")]
    NoSessions,
    #[error("no open finding {label:?} in any session of this project")]
    NoOpenFinding { label: String },
    #[error("{}", match session {
        Some(session) => format!("session {session} has no pending review request (the gate asks for one when the agent stops)"),
        None => "no session has a pending review request; the gate asks for one when the agent stops".to_string(),
    })]
    NoPendingRequest { session: Option<String> },
    /// `finding` is `R<n>/ID`.
    #[error(
        "session {session}: {finding} is a P1 ({title}); a P1 can never be deferred as a known limit: fix it, or challenge it if you hold it to be a false positive"
    )]
    NotDeferrable {
        session: String,
        finding: String,
        title: String,
    },
    /// `finding` is `R<n>/ID`.
    #[error(
        "session {session}: {finding} ({title}) is already challenged; the next review judges it (reason given: {reason:?})"
    )]
    AlreadyChallenged {
        session: String,
        finding: String,
        title: String,
        reason: String,
    },
    #[error("--reason must say {what}")]
    NoReason { what: &'static str },
}

impl From<lookup::LookupError> for ReviewError {
    fn from(error: lookup::LookupError) -> ReviewError {
        ReviewError::Lookup(Box::new(error))
    }
}
