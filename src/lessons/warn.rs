//! Matching one edit against the layered lessons.
//!
//! Invariants: matching only reads (no lock, no write): a warning shown counts for its lesson
//! only once the agent heeds it, which `learning::heed` records. The weight a warning shows is the
//! live one (the file's, with the outcomes pending in the hit log applied); a lesson retired by
//! pending outcomes no longer warns. User-wide lessons are never written by the hook. A corrupt
//! project file disables only its own lessons, with a note naming the file and line, and is never
//! rewritten.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::edit::{CarriedOver, Edit};
use crate::lessons::cache::{self, Shortlist};
use crate::lessons::counters::hits::{self, HitLog};
use crate::lessons::matcher::{EDIT_BUDGET, LessonIndex};
use crate::lessons::model::Lesson;
use crate::lessons::placement::Placement;
use crate::lessons::store::{self, LessonFile};
use crate::lessons::{EditLessons, LessonScope, LessonsError, Warning};

/// The project's and the user's lessons, as read for one hook call. Of the project's lessons
/// only those that may fire on the edit are read, through the on-disk index (`cache`).
#[derive(Debug, Default)]
pub(crate) struct Layers {
    /// `None` when the project's file could not be read (a note says why).
    pub(crate) project: Option<Shortlist>,
    pub(crate) user: Option<Shortlist>,
}

impl Layers {
    /// Reads both layers for the edit's added text; problems become notes.
    pub(crate) fn load(scope: &LessonScope<'_>, edit: &Edit, notes: &mut Vec<String>) -> Layers {
        let text = edit.added_text();
        let lessons_file = scope.project.lessons_file();
        let index = cache::index_path(&lessons_file);
        let project = match cache::shortlist_with(&lessons_file, &index, &text, scope.record) {
            Ok(shortlist) => Some(shortlist),
            Err(error) => {
                notes.push(broken_file_note(&error));
                None
            }
        };
        let user_file = scope.user_layer.then(store::user_lessons_path).flatten();
        let user = user_file.and_then(|path| {
            let result = match store::user_index_path() {
                Some(index) => cache::shortlist_with(&path, &index, &text, scope.record),
                None => LessonFile::load(&path).map(|file| {
                    let lessons: Vec<&Lesson> = file.lessons().collect();
                    cache::shortlist_in_memory(&lessons, &text.to_ascii_lowercase())
                }),
            };
            result
                .map_err(|error| notes.push(broken_file_note(&error)))
                .ok()
        });
        Layers { project, user }
    }

    /// Whether a learned project lesson waits for the fix of an error in this file.
    pub(crate) fn has_pending_fix(&self, relative_path: &str) -> bool {
        self.project.as_ref().is_some_and(|shortlist| {
            shortlist
                .pending_fix_files
                .iter()
                .any(|file| file == relative_path)
        })
    }

    /// Project lessons first, then user lessons the project does not override (same id).
    pub(crate) fn active(&self) -> Vec<(&Lesson, bool)> {
        let mut active: Vec<(&Lesson, bool)> = Vec::new();
        if let Some(project) = &self.project {
            active.extend(
                project
                    .lessons
                    .iter()
                    .filter(|lesson| !lesson.is_retired())
                    .map(|lesson| (lesson, true)),
            );
        }
        if let Some(user) = &self.user {
            let ids: std::collections::HashSet<&str> = active
                .iter()
                .map(|(lesson, _)| lesson.id.as_str())
                .collect();
            let extra: Vec<(&Lesson, bool)> = user
                .lessons
                .iter()
                .filter(|lesson| !ids.contains(lesson.id.as_str()))
                .map(|lesson| (lesson, false))
                .collect();
            active.extend(extra);
        }
        active
    }
}

/// The note for a lessons file car cannot read.
pub(crate) fn broken_file_note(error: &LessonsError) -> String {
    format!("{error}; its lessons were not checked. Fix the file by hand")
}

