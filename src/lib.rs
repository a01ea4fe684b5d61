//! car — makes AI coding agents learn from their own mistakes and stop only after their changes
//! were reviewed.
//!
//! Data flows one way: agent payload → [`hook::Edit`] → validators → diagnostics → lessons
//! (match, learn) → events → one hook response. The stop gate reads events; it never re-parses
//! payloads. Hook output and terminal text are written by [`output`] alone.

pub mod app;
pub mod cli;
pub mod clock;
pub mod error;
pub mod files;
pub mod hook;
pub mod lessons;
pub mod output;
pub mod project;
pub mod replay;
pub mod review;
pub mod setup;
pub mod validate;

pub use clock::Clock;
pub use error::Error;
pub use project::Project;
