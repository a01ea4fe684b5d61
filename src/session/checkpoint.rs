//! A cache of the session snapshot: `clients/<session>/snapshot.json` holds the snapshot folded
//! up to a byte offset of the event log, so a stop attempt only parses the events written since
//! (the stop hook stays fast however long the session runs).
//!
//! Invariants: the cache is only an optimisation — the log stays the truth. It is used only when
//! its format version matches, its offset lies inside the log and the bytes just before that
//! offset are the ones it remembers; otherwise the whole log is read. The offset always ends on a
//! newline, so a line being written (or torn) is never consumed half.

use std::io::{Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};

use crate::session::log::{EventLog, decode_lines, fold_lines};
use crate::session::snapshot::Snapshot;
use crate::state::names::SNAPSHOT;

const FORMAT: u32 = 4;
/// How many bytes before the offset are remembered to recognise the same log.
const TAIL: usize = 128;

#[derive(Serialize, Deserialize)]
struct Checkpoint {
    format: u32,
    offset: u64,
    tail: String,
    snapshot: Snapshot,
}

/// The session's snapshot, from the cache plus the log's new events, or from the whole log.
/// Saves the cache again when new events were folded in.
pub(crate) fn load(log: &EventLog) -> Result<Snapshot, FileError> {
    let path = log.dir().join(SNAPSHOT);
    let cached = files::read_optional(&path)
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str::<Checkpoint>(&text).ok())
        .filter(|checkpoint| checkpoint.format == FORMAT);
    let (mut snapshot, offset, tail) = match cached {
        Some(checkpoint) => (checkpoint.snapshot, checkpoint.offset, checkpoint.tail),
        None => (fresh(log), 0, String::new()),
    };
    let Some((text, start)) = read_from(log, offset, &tail)? else {
        return full(log);
    };
    if start == 0 {
        snapshot = fresh(log);
    }
    let complete = text.rfind('\n').map_or(0, |index| index + 1);
    let events_before = snapshot.events;
    let skipped = fold_lines(&text[..complete], &mut snapshot);
    let new_events = snapshot.events - events_before + skipped;
    snapshot.skipped_lines += skipped;
    if new_events > 0 {
        let end = start + complete as u64;
        let tail = tail_of(&text[..complete]);
        save(log, &snapshot, end, tail);
    }
    Ok(snapshot)
}

/// The snapshot from the cache plus the events since, without saving anything; `None` when there
/// is no usable cache (for the edit hook, which must not pay for a full read).
pub(crate) fn peek(log: &EventLog) -> Option<Snapshot> {
    let text = files::read_optional(&log.dir().join(SNAPSHOT)).ok()??;
    let checkpoint = serde_json::from_str::<Checkpoint>(&text).ok()?;
    if checkpoint.format != FORMAT {
        return None;
    }
    let (text, start) = read_from(log, checkpoint.offset, &checkpoint.tail).ok()??;
    if start == 0 {
        return None;
    }
    let mut snapshot = checkpoint.snapshot;
    let complete = text.rfind('\n').map_or(0, |index| index + 1);
    fold_lines(&text[..complete], &mut snapshot);
    Some(snapshot)
}

/// Another session's snapshot without writing anything: the cache plus its tail, else the whole
/// log; `None` when the log cannot be read.
pub(crate) fn peek_or_read(log: &EventLog) -> Option<Snapshot> {
    peek(log).or_else(|| full(log).ok())
}

fn fresh(log: &EventLog) -> Snapshot {
    Snapshot::from_records(log.session(), Vec::new(), 0)
}

fn full(log: &EventLog) -> Result<Snapshot, FileError> {
    let (records, skipped) = log.read()?;
    Ok(Snapshot::from_records(log.session(), records, skipped))
}

/// The log from `offset` on, if the bytes before it match `tail`; `(text, where it starts)`.
fn read_from(log: &EventLog, offset: u64, tail: &str) -> Result<Option<(String, u64)>, FileError> {
    let (mut file, length) = match files::open_regular(log.path()) {
        Ok(opened) => opened,
        Err(error) if error.is_not_found() => return Ok(Some((String::new(), 0))),
        Err(error) => return Err(error),
    };
    let start = if offset <= length && tail.len() as u64 <= offset {
        let from = offset - tail.len() as u64;
        let mut before = vec![0; tail.len()];
        file.seek(SeekFrom::Start(from))
            .and_then(|_| file.read_exact(&mut before))
            .map_err(|error| FileError::io(log.path(), error))?;
        if before == tail.as_bytes() { offset } else { 0 }
    } else {
        0
    };
    if length - start > files::MAX_STATE_BYTES {
        return Err(FileError::TooLarge {
            path: log.path().clone(),
            limit: files::MAX_STATE_BYTES,
        });
    }
    file.seek(SeekFrom::Start(start))
        .map_err(|error| FileError::io(log.path(), error))?;
    let mut bytes = Vec::new();
    file.take(files::MAX_STATE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| FileError::io(log.path(), error))?;
    Ok(Some((decode_lines(bytes), start)))
}

fn tail_of(text: &str) -> String {
    let mut from = text.len().saturating_sub(TAIL);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    text[from..].to_string()
}

/// Saves the cache (best effort: a failure only costs speed next time).
fn save(log: &EventLog, snapshot: &Snapshot, offset: u64, tail: String) {
    let checkpoint = Checkpoint {
        format: FORMAT,
        offset,
        tail,
        snapshot: snapshot.clone(),
    };
    let Ok(text) = serde_json::to_string(&checkpoint) else {
        return;
    };
    // No fsync: a cache lost in a crash is rebuilt from the log, and a sync would cost the stop
    // hook several milliseconds on every call.
    let dir = log.dir();
    if files::check_state_links(&dir.join(SNAPSHOT)).is_err() {
        return;
    }
    if let Ok(mut temp) = tempfile::Builder::new()
        .prefix(".car-tmp-")
        .tempfile_in(&dir)
        && std::io::Write::write_all(&mut temp, text.as_bytes()).is_ok()
    {
        let _ = temp.persist(dir.join(SNAPSHOT));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Project;
    use crate::session::event::Event;

    fn deleted(file: &str) -> Event {
        Event::FileDeleted { file: file.into() }
    }

    #[test]
    fn cache_matches_a_full_read_and_survives_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let log = EventLog::for_session(&project, "s");
        log.append(1, deleted("a")).unwrap();
        assert_eq!(load(&log).unwrap().files.len(), 1);
        log.append(2, deleted("b")).unwrap();
        let cached = load(&log).unwrap();
        assert_eq!(cached.files.len(), 2);
        assert_eq!(cached.events, 2);
        // A torn line in progress is not consumed.
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .and_then(|mut file| std::io::Write::write_all(&mut file, b"{\"ts\":3,"))
            .unwrap();
        assert_eq!(load(&log).unwrap().events, 2);
        // The log replaced by another one: the cache is not trusted.
        std::fs::remove_file(log.path()).unwrap();
        log.append(4, deleted("zzzzzzzzzzzzzzzzzz")).unwrap();
        let replaced = load(&log).unwrap();
        assert_eq!(
            replaced.files.keys().collect::<Vec<_>>(),
            ["zzzzzzzzzzzzzzzzzz"]
        );
    }
}