/// Finds the lessons the edit's added lines trigger.
pub(crate) fn match_edit(
    scope: &LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    layers: &Layers,
    out: &mut EditLessons,
) {
    if edit.added.is_empty() {
        return;
    }
    let active = layers.active();
    let lessons: Vec<&Lesson> = active.iter().map(|(lesson, _)| *lesson).collect();
    let index = LessonIndex::new(&lessons);
    let mut outcome = index.find(&edit.relative_path, &edit.added, EDIT_BUDGET);
    out.notes.extend(outcome.problems);
    confirm_placement(edit, &lessons, &mut outcome.hits);
    outcome
        .hits
        .retain(|hit| is_reported_again(lessons[hit.lesson], diagnostics));
    outcome
        .hits
        .retain(|hit| !lessons[hit.lesson].is_silenced(&edit.content, hit.line));
    drop_carried_over(edit, &mut outcome.hits);
    if outcome.hits.is_empty() {
        return;
    }
    let fired: Vec<&Lesson> = outcome
        .hits
        .iter()
        .filter(|hit| active[hit.lesson].1)
        .map(|hit| lessons[hit.lesson])
        .collect();
    let live = if fired.is_empty() {
        HashMap::new()
    } else {
        live_lessons(scope, &fired, out)
    };
    for hit in &outcome.hits {
        let lesson = lessons[hit.lesson];
        let live = live.get(&lesson.id).unwrap_or(lesson);
        if live.is_retired() {
            continue;
        }
        out.warnings.push(Warning {
            lesson_id: lesson.id.clone(),
            weight: live.weight,
            lesson: lesson.text.clone(),
            trigger: lesson.triggers[hit.trigger].as_str().to_string(),
            file: edit.relative_path.clone(),
            line: hit.line,
            origin: crate::lessons::provenance::describe(&lesson.extra),
        });
    }
}

/// Keeps the hits of lessons that match code as a person reads it only where they do
/// ([`Placement`]); the seed's substring lessons pass as they are.
fn confirm_placement(
    edit: &Edit,
    lessons: &[&Lesson],
    hits: &mut Vec<crate::lessons::matcher::Hit>,
) {
    if hits
        .iter()
        .all(|hit| lessons[hit.lesson].matching.is_substring())
    {
        return;
    }
    let placement = Placement::new(
        &edit.path,
        &edit.content,
        edit.language.as_deref(),
        &edit.added,
    );
    *hits = hits
        .iter()
        .filter_map(|hit| placement.confirm(lessons[hit.lesson], *hit))
        .collect();
}

/// Whether a lesson learned from a checker's error has its error again in this edit (always
/// true for the other lessons): the module is missing here too, the name undefined here too.
fn is_reported_again(lesson: &Lesson, diagnostics: &[Diagnostic]) -> bool {
    let Some(subject) = &lesson.error_subject else {
        return true;
    };
    diagnostics
        .iter()
        .any(|diagnostic| diagnostic.subject.as_deref().map(str::trim) == Some(subject.as_str()))
}

/// Drops hits on lines the edit moved or re-indented rather than wrote ([`CarriedOver`]).
fn drop_carried_over(edit: &Edit, hits: &mut Vec<crate::lessons::matcher::Hit>) {
    let Some(before) = edit.before.as_deref() else {
        return;
    };
    if hits.is_empty() {
        return;
    }
    let carried = CarriedOver::new(before, &edit.content);
    let lines: Vec<&str> = edit.content.lines().collect();
    hits.retain(|hit| {
        let text = hit.line.checked_sub(1).and_then(|index| lines.get(index));
        !text.is_some_and(|text| carried.contains(text))
    });
}

/// The live value of each project lesson that fired: the file's, with the outcomes pending in
/// the hit log applied. Showing a warning writes nothing: it counts only once heeded
/// ([`crate::lessons::counters::outcome`]).
fn live_lessons(
    scope: &LessonScope<'_>,
    fired: &[&Lesson],
    out: &mut EditLessons,
) -> HashMap<String, Lesson> {
    let path = scope.project.lessons_file();
    let pending = match HitLog::of(&path).read() {
        Ok(pending) => pending,
        Err(error) => {
            out.notes.push(not_read_note(&error.into()));
            return HashMap::new();
        }
    };
    let mut live: Vec<Lesson> = fired.iter().map(|lesson| (*lesson).clone()).collect();
    hits::apply(live.iter_mut(), &pending);
    live.into_iter()
        .map(|lesson| (lesson.id.clone(), lesson))
        .collect()
}

fn not_read_note(error: &LessonsError) -> String {
    format!("the lessons' pending counters were not read: {error}")
}
