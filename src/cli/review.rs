//! The command line of `car review` (the stop gate's) and `car deep-review`, as clap definitions
//! only.

use std::path::PathBuf;

use clap::{Args, Subcommand};

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
