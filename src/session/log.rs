//! The one append path for session events: `clients/<session>/events.jsonl`, plus the project
//! lifecycle log `state.jsonl` for the events that matter beyond one session (reviews, stop
//! decisions, session end). Each append is complete lines in one `write` under the file's lock; a
//! reader skips a torn or unreadable line instead of failing, so a hook killed mid-write never
//! breaks the log.
//!
//! Invariant: every event goes through [`EventLog::append`] / [`EventLog::append_all`], which
//! copy lifecycle events into `state.jsonl` so the two logs never disagree about what happened.

use std::path::{Path, PathBuf};

use crate::files::{self, FileError, HOOK_LOCK_WAIT};
use crate::project::Project;
use crate::session::event::{Event, EventRecord};
use crate::state::names::EVENTS;

mod lines;

pub(crate) use lines::{decode_lines, fold_lines, parse_lines};

/// A session's event log.
#[derive(Debug, Clone)]
pub(crate) struct EventLog {
    path: PathBuf,
    lifecycle: PathBuf,
    session: String,
}

impl EventLog {
    pub(crate) fn for_session(project: &Project, session_id: &str) -> EventLog {
        EventLog::in_folder(project, &project.client_dir(session_id), session_id)
    }

    /// The log in a session folder found by listing `clients/` (whose name may not be the id).
    pub(crate) fn in_folder(project: &Project, folder: &Path, session_id: &str) -> EventLog {
        EventLog {
            path: folder.join(EVENTS),
            lifecycle: project.state_log(),
            session: session_id.to_string(),
        }
    }

    pub(crate) fn path(&self) -> &PathBuf {
        &self.path
    }

    pub(crate) fn session(&self) -> &str {
        &self.session
    }

    /// The session's folder (`clients/<session>/`).
    pub(crate) fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Whether the session recorded anything yet.
    pub(crate) fn exists(&self) -> bool {
        self.path.exists()
    }

    /// Moves a log that cannot be read at all aside (kept for a person to look at, as
    /// `events.jsonl.unreadable-<now>`), so the session goes on with a new one; where it went.
    pub(crate) fn set_aside(&self, now: i64) -> Result<PathBuf, FileError> {
        let target = files::sidecar(&self.path, &format!("unreadable-{now}"));
        std::fs::rename(&self.path, &target).map_err(|source| FileError::io(&self.path, source))?;
        Ok(target)
    }

    /// Appends one event at `now`.
    pub(crate) fn append(&self, now: i64, event: Event) -> Result<(), FileError> {
        self.append_all(now, vec![event])
    }

    /// Appends events at `now` in one write (all or, if killed, a torn last line).
    pub(crate) fn append_all(&self, now: i64, events: Vec<Event>) -> Result<(), FileError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut session_lines = Vec::with_capacity(events.len());
        let mut lifecycle_lines = Vec::new();
        for event in events {
            let is_lifecycle = event.is_lifecycle();
            let record = EventRecord {
                ts: now,
                session: self.session.clone(),
                event,
            };
            let line = serde_json::to_string(&record).unwrap_or_default();
            if is_lifecycle {
                lifecycle_lines.push(line.clone());
            }
            session_lines.push(line);
        }
        append_after_torn(&self.path, &session_lines.join("\n"))?;
        if !lifecycle_lines.is_empty() {
            append_after_torn(&self.lifecycle, &lifecycle_lines.join("\n"))?;
        }
        Ok(())
    }

    /// Records an event in the lifecycle log only (about a session whose folder is gone).
    pub(crate) fn append_lifecycle_only(&self, now: i64, event: Event) -> Result<(), FileError> {
        let record = EventRecord {
            ts: now,
            session: self.session.clone(),
            event,
        };
        let line = serde_json::to_string(&record).unwrap_or_default();
        append_after_torn(&self.lifecycle, &line)
    }

    /// Every readable event, oldest first; `(events, skipped_lines)`.
    pub(crate) fn read(&self) -> Result<(Vec<EventRecord>, usize), FileError> {
        let bytes = match files::read_bounded(&self.path, files::MAX_STATE_BYTES) {
            Ok(bytes) => bytes,
            Err(error) if error.is_not_found() => return Ok((Vec::new(), 0)),
            Err(error) => return Err(error),
        };
        Ok(parse_lines(&decode_lines(bytes)))
    }
}

