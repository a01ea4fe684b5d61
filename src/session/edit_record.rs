//! What the PostToolUse hook records for the stop gate, from the facts it hands down (a
//! [`ToolCallRecord`]; this module knows no payload): the file's baseline (before the session's
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

/// What one tool call did, as the session records it: the facts the hook derived from the payload
/// and those the checks returned. [`tool_call`] records it in one write.
#[derive(Debug, Default)]
pub(crate) struct ToolCallRecord<'a> {
    /// The agent's shell command, when the tool was one: the session's first record leaves out
    /// the files it plausibly changed from the worktree baseline.
    pub(crate) shell: Option<&'a ShellRun>,
    /// The tool's name, as the agent called it.
    pub(crate) tool: &'a str,
    pub(crate) edits: Vec<CheckedEdit<'a>>,
    /// Project-relative paths of files the tool wrote that are over the read bound: tracked by
    /// their version on disk (hash, or stamp when huge) so the stop reviews them, never
    /// validated; the review request names them with their size.
    pub(crate) unread: Vec<&'a str>,
    /// Project-relative paths of the files the tool deleted.
    pub(crate) deleted: &'a [String],
}

/// One edit as checked: `hash` is the content hash of `edit.content` (computed once per edit by
/// the hook, which hands it to learning too); the validator errors of the file now and the lesson
/// warnings the edit drew.
#[derive(Debug)]
pub(crate) struct CheckedEdit<'a> {
    pub(crate) edit: &'a Edit,
    pub(crate) hash: &'a str,
    pub(crate) diagnostics: &'a [Diagnostic],
    pub(crate) warnings: &'a [Warning],
    /// A checker's finding that was told to the agent and did not block, and why.
    pub(crate) not_blocked: Option<(&'a Diagnostic, &'a str)>,
}

/// What part of a tool call's record could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recording {
    /// The session's worktree baseline at a shell command.
    Baseline,
    /// An edit, for review.
    Edit,
    /// A deletion, for review.
    Deletion,
}

/// A part of a tool call's record that could not be written, and why.
#[derive(Debug)]
pub(crate) struct Unrecorded {
    pub(crate) what: Recording,
    pub(crate) error: FileError,
}

/// Records what one tool call did, in one write: the session's worktree baseline when this is
/// its first record, then each edit (its file's baseline, the edit, the validator errors, the
/// lesson warnings, a finding told and not blocking), each unread edit and each deletion. An
/// item whose baseline cannot be kept is left out, and said.
pub(crate) fn tool_call(context: Session<'_>, record: &ToolCallRecord<'_>) -> Vec<Unrecorded> {
    let log = EventLog::for_session(context.project, context.id);
    let baselines = Baselines::for_session(context.project, context.id);
    let mut unrecorded = Vec::new();
    let mut items: Vec<(Recording, Vec<Event>)> = Vec::new();
    let mut keep = |what: Recording, events: Result<Option<Vec<Event>>, FileError>| match events {
        Ok(Some(events)) => items.push((what, events)),
        Ok(None) => {}
        Err(error) => unrecorded.push(Unrecorded { what, error }),
    };
    for checked in &record.edits {
        keep(
            Recording::Edit,
            edit_events(context, &log, &baselines, checked).map(Some),
        );
    }
    for relative_path in &record.unread {
        let events = unread_events(context, &log, &baselines, relative_path, record.tool);
        keep(Recording::Edit, events);
    }
    for relative_path in record.deleted {
        let events = deletion_events(context, &baselines, relative_path).map(Some);
        keep(Recording::Deletion, events);
    }
    let mut events = match record.shell {
        Some(run) => shell_start(context, &log, run).into_iter().collect(),
        None if !items.is_empty() => session_start(context, &log),
        None => Vec::new(),
    };
    let what = items.first().map_or(Recording::Baseline, |(what, _)| *what);
    events.extend(items.into_iter().flat_map(|(_, events)| events));
    if events.is_empty() {
        return unrecorded;
    }
    if let Err(error) = log.append_all(context.clock.now(), events) {
        unrecorded.push(Unrecorded { what, error });
    }
    unrecorded
}

/// A deleted file's events: its baseline, and the deletion.
fn deletion_events(
    context: Session<'_>,
    baselines: &Baselines,
    relative_path: &str,
) -> Result<Vec<Event>, FileError> {
    let mut events: Vec<Event> = baselines
        .capture(context.project, relative_path, None)?
        .into_iter()
        .collect();
    events.push(Event::FileDeleted {
        file: relative_path.to_string(),
    });
    Ok(events)
}

/// One checked edit's events: its file's baseline, the edit, the validator errors of the file
/// now, the lesson warnings it drew, and the finding told and not blocking.
fn edit_events(
    context: Session<'_>,
    log: &EventLog,
    baselines: &Baselines,
    checked: &CheckedEdit<'_>,
) -> Result<Vec<Event>, FileError> {
    let edit = checked.edit;
    let mut events: Vec<Event> = baselines
        .capture(context.project, &edit.relative_path, edit.before.as_deref())?
        .into_iter()
        .collect();
    events.push(Event::EditTracked {
        file: edit.relative_path.clone(),
        tool: edit.tool.clone(),
        reviewed: is_reviewed(log, &edit.relative_path, checked.hash),
        hash: checked.hash.to_string(),
    });
    events.push(Event::Validated {
        file: edit.relative_path.clone(),
        errors: checked
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect(),
    });
    if !checked.warnings.is_empty() {
        events.push(Event::LessonWarned {
            file: edit.relative_path.clone(),
            warnings: checked.warnings.to_vec(),
        });
    }
    if let Some((finding, why)) = checked.not_blocked {
        events.push(Event::NotBlocked {
            file: finding.file.clone(),
            finding: finding.clone(),
            why: why.to_string(),
        });
    }
    Ok(events)
}

/// An edit of a file over the read bound, which car does not read, tracked by its version on
/// disk; `None` when the file is gone.
fn unread_events(
    context: Session<'_>,
    log: &EventLog,
    baselines: &Baselines,
    relative_path: &str,
    tool: &str,
) -> Result<Option<Vec<Event>>, FileError> {
    let Some(hash) = version_on_disk(context.project, relative_path) else {
        return Ok(None);
    };
    let mut events: Vec<Event> = baselines
        .capture(context.project, relative_path, None)?
        .into_iter()
        .collect();
    events.push(Event::EditTracked {
        file: relative_path.to_string(),
        tool: tool.to_string(),
        reviewed: is_reviewed(log, relative_path, &hash),
        hash,
    });
    Ok(Some(events))
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
    start::first_baseline(context, SystemTime::now(), |_| true)
        .into_iter()
        .collect()
}

/// The session's worktree baseline at a shell command, when it is the session's first record, so
/// the files it changes (and later ones) are the session's changes: the baseline taken at the
/// session's start when the agent sent one; else `git status` now, leaving out the files the
/// command itself plausibly changed (named on its command line, or modified since it started).
/// Costs one `git status` per session; a later call only looks whether the log exists.
fn shell_start(context: Session<'_>, log: &EventLog, run: &ShellRun) -> Option<Event> {
    if log.exists() {
        return None;
    }
    let checkout = context.project.checkout();
    start::first_baseline(context, run.started(), |file| {
        !run.just_changed(file, &checkout.join(file))
    })
}
