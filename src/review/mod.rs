//! The stop-time review gate (seeds 000 and 001): session event logs, the gate's stages, review
//! prompts and backends, findings, known limits and the P3 offer list.

pub(crate) mod baseline;
pub(crate) mod checkpoint;
pub(crate) mod classifier;
pub mod event;
pub(crate) mod findings;
pub(crate) mod gate;
pub(crate) mod log;
pub(crate) mod offers;
pub(crate) mod one_stop;
pub(crate) mod prompt;
pub(crate) mod reconcile;
pub(crate) mod record;
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
}