/// Appends `lines` in one write under the file's lock; a torn last line left by a killed writer
/// never swallows them ([`files::append_line`]).
fn append_after_torn(path: &Path, lines: &str) -> Result<(), FileError> {
    files::append_line(path, lines, HOOK_LOCK_WAIT)
}

/// Reads the last 8 KiB of a log and returns the newest `ts` found there.
pub(crate) fn last_ts_of(path: &Path) -> Option<i64> {
    let tail = files::read_tail(path, 8 * 1024).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines().rev().find_map(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .ok()?
            .get("ts")?
            .as_i64()
    })
}

/// One session's log as read: its id (the first event's, else the folder's name), its events in
/// order and how many lines were unreadable.
#[derive(Debug, Clone)]
pub(crate) struct SessionRecords {
    pub(crate) session: String,
    pub(crate) records: Vec<EventRecord>,
    pub(crate) skipped: usize,
}

/// The event log of every session folder of the project that recorded events, in folder order.
pub(crate) fn session_records(project: &Project) -> Vec<SessionRecords> {
    project
        .session_folders()
        .into_iter()
        .filter(|(_, folder)| folder.join(EVENTS).exists())
        .filter_map(|(name, folder)| {
            let (records, skipped) = EventLog::in_folder(project, &folder, &name).read().ok()?;
            let session = records
                .first()
                .map_or(name.clone(), |record| record.session.clone());
            Some(SessionRecords {
                session,
                records,
                skipped,
            })
        })
        .collect()
}

/// The project lifecycle log (`state.jsonl`): every session's reviews, stop decisions and end,
/// kept after a session's folder is removed; `(events, skipped_lines)`, empty when missing.
pub(crate) fn lifecycle_records(project: &Project) -> Result<(Vec<EventRecord>, usize), FileError> {
    let path = project.state_log();
    match files::read_bounded(&path, files::MAX_STATE_BYTES) {
        Ok(bytes) => Ok(parse_lines(&decode_lines(bytes))),
        Err(error) if error.is_not_found() => Ok((Vec::new(), 0)),
        Err(error) => Err(error),
    }
}

/// Every session of the project that recorded events, as snapshots, oldest activity first.
pub(crate) fn sessions(project: &Project) -> Vec<crate::session::snapshot::Snapshot> {
    let mut snapshots: Vec<crate::session::snapshot::Snapshot> = session_records(project)
        .into_iter()
        .map(|log| {
            crate::session::snapshot::Snapshot::from_records(&log.session, log.records, log.skipped)
        })
        .collect();
    snapshots.sort_by_key(|snapshot| snapshot.last_ts);
    snapshots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let log = EventLog::for_session(&project, "s1");
        log.append(1, Event::FileDeleted { file: "a".into() })
            .unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .and_then(|mut file| std::io::Write::write_all(&mut file, b"{\"ts\":2,\"sess"))
            .unwrap();
        let (events, skipped) = log.read().unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(skipped, 1);
        assert_eq!(last_ts_of(log.path()), Some(1));
        log.append(3, Event::FileDeleted { file: "b".into() })
            .unwrap();
        let (events, skipped) = log.read().unwrap();
        assert_eq!(events.len(), 2, "the event after a torn line is kept");
        assert_eq!(skipped, 1);
    }

    #[test]
    fn lifecycle_events_are_copied_to_state_log() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let log = EventLog::for_session(&project, "s1");
        log.append_all(
            7,
            vec![
                Event::FileDeleted { file: "a".into() },
                Event::StopAllowed {
                    kind: crate::session::event::AllowKind::Clean,
                },
            ],
        )
        .unwrap();
        assert_eq!(log.read().unwrap().0.len(), 2);
        let lifecycle = std::fs::read_to_string(project.state_log()).unwrap();
        assert_eq!(
            lifecycle.trim(),
            r#"{"ts":7,"session":"s1","event":"stop_allowed","kind":"clean"}"#
        );
    }
}
