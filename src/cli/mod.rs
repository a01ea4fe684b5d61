//! The command line, as clap definitions only. Validation and work happen in [`crate::app`] and
//! the subsystems.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod lessons;
mod review;

pub(crate) use lessons::{LessonAddArgs, LessonsCommand};
pub(crate) use review::{DeepLoopArgs, DeepReviewCommand, DeepRunArgs, ReviewCommand};

const EXAMPLES: &str = "\
Examples:
  car install                         wire car's hooks into this project's .claude/settings.json
  car check src/app.py config.json    validate files the way the edit hook does
  car lessons add --scope '*.swift' --trigger DankeTheme.secondaryText \\
      --lesson 'The property is textSecondary; grep DankeTheme.swift first'
  car lessons test                    run the replay suite and every lesson's examples
  car review status                   what the stop gate is waiting for
  car deep-review run fx 'price year'  domain-aware second-model review of the current diff
  echo \"$PAYLOAD\" | car hook post-tool-use --agent claude   what Claude Code runs after each edit";

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
    Hook(HookArgs),
    /// Run the validators and lessons on files (for people, CI and pre-commit); exit 1 on errors
    Check(CheckArgs),
    /// The lesson library: list, add, remove, import, export, maintain, distill, test
    #[command(subcommand)]
    Lessons(LessonsCommand),
    /// The stop-time review gate: status, the P3 offer list, submitting, deferring and
    /// challenging findings, the pending prompt
    #[command(subcommand)]
    Review(ReviewCommand),
    /// The deep review: diff + domain context + rubric → a second model; bounded rounds
    /// that escalate to a human
    #[command(subcommand)]
    DeepReview(DeepReviewCommand),
    /// Wire car's hooks into this project (idempotent; keeps your other hooks and settings)
    Install(InstallArgs),
    /// Remove car's hooks from this project (keeps lessons and settings unless --purge)
    Uninstall(UninstallArgs),
    /// Set the reviewers (stop gate and deep review), model and gate limits (interactive unless --non-interactive)
    Config(ConfigArgs),
    /// One screen: enabled?, each agent's hooks, settings, lessons, open reviews, deep review, last errors
    Status(StatusArgs),
    /// One self-contained HTML page: lessons with their history, what car let go of, sessions
    /// with their stops and reviews, deep reviews, open P3 offers
    Report(ReportArgs),
    /// An MCP server over stdio for the agent: tools lessons_for, check, explain, propose_lesson
    Mcp,
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

/// Which agents `car install` / `car uninstall` work on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AgentChoice {
    /// Claude Code: .claude/settings.json
    Claude,
    /// Codex CLI: .codex/hooks.json
    Codex,
    /// Gemini CLI: .gemini/settings.json
    Gemini,
    /// Cursor: .cursor/hooks.json
    Cursor,
    /// All four
    All,
}

impl AgentChoice {
    pub(crate) fn agents(self) -> Vec<crate::agents::Agent> {
        use crate::agents::Agent;
        match self {
            AgentChoice::Claude => vec![Agent::Claude],
            AgentChoice::Codex => vec![Agent::Codex],
            AgentChoice::Gemini => vec![Agent::Gemini],
            AgentChoice::Cursor => vec![Agent::Cursor],
            AgentChoice::All => Agent::ALL.to_vec(),
        }
    }
}

/// How `car check` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// `path:line:col: message [validator]` lines and a summary
    Text,
    /// One JSON array of diagnostics
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub and others)
    Sarif,
}

#[derive(Debug, Args)]
#[command(after_help = HOOK_EXAMPLES)]
pub(crate) struct HookArgs {
    #[command(subcommand)]
    pub(crate) event: HookCommand,
    /// The agent that calls: claude, codex, gemini or cursor. `car install` writes it into every
    /// hook; without it (a hook wired by hand) car recognises the agent from the payload. An
    /// unknown name checks nothing and says so (the hook still exits 0)
    #[arg(long, global = true, value_name = "AGENT")]
    pub(crate) agent: Option<String>,
}

const HOOK_EXAMPLES: &str = "\
Examples:
  car hook post-tool-use --agent claude   what `car install` wires for Claude Code's PostToolUse
  car hook stop --agent codex             Codex's Stop hook: the review gate, answered in Codex's shape";

