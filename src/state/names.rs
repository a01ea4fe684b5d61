//! The name of every file car keeps: in a project's state folder (`.claude/claude-auto-review/`),
//! in each session's folder in it (`clients/<session>/`), beside a data file (its sidecars), and
//! in the user's config and cache folders. Each name says what the file holds; the modules that
//! read and write a file take its name from here.
//!
//! Invariants: these names are a contract (users, scripts and the Python tool read the same
//! files): a name never changes, a new file gets a new name here. This module knows nothing but
//! names, so every layer may use it.

// The project's state folder.

/// Folder under the project root that holds car's state.
pub(crate) const STATE_DIR: &str = ".claude/claude-auto-review";

/// The project's lessons (seed format), shared by a team through git.
pub(crate) const LESSONS: &str = "lessons.json";

/// The candidate pool: errors seen once, waiting for a second sighting.
pub(crate) const CANDIDATES: &str = "lesson_candidates.json";

/// Lessons car learned that wait for a person (setting `learning`: `approve`, `observe`).
pub(crate) const LESSON_PROPOSALS: &str = "lesson_proposals.json";

/// Proposed lessons a person rejected: never proposed again.
pub(crate) const REJECTED_LESSONS: &str = "rejected_lessons.json";

/// What car refused to learn and why (`learning::refusal::log`), in the state folder.
pub(crate) const LESSON_REFUSALS: &str = "lesson_refusals.json";

/// The project lifecycle log, one JSON event per line.
pub(crate) const PROJECT_LOG: &str = "state.jsonl";

/// The project's own custom validator rule files (`*.json`), shared by a team.
pub(crate) const VALIDATORS_DIR: &str = "validators";

/// [`VALIDATORS_DIR`] relative to the project root.
pub(crate) const PROJECT_VALIDATORS: &str = ".claude/claude-auto-review/validators";

/// The project's review rules, given to every reviewer; shared by a team.
pub(crate) const RULES: &str = "rules.md";

/// The files car's own commands (`install`, `uninstall`, `config`, `deep-review init`) changed in
/// the project, each with the version they left: never a session's change.
pub(crate) const OWN_WRITES: &str = "own-writes.json";

/// The last `git status` a session start took, with when it began: the session starts of a
/// burst share it ([`crate::session::shared_status`]). A cache.
pub(crate) const WORKTREE_STATUS: &str = "worktree-status.json";

/// Keeps car's runtime files out of git (what a team shares stays tracked).
pub(crate) const GITIGNORE: &str = ".gitignore";

/// The user's files car created (project-relative paths), so an uninstall that leaves one empty
/// deletes it instead of leaving `{}`.
pub(crate) const CREATED_FILES: &str = "created-files.json";

/// Names car's merge driver for its library files (`merge=car-lessons`); shared by a team, so a
/// clone merges them the same way once the driver is registered.
pub(crate) const GITATTRIBUTES: &str = ".gitattributes";

/// The hooks' internal errors, newest last, one JSON object a line (`car status` shows them).
pub(crate) const HOOK_ERRORS: &str = "hook-errors.jsonl";

/// Lessons retired because their warnings were only ever ignored (seed format, each with
/// `retired_at` and `retired_because`); shared by a team beside [`LESSONS`].
pub(crate) const RETIRED_LESSONS: &str = "retired-lessons.json";

/// What each lesson maintenance run changed (decayed, removed, merged lessons; expired
/// candidates), one JSON object a line.
pub(crate) const LESSONS_MAINTENANCE_LOG: &str = "lessons-maintenance.jsonl";

/// `car report`'s page (one self-contained HTML file), unless `-o` names another.
pub(crate) const REPORT: &str = "report.html";

/// When the daily lesson maintenance last ran (Unix seconds).
pub(crate) const LESSONS_MAINTAINED: &str = "lessons-maintained";

/// The file whose lock sidecar guards every change of `.claude/settings.json`: the lock lives in
/// the state folder, so car leaves nothing beside the user's settings. It holds no data.
pub(crate) const SETTINGS_LOCK: &str = "settings.json";

/// The file whose lock sidecar guards the wiring of one agent's own hook file (Claude's is
/// [`SETTINGS_LOCK`]). It holds no data.
pub(crate) fn wiring_lock(agent: &str) -> String {
    format!("wiring-{agent}.json")
}

/// A replay scenario's scripted review findings, in the scenario's sandbox project.
pub(crate) const REPLAY_REVIEW: &str = "replay-review.json";

/// The deep review's folder: one folder per review context, holding [`DEEP_REVIEW_STATE`] and
/// each round's files ([`deep_review_round`]).
pub(crate) const DEEP_REVIEW_DIR: &str = "deep-review";

/// One deep review context's round state (attempted fixes, challenges, rounds).
pub(crate) const DEEP_REVIEW_STATE: &str = "state.json";

/// The prefix of one deep review round's files: its prompt, the reviewer's answer and the
/// reviewer's own files take the [review file suffixes](PROMPT_SUFFIX).
pub(crate) fn deep_review_round(round: u32) -> String {
    format!("round-{round}")
}

/// The folder of the agent sessions, one folder each.
pub(crate) const CLIENTS_DIR: &str = "clients";

// Sidecars: `<file>.<suffix>` beside a data file.

/// The lock beside a data file (held while the file is changed).
pub(crate) const LOCK_SUFFIX: &str = "lock";

