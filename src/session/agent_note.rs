//! A note for the agent that could not reach it when it was written: at a stop car lets through,
//! no answer field reaches the model (the clients show a stop's message to the person only), so
//! what the agent should know — the review that did not run and why — waits in the session's
//! state ([`names::AGENT_NOTE`]) and goes to the model with the session's next hook answer that
//! can carry context (the next PostToolUse, or SessionStart when the session is resumed).
//!
//! Invariants: one note per session, the newest replaces the older; taken once (read, then
//! removed); bounded ([`MAX_BYTES`]); only a courtesy: a note that cannot be written or read costs
//! the agent that note, nothing else.

use crate::session::Session;
use crate::state::names;

/// The largest note kept or read back.
const MAX_BYTES: u64 = 4 * 1024;

/// Leaves `text` for the agent's next hook answer in `session`.
pub(crate) fn leave(session: Session<'_>, text: &str) -> Result<(), crate::files::FileError> {
    let mut text = text.to_string();
    if text.len() as u64 > MAX_BYTES {
        let mut end = MAX_BYTES as usize;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    crate::files::write_atomic_unsynced(&path(session), text.as_bytes())
}

/// The note left for the agent in `session`, removed as it is taken; `None` when there is none.
pub(crate) fn take(session: Session<'_>) -> Option<String> {
    let path = path(session);
    let text = crate::files::read_text_or_none(&path, MAX_BYTES)?;
    // Removed before it is shown: a note the agent sees twice is worse than one it misses.
    std::fs::remove_file(&path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn path(session: Session<'_>) -> std::path::PathBuf {
    session.file(names::AGENT_NOTE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    #[test]
    fn a_note_is_taken_once_and_the_newest_wins() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let session = Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(0),
            id: "s",
        };
        assert_eq!(take(session), None);
        leave(session, "first").unwrap();
        leave(session, "second\n").unwrap();
        assert_eq!(take(session).as_deref(), Some("second"));
        assert_eq!(take(session), None);
        leave(session, &"é".repeat(5000)).unwrap();
        assert!(take(session).unwrap().len() <= MAX_BYTES as usize);
    }
}
