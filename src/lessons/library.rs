//! The project's lesson library as one thing: `lessons.json` (the seed-format file a team shares),
//! its hit log (`hits`: counters recorded since the last rewrite) and its index (`cache`: what the
//! hook reads instead of parsing the file).
//!
//! Invariants:
//! - Readers see live values: [`load_live`] is the file with the pending hits applied; `car
//!   lessons list/show/export`, `maintain --dry-run`, distill and replay all read through it.
//! - Every rewrite goes through [`with_lessons`]: under the file's lock, on a fresh live read, so
//!   `change` sees (and a merge sums) the live counters. When it writes, the pending hits are in
//!   the new file, so the log is emptied after the rename, still under the lock; and the index is
//!   rebuilt from the very content written, so the next edit does not pay for a rebuild.
//! - A rewrite moves the lessons its live counters retire into the retired file
//!   ([`retired::move_out`]), so every path that writes (fold, maintain, add, rm) retires them.
//! - A crash between the rename and emptying the log would count those hits twice: the window is
//!   one `unlink`, and a fold is never interrupted by car itself.

use std::path::Path;
use std::time::Duration;

use crate::files::FileLock;
use crate::lessons::LessonsError;
use crate::lessons::cache;
use crate::lessons::counters::fold;
use crate::lessons::counters::hits::{self, Hit, HitLog};
use crate::lessons::counters::retired;
use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;

/// The lessons file with the hits still pending in its log applied: the values every reader
/// shows. No lock: the file is replaced by rename and the log grows by whole lines.
pub(crate) fn load_live(path: &Path) -> Result<LessonFile, LessonsError> {
    let mut file = LessonFile::load(path)?;
    apply_pending(&mut file)?;
    Ok(file)
}

fn apply_pending(file: &mut LessonFile) -> Result<Vec<Hit>, LessonsError> {
    let pending = HitLog::of(&file.path).read()?;
    hits::apply(file.lessons_mut(), &pending);
    file.pending_hits = pending.len();
    Ok(pending)
}

/// Load (live), change and save the lessons file under its lock. `change` returns its result and
/// whether it changed anything; nothing is written otherwise (the log then stays pending).
pub(crate) fn with_lessons<T>(
    path: &Path,
    wait: Duration,
    change: impl FnOnce(&mut LessonFile) -> Result<(T, bool), LessonsError>,
) -> Result<T, LessonsError> {
    let lock = FileLock::acquire(path, wait)?;
    change_locked(path, &lock, change)
}

/// [`with_lessons`] for a caller that holds the lock.
fn change_locked<T>(
    path: &Path,
    lock: &FileLock,
    change: impl FnOnce(&mut LessonFile) -> Result<(T, bool), LessonsError>,
) -> Result<T, LessonsError> {
    let mut file = LessonFile::load(path)?;
    let pending = apply_pending(&mut file)?;
    let (result, mut changed) = change(&mut file)?;
    if changed || file.pending_hits > 0 {
        changed |= !retired::move_out(&mut file, &pending)?.is_empty();
    }
    if changed {
        save_folded(&file, lock)?;
    }
    Ok(result)
}

/// Writes `file` (which holds the pending hits), empties the log and refreshes the index.
fn save_folded(file: &LessonFile, lock: &FileLock) -> Result<(), LessonsError> {
    file.save()?;
    if file.pending_hits > 0 {
        HitLog::of(&file.path).clear(lock)?;
    }
    cache::refresh(file);
    Ok(())
}

/// Adds `lesson` to the lessons file at `path` unless the same lesson (scope and triggers) is
/// there; whether it added it.
pub(crate) fn add(path: &Path, lesson: Lesson) -> Result<bool, LessonsError> {
    with_lessons(path, crate::files::HOOK_LOCK_WAIT, |file| {
        let triggers = lesson.trigger_texts();
        if file
            .lessons()
            .any(|l| l.is_duplicate_of(lesson.scope.as_str(), &triggers))
        {
            return Ok((false, false));
        }
        file.entries
            .push(crate::lessons::model::Entry::Valid(lesson));
        Ok((true, true))
    })
}

/// Folds the pending hits into the file; how many hits the log held. Only the lessons that were
/// hit are rewritten when the file allows it (`fold`), the index is patched rather than rebuilt;
/// otherwise the general rewrite runs. A log whose lessons file is gone is dropped (there is
/// nothing to count the hits on).
pub(crate) fn fold(path: &Path, wait: Duration) -> Result<usize, LessonsError> {
    let log = HitLog::of(path);
    if log.size() == 0 {
        return Ok(0);
    }
    let lock = FileLock::acquire(path, wait)?;
    let pending = log.read()?;
    if pending.is_empty() || !path.exists() {
        log.clear(&lock)?;
        return Ok(pending.len());
    }
    if fold_in_place(path, &pending)? {
        log.clear(&lock)?;
        return Ok(pending.len());
    }
    change_locked(path, &lock, |file| {
        Ok((file.pending_hits, file.pending_hits > 0))
    })
}

