//! The stop gate (the review gate and its fix loop): when the agent tries to stop, the session's
//! unreviewed changes are reviewed, blocking findings are sent back to be fixed, and the loop stays
//! bounded. Stages ([`stages`]): the last-message [`classifier`], the [`known_limits`] the agent
//! declares, the breaker and convergence [`guards`], the review [`prompt`], the block [`reasons`],
//! the P3 [`offers`] and one stop at a time ([`stop_lock`]); what the gate would see now, for
//! commands that only look ([`session_view`]).

pub(crate) mod classifier;
pub(crate) mod guards;
pub(crate) mod known_limits;
pub(crate) mod offers;
pub(crate) mod program;
pub(crate) mod prompt;
pub(crate) mod reasons;
pub(crate) mod session_view;
pub(crate) mod stages;
pub(crate) mod standing;
pub(crate) mod stop_lock;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ReviewError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Findings(#[from] crate::review::findings::FindingsError),
    #[error(transparent)]
    Lookup(Box<crate::review::finding_ref::LookupError>),
    #[error("no session {session:?} in {folder}")]
    NoSession {
        session: String,
        folder: std::path::PathBuf,
    },
    #[error("no session has recorded anything in this project yet")]
    NoSessions,
    #[error(
        "session {session} has no unreviewed change: nothing to review (a review request covers the files the session changed since its last review)"
    )]
    NothingToReview { session: String },
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

impl From<crate::review::finding_ref::LookupError> for ReviewError {
    fn from(error: crate::review::finding_ref::LookupError) -> ReviewError {
        ReviewError::Lookup(Box::new(error))
    }
}
