//! Replay: recorded scenarios that guard the lesson system, and the self-test that runs them when
//! an agent edits car's own configuration.

pub mod command;
pub mod self_test;

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Invalid(String),
}
