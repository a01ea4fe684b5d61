//! What the PostToolUse hook records for the stop gate: the file's baseline (before the session's
//! first edit of it), the edit (with its content hash), the validator errors of the file now, and
//! the lesson warnings the edit drew. The session's first record — an edit, or a shell command —
//! also notes which files were already dirty in git (the worktree baseline), so changes made
//! later outside the edit tools can be reconciled. The writes the PreToolUse hook stopped are
//! recorded here too.
//!
//! Invariant: one hook call appends its events in one write, so parallel hooks of one session
//! interleave whole groups and never lose an event.

use std::time::SystemTime;

use crate::diagnostic::Diagnostic;
use crate::edit::Edit;
use crate::files::FileError;
use crate::lesson_warning::Warning;
use crate::session::Session;
use crate::session::authored::ShellRun;
use crate::session::baseline::Baselines;
use crate::session::event::Event;
use crate::session::log::EventLog;
use crate::session::reconcile::version_on_disk;
use crate::session::start;

/// Records one checked edit; `hash` is the content hash of `edit.content` (computed once per edit
/// by the caller, which hands it to learning too).
pub(crate) fn edit_checked(
    context: Session<'_>,
    edit: &Edit,
    hash: &str,
    diagnostics: &[Diagnostic],
    warnings: &[Warning],
) -> Result<(), FileError> {
    let log = EventLog::for_session(context.project, context.id);
    let mut events = session_start(context, &log);
    let baselines = Baselines::for_session(context.project, context.id);
    events.extend(baselines.capture(
        context.project,
        &edit.relative_path,
        edit.before.as_deref(),
    )?);
    events.push(Event::EditTracked {
        file: edit.relative_path.clone(),
        tool: edit.tool.clone(),
        reviewed: is_reviewed(&log, &edit.relative_path, hash),
        hash: hash.to_string(),
    });
    events.push(Event::Validated {
        file: edit.relative_path.clone(),
        errors: diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect(),
    });
    if !warnings.is_empty() {
        events.push(Event::LessonWarned {
            file: edit.relative_path.clone(),
            warnings: warnings.to_vec(),
        });
    }
    log.append_all(context.clock.now(), events)
}

/// Records that a checker's finding was told to the agent and did not block, and why.
pub(crate) fn not_blocked(
    context: Session<'_>,
    finding: &Diagnostic,
    why: &str,
) -> Result<(), FileError> {
    let log = EventLog::for_session(context.project, context.id);
    log.append(
        context.clock.now(),
        Event::NotBlocked {
            file: finding.file.clone(),
            finding: finding.clone(),
            why: why.to_string(),
        },
    )
}

/// Records an edit of a file over the read bound, which car does not read: tracked by its
/// version on disk (hash, or stamp when huge) so the stop reviews it, never validated; the
/// review request names it with its size.
pub(crate) fn unread_edit(
    context: Session<'_>,
    relative_path: &str,
    tool: &str,
) -> Result<(), FileError> {
    let Some(hash) = version_on_disk(context.project, relative_path) else {
        return Ok(());
    };
    let log = EventLog::for_session(context.project, context.id);
    let mut events = session_start(context, &log);
    let baselines = Baselines::for_session(context.project, context.id);
    events.extend(baselines.capture(context.project, relative_path, None)?);
    events.push(Event::EditTracked {
        file: relative_path.to_string(),
        tool: tool.to_string(),
        reviewed: is_reviewed(&log, relative_path, &hash),
        hash,
    });
    log.append_all(context.clock.now(), events)
}

/// Records the writes the PreToolUse hook stopped (`write_stopped` events): the report and
/// `car status` count them. As the session's first record it also takes the worktree baseline,
/// so the stop that follows reviews only what the session changes.
pub(crate) fn writes_stopped(context: Session<'_>, stopped: Vec<Event>) -> Result<(), FileError> {
    let log = EventLog::for_session(context.project, context.id);
    let mut events = session_start(context, &log);
    events.extend(stopped);
    log.append_all(context.clock.now(), events)
}

/// Records a file a tool deleted.
pub(crate) fn file_deleted(context: Session<'_>, relative_path: &str) -> Result<(), FileError> {
    let log = EventLog::for_session(context.project, context.id);
    let mut events = session_start(context, &log);
    let baselines = Baselines::for_session(context.project, context.id);
    events.extend(baselines.capture(context.project, relative_path, None)?);
    events.push(Event::FileDeleted {
        file: relative_path.to_string(),
    });
    log.append_all(context.clock.now(), events)
}

/// Whether a completed review covered exactly this version. Reviews only complete after a stop,
/// and every stop leaves the snapshot cache, so without a cache the answer is no — and with one,
/// only the events since the last stop are read.
fn is_reviewed(log: &EventLog, file: &str, hash: &str) -> bool {
    let Some(snapshot) = crate::session::checkpoint::peek(log) else {
        return false;
    };
    snapshot
        .reviews
        .iter()
        .any(|review| review.files.get(file).and_then(Option::as_deref) == Some(hash))
}

/// The worktree baseline, when this is the session's first record: the one taken at the
/// session's start where the agent has one ([`crate::session::start`]), else `git status` now.
fn session_start(context: Session<'_>, log: &EventLog) -> Vec<Event> {
    if log.exists() {
        return Vec::new();
    }
    start::take(context)
        .or_else(|| start::worktree_baseline(context, SystemTime::now(), |_| true))
        .into_iter()
        .collect()
}

/// Records the session's worktree baseline at a shell command when it is the session's first
/// hook, so the files it changes (and later ones) are the session's changes: the baseline taken
/// at the session's start when the agent sent one; else `git status` now, leaving out the files
/// the command itself plausibly changed (named on its command line, or modified since it
/// started). Costs one `git status` per session; a later call only looks whether the log exists.
pub(crate) fn shell_ran(context: Session<'_>, run: &ShellRun) -> Result<(), FileError> {
    let log = EventLog::for_session(context.project, context.id);
    if log.exists() {
        return Ok(());
    }
    let checkout = context.project.checkout();
    let baseline = start::take(context).or_else(|| {
        start::worktree_baseline(context, run.started(), |file| {
            !run.just_changed(file, &checkout.join(file))
        })
    });
    match baseline {
        Some(event) => log.append(context.clock.now(), event),
        None => Ok(()),
    }
}
