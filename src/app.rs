//! Runs a parsed command line: builds the context each command needs and maps outcomes and
//! errors to exit codes (0 success, 1 the check found problems, 2 usage or configuration error).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, ReviewCommand};
use crate::error::Error;
use crate::output;
use crate::project::Project;

/// How a command that ran went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command worked and found problems (`check`, `lessons test`).
    ProblemsFound,
}

/// The whole program: parse, run, exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::ProblemsFound) => ExitCode::from(1),
        Err(error) => {
            output::print_error(&error.to_string());
            if let Some(hint) = error.hint() {
                output::print_hint(&hint);
            }
            ExitCode::from(2)
        }
    }
}

pub fn run(cli: Cli) -> Result<Outcome, Error> {
    let working_dir = working_dir(cli.project.as_ref())?;
    match cli.command {
        Command::Hook(kind) => {
            crate::hook::run(kind);
            Ok(Outcome::Success)
        }
        Command::Check(args) => crate::validate::check::run(&working_dir, &args),
        Command::Lessons(crate::cli::LessonsCommand::Test { dir }) => {
            crate::replay::command::run(&Project::discover(&working_dir), dir.as_deref())
        }
        Command::Lessons(command) => {
            crate::lessons::command::run(&Project::discover(&working_dir), command)
        }
        Command::Review(command) => run_review(&Project::discover(&working_dir), command),
        Command::Install(args) => {
            crate::setup::install::install(&Project::discover(&working_dir), &args)
        }
        Command::Uninstall => crate::setup::install::uninstall(&Project::discover(&working_dir)),
        Command::Config(args) => crate::setup::config::run(&Project::discover(&working_dir), &args),
        Command::Status => crate::setup::status::run(&Project::discover(&working_dir)),
    }
}

fn run_review(project: &Project, command: ReviewCommand) -> Result<Outcome, Error> {
    crate::review::command::run(project, command)
}

fn working_dir(option: Option<&PathBuf>) -> Result<PathBuf, Error> {
    match option {
        Some(dir) if dir.is_dir() => Ok(dir.clone()),
        Some(dir) => Err(Error::Usage(format!(
            "{}: not a directory (given with --project)",
            dir.display()
        ))),
        None => std::env::current_dir()
            .map_err(|source| Error::Usage(format!("cannot read the current directory: {source}"))),
    }
}
