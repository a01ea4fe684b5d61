//! The subcommands, one file each, and the one place that runs a parsed command line: it builds
//! the context each command needs and maps outcomes and errors to exit codes (0 success, 1 the
//! check found problems, 2 usage or configuration error; `deep-review` also 2 for STOPPED and 3
//! for ESCALATE).

pub(crate) mod check;
pub(crate) mod check_sarif;
pub(crate) mod config;
pub(crate) mod deep_review;
pub(crate) mod install;
mod install_mcp;
pub(crate) mod lesson_lookup;
pub(crate) mod lessons;
pub(crate) mod lessons_candidates;
pub(crate) mod lessons_diff;
pub(crate) mod lessons_distill;
pub(crate) mod lessons_edit;
pub(crate) mod lessons_learn_reviews;
pub(crate) mod lessons_merge;
pub(crate) mod lessons_review;
pub(crate) mod lessons_test;
pub(crate) mod mcp;
pub(crate) mod report;
pub(crate) mod review;
pub(crate) mod status;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser};

use crate::cli::{Cli, Command, HookArgs};
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::session::reconcile::recording_own_writes;

/// How a command that ran went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command worked and found problems (`check`, `lessons test`, a deep review's
    /// FAIL).
    ProblemsFound,
    /// Exit 2 without an error message: the command printed why it did not run (a deep review's
    /// STOPPED).
    Stopped,
    /// Exit 3: a human has to decide (a deep review's ESCALATE).
    Escalated,
}

/// The whole program: parse, run, exit code.
pub fn main() -> ExitCode {
    if let Some(args) = hook_args() {
        // What `run` does for a hook, without building the whole command line first.
        crate::hook::run(&args);
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `car --version` names how this car was installed, which clap's static string cannot.
        Err(error) if error.kind() == clap::error::ErrorKind::DisplayVersion => {
            output::print_data(&crate::installation::Installation::detect().version_line());
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Command::ReviewerGuard(args) = &cli.command {
        return ExitCode::from(crate::process::guard(args.parent, &args.argv));
    }
    match run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::ProblemsFound) => ExitCode::from(1),
        Ok(Outcome::Stopped) => ExitCode::from(2),
        Ok(Outcome::Escalated) => ExitCode::from(3),
        Err(error) => {
            output::print_error(&error.to_string());
            if let Some(hint) = error.hint() {
                output::print_hint(&hint);
            }
            ExitCode::from(2)
        }
    }
}

/// `car hook …` parsed by the `hook` subcommand's own definition: building the whole command
/// line (every subcommand and its arguments) costs about 0.45 M instructions, 5% of a TypeScript
/// edit's hook, which runs on every edit. Whatever does not parse this way (`--help`, a typo, the
/// global `-C`) goes through the whole command line, which says what is wrong.
fn hook_args() -> Option<HookArgs> {
    hook_args_from(std::env::args_os())
}

fn hook_args_from(argv: impl IntoIterator<Item = std::ffi::OsString>) -> Option<HookArgs> {
    let mut args = argv.into_iter().skip(1);
    if args.next()? != "hook" {
        return None;
    }
    let command = HookArgs::augment_args(clap::Command::new("hook"));
    let matches = command
        .try_get_matches_from(std::iter::once("hook".into()).chain(args))
        .ok()?;
    HookArgs::from_arg_matches(&matches).ok()
}

pub(crate) fn run(cli: Cli) -> Result<Outcome, Error> {
    if let Command::Hook(args) = &cli.command {
        // A hook finds its project from the payload's cwd and always answers (exit 0), whatever
        // the process's own directory (it may have been deleted under the agent).
        crate::hook::run(args);
        return Ok(Outcome::Success);
    }
    let working_dir = working_dir(cli.project.as_ref())?;
    let project = Project::discover(&working_dir);
    // `car check` and `car lessons merge|diff` are read-only (the merge writes only git's file):
    // they write nothing, not even this .gitignore.
    let is_read_only = matches!(
        cli.command,
        Command::Check(_)
            | Command::Lessons(
                crate::cli::LessonsCommand::Merge { .. } | crate::cli::LessonsCommand::Diff { .. }
            )
    );
    let outcome = match cli.command {
        Command::Hook(_) | Command::ReviewerGuard(_) => Ok(Outcome::Success),
        Command::Check(args) => check::run(&working_dir, &args),
        Command::Lessons(crate::cli::LessonsCommand::Test { dir }) => {
            lessons_test::run(&project, dir.as_deref())
        }
        Command::Lessons(crate::cli::LessonsCommand::Merge { base, ours, theirs }) => {
            lessons_merge::run(&base, &ours, &theirs)
        }
        Command::Lessons(crate::cli::LessonsCommand::Diff { rev, json }) => {
            lessons_diff::run(&project, rev.as_deref(), json)
        }
        Command::Lessons(command) => lessons::run(&project, command),
        Command::Review(command) => review::run(&project, command),
        Command::DeepReview(command @ crate::cli::DeepReviewCommand::Init { .. }) => {
            recording_own_writes(&project, || deep_review::run(&project, command))
        }
        Command::DeepReview(command) => deep_review::run(&project, command),
        Command::Install(args) => {
            recording_own_writes(&project, || install::install(&project, &args))
        }
        Command::Uninstall(args) => {
            recording_own_writes(&project, || install::uninstall(&project, &args))
        }
        Command::Config(args) => recording_own_writes(&project, || config::run(&project, &args)),
        Command::Status(args) => status::run(&project, args.json),
        Command::Report(args) => report::run(&project, &args),
        Command::Mcp => mcp::run(&project),
    };
    // Best effort: a command that created car's state folder leaves it git-ignored.
    if !is_read_only {
        let _ = crate::state::ensure_gitignore(&project);
    }
    outcome
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hook's own parser answers only what the whole command line answers the same way.
    #[test]
    fn the_hooks_parser_agrees_with_the_whole_command_line() {
        let parsed = [
            "car hook post-tool-use",
            "car hook stop --agent codex",
            "car hook --agent gemini session-end",
            "car hook post-tool-use --agent=cursor",
            "car hook stop --agent nobody",
        ];
        for line in parsed {
            let argv: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
            let hook = hook_args_from(argv.clone()).expect(line);
            let Ok(Cli {
                command: Command::Hook(whole),
                project: None,
            }) = Cli::try_parse_from(&argv)
            else {
                panic!("{line}: the whole command line reads it otherwise");
            };
            assert_eq!(format!("{hook:?}"), format!("{whole:?}"), "{line}");
        }
        let left_to_the_whole = [
            "car hook",
            "car hook --help",
            "car hook stop --help",
            "car hook stop -C elsewhere",
            "car -C elsewhere hook stop",
            "car hook stopp",
            "car hook stop extra",
            "car check hook",
        ];
        for line in left_to_the_whole {
            let argv: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
            assert!(hook_args_from(argv).is_none(), "{line}");
        }
    }
}
