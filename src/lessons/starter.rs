//! car's starter lessons: the files in the repository's `lessons/` folder, compiled into the
//! binary, offered by `car install`. Each is a precise trigger for a common agent mistake in
//! Python, TypeScript, Rust or shell, and carries examples that must fire and must not.

use crate::clock::Clock;
use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::LessonsError;
use crate::lessons::library;
use crate::lessons::model::{Entry, Lesson};
use crate::lessons::store::LessonFile;
use crate::project::Project;

/// `(file name, contents)` of every shipped starter file.
pub(crate) const STARTER_FILES: &[(&str, &str)] = &[
    ("python.json", include_str!("../../lessons/python.json")),
    (
        "typescript.json",
        include_str!("../../lessons/typescript.json"),
    ),
    ("rust.json", include_str!("../../lessons/rust.json")),
    ("shell.json", include_str!("../../lessons/shell.json")),
];

/// Every starter lesson (ids assigned from scope and triggers).
pub(crate) fn starter_lessons() -> Result<Vec<Lesson>, LessonsError> {
    let mut lessons = Vec::new();
    for (name, text) in STARTER_FILES {
        let file = LessonFile::parse(std::path::Path::new(&format!("lessons/{name}")), text)?;
        if let Some(problem) = file.problems().first() {
            return Err(LessonsError::Invalid(problem.clone()));
        }
        lessons.extend(file.lessons().cloned());
    }
    Ok(lessons)
}

/// Merges the starter lessons into the project's lessons file, skipping any already there (same
/// id, or same scope and triggers). Returns how many were added.
pub(crate) fn install_starter_lessons(
    project: &Project,
    clock: Clock,
) -> Result<usize, LessonsError> {
    let starters = starter_lessons()?;
    library::with_lessons(&project.lessons_file(), HOOK_LOCK_WAIT, |file| {
        let mut added = 0;
        for mut lesson in starters {
            let triggers = lesson.trigger_texts();
            let present = file.lessons().any(|existing| {
                existing.id == lesson.id
                    || existing.is_duplicate_of(lesson.scope.as_str(), &triggers)
            });
            if present {
                continue;
            }
            lesson.created = Some(clock.today());
            lesson
                .extra
                .insert("source".into(), serde_json::json!("starter"));
            file.entries.push(Entry::Valid(lesson));
            added += 1;
        }
        Ok((added, added > 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::examples::check_examples;

    #[test]
    fn every_starter_lesson_compiles_and_passes_its_examples() {
        let lessons = starter_lessons().unwrap();
        assert!(lessons.len() >= 12);
        for lesson in &lessons {
            for trigger in &lesson.triggers {
                trigger.engine().unwrap();
            }
            assert!(lesson.examples.is_some(), "{} has no examples", lesson.id);
            check_examples(lesson).unwrap_or_else(|e| panic!("{}: {e}", lesson.text));
        }
    }

    #[test]
    fn installing_twice_adds_nothing_the_second_time() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let clock = Clock::fixed(1_780_000_000);
        let first = install_starter_lessons(&project, clock).unwrap();
        assert_eq!(first, starter_lessons().unwrap().len());
        assert_eq!(install_starter_lessons(&project, clock).unwrap(), 0);
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        assert_eq!(file.lessons().count(), first);
    }
}
