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
//! read is named, with its line, and the briefing is left out.

use std::time::Duration;

use crate::answer::Answer;
use crate::git::Wait;
use crate::hook::HookContext;
use crate::lessons::LessonsError;
use crate::session::start::BaselineError;

/// The most files `git ls-files` is read for (scopes are matched against them).
const MAX_FILES: usize = 50_000;

/// The time kept for answering after git's last chance.
const ANSWER_MARGIN: Duration = Duration::from_millis(250);

pub(crate) fn handle(context: &HookContext) -> Answer {
    if !context.settings.enabled {
        return Answer::allow();
    }
    let wait = context.git_wait(ANSWER_MARGIN);
    // The baseline's `git status` runs beside the briefing's `git ls-files`.
    let (briefing, recorded) = std::thread::scope(|scope| {
        let baseline = scope.spawn(|| crate::session::start::record(context.session(), wait));
        let briefing = briefing(context, wait);
        let recorded = baseline.join().unwrap_or_else(|_| {
            Err(BaselineError::File(crate::files::FileError::io(
                &context.project.state_dir(),
                std::io::Error::other("the baseline's thread panicked"),
            )))
        });
        (briefing, recorded)
    });
    let mut answer = match briefing {
        Ok(Some(text)) => Answer {
            additional_context: Some(text),
            ..Answer::default()
        },
        Ok(None) => Answer::allow(),
        Err(error) => Answer::allow().with_system_line(format!(
            "car: {error}; no lessons briefing this session (fix the file by hand)"
        )),
    };
    if let Err(error) = recorded {
        crate::state::log_hook_error(
            &context.project.state_dir(),
            &format!("session start: {error}"),
        );
        answer = answer.with_system_line(format!(
            "car: no baseline of what was already changed at the session's start ({error}); the session's first edit or shell command takes it instead"
        ));
    }
    answer
}

/// The project's lessons for this session, when there are any worth saying; an error names a
/// lessons file car cannot read.
fn briefing(context: &HookContext, wait: Wait) -> Result<Option<String>, LessonsError> {
    if !context.settings.session_briefing || !context.settings.lessons_enabled {
        return Ok(None);
    }
    let path = context.project.lessons_file();
    if !path.exists() {
        return Ok(None);
    }
    crate::lessons::briefing::for_library(&path, project_files(context, wait).as_deref())
}

/// The project's files as git lists them (tracked and untracked, not ignored), relative to the
/// project (git lists the folder it runs in); `None` outside git or when git fails (then every
/// lesson's scope counts).
fn project_files(context: &HookContext, wait: Wait) -> Option<Vec<String>> {
    if !crate::git::is_checkout(context.project.checkout()) {
        return None;
    }
    let args = [
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
    ];
    let output = crate::git::run_checked(context.project.root(), &args, wait).ok()?;
    Some(
        output
            .stdout
            .split('\0')
            .filter(|file| !file.is_empty())
            .take(MAX_FILES)
            .map(str::to_string)
            .collect(),
    )
}
