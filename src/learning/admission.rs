//! Where a lesson car learned and verified goes, by the setting `learning`: into the lessons at
//! once (`auto`), or into the proposals a person accepts or rejects (`approve`, `observe`;
//! [`crate::lessons::proposals`]). The one door for every learned lesson: fixed review findings,
//! a person's corrections, review history, checker errors.

use crate::lessons::model::Lesson;
use crate::lessons::proposals::{self, Proposed, Rejection};
use crate::lessons::{LessonScope, LessonsError, library};

/// What became of a learned lesson.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Admitted {
    /// It is a lesson now (or the same lesson was already there).
    Lesson,
    /// It waits for a person (or the same proposal waited already).
    Proposed,
    /// A person rejected it, or one learned from the same evidence, before.
    Rejected(Rejection),
}

/// Adds `lesson` to the lessons or the proposals, as the setting says.
pub(crate) fn admit(scope: &LessonScope<'_>, lesson: Lesson) -> Result<Admitted, LessonsError> {
    if scope.settings.learning.waits_for_a_person() {
        return Ok(
            match proposals::propose(scope.project, lesson, scope.clock.now())? {
                Proposed::Waiting | Proposed::AlreadyWaiting => Admitted::Proposed,
                Proposed::Rejected(rejection) => Admitted::Rejected(rejection),
            },
        );
    }
    library::add(&scope.project.lessons_file(), lesson)?;
    Ok(Admitted::Lesson)
}
