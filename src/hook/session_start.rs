//! The SessionStart hook: the session's worktree baseline ([`crate::session::start`]), so every
//! change the session makes later — through its edit tools or its shell — is told apart from
//! what was already changed; and the briefing ([`crate::lessons::briefing`]): the project's
//! lessons that apply to its files, as context the agent reads before its first edit.
//!
//! Invariants: nothing here ever holds the agent back, and nothing fails silently. git gets what
//! is left of the hook's budget (which counts from the hook's start) less [`ANSWER_MARGIN`], so
//! the hook answers in time and knows what it did: a baseline that could not be taken (git
//! missing, failing, or too slow on a loaded machine) is one line for the person, and the
//! session's first record takes it instead (the documented fallback); a lessons file car cannot
//! read is named, with its line, and the briefing is left out. The starts of a burst share one
//! look at the worktree ([`crate::session::shared_status`]).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::answer::Answer;
use crate::hook::HookContext;
use crate::session::shared_status::{StatusError, Worktree};
use crate::session::start::{self, BaselineError};

/// The time kept for answering after git's last chance.
const ANSWER_MARGIN: Duration = Duration::from_millis(250);

pub(crate) fn handle(context: &HookContext) -> Answer {
    if !context.settings.enabled {
        return Answer::allow();
    }
    let session = context.session();
    let started = context.started_at.unwrap_or_else(SystemTime::now);
    let library = briefed_library(context);
    // A resumed session that records already keeps its baseline.
    let needs_baseline = !start::is_recording(session);
    if !needs_baseline && library.is_none() {
        let note = crate::session::agent_note::take(session);
        return Answer {
            additional_context: note,
            ..Answer::default()
        };
    }
    let looked = look(context, started, library.is_some());
    let mut answer = match library {
        Some(library) => briefing(&library, looked.as_ref().ok()),
        None => Answer::allow(),
    };
    if !needs_baseline {
        // A resumed session: what its last stop could not tell the model comes first.
        if let Some(note) = crate::session::agent_note::take(session) {
            answer.additional_context = Some(match answer.additional_context.take() {
                Some(briefing) => format!("{note}\n\n{briefing}"),
                None => note,
            });
        }
        return answer;
    }
    let held = looked
        .map_err(BaselineError::from)
        .and_then(|worktree| Ok(start::hold(session, started, worktree.dirty)?));
    if let Err(error) = held {
        let state_dir = context.project.state_dir();
        crate::state::log_hook_error(&state_dir, &format!("session start: {error}"));
        answer = answer.with_system_line(format!(
            "car: no baseline of what was already changed at the session's start ({error}); the session's first edit or shell command takes it instead"
        ));
    }
    answer
}

/// The briefing from `library` as the answer's context (`worktree`'s files decide which scopes
/// apply; all do without them), or the line naming a lessons file car cannot read.
fn briefing(library: &std::path::Path, worktree: Option<&Worktree>) -> Answer {
    let files = worktree.and_then(|worktree| worktree.files.as_deref());
    match crate::lessons::briefing::for_library(library, files) {
        Ok(text) => Answer {
            additional_context: text,
            ..Answer::default()
        },
        Err(error) => Answer::allow().with_system_line(format!(
            "car: {error}; no lessons briefing this session (fix the file by hand)"
        )),
    }
}

/// The lessons file to brief from, when the briefing is on and there is one.
fn briefed_library(context: &HookContext) -> Option<PathBuf> {
    let settings = &context.settings;
    let path = context.project.lessons_file();
    (settings.session_briefing && settings.lessons_warn() && path.exists()).then_some(path)
}

/// The worktree as a look begun after the hook started saw it (outside git: nothing dirty, and
/// no file list, so every lesson scope counts).
fn look(
    context: &HookContext,
    started: SystemTime,
    with_files: bool,
) -> Result<Worktree, StatusError> {
    if !crate::git::is_checkout(context.project.checkout()) {
        return Ok(Worktree::default());
    }
    let wait = context.git_wait(ANSWER_MARGIN);
    crate::session::shared_status::look_since(
        &context.project,
        &context.settings,
        started,
        wait,
        with_files,
    )
}
