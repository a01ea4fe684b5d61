//! The command line of `car lessons`, as clap definitions only.

use std::path::PathBuf;

use clap::{Args, Subcommand};

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
