//! The command line, as clap definitions only. Validation and work happen in [`crate::app`] and
//! the subsystems.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  car install                         wire car's hooks into this project's .claude/settings.json
  car check src/app.py config.json    validate files the way the edit hook does
  car lessons add --scope '*.swift' --trigger DankeTheme.secondaryText \\
      --lesson 'The property is textSecondary; grep DankeTheme.swift first'
  car lessons test                    run the replay suite and every lesson's examples
  car review status                   what the stop gate is waiting for
  echo \"$PAYLOAD\" | car hook post-tool-use   what Claude Code runs after each edit";

#[derive(Debug, Parser)]
#[command(
    name = "car",
    version,
    about = "Makes AI coding agents learn from their own mistakes and stop only after their changes were reviewed",
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    /// Work on the project containing DIR instead of the current directory.
    #[arg(short = 'C', long = "project", global = true, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Agent hooks: read the agent's JSON payload on stdin, answer with JSON on stdout
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run the validators and lessons on files (for people, CI and pre-commit); exit 1 on errors
    Check(CheckArgs),
    /// The lesson library: list, add, remove, import, export, maintain, distill, test
    #[command(subcommand)]
    Lessons(LessonsCommand),
    /// The stop-time review gate: status, the P3 offer list, submitting and deferring findings
    #[command(subcommand)]
    Review(ReviewCommand),
    /// Wire car's hooks into this project (idempotent; keeps your other hooks and settings)
    Install(InstallArgs),
    /// Remove car's hooks from this project (keeps lessons and your other settings)
    Uninstall,
    /// Set the reviewer backend, model and gate limits (interactive unless --non-interactive)
    Config(ConfigArgs),
    /// One screen: enabled?, hooks wired?, lessons, open reviews, last errors
    Status,
    /// Internal: runs a reviewer CLI and kills it (with everything it started) as soon as the car
    /// process that started it is gone
    #[command(hide = true)]
    ReviewerGuard(GuardArgs),
}

#[derive(Debug, Args)]
pub(crate) struct GuardArgs {
    /// The process id of the car hook that started the reviewer
    #[arg(long, value_name = "PID")]
    pub(crate) parent: u32,
    /// The reviewer's argv (program first)
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) argv: Vec<std::ffi::OsString>,
}

#[derive(Debug, Clone, Copy, Subcommand)]
pub(crate) enum HookCommand {
    /// PostToolUse (Write|Edit|MultiEdit|NotebookEdit): validate, match lessons, learn, track
    PostToolUse,
    /// Stop and SubagentStop: the review gate
    Stop,
    /// SessionEnd: close the session's state and remove stale sessions
    SessionEnd,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Print diagnostics as JSON
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not record errors as lesson candidates
    #[arg(long)]
    pub(crate) no_learn: bool,
    /// Files to check (a directory in git: the checkable files git lists in it)
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum LessonsCommand {
    /// Every lesson with its scope, triggers, weight and history
    List {
        #[arg(long)]
        json: bool,
    },
    /// Add a lesson (triggers are validated; duplicates refused)
    Add(LessonAddArgs),
    /// Remove one lesson
    Rm { id: String },
    /// Show one lesson
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Import a lessons file in the seed format, merging without duplicates
    Import { path: PathBuf },
    /// Print the project's lessons file
    Export,
    /// The candidate pool (errors seen once)
    Candidates {
        #[arg(long)]
        json: bool,
    },
    /// Decay, expire candidates and merge overlapping lessons; report what changed
    Maintain {
        #[arg(long)]
        dry_run: bool,
    },
    /// Propose more general lessons for crowded scopes (never writes in --dry-run)
    Distill {
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Run the replay suite and every lesson's examples; prints `N passed, N failed`
    Test {
        /// Scenario folder (default: the project's replay-tests/ plus car's own)
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct LessonAddArgs {
    /// Glob: `*.ext` matches the file name anywhere; a pattern with `/` the project-relative path
    #[arg(long)]
    pub(crate) scope: String,
    /// A substring, or `regex:` + a pattern (repeatable)
    #[arg(long = "trigger", required = true)]
    pub(crate) triggers: Vec<String>,
    /// What the agent should remember
    #[arg(long)]
    pub(crate) lesson: String,
    /// Initial weight (1–10)
    #[arg(long, default_value_t = 2)]
    pub(crate) weight: u32,
    /// Text the lesson must fire on (repeatable; checked by `car lessons test`)
    #[arg(long = "example-match")]
    pub(crate) example_match: Vec<String>,
    /// Text the lesson must not fire on (repeatable)
    #[arg(long = "example-no-match")]
    pub(crate) example_no_match: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ReviewCommand {
    /// Gate state of the project's sessions
    Status {
        #[arg(long)]
        json: bool,
    },
    /// The P3 offer list: minor findings and low-weight lesson hits, for you to decide
    Offers {
        #[arg(long)]
        json: bool,
        #[arg(long)]
        session: Option<String>,
    },
    /// Record an in-session review's findings (findings JSON from FILE or stdin)
    Submit {
        #[arg(long)]
        session: Option<String>,
        /// Findings JSON file, or - for stdin (the default)
        file: Option<PathBuf>,
    },
    /// Record a P2 finding as a known limit (refused for P1)
    Defer {
        finding_id: String,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        session: Option<String>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Also add car's starter lessons to the project's lessons file without asking
    #[arg(long)]
    pub(crate) starter_lessons: bool,
    /// Never ask; skip the starter lessons unless --starter-lessons is given
    #[arg(long)]
    pub(crate) non_interactive: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    /// Take every value from flags; never prompt
    #[arg(long)]
    pub(crate) non_interactive: bool,
    /// manual, claude, codex, opencode or command
    #[arg(long)]
    pub(crate) backend: Option<String>,
    /// Model name passed to the reviewer CLI
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// P1 or P2: the least severe finding that blocks the stop
    #[arg(long)]
    pub(crate) minimum_blocking_severity: Option<String>,
    /// Consecutive blocked stops before the breaker lets the agent stop
    #[arg(long)]
    pub(crate) max_stop_passes: Option<u32>,
    /// Reviewer timeout in seconds
    #[arg(long)]
    pub(crate) timeout: Option<u64>,
    /// For the command backend: the program and its arguments (repeatable)
    #[arg(long = "command-arg")]
    pub(crate) command_args: Vec<String>,
}
