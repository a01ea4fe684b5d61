//! The session's start: at SessionStart (Claude Code, Codex, Gemini CLI) car takes the worktree
//! baseline — what was already changed before the session did anything — and holds it in
//! `clients/<session>/start-baseline.json` until the session's first record. That record (an
//! edit, or a shell command) puts it into the event log instead of taking one then, so the
//! files a first shell command changed are the session's for certain, not by a guess about which
//! files the command touched.
//!
//! Invariants: a session that never edits nor runs a shell command keeps no event log, so its
//! stop stays the fast path and a person's own edits during a chat are never its changes; a
//! session that already has a log (a resumed one) keeps the baseline it has; a resumed session
//! with no log yet takes a fresh one (nothing of the session's own work can be in it). The
//! baseline costs at most one `git status` per session start, shared by the starts of a burst
//! ([`crate::session::shared_status`]); without a SessionStart, [`first_baseline`] takes it at
//! the session's first record.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::files::{self, FileError};
use crate::session::Session;
use crate::session::event::{Event, Versions};
use crate::session::log::EventLog;
use crate::session::reconcile::dirty_versions_within;
use crate::session::shared_status::StatusError;
use crate::state::names;

/// Why no baseline was held at the session's start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    #[error(transparent)]
    Status(#[from] StatusError),
    #[error(transparent)]
    File(#[from] FileError),
}

/// Whether the session records already: a resumed session keeps the baseline it has.
pub(crate) fn is_recording(context: Session<'_>) -> bool {
    EventLog::for_session(context.project, context.id).exists()
}

/// Holds `dirty` (what `git status` found dirty after the session's hook began at `started`;
/// nothing outside git) as the session's baseline until its first record.
pub(crate) fn hold(
    context: Session<'_>,
    started: SystemTime,
    dirty: Versions,
) -> Result<(), FileError> {
    let baseline = Event::WorktreeBaseline {
        dirty,
        taken_at_ms: unix_ms(started),
    };
    let text = serde_json::to_string(&baseline).map_err(|error| {
        FileError::io(&held_at(context), std::io::Error::other(error.to_string()))
    })?;
    files::write_atomic_unsynced(&held_at(context), text.as_bytes())
}

/// The session's worktree baseline at its first record: the one held since the session's start
/// (taking it removes it), else `git status` now ([`worktree_baseline`]), keeping the dirty files
/// `keep` says were already changed; `taken_at` is when the session's own work began.
pub(crate) fn first_baseline(
    context: Session<'_>,
    taken_at: SystemTime,
    keep: impl Fn(&str) -> bool,
) -> Option<Event> {
    take(context).or_else(|| worktree_baseline(context, taken_at, keep))
}

/// The baseline taken at the session's start, when one is held; taking it removes it.
fn take(context: Session<'_>) -> Option<Event> {
    let path = held_at(context);
    let text = files::read_optional(&path).ok()??;
    let _ = std::fs::remove_file(&path);
    match serde_json::from_str(&text) {
        Ok(event @ Event::WorktreeBaseline { .. }) => Some(event),
        _ => None,
    }
}

/// Drops a held baseline (the session ended before it recorded anything).
pub(crate) fn forget(context: Session<'_>) {
    let _ = std::fs::remove_file(held_at(context));
}

fn held_at(context: Session<'_>) -> PathBuf {
    context
        .project
        .client_dir(context.id)
        .join(names::START_BASELINE)
}

/// `git status` now as the session's worktree baseline, keeping the dirty files `keep` says were
/// already changed; `taken_at` is when the session's own work began. `None` when git gave no
/// answer within a hook's wait.
fn worktree_baseline(
    context: Session<'_>,
    taken_at: SystemTime,
    keep: impl Fn(&str) -> bool,
) -> Option<Event> {
    baseline_within(context, taken_at, keep, crate::git::Wait::Hook).ok()
}

/// [`worktree_baseline`] with git given `wait`, or why git gave no answer. Outside git the
/// baseline is its time alone (a stop looks at what was modified since).
fn baseline_within(
    context: Session<'_>,
    taken_at: SystemTime,
    keep: impl Fn(&str) -> bool,
    wait: crate::git::Wait,
) -> Result<Event, crate::git::GitError> {
    let mut dirty = if crate::git::is_checkout(context.project.checkout()) {
        dirty_versions_within(context.project, context.settings, wait)?
    } else {
        Default::default()
    };
    dirty.retain(|file, _| keep(file));
    Ok(Event::WorktreeBaseline {
        dirty,
        taken_at_ms: unix_ms(taken_at),
    })
}

fn unix_ms(time: SystemTime) -> Option<u64> {
    time.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|since| u64::try_from(since.as_millis()).ok())
}
