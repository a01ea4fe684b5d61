//! The stop-time review gate (seeds 000 and 001): session event logs, the gate's stages, review
//! prompts and backends, findings, known limits and the P3 offer list.

pub mod baseline;
pub mod checkpoint;
pub mod classifier;
pub mod event;
pub mod findings;
pub mod gate;
pub mod log;
pub mod offers;
pub mod prompt;
pub mod reconcile;
pub mod record;
pub mod session_end;
pub mod snapshot;

pub use prompt::install_default_rules;

use crate::clock::Clock;
use crate::project::Project;
use crate::settings::Settings;

/// The session a review operation is about: which project, its settings as read for this call,
/// the session's id and the one clock.
#[derive(Debug, Clone, Copy)]
pub struct Session<'a> {
    pub project: &'a Project,
    pub settings: &'a Settings,
    pub clock: Clock,
    pub id: &'a str,
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Findings(#[from] findings::FindingsError),
}
