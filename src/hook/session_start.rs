//! The SessionStart hook: the session's worktree baseline ([`crate::session::start`]), so every
//! change the session makes later — through its edit tools or its shell — is told apart from
//! what was already changed; and the briefing ([`crate::lessons::briefing`]): the project's
//! lessons that apply to its files, as context the agent reads before its first edit. A failure
//! is one line for the person; nothing here ever holds the agent back.

use crate::answer::Answer;
use crate::hook::HookContext;

/// The most files `git ls-files` is read for (scopes are matched against them).
const MAX_FILES: usize = 50_000;

pub(crate) fn handle(context: &HookContext) -> Answer {
    if !context.settings.enabled {
        return Answer::allow();
    }
    // The baseline's `git status` runs beside the briefing's `git ls-files`.
    let (briefing, recorded) = std::thread::scope(|scope| {
        let baseline = scope.spawn(|| crate::session::start::record(context.session()));
        let briefing = briefing(context);
        let recorded = baseline.join().unwrap_or_else(|_| {
            Err(crate::files::FileError::io(
                &context.project.state_dir(),
                std::io::Error::other("the baseline's thread panicked"),
            ))
        });
        (briefing, recorded)
    });
    let mut answer = match briefing {
        Some(text) => Answer {
            additional_context: Some(text),
            ..Answer::default()
        },
        None => Answer::allow(),
    };
    if let Err(error) = recorded {
        crate::state::log_hook_error(
            &context.project.state_dir(),
            &format!("session start: {error}"),
        );
        answer = answer.with_system_line(format!(
            "car: could not record what was already changed at the session's start ({error}); the session's first edit records it instead"
        ));
    }
    answer
}

/// The project's lessons for this session, when there are any worth saying.
fn briefing(context: &HookContext) -> Option<String> {
    if !context.settings.session_briefing || !context.settings.lessons_enabled {
        return None;
    }
    let path = context.project.lessons_file();
    if !path.exists() {
        return None;
    }
    crate::lessons::briefing::for_library(&path, project_files(context).as_deref())
}

/// The project's files as git lists them (tracked and untracked, not ignored), relative to the
/// project (git lists the folder it runs in); `None` outside git or when git fails.
fn project_files(context: &HookContext) -> Option<Vec<String>> {
    if !crate::git::is_checkout(context.project.checkout()) {
        return None;
    }
    let output = crate::git::run(
        context.project.root(),
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
        crate::git::Wait::Hook,
    )
    .ok()?;
    if !output.success() {
        return None;
    }
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
