//! The writes the PreToolUse hook stopped in a session, each as its file and the hash of the
//! content the tool was about to leave. The same write sent again unchanged goes through: the
//! agent insisting is the one sign car has that it stopped a write it should not have, and a
//! stop is advice with teeth, never a wall (the PostToolUse hook still reports what the write
//! left).
//!
//! Invariants: the list is bounded ([`MAX_KEPT`], oldest dropped); a write that went through is
//! taken off it, so a third attempt of the same content is stopped again only after it was
//! stopped anew; every change is made under the list's lock (parallel hooks of one session lose
//! no entry); nothing here fails a hook (an unreadable list is an empty one, a busy lock a
//! write stopped again).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};
use crate::session::Session;
use crate::state::names;

/// Stopped writes remembered per session.
const MAX_KEPT: usize = 50;

/// Largest list read back.
const MAX_BYTES: u64 = 1024 * 1024;

/// One write stopped before it landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Stopped {
    /// Project-relative path.
    file: String,
    /// [`crate::session::event::content_hash`] of the content the tool would have left.
    hash: String,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct StoppedFile {
    #[serde(default)]
    stopped: Vec<Stopped>,
}

/// Whether this write (file and content hash) was stopped before in the session; taking it off
/// the list when it was.
pub(crate) fn take_if_stopped_before(session: Session<'_>, file: &str, hash: &str) -> bool {
    let path = list_path(session);
    if !path.exists() {
        return false;
    }
    files::update_json(&path, MAX_BYTES, |list: &mut StoppedFile| {
        let before = list.stopped.len();
        list.stopped
            .retain(|stopped| !(stopped.file == file && stopped.hash == hash));
        list.stopped.len() != before
    })
    .unwrap_or(false)
}

/// Remembers a stopped write.
pub(crate) fn remember(session: Session<'_>, file: &str, hash: &str) -> Result<(), FileError> {
    let path = list_path(session);
    files::ensure_parent(&path)?;
    files::update_json(&path, MAX_BYTES, |list: &mut StoppedFile| {
        list.stopped.push(Stopped {
            file: file.to_string(),
            hash: hash.to_string(),
        });
        let excess = list.stopped.len().saturating_sub(MAX_KEPT);
        list.stopped.drain(..excess);
    })
}

fn list_path(session: Session<'_>) -> PathBuf {
    session
        .project
        .client_dir(session.id)
        .join(names::STOPPED_WRITES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    #[test]
    fn parallel_hooks_of_one_session_lose_no_stopped_write() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let session = Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(1),
            id: "s",
        };
        std::thread::scope(|scope| {
            for index in 0..16 {
                scope.spawn(move || {
                    remember(session, &format!("f{index}.py"), "h").unwrap();
                });
            }
        });
        for index in 0..16 {
            assert!(
                take_if_stopped_before(session, &format!("f{index}.py"), "h"),
                "f{index}.py"
            );
        }
        // Taken off: the same write is not "stopped before" twice.
        assert!(!take_if_stopped_before(session, "f0.py", "h"));
    }
}
