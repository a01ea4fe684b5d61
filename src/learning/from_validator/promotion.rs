//! A checker's candidate seen twice with its fix known becomes a lesson: its trigger is the
//! error's subject, it fires only where the checker reports that subject again (a module
//! installed there, a name defined there, is no mistake), it is scoped to the sub-project where
//! it was seen, and it is verified the way it will match ([`verification`]): every line it was
//! written in matches, no fixed line does; in the project's code every match is the same
//! mistake (the checker would report it there), kept as a known instance.

use std::path::Path;

use serde_json::Value;

use super::place::{Place, fixed_line};
use super::{Errors, why_of};
use crate::edit::Edit;
use crate::files::HOOK_LOCK_WAIT;
use crate::learning::refusal::{Refusal, Refused};
use crate::learning::sighting::{
    Learned, Taught, after_sentence, example_of, instances_field, instances_note, learned_lesson,
};
use crate::learning::synthesis::Example;
use crate::learning::verification::{self, ProjectCode, Rule, Verified};
use crate::lessons::library;
use crate::lessons::model::{Candidate, Lesson, PENDING_FIX};
use crate::lessons::proposals::{self, Proposed};
use crate::lessons::provenance::{Evidence, KNOWN_INSTANCES_FIELD, Source};
use crate::lessons::store::LessonFile;
use crate::lessons::{LessonScope, LessonsError};

/// The verified lesson a ready candidate becomes (weight 2), and the places of the code it
/// already matches; else why not.
pub(super) fn promote(
    candidate: &Candidate,
    edit: &Edit,
    scope: &LessonScope<'_>,
    code: &mut ProjectCode<'_>,
) -> Result<(Lesson, Verified), Refusal> {
    let evidence = Evidence::all_of(&candidate.extra);
    let mut extra = serde_json::Map::new();
    if let Some(validator) = candidate.extra.get("validator") {
        extra.insert("validator".into(), validator.clone());
    }
    let lesson_scope =
        subproject_scope(scope.project.checkout(), &candidate.scope, &evidence, edit);
    let text = super::promoted_text(&why_of(candidate), &candidate.trigger, &evidence);
    let mut lesson = learned_lesson(
        Learned {
            source: Source::Validator,
            scope: &lesson_scope,
            trigger: &candidate.trigger,
            text,
            evidence: &evidence,
            error_subject: Some(&candidate.trigger),
        },
        extra,
        &scope.clock.today(),
    )
    .ok_or_else(|| {
        Refusal::Subject(crate::learning::precision::Refusal::NotAName(
            candidate.trigger.clone(),
        ))
    })?;
    let examples: Vec<Example<'_>> = evidence.iter().map(example_of).collect();
    verification::check_examples(&lesson, &examples)?;
    // The places where the error was seen and still waits for its fix are those sightings.
    let mut sightings: Vec<(&str, &str)> = evidence
        .iter()
        .map(|item| (item.file.as_str(), item.bad.as_str()))
        .collect();
    let waiting = Place::all_of(&candidate.extra);
    sightings.extend(
        waiting
            .iter()
            .map(|place| (place.file.as_str(), place.text.as_str())),
    );
    let verified = code.check(&lesson, Rule::Subject, &examples, &sightings)?;
    if verified.total > 0 {
        lesson
            .extra
            .insert(KNOWN_INSTANCES_FIELD.into(), instances_field(&verified));
    }
    Ok((lesson, verified))
}

/// Folders whose files make a folder a project of its own (a sub-project of a monorepo): a
/// missing module or an undefined name there says nothing about the folder beside it.
const PROJECT_FILES: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "requirements.txt",
    ".venv",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "Gemfile",
    "pom.xml",
    "build.gradle",
];

/// The lesson's scope: `kind` (`*.py`) inside the one sub-project every sighting was in
/// (`backend/**/*.py`), or `kind` when they were at the checkout's top or in several.
fn subproject_scope(checkout: &Path, kind: &str, evidence: &[Evidence], edit: &Edit) -> String {
    let mut folders = evidence
        .iter()
        .map(|item| item.file.as_str())
        .chain(std::iter::once(edit.relative_path.as_str()))
        .map(|file| subproject_of(checkout, file));
    let Some(first) = folders.next().flatten() else {
        return kind.to_string();
    };
    if folders.all(|folder| folder.as_deref() == Some(first.as_str())) {
        format!("{first}/**/{kind}")
    } else {
        kind.to_string()
    }
}

