//! The hit log: `lessons.json.hits` beside the lessons file, one short line per warning outcome
//! (`{"id":"4f2a9c01de","at":1780000000,"outcome":"heeded"}`; see [`crate::lessons::counters::outcome`]).
//! A line without an outcome (written by car before outcomes existed) is a plain hit.
//!
//! Why: the seed format keeps a lesson's counters (`weight`, `hits`, `last_hit`,
//! `last_decay_at`) inside `lessons.json`, so recording a hit by rewriting the file costs time in
//! proportion to the library (170 ms at 10,000 lessons). Appending a line costs the same at any
//! size. The log is folded into the file later, where a rewrite happens anyway (`library`).
//!
//! Invariants:
//! - A line is appended under the lessons file's own lock, the one every rewrite takes, so a fold
//!   and an append never interleave and no hit is lost or counted twice by parallel hooks.
//! - Readers take no lock: a line is whole once its newline is written; a last line without one
//!   (being written, or torn by a killed writer) and any line car cannot read are skipped, and the
//!   next append starts on a fresh line ([`crate::files::append_line_locked`]).
//! - The live value of a lesson is the file's value with the pending hits applied in log order
//!   by [`apply`], the one function every reader goes through; a fold applies the same hits the
//!   same way, so what a reader showed is what the file holds after the fold.
//! - Hits of a lesson that no longer exists (removed, or its triggers edited by hand so its
//!   computed id changed) are dropped at the fold.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError, FileLock};
use crate::lessons::counters::outcome::Outcome;
use crate::lessons::model::Lesson;

/// Past this size the log is folded by the next hook that records a hit (about 1,700 hits): a
/// session that never ends (an agent without a SessionEnd hook) still keeps the log, and every
/// read of it, small.
pub(crate) const FOLD_FROM: u64 = 64 * 1024;

/// A log larger than this is not read: its hits wait for the fold, which reads it whole.
const READ_LIMIT: u64 = 64 * 1024 * 1024;

/// One recorded warning outcome: which lesson, when, and what became of the warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hit {
    pub(crate) id: String,
    pub(crate) at: i64,
    /// `None` in lines from before outcomes: counted as a plain hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<Outcome>,
}

impl Hit {
    pub(crate) fn new(id: &str, at: i64, outcome: Outcome) -> Hit {
        Hit {
            id: id.to_string(),
            at,
            outcome: Some(outcome),
        }
    }
}

/// The pending hits of one lessons file.
#[derive(Debug, Clone)]
pub(crate) struct HitLog {
    path: PathBuf,
}

impl HitLog {
    /// The log that belongs to `lessons_file`.
    pub(crate) fn of(lessons_file: &Path) -> HitLog {
        HitLog {
            path: files::sidecar(lessons_file, crate::state::names::HITS_SUFFIX),
        }
    }

    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes in the log (0 when there is none).
    pub(crate) fn size(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |meta| meta.len())
    }

    /// The pending hits, oldest first; a missing log is empty.
    pub(crate) fn read(&self) -> Result<Vec<Hit>, FileError> {
        let bytes = match files::read_bounded(&self.path, READ_LIMIT) {
            Ok(bytes) => bytes,
            Err(FileError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Vec::new());
            }
            Err(error) => return Err(error),
        };
        Ok(parse(&bytes))
    }

    /// Appends `hits` in one write. `lock` is the lessons file's lock.
    pub(crate) fn append(&self, hits: &[Hit], lock: &FileLock) -> Result<(), FileError> {
        let lines: Vec<String> = hits
            .iter()
            .map(|hit| serde_json::to_string(hit).unwrap_or_default())
            .collect();
        files::append_line_locked(&self.path, &lines.join("\n"), lock)
    }

    /// Empties the log once its hits are in the lessons file. `_lock` is the lessons file's lock,
    /// held since the hits were read.
    pub(crate) fn clear(&self, _lock: &FileLock) -> Result<(), FileError> {
        match std::fs::remove_file(&self.path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(FileError::io(&self.path, error))
            }
            _ => Ok(()),
        }
    }
}

/// Whole, readable lines; the rest is skipped.
fn parse(bytes: &[u8]) -> Vec<Hit> {
    let complete = bytes
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |index| index + 1);
    bytes[..complete]
        .split(|byte| *byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Hit>(line).ok())
        .collect()
}