/// The on-disk index of a lessons file (`lessons.json.index`): which lessons may fire on what.
pub(crate) const INDEX_SUFFIX: &str = "index";

/// The hit log of a lessons file (`lessons.json.hits`): hits appended by the hooks, folded into
/// the file at the end of a session.
pub(crate) const HITS_SUFFIX: &str = "hits";

/// Suffix of the lessons file's briefing cache: its lessons ranked for the session-start
/// briefing, valid for one version of the file and its hit log.
pub(crate) const BRIEFING_SUFFIX: &str = "briefing";

// A session's folder (`clients/<session>/`).

/// The session's event log, one JSON event per line.
pub(crate) const EVENTS: &str = "events.jsonl";

/// The checkpoint of the event log's fold (the snapshot and the log bytes it covers).
pub(crate) const SNAPSHOT: &str = "snapshot.json";

/// The Python tool's session log; a session folder holding it and no [`EVENTS`] is the Python
/// tool's, left to it.
pub(crate) const PYTHON_TOOL_LOG: &str = "state.jsonl";

/// The content each file had before the session first changed it, one file per path.
pub(crate) const BASELINES_DIR: &str = "baselines";

/// Suffix of a baseline marker that says "the file did not exist".
pub(crate) const ABSENT_SUFFIX: &str = "absent";

/// The versions of files the agent wrote (for telling a person's correction from the agent's
/// own edit): [`AUTHORED_FILES`], [`AUTHORED_VERSIONS`], the [`AUTHORED_STORE`] lock and
/// [`LAST_HOOK`].
pub(crate) const AUTHORED_DIR: &str = "authored";

/// One record per file the agent wrote (`<path>.<digest>.json`).
pub(crate) const AUTHORED_FILES: &str = "files";

/// The contents the agent wrote, one file per content hash.
pub(crate) const AUTHORED_VERSIONS: &str = "versions";

/// The file whose lock sidecar guards the authored store. It holds no data.
pub(crate) const AUTHORED_STORE: &str = "store";

/// When the session's previous hook started (milliseconds since 1970).
pub(crate) const LAST_HOOK: &str = "last-hook";

/// The worktree baseline taken at SessionStart, held until the session's first record (an
/// edit or a shell command) puts it into the event log.
pub(crate) const START_BASELINE: &str = "start-baseline.json";

/// The last notice said to the session, so a problem is told once.
pub(crate) const NOTICE: &str = "notice";

/// The file whose lock sidecar lets one stop of the session run at a time. It holds no data.
pub(crate) const STOP_LOCK: &str = "stop";

/// What the latest stop answered, for a stop that waited for it.
pub(crate) const STOP_ANSWER: &str = "stop-answer.json";

/// The session's review files: `<review id>` + a [review file suffix](PROMPT_SUFFIX).
pub(crate) const REVIEWS_DIR: &str = "reviews";

/// The review findings the session already learned from or decided not to.
pub(crate) const LEARNED_FINDINGS: &str = "learned-findings.json";

/// The lesson file problems already mentioned to the session.
pub(crate) const LESSON_PROBLEMS: &str = "lesson-problems.json";

/// The session's lesson warnings still waiting for their outcome (heeded or ignored).
pub(crate) const OPEN_WARNINGS: &str = "open-warnings.json";

/// The writes PreToolUse stopped in the session (file and content hash), so the same write sent
/// again unchanged goes through.
pub(crate) const STOPPED_WRITES: &str = "stopped-writes.json";

/// The lessons of a file car gave the agent with its writes in the session (file and lesson ids),
/// so each is given once per file.
pub(crate) const BRIEFED_LESSONS: &str = "briefed-lessons.json";

/// The verdicts PreToolUse made on the content a write would leave, kept for the PostToolUse call
/// that finds that content on disk (`pipeline::kept_verdicts`). A cache.
pub(crate) const KEPT_VERDICTS: &str = "kept-verdicts.json";

/// A note for the agent that its stop could not carry (`session::agent_note`), taken by the next
/// hook answer that reaches the model.
pub(crate) const AGENT_NOTE: &str = "agent-note.txt";

// A review's files: one prefix (`reviews/<id>`, a deep review's `round-<n>`) and these suffixes.

/// The prompt the reviewer was given.
pub(crate) const PROMPT_SUFFIX: &str = ".prompt.md";

/// The reviewer's answer as it came.
pub(crate) const ANSWER_SUFFIX: &str = ".answer.txt";

/// The JSON schema handed to a reviewer CLI that takes one.
pub(crate) const SCHEMA_SUFFIX: &str = ".schema.json";

/// The reviewer CLI's last message, where it writes one to a file.
pub(crate) const LAST_MESSAGE_SUFFIX: &str = ".last-message.txt";

// The user's folders (`~/.config/car`, `~/.cache/car`).

/// User-wide lessons, layered under the project's (in the config folder).
pub(crate) const USER_LESSONS: &str = "lessons.json";

/// The on-disk index of the user-wide lessons (in the cache folder).
pub(crate) const USER_LESSONS_INDEX: &str = "user-lessons.index";

/// The Python interpreters car found, with what each reported (in the cache folder).
pub(crate) const PYTHON_INTERPRETERS: &str = "python-interpreters.json";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validators_path_is_the_state_folders() {
        assert_eq!(PROJECT_VALIDATORS, format!("{STATE_DIR}/{VALIDATORS_DIR}"));
    }
}
