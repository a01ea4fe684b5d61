//! The one append path for session events: `clients/<session>/events.jsonl`, plus the project
//! lifecycle log `state.jsonl` for the events that matter beyond one session (reviews, stop
//! decisions, session end). Each append is complete lines in one `write` under the file's lock; a
//! reader skips a torn or unreadable line instead of failing, so a hook killed mid-write never
//! breaks the log.
//!
//! Invariant: every event goes through [`EventLog::append`] / [`EventLog::append_all`], which
//! copy lifecycle events into `state.jsonl` so the two logs never disagree about what happened.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::files::{self, FileError, HOOK_LOCK_WAIT};
use crate::project::Project;
use crate::review::event::{Event, EventRecord};

/// File name of a session's event log inside its client folder.
pub const EVENTS_FILE: &str = "events.jsonl";

/// A session's event log.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
    lifecycle: PathBuf,
    session: String,
}

impl EventLog {
    pub fn for_session(project: &Project, session_id: &str) -> EventLog {
        EventLog {
            path: project.client_dir(session_id).join(EVENTS_FILE),
            lifecycle: project.state_log(),
            session: session_id.to_string(),
        }
    }

    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    pub fn session(&self) -> &str {
        &self.session
    }

    /// The session's folder (`clients/<session>/`).
    pub fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Whether the session recorded anything yet.
    pub fn exists(&self) -> bool {
        self.path.exists()
    }

    /// Appends one event at `now`.
    pub fn append(&self, now: i64, event: Event) -> Result<(), FileError> {
        self.append_all(now, vec![event])
    }

    /// Appends events at `now` in one write (all or, if killed, a torn last line).
    pub fn append_all(&self, now: i64, events: Vec<Event>) -> Result<(), FileError> {
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
        files::append_line(&self.path, &session_lines.join("\n"), HOOK_LOCK_WAIT)?;
        if !lifecycle_lines.is_empty() {
            files::append_line(&self.lifecycle, &lifecycle_lines.join("\n"), HOOK_LOCK_WAIT)?;
        }
        Ok(())
    }

    /// Records an event in the lifecycle log only (about a session whose folder is gone).
    pub fn append_lifecycle_only(&self, now: i64, event: Event) -> Result<(), FileError> {
        let record = EventRecord {
            ts: now,
            session: self.session.clone(),
            event,
        };
        let line = serde_json::to_string(&record).unwrap_or_default();
        files::append_line(&self.lifecycle, &line, HOOK_LOCK_WAIT)
    }

    /// Every readable event, oldest first; `(events, skipped_lines)`.
    pub fn read(&self) -> Result<(Vec<EventRecord>, usize), FileError> {
        let Some(text) = files::read_optional(&self.path)? else {
            return Ok((Vec::new(), 0));
        };
        Ok(parse_lines(&text))
    }

    /// The time of the last readable event, reading only the log's tail (for SessionEnd).
    pub fn last_ts(&self) -> Option<i64> {
        last_ts_of(&self.path)
    }
}

/// Parses JSONL, skipping blank, torn and unknown lines.
pub fn parse_lines(text: &str) -> (Vec<EventRecord>, usize) {
    let mut events = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        match serde_json::from_str::<EventRecord>(line) {
            Ok(record) => events.push(record),
            Err(_) => skipped += 1,
        }
    }
    (events, skipped)
}

/// Reads the last 8 KiB of a log and returns the newest `ts` found there.
pub fn last_ts_of(path: &Path) -> Option<i64> {
    let mut file = std::fs::File::open(path).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(8 * 1024)))
        .ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines().rev().find_map(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .ok()?
            .get("ts")?
            .as_i64()
    })
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
        assert_eq!(log.last_ts(), Some(1));
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
                    kind: "clean".into(),
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
