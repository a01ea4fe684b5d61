//! car — makes AI coding agents learn from their own mistakes and stop only after their changes
//! were reviewed.
//!
//! Layers; data flows down this list and never back up (docs/design.md):
//! - top: [`commands`] (one file per subcommand), [`hook`] (one entry per hook event; the calling
//!   agent's file reads its payload and shapes its answer), [`replay`] (scenarios run through the pipeline), [`report`] (`car report`'s page), [`pipeline`] (check one edit:
//!   validators → lessons → report, for the hook, `car check` and replay alike);
//! - middle: [`agents`] (one file per agent: hook entries, payload names, answer shape, transcript
//!   format; the one place that knows them), [`validate`], [`lessons`], [`review`] (the review
//!   engine and its two front ends, the stop gate and the deep review), [`scenario`]:
//!   plain values in, typed results out; apart from `agents` they never see the command line, a
//!   hook payload or an agent's answer format;
//! - bottom: plain types and services: [`edit`], [`project`], [`settings`], [`process`],
//!   [`reviewer`], [`scope`], [`files`], [`clock`], [`paths`], [`text`], [`answer`], [`state_dir`],
//!   [`diagnostic`] and [`lesson_warning`] (what a check found, as the session records it),
//!   [`output`] (the one module that prints).
//!
//! Everything is crate-private except what the binary and the benchmarks (`benches/`) call:
//! those items are `pub`, the rest `pub(crate)`, so the compiler reports dead code.

#![warn(unreachable_pub)]
// The few `pub` items exist for the benchmarks; their signatures may name crate-private types
// (an error enum, a scenario), which the benchmarks never need to spell.
#![allow(private_interfaces)]

mod agents;
mod answer;
mod cli;
mod clock;
pub mod commands;
mod diagnostic;
pub mod edit;
mod error;
mod files;
mod git;
mod hook;
mod installation;
mod json_edit;
mod learning;
mod lesson_warning;
pub mod lessons;
mod mcp;
mod output;
mod paths;
mod pipeline;
mod process;
pub mod project;
pub mod replay;
mod report;
mod review;
mod reviewer;
mod scenario;
mod scope;
pub mod session;
pub mod settings;
mod state;
pub mod text;
pub mod validate;

pub use project::Project;
