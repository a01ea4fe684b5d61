//! A session log car cannot fully read: the stop is never let through silently. Unparseable lines
//! are skipped and named; a log that cannot be read at all is moved aside and the session goes
//! on with an empty record. Either way what the lost events knew is rebuilt from git at the stop
//! (the session's baseline rules), so lost events cost a wider review, never a skipped one.
//!
//! Invariant: only a log that can neither be read nor moved is an error (the gate then fails
//! open: nothing it decides could be recorded).

use std::path::Path;

use crate::files::FileError;
use crate::session::Session;
use crate::session::log::EventLog;
use crate::session::snapshot::Snapshot;

/// The snapshot the gate works on, and the notice for the person when the log was not fully
/// read; `loaded` is the checkpoint's load of `log`.
pub(crate) fn opened(
    session: Session<'_>,
    log: &EventLog,
    loaded: Result<Snapshot, FileError>,
    is_git: bool,
) -> Result<(Snapshot, Option<String>), FileError> {
    match loaded {
        Ok(snapshot) => {
            let notice = skipped_lines_notice(session, log, &snapshot, is_git);
            Ok((snapshot, notice))
        }
        Err(error) => unreadable_log(session, log, &error, is_git),
    }
}

/// What the stop is decided from when the session log lost what it recorded.
fn decided_from(is_git: bool, has_baseline: bool) -> &'static str {
    match (is_git, has_baseline) {
        (true, true) => {
            "the stop is decided from git: every file changed since the session's baseline is reviewed"
        }
        (true, false) => "the stop is decided from git: every file git shows changed is reviewed",
        (false, _) => "outside git, only the files the readable events name are reviewed",
    }
}

/// The notice for a log with lines car could not read (told once per count of them).
fn skipped_lines_notice(
    session: Session<'_>,
    log: &EventLog,
    snapshot: &Snapshot,
    is_git: bool,
) -> Option<String> {
    if snapshot.skipped_lines == 0 {
        return None;
    }
    let notice = format!(
        "car: {} in the session log {} could not be read and were skipped; {}.",
        crate::text::plural(snapshot.skipped_lines, "line"),
        shown_path(session, log.path()),
        decided_from(is_git, snapshot.worktree_baseline.is_some())
    );
    crate::state::first_notice(session.project, session.id, &notice).then_some(notice)
}

/// A log that cannot be read at all is set aside and the session goes on from an empty record,
/// so the stop is decided from git instead of failing open; when it cannot even be moved,
/// nothing could be recorded and the gate fails open.
fn unreadable_log(
    session: Session<'_>,
    log: &EventLog,
    error: &FileError,
    is_git: bool,
) -> Result<(Snapshot, Option<String>), FileError> {
    let aside = log.set_aside(session.clock.now())?;
    let notice = format!(
        "car: the session log could not be read ({error}); it was moved to {} and {}.",
        shown_path(session, &aside),
        decided_from(is_git, false)
    );
    crate::state::log_hook_error(&session.project.state_dir(), &notice);
    Ok((
        Snapshot::from_records(log.session(), Vec::new(), 0),
        Some(notice),
    ))
}

fn shown_path(session: Session<'_>, path: &Path) -> String {
    session
        .project
        .relative(path)
        .unwrap_or_else(|| path.display().to_string())
}
