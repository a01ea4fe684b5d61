//! The session's lesson warnings as they stand now, for the P3 offer list and the review prompt's
//! pitfalls: a warning whose trigger no longer matches its file (the agent heeded it, or the file
//! is gone) is neither offered nor handed to the reviewer, and each one left carries its lesson's
//! live weight — a heed elsewhere in the session raised it — not the weight it was shown with.
//!
//! Invariants: nothing is written; a file or lessons file that cannot be read keeps the warning as
//! it was shown (rather an offer too many than one lost); a lesson no longer in the project's or
//! the user's lessons file (removed or retired since) is not offered.

use crate::lessons::Warning;
use crate::lessons::library;
use crate::lessons::store::LessonFile;
use crate::lessons::trigger::Trigger;
use crate::project::Project;

/// Largest file read back to see whether a warning still stands.
const READ_LIMIT: u64 = 2 * 1024 * 1024;

/// The warnings of `shown` that still stand, each with its lesson's live weight.
pub(crate) fn warnings(project: &Project, shown: &[Warning]) -> Vec<Warning> {
    let mut standing: Vec<Warning> = shown
        .iter()
        .filter(|warning| still_there(project, warning))
        .cloned()
        .collect();
    if standing.is_empty() {
        return standing;
    }
    let files: Vec<LessonFile> = [
        Some(project.lessons_file()),
        crate::lessons::store::user_lessons_path(),
    ]
    .into_iter()
    .flatten()
    .filter_map(|path| library::load_live(&path).ok())
    .collect();
    if files.is_empty() {
        return standing;
    }
    standing.retain_mut(|warning| {
        let live = files.iter().find_map(|file| file.find(&warning.lesson_id));
        if let Some(lesson) = live {
            warning.weight = lesson.weight;
        }
        live.is_some()
    });
    standing
}

fn still_there(project: &Project, warning: &Warning) -> bool {
    let Some(content) = project.read_inside(&warning.file, READ_LIMIT) else {
        // Gone, or not readable as text: gone counts as heeded, unreadable keeps it.
        return !project
            .checkout()
            .join(&warning.file)
            .try_exists()
            .is_ok_and(|found| !found);
    };
    Trigger::parse(&warning.trigger).map_or(true, |trigger| trigger.is_match(&content))
}
