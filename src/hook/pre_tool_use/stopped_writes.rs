//! The writes the PreToolUse hook stopped in a session, each as its file and the hash of the
//! content the tool was about to leave. The same write sent again unchanged goes through: the
//! agent insisting is the one sign car has that it stopped a write it should not have, and a
//! stop is advice with teeth, never a wall (the PostToolUse hook still reports what the write
//! left).
//!
//! Invariants: the list is bounded ([`MAX_KEPT`], oldest dropped); a write that went through is
//! taken off it, so a third attempt of the same content is stopped again only after it was
//! stopped anew; nothing here fails a hook (an unreadable list is an empty one).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};
use crate::session::Session;
use crate::state::names;

/// Stopped writes remembered per session.
const MAX_KEPT: usize = 50;

/// One write stopped before it landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Stopped {
    /// Project-relative path.
    file: String,
    /// [`crate::session::event::content_hash`] of the content the tool would have left.
    hash: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoppedFile {
    #[serde(default)]
    stopped: Vec<Stopped>,
}

/// Whether this write (file and content hash) was stopped before in the session; taking it off
/// the list when it was.
pub(crate) fn take_if_stopped_before(session: Session<'_>, file: &str, hash: &str) -> bool {
    let path = list_path(session);
    let mut list = read(&path);
    let before = list.stopped.len();
    list.stopped
        .retain(|stopped| !(stopped.file == file && stopped.hash == hash));
    if list.stopped.len() == before {
        return false;
    }
    let _ = write(&path, &list);
    true
}

/// Remembers a stopped write.
pub(crate) fn remember(session: Session<'_>, file: &str, hash: &str) -> Result<(), FileError> {
    let path = list_path(session);
    let mut list = read(&path);
    list.stopped.push(Stopped {
        file: file.to_string(),
        hash: hash.to_string(),
    });
    let excess = list.stopped.len().saturating_sub(MAX_KEPT);
    list.stopped.drain(..excess);
    write(&path, &list)
}

fn list_path(session: Session<'_>) -> PathBuf {
    session
        .project
        .client_dir(session.id)
        .join(names::STOPPED_WRITES)
}

fn read(path: &std::path::Path) -> StoppedFile {
    files::read_text_or_none(path, 1024 * 1024)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write(path: &std::path::Path, list: &StoppedFile) -> Result<(), FileError> {
    files::ensure_parent(path)?;
    let text = serde_json::to_string(list)
        .map_err(|error| FileError::io(path, std::io::Error::other(error.to_string())))?;
    files::write_atomic_unsynced(path, text.as_bytes())
}
