//! Which real tools car found, per language, for `car status`: the program on PATH, whether it
//! runs (a rustup proxy with no toolchain chosen for this HOME is on PATH and fails on every
//! call), and when the checks use it. A language without a working tool is read by its
//! tree-sitter grammar alone, and says so.
//!
//! Invariant: read-only and bounded: one `--version` call (gofmt: one format of empty input) per
//! program found, each with
//! [`VERSION_TIMEOUT`]; never called from a hook.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::process::{find_on_path, run_command};
use crate::validate::language::Language;
use crate::validate::languages::spec::{Runs, Tool};

/// A `--version` answer takes milliseconds; a proxy that hangs must not hold `car status` up.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// The languages only a grammar (or an in-process parser) reads, whatever is installed.
pub(crate) const IN_PROCESS_ONLY: &str = "TypeScript, TSX, JSX, Java, C, C++, Kotlin, CSS, HTML, TOML: tree-sitter only; JSON, YAML: parsed in process; Dockerfile: its exec forms (JSON)";

/// What car found of one language's real tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolState {
    /// On PATH and answers its probe (`--version`).
    Runs(PathBuf),
    /// On PATH but fails (its first line of output says why).
    Fails(PathBuf, String),
    Missing,
}

/// One language's tool, found.
#[derive(Debug, Clone)]
pub(crate) struct FoundTool {
    pub(crate) language: &'static str,
    pub(crate) program: &'static str,
    pub(crate) runs: Runs,
    pub(crate) state: ToolState,
}

impl FoundTool {
    /// One line for `car status`.
    pub(crate) fn describe(&self) -> String {
        let (language, program) = (self.language, self.program);
        let when = match self.runs {
            Runs::Always => "checks every file",
            Runs::WhenFlagged => "judges what the grammar flags",
        };
        match &self.state {
            ToolState::Runs(path) => format!("{language}: {program} ({}) {when}", path.display()),
            ToolState::Fails(path, why) => format!(
                "{language}: {program} ({}) does not run ({why}); tree-sitter's findings stand",
                path.display()
            ),
            ToolState::Missing => {
                format!("{language}: no {program} on PATH; tree-sitter's findings stand")
            }
        }
    }

    pub(crate) fn to_json(&self) -> serde_json::Value {
        let (state, path, why) = match &self.state {
            ToolState::Runs(path) => ("runs", Some(path), None),
            ToolState::Fails(path, why) => ("fails", Some(path), Some(why)),
            ToolState::Missing => ("missing", None, None),
        };
        serde_json::json!({
            "language": self.language,
            "program": self.program,
            "state": state,
            "path": path,
            "why": why,
            "runs_on": match self.runs {
                Runs::Always => "every file",
                Runs::WhenFlagged => "flagged files",
            },
        })
    }
}

/// Every real tool the checks may use: bash for shell, then the tools that judge a grammar's
/// findings (each language's [`RealTool`](crate::validate::languages::spec::RealTool), in
/// [`Tool::ALL`]'s order). Python's interpreter has its own section.
pub(crate) fn inventory() -> Vec<FoundTool> {
    let shell = ("Shell", "bash", Runs::Always);
    let judges = Tool::ALL.into_iter().filter_map(|tool| {
        Language::ALL
            .iter()
            .find_map(|language| language.spec().tool.filter(|real| real.tool == tool))
            .map(|real| (real.shown_as, real.program, real.runs))
    });
    std::iter::once(shell)
        .chain(judges)
        .map(|(language, program, runs)| FoundTool {
            language,
            program,
            runs,
            state: state_of(program),
        })
        .collect()
}

/// A call that shows whether `program` runs: `--version`, but gofmt has no such flag (it fails
/// with "flag provided but not defined"); given no arguments it formats its empty input.
fn probe_args(program: &str) -> &'static [&'static str] {
    match program {
        "gofmt" => &[],
        _ => &["--version"],
    }
}

fn state_of(program: &str) -> ToolState {
    let Some(path) = find_on_path(program) else {
        return ToolState::Missing;
    };
    let mut command = Command::new(&path);
    command
        .args(probe_args(program))
        .current_dir(std::env::temp_dir());
    match run_command(command, None, VERSION_TIMEOUT) {
        Ok(output) if output.success() && !output.timed_out => ToolState::Runs(path),
        Ok(output) => {
            let text = format!("{}\n{}", output.stderr, output.stdout);
            let first = text.lines().find(|line| !line.trim().is_empty());
            let why = first.map_or_else(
                || "it failed without a message".to_string(),
                |line| crate::text::shorten(line.trim(), 100),
            );
            ToolState::Fails(path, why)
        }
        Err(error) => ToolState::Fails(path, error.to_string()),
    }
}
