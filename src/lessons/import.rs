//! Importing a lessons file in the seed format (`car lessons import`, and `car install` finding
//! the Python lesson hook's `.claude/hooks/lessons.json`): every trigger must compile, else
//! nothing is imported; lessons already present (same scope and triggers) are skipped, so
//! importing twice adds nothing. The Python lesson hook's candidate pool
//! (`.claude/hooks/lesson_candidates.json`, errors seen once) joins car's pool the same way
//! ([`import_candidates`]): a candidate never warns, and it becomes a lesson only when car's own
//! learning sees the same trigger again.

use std::collections::HashSet;
use std::path::Path;

use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::LessonsError;
use crate::lessons::library;
use crate::lessons::model::{Entry, Lesson};
use crate::lessons::store::{self, CandidateFile, LessonFile};

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Imported {
    pub(crate) added: usize,
    pub(crate) skipped: usize,
}

/// Merges the lessons of `source` into the lessons file at `target`.
pub(crate) fn import_file(target: &Path, source: &Path) -> Result<Imported, LessonsError> {
    let incoming = LessonFile::load(source)?;
    let mut refused: Vec<String> = incoming.problems();
    for lesson in incoming.lessons() {
        for trigger in &lesson.triggers {
            if let Err(error) = trigger.engine() {
                refused.push(format!(
                    "{}: lesson {}: {error}",
                    source.display(),
                    lesson.id
                ));
            }
        }
    }
    if !refused.is_empty() {
        return Err(LessonsError::Invalid(format!(
            "nothing imported:\n  {}",
            refused.join("\n  ")
        )));
    }
    library::with_lessons(target, HOOK_LOCK_WAIT, |file| {
        let mut imported = Imported {
            added: 0,
            skipped: 0,
        };
        // One key per lesson present, so each incoming lesson costs one lookup: a team's library
        // of 10,000 moves over in linear time.
        let mut present: HashSet<(String, Vec<String>)> =
            file.lessons().map(Lesson::duplicate_key).collect();
        for lesson in incoming.lessons() {
            if !present.insert(lesson.duplicate_key()) {
                imported.skipped += 1;
                continue;
            }
            let mut lesson = lesson.clone();
            // Where it came from, unless the file says (a learned lesson keeps its source).
            lesson
                .extra
                .entry(crate::lessons::provenance::SOURCE_FIELD)
                .or_insert_with(|| {
                    serde_json::json!(crate::lessons::provenance::Source::Imported.as_str())
                });
            file.entries.push(Entry::Valid(lesson));
            imported.added += 1;
        }
        Ok((imported, imported.added > 0))
    })
}

/// Merges the candidates of the pool at `source` into the pool at `pool`; a candidate already
/// there (same scope and trigger), already a lesson of `lessons`, or without a trigger is skipped.
pub(crate) fn import_candidates(
    pool: &Path,
    lessons: &Path,
    source: &Path,
) -> Result<Imported, LessonsError> {
    let incoming = CandidateFile::load(source)?;
    let known = LessonFile::load(lessons)?;
    let learned: HashSet<(String, Vec<String>)> =
        known.lessons().map(Lesson::duplicate_key).collect();
    store::with_candidates(pool, HOOK_LOCK_WAIT, |file| {
        let mut imported = Imported {
            added: 0,
            skipped: incoming.unreadable.len(),
        };
        let mut present: HashSet<(String, String)> = file
            .candidates
            .iter()
            .map(|c| (c.scope.clone(), c.trigger.clone()))
            .collect();
        for candidate in incoming.candidates {
            let trigger = candidate.trigger.trim();
            let is_learned =
                learned.contains(&(candidate.scope.clone(), vec![candidate.trigger.clone()]));
            let blank = trigger.is_empty() || candidate.scope.trim().is_empty();
            if blank
                || is_learned
                || !present.insert((candidate.scope.clone(), candidate.trigger.clone()))
            {
                imported.skipped += 1;
                continue;
            }
            file.candidates.push(candidate);
            imported.added += 1;
        }
        Ok((imported, imported.added > 0))
    })
}