/// Applies `hits` in order to the lessons they name ([`Lesson::record_outcome`]; a line without
/// an outcome is a plain hit: weight +1 up to 10, hits +1, `last_hit` = its time, `last_decay_at`
/// cleared); returns how many applied.
pub(crate) fn apply<'a>(lessons: impl Iterator<Item = &'a mut Lesson>, hits: &[Hit]) -> usize {
    if hits.is_empty() {
        return 0;
    }
    let mut by_id: HashMap<&str, Vec<&Hit>> = HashMap::new();
    for hit in hits {
        by_id.entry(hit.id.as_str()).or_default().push(hit);
    }
    let mut applied = 0;
    for lesson in lessons {
        if let Some(found) = by_id.get(lesson.id.as_str()) {
            for hit in found {
                match hit.outcome {
                    Some(outcome) => {
                        lesson.record_outcome(outcome, hit.at);
                    }
                    None => lesson.record_hit(hit.at),
                }
            }
            applied += found.len();
        }
    }
    applied
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::HOOK_LOCK_WAIT;

    fn lesson(id: &str, weight: u32) -> Lesson {
        Lesson::from_value(
            &serde_json::json!({"id": id, "scope": "*", "triggers": ["abcd"],
            "lesson": "l", "weight": weight, "last_decay_at": 5}),
        )
        .unwrap()
    }

    #[test]
    fn appended_hits_read_back_in_order_and_apply_like_hits_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let lessons_file = dir.path().join("lessons.json");
        let log = HitLog::of(&lessons_file);
        assert!(log.read().unwrap().is_empty(), "no log is no hit");
        let lock = FileLock::acquire(&lessons_file, HOOK_LOCK_WAIT).unwrap();
        let heeded = |id: &str, at| Hit::new(id, at, Outcome::Heeded);
        log.append(&[heeded("a", 100), heeded("b", 100)], &lock)
            .unwrap();
        log.append(
            &[heeded("a", 200), Hit::new("c", 300, Outcome::Ignored)],
            &lock,
        )
        .unwrap();
        let hits = log.read().unwrap();
        assert_eq!(hits.len(), 4);
        let mut lessons = [lesson("a", 9), lesson("b", 1), lesson("c", 1)];
        assert_eq!(apply(lessons.iter_mut(), &hits), 4);
        let mut by_hand = lesson("a", 9);
        by_hand.record_outcome(Outcome::Heeded, 100);
        by_hand.record_outcome(Outcome::Heeded, 200);
        assert_eq!(
            (lessons[0].weight, lessons[0].hits, lessons[0].last_hit),
            (by_hand.weight, by_hand.hits, by_hand.last_hit)
        );
        assert_eq!((lessons[0].weight, lessons[0].last_decay_at), (10, None));
        assert_eq!((lessons[0].heeded, lessons[0].ignored), (2, 0));
        assert_eq!((lessons[1].weight, lessons[1].last_hit), (2, Some(100)));
        assert_eq!(
            (lessons[2].weight, lessons[2].hits, lessons[2].ignored),
            (1, 0, 1)
        );
        log.clear(&lock).unwrap();
        assert!(log.read().unwrap().is_empty());
        assert!(!log.path().exists());
    }

    #[test]
    fn a_line_without_an_outcome_is_a_plain_hit() {
        let hits = parse(b"{\"id\":\"a\",\"at\":7}\n");
        let mut lessons = [lesson("a", 2)];
        apply(lessons.iter_mut(), &hits);
        assert_eq!(
            (lessons[0].weight, lessons[0].hits, lessons[0].heeded),
            (3, 1, 0)
        );
    }

    #[test]
    fn torn_and_unreadable_lines_are_skipped_and_do_not_swallow_the_next_hit() {
        let dir = tempfile::tempdir().unwrap();
        let lessons_file = dir.path().join("lessons.json");
        let log = HitLog::of(&lessons_file);
        std::fs::write(
            log.path(),
            "{\"id\":\"a\",\"at\":1}\nnot json\n{\"id\":\"b\",\"a",
        )
        .unwrap();
        assert_eq!(
            log.read().unwrap(),
            [Hit {
                id: "a".into(),
                at: 1,
                outcome: None,
            }]
        );
        let lock = FileLock::acquire(&lessons_file, HOOK_LOCK_WAIT).unwrap();
        log.append(&[Hit::new("c", 3, Outcome::Heeded)], &lock)
            .unwrap();
        let ids: Vec<String> = log.read().unwrap().into_iter().map(|hit| hit.id).collect();
        assert_eq!(ids, ["a", "c"]);
    }
}
