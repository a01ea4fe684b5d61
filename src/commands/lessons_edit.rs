//! `car lessons rm ID` and `car lessons edit ID [--lesson TEXT] [--scope GLOB] [--weight N]`:
//! the two commands that change one lesson a person names. The lesson is named by its id or a
//! prefix of at least [`MIN_PREFIX`] characters (a one-letter prefix is too easy to type by
//! mistake for a command that deletes), and shown as it was, so the person sees what changed.
//!
//! Invariants: written through the library (under its lock, the hit log folded, the index
//! rebuilt); an edit keeps the lesson's id, triggers, counters, source and evidence; an edited
//! lesson must still pass its own examples and must not duplicate another lesson of the scope;
//! bad input is a usage error (exit 2) naming the option.

use crate::commands::Outcome;
use crate::commands::lesson_lookup::{describe, not_found, resolve};
use crate::error::Error;
use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::library;
use crate::lessons::model::MAX_WEIGHT;
use crate::output;
use crate::project::Project;
use crate::scope::Scope;

/// The shortest id prefix that names a lesson to remove or edit.
const MIN_PREFIX: usize = 4;

/// What `car lessons edit` changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Change {
    pub(crate) lesson: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) weight: Option<u32>,
}

/// The full id `id` names in the project's file, refusing a prefix shorter than [`MIN_PREFIX`].
fn named(project: &Project, id: &str) -> Result<String, Error> {
    let file = library::load_live(&project.lessons_file())?;
    let full = resolve(project, id, &[&file])?;
    if full != id.trim() && id.trim().chars().count() < MIN_PREFIX {
        return Err(Error::Usage(format!(
            "{id:?} is too short to name a lesson for this command; give at least {MIN_PREFIX} characters of the id ({full})"
        )));
    }
    Ok(full)
}

pub(crate) fn remove(project: &Project, id: &str) -> Result<Outcome, Error> {
    let id = named(project, id)?;
    let removed = library::with_lessons(&project.lessons_file(), HOOK_LOCK_WAIT, |file| {
        let shown = file.find(&id).map(|lesson| describe(lesson, "project"));
        let removed = file.remove(&id);
        Ok((shown.filter(|_| removed), removed))
    })?;
    let Some(shown) = removed else {
        return Err(not_found(project, &id));
    };
    output::print_data(&shown);
    output::print_message(&format!(
        "removed lesson {id} (`car lessons add` with the same scope and triggers brings it back)"
    ));
    Ok(Outcome::Success)
}

pub(crate) fn edit(project: &Project, id: &str, change: Change) -> Result<Outcome, Error> {
    let scope = checked(&change)?;
    let id = named(project, id)?;
    let edited = library::with_lessons(&project.lessons_file(), HOOK_LOCK_WAIT, |file| {
        let Some(before) = file.find(&id).cloned() else {
            return Ok((None, false));
        };
        let mut after = before.clone();
        if let Some(text) = &change.lesson {
            after.text = text.trim().to_string();
        }
        if let Some(scope) = &scope {
            after.scope = scope.clone();
        }
        if let Some(weight) = change.weight {
            after.weight = weight;
        }
        let triggers = after.trigger_texts();
        let duplicate = file
            .lessons()
            .find(|other| other.id != id && other.is_duplicate_of(after.scope.as_str(), &triggers));
        if let Some(other) = duplicate {
            return Err(crate::lessons::LessonsError::Duplicate {
                id: other.id.clone(),
                scope: after.scope.as_str().to_string(),
            });
        }
        crate::lessons::examples::check_examples(&after)
            .map_err(|failure| crate::lessons::LessonsError::Invalid(failure.to_string()))?;
        let shown = (describe(&before, "project"), describe(&after, "project"));
        if let Some(lesson) = file.lessons_mut().find(|lesson| lesson.id == id) {
            *lesson = after;
        }
        Ok((Some(shown), true))
    })?;
    let Some((before, after)) = edited else {
        return Err(not_found(project, &id));
    };
    output::print_data(&format!("before:\n{before}\n\nafter:\n{after}"));
    output::print_message(&format!("edited lesson {id}"));
    Ok(Outcome::Success)
}

/// The change's values checked: something to change, a scope that parses, a weight in range,
/// a text that says something.
fn checked(change: &Change) -> Result<Option<Scope>, Error> {
    if change.lesson.is_none() && change.scope.is_none() && change.weight.is_none() {
        return Err(Error::Usage(
            "say what to change: --lesson TEXT, --scope GLOB and/or --weight N".into(),
        ));
    }
    if change
        .lesson
        .as_ref()
        .is_some_and(|text| text.trim().is_empty())
    {
        return Err(Error::Usage("--lesson must say what to remember".into()));
    }
    if let Some(weight) = change.weight
        && (weight == 0 || weight > MAX_WEIGHT)
    {
        return Err(Error::Usage(format!(
            "--weight {weight} must be 1–{MAX_WEIGHT}"
        )));
    }
    change
        .scope
        .as_ref()
        .map(|glob| {
            Scope::parse(glob)
                .map_err(|message| Error::Usage(format!("--scope {glob:?}: {message}")))
        })
        .transpose()
}
