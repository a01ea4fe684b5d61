//! The one append path for session events: `clients/<session>/events.jsonl`. Each append is one
//! complete line under the file's lock; a reader skips a torn or unreadable line instead of
//! failing, so a hook killed mid-write never breaks the log.

use std::path::PathBuf;

use crate::files::{self, FileError, HOOK_LOCK_WAIT};
use crate::project::Project;
use crate::review::event::{Event, EventRecord};

/// A session's event log.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
    session: String,
}

impl EventLog {
    pub fn for_session(project: &Project, session_id: &str) -> EventLog {
        EventLog {
            path: project.client_dir(session_id).join("events.jsonl"),
            session: session_id.to_string(),
        }
    }

    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    /// Appends one event at `now`.
    pub fn append(&self, now: i64, event: Event) -> Result<(), FileError> {
        let record = EventRecord {
            ts: now,
            session: self.session.clone(),
            event,
        };
        let line = serde_json::to_string(&record).unwrap_or_default();
        files::append_line(&self.path, &line, HOOK_LOCK_WAIT)
    }

    /// Every readable event, oldest first; `(events, skipped_lines)`.
    pub fn read(&self) -> Result<(Vec<EventRecord>, usize), FileError> {
        let Some(text) = files::read_optional(&self.path)? else {
            return Ok((Vec::new(), 0));
        };
        let mut events = Vec::new();
        let mut skipped = 0;
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            match serde_json::from_str::<EventRecord>(line) {
                Ok(record) => events.push(record),
                Err(_) => skipped += 1,
            }
        }
        Ok((events, skipped))
    }
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
    }
}
