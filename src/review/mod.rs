//! The stop-time review gate (seeds 000 and 001): session event logs, the gate's stages, review
//! prompts and backends, findings, known limits and the P3 offer list.

pub mod backend;
pub mod baseline;
pub mod checkpoint;
pub mod classifier;
pub mod command;
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

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Findings(#[from] findings::FindingsError),
}
