//! The command line, as clap definitions only. Validation and work happen in [`crate::app`] and
//! the subsystems.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

#[derive(Debug, Subcommand)]
pub(crate) enum LessonsCommand {
    /// Every lesson with its scope, triggers, weight, history and what its warnings did (heeded,
    /// ignored); then the retired lessons
    List {
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// Add a lesson (triggers are validated; duplicates refused)
    Add(LessonAddArgs),
    /// Remove one lesson (it is shown as it was)
    Rm {
        /// The lesson's id, or a prefix of at least 4 characters that names one lesson
        id: String,
    },
    /// Reword, rescope or reweigh one lesson (its id, triggers, counters and evidence stay)
    Edit {
        /// The lesson's id, or a prefix of at least 4 characters that names one lesson
        id: String,
        /// The new text
        #[arg(long)]
        lesson: Option<String>,
        /// The new scope glob (`*.py`, `src/**/*.ts`)
        #[arg(long)]
        scope: Option<String>,
        /// The new weight (1–10)
        #[arg(long)]
        weight: Option<u32>,
    },
    /// Bring back a retired lesson (one whose warnings were only ever ignored)
    Restore {
        /// The retired lesson's id, or a prefix of it that names one lesson
        id: String,
    },
    /// Show one lesson (retired lessons too)
    Show {
        /// The lesson's id, or a prefix of it that names one lesson
        id: String,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// Import a lessons file in the seed format, merging without duplicates
    Import {
        /// The lessons file (e.g. the Python lesson hook's .claude/hooks/lessons.json)
        path: PathBuf,
    },
    /// Print the project's lessons file
    Export,
    /// The candidate pool (mistakes seen once, or seen again but not verified yet)
    Candidates {
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
        /// What car refused to learn, each with its reason, count and examples
        #[arg(long)]
        refused: bool,
    },
    /// Decay, expire candidates and merge overlapping lessons; report what changed
    Maintain {
        /// Report what would change; write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Learn from the team's pull-request review comments: a suggested change seen on two pull
    /// requests (or in two files) becomes a lesson once verified against the project's code.
    /// Export the comments with `gh api repos/OWNER/REPO/pulls/comments --paginate > FILE`
    #[command(name = "learn-from-reviews")]
    LearnFromReviews {
        /// Files of review comments as GitHub's REST API returns them
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
        /// Also send each comment in words (no suggestion block) to the configured reviewer,
        /// which must answer with the line as written and as fixed; kept only when that line is
        /// one of the commented lines, then verified like a suggestion
        #[arg(long)]
        with_model: bool,
    },
    /// Walk the lessons car learned that wait for a person (setting "learning": "approve" or
    /// "observe"): each with its trigger, scope, text, examples and where they were seen, and the
    /// places of the code it matches now; answer accept, edit, reject, skip or quit
    Review {
        /// Print the proposed lessons as JSON; decide nothing
        #[arg(long)]
        json: bool,
    },
    /// Accept a proposed lesson: it joins the project's lessons and warns from now on
    Accept {
        /// The proposed lesson's id (or at least 4 characters of it)
        id: String,
        /// Reword it first
        #[arg(long)]
        lesson: Option<String>,
        /// Rescope it first (a glob)
        #[arg(long)]
        scope: Option<String>,
    },
    /// Reject a proposed lesson: car remembers it and never proposes it again
    Reject {
        /// The proposed lesson's id (or at least 4 characters of it)
        id: String,
        /// Why, kept with it
        #[arg(long)]
        reason: Option<String>,
    },
    /// Propose more general lessons for crowded scopes (never writes in --dry-run)
    Distill {
        /// Only propose; write nothing
        #[arg(long)]
        dry_run: bool,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// git's merge driver for car's library files (lessons.json, retired-lessons.json, the
    /// candidate pool): combines both branches' lessons and counters into OURS; exit 1 when a
    /// person must settle a lesson both branches changed. `car install` registers it
    Merge {
        /// The common ancestor's version (git's %O)
        base: PathBuf,
        /// This branch's version, where the result is written (git's %A)
        ours: PathBuf,
        /// The other branch's version (git's %B)
        theirs: PathBuf,
    },
    /// What the lessons learned, lost, retired or reweighted since REV (for a pull request)
    Diff {
        /// The revision to compare the working tree's lessons with (default: where this branch
        /// left the default branch, else HEAD)
        rev: Option<String>,
        /// Print JSON instead of text
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
    /// Text the added code must contain, or `regex:` + a pattern (repeatable). Text matches
    /// whole identifiers in code: not inside longer names, comments or string literals
    #[arg(long = "trigger", required = true)]
    pub(crate) triggers: Vec<String>,
    /// Match text triggers inside longer identifiers too (`shell=True` in `use_shell=True`)
    #[arg(long)]
    pub(crate) substring: bool,
    /// Match in comments and string literals too
    #[arg(long = "in-comments")]
    pub(crate) in_comments: bool,
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
    /// Gate state of the project's sessions, as the gate itself computes it now
    Status {
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// The P3 offer list: minor findings and low-weight lesson hits, for you to decide
    Offers {
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
        /// The session to list (default: the most recently active one)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Record an in-session review's findings (findings JSON from FILE or stdin)
    Submit {
        /// The session whose pending review this is (default: the newest pending request)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Findings JSON file, or - for stdin (the default)
        file: Option<PathBuf>,
    },
    /// Record a P2 finding as a known limit (refused for P1)
    Defer {
        /// The finding: its id (F2) or a unique prefix of it, a review's (R1/F2), or its title
        finding_id: String,
        /// Why the finding is an acceptable, deliberate limitation
        #[arg(long)]
        reason: String,
        /// The session the finding belongs to (default: the newest one that has it open)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Hold a blocking finding to be a false positive: the reviewer judges it again with your
    /// reason; if it reports it again, a person decides (a challenged P1 always goes to a person)
    Challenge {
        /// The finding: its id (F1) or a unique prefix of it, a review's (R1/F1), or its title
        finding_id: String,
        /// Why the finding is wrong; it goes into the next review prompt
        #[arg(long)]
        reason: String,
        /// The session the finding belongs to (default: the newest one that has it open)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Print the pending review's prompt (for a person or another tool)
    Prompt {
        /// The session (default: the one with the newest pending request; with --new, the most
        /// recently active one)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Make the review request now, before the agent stops, for the session's unreviewed
        /// changes (a pending request for exactly those versions is printed again); record the
        /// review with `car review submit` and the stop has nothing left to ask for them
        #[arg(long)]
        new: bool,
    },
    /// Drop a session's pending review request and restart its blocked-stop count (the changes
    /// stay unreviewed: the next stop asks for a new review)
    Cancel {
        /// The session (default: the one with the newest pending request)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
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

#[derive(Debug, Subcommand)]
pub(crate) enum DeepReviewCommand {
    /// Review the current diff with a domain context: one JSON verdict on stdout, a summary on
    /// stderr; exit 0 PASS, 1 FAIL, 2 STOPPED (no review happened), 3 ESCALATE (a human decides)
    Run(DeepRunArgs),
    /// Run rounds, piping each fix request to a fixer command, until PASS, ESCALATE or STOPPED
    Loop(DeepLoopArgs),
    /// Mark findings of the last round as fixed (one reported again goes to a human)
    Fixed {
        /// Finding ids of the last round (or their stable keys)
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
        /// The context whose loop this is (default: the most recently reviewed one)
        #[arg(long, value_name = "NAME")]
        context: Option<String>,
    },
    /// Hold a finding of the last round to be a false positive; the reason goes into the next
    /// prompt, and the same finding reported again goes to a human
    Challenge {
        /// Finding id of the last round (or its stable key)
        #[arg(value_name = "ID")]
        id: String,
        /// Why the finding is wrong, in words a human can weigh against the reviewer's
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// The context whose loop this is (default: the most recently reviewed one)
        #[arg(long, value_name = "NAME")]
        context: Option<String>,
    },
    /// The round state: rounds, blocking findings, fixes and challenges
    Status {
        /// Only this context (default: every context with a round state)
        #[arg(long, value_name = "NAME")]
        context: Option<String>,
        /// Print the round state as JSON
        #[arg(long)]
        json: bool,
    },
    /// Forget a context's round state: the next run starts at round 1
    Reset {
        /// The context to reset (default: the most recently reviewed one)
        #[arg(long, value_name = "NAME", conflicts_with = "all")]
        context: Option<String>,
        /// Reset every context
        #[arg(long)]
        all: bool,
    },
    /// Write .claude/review-contexts/FEATURE.md from the template and list it in CLAUDE.md
    Init {
        /// The feature's name (letters, digits, '-', '_', '.'), e.g. fx-conversion
        #[arg(value_name = "FEATURE")]
        feature: String,
        /// The one-line description for CLAUDE.md's "Active review contexts"
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct DeepRunArgs {
    /// The domain context: a name in .claude/review-contexts/ (then ~/.claude/review-contexts/),
    /// a path with a '/', or `none` for the generic rubric
    #[arg(value_name = "CONTEXT|none")]
    pub(crate) context: String,
    /// Words naming the area to look at hardest (e.g. join cardinality)
    #[arg(value_name = "FOCUS")]
    pub(crate) focus: Vec<String>,
    /// Diff against this ref (default: the merge base with the default branch, else HEAD);
    /// uncommitted and untracked files are always included
    #[arg(long, value_name = "REF")]
    pub(crate) base: Option<String>,
    /// Review only files matching GLOB (repeatable): `*.py` matches the name in any folder,
    /// `src/fx/**` the path; a folder means everything in it
    #[arg(long = "paths", value_name = "GLOB")]
    pub(crate) paths: Vec<String>,
    /// Rounds before the loop hands the call to a human (ESCALATE)
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_rounds: u32,
    /// Exit 0 when no review could run; the status stays STOPPED and a warning goes to stderr
    #[arg(long)]
    pub(crate) fail_open: bool,
    /// An empty diff is a PASS ("nothing to review") instead of STOPPED
    #[arg(long)]
    pub(crate) allow_skipped: bool,
    /// Reviewer time limit in seconds (default: reviewerTimeoutSeconds)
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct DeepLoopArgs {
    #[command(flatten)]
    pub(crate) run: DeepRunArgs,
    /// The fixer command and its arguments, given last (everything after --fixer is its argv),
    /// e.g. --fixer claude -p; it gets the fix request on stdin
    #[arg(long, required = true, num_args = 1.., allow_hyphen_values = true, value_name = "CMD")]
    pub(crate) fixer: Vec<String>,
    /// Fixer time limit in seconds, per round
    #[arg(long, value_name = "SECONDS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) fixer_timeout: u64,
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
