//! The writes the PreToolUse hook stopped in a session, each as its file and the hash of the
//! content the tool was about to leave. The same write sent again unchanged goes through: the
//! agent insisting is the one sign car has that it stopped a write it should not have, and a
//! stop is advice with teeth, never a wall (the PostToolUse hook still reports what the write
//! left).
//!
//! Invariants:
//! - one tool call is decided in one update under the list's lock ([`decide`]): its writes sent
//!   again are taken off, the others put on, so parallel hooks of one session lose no entry;
//! - the list always holds the whole of the latest call (a Codex patch stopping 51 files keeps
//!   all 51) and at most [`MAX_KEPT`] entries of earlier calls besides (oldest dropped), within
//!   [`MAX_BYTES`] as written, so what is written is always read back;
//! - a stop that cannot be remembered is not made: when the list cannot be read, locked or
//!   written (a read-only state folder, a full disk), or the call's writes alone would not fit,
//!   [`decide`] fails and the hook lets the write through, saying so. Otherwise a stop the agent
//!   could never get past would be a wall.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};
use crate::session::Session;
use crate::state::names;

/// Stopped writes of earlier calls remembered per session (besides the latest call's).
const MAX_KEPT: usize = 50;

/// Largest list written, and read back.
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

/// What happens to one write car would stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Stopped, and remembered.
    Stop,
    /// Stopped before with this very content: the agent insists, so it goes through.
    SentAgain,
}

/// Why the stops of a call could not be remembered (and so are not made).
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotRemembered {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path}: {count} stopped writes do not fit in its {limit} bytes")]
    TooMany {
        path: PathBuf,
        count: usize,
        limit: u64,
    },
}

/// Decides the writes (file, content hash) one tool call would have stopped, in one update under
/// the list's lock: each is [`Decision::SentAgain`] when it was stopped before (and taken off the
/// list), else [`Decision::Stop`] (and put on it). An error means nothing was remembered: the
/// caller must stop nothing.
pub(crate) fn decide(
    session: Session<'_>,
    writes: &[(&str, &str)],
) -> Result<Vec<Decision>, NotRemembered> {
    let path = list_path(session);
    files::ensure_parent(&path)?;
    files::update_json(&path, MAX_BYTES, |list: &mut StoppedFile| {
        // Changed on a copy: a call that cannot be remembered leaves the list as it was.
        let mut changed = list.clone();
        let decisions: Vec<Decision> = writes
            .iter()
            .map(|(file, hash)| take(&mut changed, file, hash))
            .collect();
        let fresh: Vec<Stopped> = writes
            .iter()
            .zip(&decisions)
            .filter(|(_, decision)| **decision == Decision::Stop)
            .map(|((file, hash), _)| Stopped {
                file: file.to_string(),
                hash: hash.to_string(),
            })
            .collect();
        add_keeping_bound(&mut changed, fresh, &path)?;
        *list = changed;
        Ok(decisions)
    })?
}

/// Takes the write off the list when it is there.
fn take(list: &mut StoppedFile, file: &str, hash: &str) -> Decision {
    let before = list.stopped.len();
    list.stopped
        .retain(|stopped| !(stopped.file == file && stopped.hash == hash));
    if list.stopped.len() == before {
        Decision::Stop
    } else {
        Decision::SentAgain
    }
}

/// Appends `fresh` whole, dropping the oldest earlier entries past [`MAX_KEPT`] or past
/// [`MAX_BYTES`]; the list stays as it was when `fresh` alone does not fit.
fn add_keeping_bound(
    list: &mut StoppedFile,
    fresh: Vec<Stopped>,
    path: &Path,
) -> Result<(), NotRemembered> {
    // The document's own `{"stopped":[]}` and a comma per entry.
    let size = |entry: &Stopped| {
        serde_json::to_string(entry).map_or(u64::MAX, |text| text.len() as u64 + 1)
    };
    let wrapper = 16;
    let fresh_bytes = fresh.iter().map(size).fold(wrapper, u64::saturating_add);
    if fresh_bytes > MAX_BYTES {
        return Err(NotRemembered::TooMany {
            path: path.to_path_buf(),
            count: fresh.len(),
            limit: MAX_BYTES,
        });
    }
    let mut room = MAX_BYTES - fresh_bytes;
    let mut kept: Vec<Stopped> = Vec::new();
    for entry in list.stopped.drain(..).rev().take(MAX_KEPT) {
        let bytes = size(&entry);
        if bytes > room {
            break;
        }
        room -= bytes;
        kept.push(entry);
    }
    kept.reverse();
    kept.extend(fresh);
    list.stopped = kept;
    Ok(())
}

fn list_path(session: Session<'_>) -> PathBuf {
    session.file(names::STOPPED_WRITES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    fn with_session(test: impl FnOnce(Session<'_>)) {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        test(Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(1),
            id: "s",
        });
    }

    #[test]
    fn parallel_hooks_of_one_session_lose_no_stopped_write() {
        with_session(|session| {
            std::thread::scope(|scope| {
                for index in 0..16 {
                    scope.spawn(move || {
                        let file = format!("f{index}.py");
                        let decided = decide(session, &[(&file, "h")]).unwrap();
                        assert_eq!(decided, [Decision::Stop]);
                    });
                }
            });
            let files: Vec<String> = (0..16).map(|index| format!("f{index}.py")).collect();
            let again: Vec<(&str, &str)> = files.iter().map(|file| (file.as_str(), "h")).collect();
            assert_eq!(
                decide(session, &again).unwrap(),
                vec![Decision::SentAgain; 16]
            );
            // Taken off: the same write is stopped anew the third time.
            assert_eq!(decide(session, &again[..1]).unwrap(), [Decision::Stop]);
        });
    }

    #[test]
    fn a_whole_call_is_kept_however_many_files_it_stops() {
        with_session(|session| {
            let files: Vec<String> = (0..(MAX_KEPT * 3))
                .map(|index| format!("f{index}.py"))
                .collect();
            let writes: Vec<(&str, &str)> = files.iter().map(|file| (file.as_str(), "h")).collect();
            assert_eq!(
                decide(session, &writes).unwrap(),
                vec![Decision::Stop; writes.len()]
            );
            let later = decide(session, &[("other.py", "h")]).unwrap();
            assert_eq!(later, [Decision::Stop]);
            // The latest call whole, and the newest MAX_KEPT of the earlier ones.
            let again = decide(session, &writes).unwrap();
            let sent_again = again
                .iter()
                .filter(|decision| **decision == Decision::SentAgain);
            assert_eq!(sent_again.count(), MAX_KEPT);
            assert_eq!(again.last(), Some(&Decision::SentAgain));
        });
    }

    #[test]
    fn writes_that_cannot_fit_are_not_remembered_and_change_nothing() {
        with_session(|session| {
            assert_eq!(
                decide(session, &[("kept.py", "h")]).unwrap(),
                [Decision::Stop]
            );
            let long = "x".repeat(64 * 1024);
            let files: Vec<String> = (0..20).map(|index| format!("{long}{index}.py")).collect();
            let writes: Vec<(&str, &str)> = files.iter().map(|file| (file.as_str(), "h")).collect();
            let error = decide(session, &writes).unwrap_err();
            assert!(
                matches!(error, NotRemembered::TooMany { count: 20, .. }),
                "{error}"
            );
            assert_eq!(
                decide(session, &[("kept.py", "h")]).unwrap(),
                [Decision::SentAgain]
            );
        });
    }
}
