//! car — makes AI coding agents learn from their own mistakes and stop only after their changes
//! were reviewed.
//!
//! Layers; data flows down this list and never back up (README "Design"):
//! - top: [`commands`] (one file per subcommand), [`hook`] (the only place that knows the agents'
//!   protocols), [`replay`] (scenarios run through the pipeline), [`pipeline`] (check one edit:
//!   validators → lessons → report, for the hook, `car check` and replay alike);
//! - middle: [`validate`], [`lessons`], [`review`], [`scenario`]: plain values in, typed results
//!   out; they never see the command line, a hook payload or an agent's answer format;
//! - bottom: plain types and services: [`edit`], [`project`], [`settings`], [`process`],
//!   [`reviewer`], [`files`], [`clock`], [`paths`], [`text`], [`answer`], [`state_dir`],
//!   [`output`] (the one module that prints).

pub mod answer;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod edit;
pub mod error;
pub mod files;
pub mod hook;
pub mod lessons;
pub mod output;
pub mod paths;
pub mod pipeline;
pub mod process;
pub mod project;
pub mod replay;
pub mod review;
pub mod reviewer;
pub mod scenario;
pub mod settings;
pub mod state_dir;
pub mod text;
pub mod validate;

pub use clock::Clock;
pub use error::Error;
pub use project::Project;