/// The in-place fold; whether it applied. The caller holds the lock.
fn fold_in_place(path: &Path, pending: &[Hit]) -> Result<bool, LessonsError> {
    let previous = cache::Stamp::of(path);
    let Some(text) = crate::files::read_optional(path)? else {
        return Ok(false);
    };
    let Some((folded, changed)) = fold::fold_text(&text, pending) else {
        return Ok(false);
    };
    crate::files::write_atomic(path, folded.as_bytes())?;
    let changed: Vec<&Lesson> = changed.iter().collect();
    let patched = previous.is_some_and(|previous| cache::patch(path, previous, &changed));
    if !patched {
        cache::refresh(&LessonFile::load(path)?);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::HOOK_LOCK_WAIT;
    use serde_json::{Value, json};

    const SEED: &str = r#"{"lessons": [{"scope": "*.py", "triggers": ["import os.path"],
        "lesson": "use pathlib", "weight": 2, "hits": 1, "last_decay_at": 5,
        "created": "2026-05-21", "zeta": {"keep": true}, "alpha": 1}], "version": 3}"#;

    fn record(path: &Path, at: i64) {
        let id = LessonFile::load(path)
            .unwrap()
            .lessons()
            .next()
            .unwrap()
            .id
            .clone();
        let lock = FileLock::acquire(path, HOOK_LOCK_WAIT).unwrap();
        HitLog::of(path)
            .append(
                &[Hit::new(
                    &id,
                    at,
                    crate::lessons::counters::outcome::Outcome::Heeded,
                )],
                &lock,
            )
            .unwrap();
    }

    #[test]
    fn readers_see_pending_hits_and_a_fold_writes_exactly_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        std::fs::write(&path, SEED).unwrap();
        record(&path, 100);
        record(&path, 200);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            SEED,
            "a hit never rewrites"
        );
        let live = load_live(&path).unwrap();
        let lesson = live.lessons().next().unwrap();
        assert_eq!(
            (lesson.weight, lesson.hits, lesson.last_hit),
            (4, 3, Some(200))
        );
        assert_eq!(live.pending_hits, 2);
        assert_eq!(fold(&path, HOOK_LOCK_WAIT).unwrap(), 2);
        assert!(!HitLog::of(&path).path().exists());
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let lesson = &written["lessons"][0];
        assert_eq!((&lesson["weight"], &lesson["hits"]), (&json!(4), &json!(3)));
        assert_eq!(lesson["last_hit"], 200);
        assert!(lesson.get("last_decay_at").is_none());
        assert_eq!(
            (&lesson["zeta"], &written["version"]),
            (&json!({"keep": true}), &json!(3))
        );
        assert_eq!(
            fold(&path, HOOK_LOCK_WAIT).unwrap(),
            0,
            "nothing left to fold"
        );
        // The index follows the fold: the next edit reads the new counters without a rebuild.
        let index_is_fresh = || {
            let stamp = cache::Stamp::of(&path).unwrap();
            let index = std::fs::read(cache::index_path(&path)).unwrap();
            index == cache::build(&LessonFile::load(&path).unwrap(), stamp)
        };
        assert!(index_is_fresh());
        // The file now stores its ids: the next fold rewrites only the lesson hit, in place, and
        // patches the index to exactly what a rebuild gives.
        let before = std::fs::read_to_string(&path).unwrap();
        record(&path, 300);
        assert_eq!(fold(&path, HOOK_LOCK_WAIT).unwrap(), 1);
        let expected = before
            .replace("\"weight\": 4", "\"weight\": 5")
            .replace("\"hits\": 3", "\"hits\": 4")
            .replace("\"last_hit\": 200", "\"last_hit\": 300")
            .replace("\"heeded\": 2", "\"heeded\": 3");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
        assert!(index_is_fresh());
    }

    #[test]
    fn a_rewrite_folds_and_a_no_change_leaves_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        std::fs::write(&path, SEED).unwrap();
        record(&path, 100);
        with_lessons(&path, HOOK_LOCK_WAIT, |file| {
            assert_eq!(
                file.lessons().next().unwrap().hits,
                2,
                "change sees live values"
            );
            Ok(((), false))
        })
        .unwrap();
        assert!(HitLog::of(&path).path().exists(), "no write, no fold");
        with_lessons(&path, HOOK_LOCK_WAIT, |file| {
            file.extra.insert("touched".into(), json!(true));
            Ok(((), true))
        })
        .unwrap();
        assert!(!HitLog::of(&path).path().exists());
        assert_eq!(
            LessonFile::load(&path)
                .unwrap()
                .lessons()
                .next()
                .unwrap()
                .hits,
            2
        );
    }

    #[test]
    fn a_corrupt_file_keeps_its_log_and_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        std::fs::write(&path, SEED).unwrap();
        record(&path, 100);
        std::fs::write(&path, "{\"lessons\": [,]}").unwrap();
        assert!(fold(&path, HOOK_LOCK_WAIT).is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"lessons\": [,]}"
        );
        assert_eq!(HitLog::of(&path).read().unwrap().len(), 1);
    }
}