/// The nearest folder above `file` (below the checkout's top) with project files of its own.
pub(super) fn subproject_of(checkout: &Path, file: &str) -> Option<String> {
    let mut folder = Path::new(file).parent();
    while let Some(current) = folder.filter(|f| !f.as_os_str().is_empty()) {
        let absolute = checkout.join(current);
        if PROJECT_FILES
            .iter()
            .any(|name| absolute.join(name).symlink_metadata().is_ok())
        {
            return Some(current.to_string_lossy().replace('\\', "/"));
        }
        folder = current.parent();
    }
    None
}

/// A pending fix is done when its file was edited, its trigger's error is gone, and so is the
/// trigger (an error that vanished while the trigger stayed was not fixed by the agent).
fn fix_is_done(
    extra: &serde_json::Map<String, Value>,
    edit: &Edit,
    errors: &Errors,
    trigger: &str,
) -> bool {
    Place::all_of(extra)
        .iter()
        .any(|place| place.file == edit.relative_path)
        && !errors.reports(trigger)
        && !edit.content.contains(trigger)
}

/// `Fix that worked: …` for a lesson of an older file still waiting for its fix.
fn describe_fix(extra: &serde_json::Map<String, Value>, edit: &Edit) -> String {
    let Some(place) = Place::all_of(extra).into_iter().next() else {
        return String::new();
    };
    let (after, _) = fixed_line(edit, place.line);
    if after.is_empty() {
        return format!(
            " Fix that worked: the line `{}` was removed.",
            crate::text::shorten(&place.text, 120)
        );
    }
    format!(
        " Fix that worked: `{}` became `{}`.",
        crate::text::shorten(&place.text, 120),
        crate::text::shorten(&after, 120)
    )
}

/// Setting `learning` is `approve` or `observe`: the promoted lessons wait for a person; one a
/// person rejected before is refused, recorded.
pub(super) fn propose_all(
    scope: &LessonScope<'_>,
    promoted: &[(Lesson, Verified)],
    taught: &mut Taught,
) -> Result<(), LessonsError> {
    for (lesson, verified) in promoted {
        match proposals::propose(scope.project, lesson.clone(), scope.clock.now())? {
            Proposed::Waiting => taught.notes.push(format!(
                "proposed a lesson from a repeated error: {}; it waits for a person: `car lessons review`, or `car lessons accept {}` / `car lessons reject {}`{}",
                lesson.text,
                lesson.id,
                lesson.id,
                after_sentence(" ", &instances_note(verified))
            )),
            Proposed::AlreadyWaiting => {}
            Proposed::Rejected(rejection) => taught.refusals.push(Refused {
                refusal: Refusal::RejectedByAPerson {
                    id: rejection.id,
                    trigger: rejection.trigger,
                },
                source: Source::Validator,
                scope: lesson.scope.as_str().to_string(),
                subject: lesson.trigger_texts().join(", "),
                evidence: Evidence::all_of(&lesson.extra),
            }),
        }
    }
    Ok(())
}

/// Under the lessons lock: add promoted lessons (no duplicates) and record fixes of lessons.
pub(super) fn update_lessons(
    scope: &LessonScope<'_>,
    edit: &Edit,
    errors: &Errors,
    promoted: &[(Lesson, Verified)],
) -> Result<Vec<String>, LessonsError> {
    let path = scope.project.lessons_file();
    let needs_fix = LessonFile::load(&path)
        .map(|file| {
            file.lessons().any(|l| {
                l.triggers
                    .iter()
                    .any(|t| fix_is_done(&l.extra, edit, errors, t.as_str()))
            })
        })
        .unwrap_or(false);
    if promoted.is_empty() && !needs_fix {
        return Ok(Vec::new());
    }
    library::with_lessons(&path, HOOK_LOCK_WAIT, |file| {
        let mut notes = Vec::new();
        let mut changed = false;
        for lesson in file.lessons_mut() {
            let done = lesson
                .triggers
                .iter()
                .any(|t| fix_is_done(&lesson.extra, edit, errors, t.as_str()));
            if done {
                let fix = describe_fix(&lesson.extra, edit);
                lesson.text.push_str(&fix);
                lesson.extra.remove(PENDING_FIX);
                changed = true;
            }
        }
        for (lesson, verified) in promoted {
            let triggers = lesson.trigger_texts();
            if file
                .lessons()
                .any(|l| l.is_duplicate_of(lesson.scope.as_str(), &triggers))
            {
                continue;
            }
            notes.push(format!(
                "learned a lesson (weight {}) from a repeated error: {}{}",
                lesson.weight,
                lesson.text,
                after_sentence(" ", &instances_note(verified))
            ));
            file.entries
                .push(crate::lessons::model::Entry::Valid(lesson.clone()));
            changed = true;
        }
        Ok((notes, changed))
    })
}
