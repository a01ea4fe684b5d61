//! Importing a lessons file in the seed format (`car lessons import`, and `car install` finding
//! seed 003's `.claude/hooks/lessons.json`): every trigger must compile, else nothing is
//! imported; lessons already present (same scope and triggers) are skipped, so importing twice
//! adds nothing.

use std::path::Path;

use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::LessonsError;
use crate::lessons::library;
use crate::lessons::model::Entry;
use crate::lessons::store::LessonFile;

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
        for lesson in incoming.lessons() {
            let triggers = lesson.trigger_texts();
            if file
                .lessons()
                .any(|l| l.is_duplicate_of(lesson.scope.as_str(), &triggers))
            {
                imported.skipped += 1;
                continue;
            }
            file.entries.push(Entry::Valid(lesson.clone()));
            imported.added += 1;
        }
        Ok((imported, imported.added > 0))
    })
}
