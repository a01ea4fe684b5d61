//! Replay: recorded scenarios that guard the lesson system, and the self-test that runs them when
//! an agent edits car's own configuration.
//!
//! A scenario ([`scenario`]) is data: a starting state and steps with expectations
//! ([`expect`]). The [`runner`] replays it in a throwaway project, in-process. The [`suite`]
//! gathers the cases `car lessons test` runs: the project's scenarios, car's own ([`builtin`])
//! and every lesson's examples ([`examples`]).

pub mod builtin;
pub mod check_step;
pub mod command;
pub mod examples;
pub mod expect;
pub mod fixtures;
pub mod observation;
pub mod runner;
pub mod scenario;
pub mod self_test;
pub mod suite;

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("{path}: {message}")]
    Folder { path: String, message: String },
}
