//! Retired lessons: lessons the agent's warnings were only ever ignored for
//! ([`crate::lessons::counters::outcome`]), moved whole out of `lessons.json` into `retired-lessons.json`
//! beside it (the same seed format, each lesson with `retired_at` and `retired_because`), so
//! nothing is lost and `car lessons restore ID` brings one back.
//!
//! Invariants: the retired file is only written under the lessons file's lock, by the rewrite that
//! removes the lessons from `lessons.json` ([`crate::lessons::library`]); it is written first, so a
//! crash in between leaves a lesson in both files, never in neither. A retired file car cannot read
//! is an error naming it: the lessons stay where they are (they no longer match either way) and
//! the file is left byte-identical. The hook never reads this file.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::lessons::LessonsError;
use crate::lessons::counters::hits::Hit;
use crate::lessons::counters::outcome::RETIRE_AFTER;
use crate::lessons::model::{Entry, Lesson, PROMOTED_WEIGHT};
use crate::lessons::store::LessonFile;

/// The fields a retired lesson carries beyond its own.
const RETIRED_AT: &str = "retired_at";
const RETIRED_BECAUSE: &str = "retired_because";

/// The retired file that belongs to `lessons_file`.
pub(crate) fn path_of(lessons_file: &Path) -> PathBuf {
    lessons_file.with_file_name(crate::state::names::RETIRED_LESSONS)
}

/// Reads the retired lessons of `lessons_file` (none when the file does not exist).
pub(crate) fn load(lessons_file: &Path) -> Result<LessonFile, LessonsError> {
    LessonFile::load(&path_of(lessons_file))
}

/// Moves the lessons of `file` that are retired (their live counters, `pending` applied) into the
/// retired file; the ids moved. The caller holds the lessons file's lock and saves `file` after.
pub(crate) fn move_out(
    file: &mut LessonFile,
    pending: &[Hit],
) -> Result<Vec<String>, LessonsError> {
    let leaving: Vec<Lesson> = file
        .lessons()
        .filter(|lesson| lesson.is_retired())
        .cloned()
        .collect();
    if leaving.is_empty() {
        return Ok(Vec::new());
    }
    let mut retired = load(&file.path)?;
    let mut ids = Vec::with_capacity(leaving.len());
    for mut lesson in leaving {
        let at = pending
            .iter()
            .filter(|hit| hit.id == lesson.id)
            .map(|hit| hit.at)
            .max();
        lesson.extra.insert(RETIRED_AT.into(), json!(at));
        lesson.extra.insert(
            RETIRED_BECAUSE.into(),
            json!(format!(
                "warned {} times and never heeded; each time a review passed the warned line \
                 (retired after {RETIRE_AFTER})",
                lesson.ignored
            )),
        );
        retired.remove(&lesson.id);
        ids.push(lesson.id.clone());
        retired.entries.push(Entry::Valid(lesson));
    }
    retired.save()?;
    for id in &ids {
        file.remove(id);
    }
    Ok(ids)
}

/// Why a retired lesson was retired, as stored.
pub(crate) fn because(lesson: &Lesson) -> Option<&str> {
    lesson
        .extra
        .get(RETIRED_BECAUSE)
        .and_then(|value| value.as_str())
}

/// When a retired lesson was retired, as stored.
pub(crate) fn retired_at(lesson: &Lesson) -> Option<i64> {
    lesson
        .extra
        .get(RETIRED_AT)
        .and_then(serde_json::Value::as_i64)
}

/// Retired lesson `id` as it goes back into the library: its outcome counters cleared and its
/// weight at least that of a new lesson. `None` when no retired lesson has that id.
pub(crate) fn restored(lessons_file: &Path, id: &str) -> Result<Option<Lesson>, LessonsError> {
    let retired = load(lessons_file)?;
    let Some(mut lesson) = retired.find(id).cloned() else {
        return Ok(None);
    };
    lesson.extra.remove(RETIRED_AT);
    lesson.extra.remove(RETIRED_BECAUSE);
    lesson.heeded = 0;
    lesson.ignored = 0;
    lesson.weight = lesson.weight.max(PROMOTED_WEIGHT);
    Ok(Some(lesson))
}

/// Removes lesson `id` from the retired file once it is back in the lessons file (so a crash in
/// between leaves it in both). Takes the lessons file's lock.
pub(crate) fn forget(lessons_file: &Path, id: &str) -> Result<(), LessonsError> {
    let _lock = crate::files::FileLock::acquire(lessons_file, crate::files::HOOK_LOCK_WAIT)?;
    let mut retired = load(lessons_file)?;
    if retired.remove(id) {
        retired.save()?;
    }
    Ok(())
}