#[derive(Debug, Clone, Copy, Subcommand)]
pub(crate) enum HookCommand {
    /// PostToolUse (Write|Edit|MultiEdit|NotebookEdit, and Bash to tell the agent's own shell
    /// changes from the person's corrections): validate, match lessons, learn, track
    PostToolUse,
    /// PreToolUse (Claude Code Write|Edit|MultiEdit, Codex apply_patch, Gemini CLI BeforeTool
    /// write_file|replace): check the file as the tool would leave it and stop a write a trusted
    /// checker rejects or that repeats a heavy lesson; otherwise silent
    PreToolUse,
    /// Stop and SubagentStop: the review gate
    Stop,
    /// SessionEnd: close the session's state and remove stale sessions
    SessionEnd,
    /// SessionStart (Claude Code, Codex, Gemini CLI): the session's baseline, what was already
    /// changed before it began
    SessionStart,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub(crate) format: CheckFormat,
    /// The same as --format json
    #[arg(long, conflicts_with = "format")]
    pub(crate) json: bool,
    /// Accepted and ignored: `car check` never learns, counts no hit and writes nothing
    #[arg(long)]
    #[allow(dead_code)] // kept so existing pre-commit configurations keep working
    pub(crate) no_learn: bool,
    /// Run the command rules the project's own validator files define even in CI (where a pull
    /// request could add one: by default car check skips them when the CI variable is set)
    #[arg(long, conflicts_with = "no_project_commands")]
    pub(crate) trust_project_commands: bool,
    /// Never run the command rules the project's own validator files define
    #[arg(long)]
    pub(crate) no_project_commands: bool,
    /// Files to check (a directory in git: the checkable files git lists in it)
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The agent whose project hook file to wire
    #[arg(long, value_enum, default_value_t = AgentChoice::Claude)]
    pub(crate) agent: AgentChoice,
    /// Also add car's starter lessons to the project's lessons file without asking
    #[arg(long)]
    pub(crate) starter_lessons: bool,
    /// Never ask; skip the starter lessons unless --starter-lessons is given
    #[arg(long)]
    pub(crate) non_interactive: bool,
    /// Wire the hooks only: do not register car's MCP server (`car mcp`) in the agent's MCP
    /// configuration, and remove a registration an earlier install made
    #[arg(long)]
    pub(crate) no_mcp: bool,
    /// How the hooks reach car: `command` starts `car hook …` for every event (every agent; the
    /// default); `mcp` calls the `hook` tool of the running `car mcp` (Claude Code only).
    /// Without it, an install keeps what the agent's file has
    #[arg(long, value_enum)]
    pub(crate) hooks: Option<HooksChoice>,
}

/// How `car install` wires the hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HooksChoice {
    /// A `car hook …` process per event
    Command,
    /// A call into car's MCP server (Claude Code's "mcp_tool" hooks)
    Mcp,
}

impl HooksChoice {
    pub(crate) fn transport(self) -> crate::agents::mcp_hooks::HookTransport {
        use crate::agents::mcp_hooks::HookTransport;
        match self {
            HooksChoice::Command => HookTransport::Command,
            HooksChoice::Mcp => HookTransport::Mcp,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct UninstallArgs {
    /// The agent whose project hook file to unwire
    #[arg(long, value_enum, default_value_t = AgentChoice::Claude)]
    pub(crate) agent: AgentChoice,
    /// Also remove car's settings block and its state folder (lessons included) once no agent
    /// is wired any more
    #[arg(long)]
    pub(crate) purge: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Where to write the page (default: .claude/claude-auto-review/report.html)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(crate) output: Option<std::path::PathBuf>,
    /// Open the page in the desktop's browser once written
    #[arg(long)]
    pub(crate) open: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Print JSON instead of text
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    /// Take every value from flags; never prompt
    #[arg(long)]
    pub(crate) non_interactive: bool,
    /// Turn car on or off for this project (every hook answers `{}` when off)
    #[arg(long, value_name = "true|false")]
    pub(crate) enabled: Option<bool>,
    /// manual, claude, codex, opencode or command
    #[arg(long, value_name = "BACKEND")]
    pub(crate) backend: Option<String>,
    /// Model name passed to the reviewer CLI
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// P1 or P2: the least severe finding that blocks the stop (`--severity`, as the Python
    /// tool spells it, is the same)
    #[arg(long, value_name = "P1|P2", alias = "severity")]
    pub(crate) minimum_blocking_severity: Option<String>,
    /// Consecutive blocked stops before the breaker lets the agent stop
    #[arg(long, value_name = "N")]
    pub(crate) max_stop_passes: Option<u32>,
    /// Reviewer timeout in seconds (the Stop hook's timeout follows)
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
    /// For the command backend: the program and its arguments (repeatable)
    #[arg(long = "command-arg", value_name = "ARG")]
    pub(crate) command_args: Vec<String>,
    /// The reviewer of `car deep-review`: codex, claude, opencode or command (a second model;
    /// manual is refused)
    #[arg(long, value_name = "BACKEND")]
    pub(crate) deep_review_backend: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every argument of every subcommand says what it is for.
    #[test]
    fn every_argument_has_help() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        let command = Cli::command();
        command.clone().debug_assert();
        walk(&command, "car", &mut missing);
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
    }
}
