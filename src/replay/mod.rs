//! Replay: recorded scenarios that guard the lesson system.
//!
//! A scenario ([`crate::scenario`]) is data: a starting state and steps with expectations. The
//! [`runner`] replays it in a throwaway project, in-process, through the same
//! [`crate::pipeline`] the hook and `car check` use. The [`suite`] gathers the cases
//! `car lessons test` runs: the project's scenarios, car's own ([`builtin`]) and every lesson's
//! examples ([`examples`]).
//!
//! Invariant: replay depends on the pipeline, never the reverse.

pub(crate) mod builtin;
pub(crate) mod check_step;
pub(crate) mod examples;
pub(crate) mod runner;
pub(crate) mod session_steps;
pub(crate) mod step_error;
pub mod suite;

pub(crate) use crate::scenario::ReplayError;
