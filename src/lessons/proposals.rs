//! Lessons that wait for a person (setting `learning`: `approve` or `observe`): a lesson car
//! learned and verified goes to `lesson_proposals.json` instead of `lessons.json`, and a person
//! accepts it (it joins the lessons as it is, or reworded), or rejects it (`car lessons review`,
//! `car lessons accept|reject ID`). A rejected proposal goes to `rejected_lessons.json` and is
//! never proposed again: not the same trigger in the same scope, nor anything learned from the
//! same evidence, nor a mistake the rejected lesson fires on.
//!
//! Both files are in the seed's lesson format (so a proposal carries everything a lesson does:
//! its examples, evidence and the places it already matches) and stay local like the candidate
//! pool: the lessons a person accepts are what a team shares.
//!
//! Invariants: a proposal never warns, denies or briefs (nothing but these commands reads the
//! files); each file is rewritten only under its lock; accepting adds the lesson before the
//! proposal is removed, so a failed write loses nothing.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::files::{FileLock, HOOK_LOCK_WAIT};
use crate::lessons::examples::fires;
use crate::lessons::library;
use crate::lessons::model::{Entry, Lesson};
use crate::lessons::provenance::Evidence;
use crate::lessons::store::LessonFile;
use crate::lessons::{LessonScope, LessonsError};
use crate::project::Project;
use crate::state::names;

/// Field of a proposal: when car proposed it (Unix seconds).
pub(crate) const PROPOSED_AT: &str = "proposed_at";
/// Field of a rejected proposal: when a person rejected it (Unix seconds).
pub(crate) const REJECTED_AT: &str = "rejected_at";

/// `lesson_proposals.json` in the state folder.
pub(crate) fn proposals_file(project: &Project) -> PathBuf {
    project.state_dir().join(names::LESSON_PROPOSALS)
}

/// `rejected_lessons.json` in the state folder.
pub(crate) fn rejected_file(project: &Project) -> PathBuf {
    project.state_dir().join(names::REJECTED_LESSONS)
}

/// What proposing a lesson did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Proposed {
    /// It waits for a person now.
    Waiting,
    /// The same lesson (scope and triggers) waits already.
    AlreadyWaiting,
    /// A person rejected it, or one learned from the same evidence; it is not proposed again.
    Rejected(Rejection),
}

/// A person's earlier rejection that holds a lesson or a sighting back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The rejected lesson's id.
    pub(crate) id: String,
    /// The rejected lesson's first trigger.
    pub(crate) trigger: String,
    /// When it was rejected (Unix seconds; 0 when the file does not say).
    pub(crate) at: i64,
}

impl Rejection {
    fn of(lesson: &Lesson) -> Rejection {
        Rejection {
            id: lesson.id.clone(),
            trigger: lesson
                .trigger_texts()
                .into_iter()
                .next()
                .unwrap_or_default(),
            at: lesson
                .extra
                .get(REJECTED_AT)
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0),
        }
    }
}

/// Adds `lesson` to the proposals, unless a person rejected it before.
pub(crate) fn propose(
    project: &Project,
    mut lesson: Lesson,
    now: i64,
) -> Result<Proposed, LessonsError> {
    if let Some(rejection) = rejected_like(project, &lesson)? {
        return Ok(Proposed::Rejected(rejection));
    }
    lesson.extra.insert(PROPOSED_AT.into(), json!(now));
    with_file(&proposals_file(project), |file| {
        let triggers = lesson.trigger_texts();
        if file
            .lessons()
            .any(|waiting| waiting.is_duplicate_of(lesson.scope.as_str(), &triggers))
        {
            return Ok((Proposed::AlreadyWaiting, false));
        }
        file.entries.push(Entry::Valid(lesson));
        Ok((Proposed::Waiting, true))
    })
}

/// What a new sighting meets among the proposals and rejections: a proposal or a rejected lesson
/// of its scope that fires on its line written as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Met {
    Nothing,
    /// A proposal already waits for this mistake.
    Waiting,
    /// A person rejected the lesson that fires on it.
    Rejected(Rejection),
}

/// Whether a proposal or a rejected lesson already covers the mistake `bad` in `file`.
pub(crate) fn meets(project: &Project, file: &str, bad: &str) -> Result<Met, LessonsError> {
    let covers =
        |lesson: &&Lesson| lesson.scope.matches(file) && fires(lesson, bad).unwrap_or(false);
    if let Some(rejected) = LessonFile::load(&rejected_file(project))?
        .lessons()
        .find(covers)
    {
        return Ok(Met::Rejected(Rejection::of(rejected)));
    }
    if LessonFile::load(&proposals_file(project))?
        .lessons()
        .any(|l| covers(&l))
    {
        return Ok(Met::Waiting);
    }
    Ok(Met::Nothing)
}

/// The rejected lesson `lesson` repeats: the same scope and triggers, or a shared piece of
/// evidence (the same place seen, the same review comment).
fn rejected_like(project: &Project, lesson: &Lesson) -> Result<Option<Rejection>, LessonsError> {
    let rejected = LessonFile::load(&rejected_file(project))?;
    let triggers = lesson.trigger_texts();
    let evidence = Evidence::all_of(&lesson.extra);
    let found = rejected.lessons().find(|old| {
        old.is_duplicate_of(lesson.scope.as_str(), &triggers)
            || Evidence::all_of(&old.extra)
                .iter()
                .any(|seen| evidence.contains(seen))
    });
    Ok(found.map(Rejection::of))
}

/// The waiting proposals, oldest first.
pub(crate) fn waiting(project: &Project) -> Result<Vec<Lesson>, LessonsError> {
    Ok(LessonFile::load(&proposals_file(project))?
        .lessons()
        .cloned()
        .collect())
}

/// Takes proposal `id` out and adds it to the lessons, reworded by `change` first (a person's
/// edit of its text, scope or weight, validated by the caller). Returns the lesson as added.
pub(crate) fn accept(
    scope: &LessonScope<'_>,
    id: &str,
    change: impl FnOnce(&mut Lesson),
) -> Result<Lesson, LessonsError> {
    let path = proposals_file(scope.project);
    let _lock = FileLock::acquire(&path, HOOK_LOCK_WAIT)?;
    let mut proposals = LessonFile::load(&path)?;
    let mut lesson = find(&proposals, id)?.clone();
    change(&mut lesson);
    lesson.extra.remove(PROPOSED_AT);
    lesson.created = Some(scope.clock.today());
    let added = lesson.clone();
    library::add(&scope.project.lessons_file(), lesson)?;
    proposals.remove(&added.id);
    proposals.save()?;
    Ok(added)
}

/// Takes proposal `id` out and remembers it as rejected (with `reason` when given).
pub(crate) fn reject(
    project: &Project,
    id: &str,
    now: i64,
    reason: Option<&str>,
) -> Result<Lesson, LessonsError> {
    let path = proposals_file(project);
    let _lock = FileLock::acquire(&path, HOOK_LOCK_WAIT)?;
    let mut proposals = LessonFile::load(&path)?;
    let mut lesson = find(&proposals, id)?.clone();
    lesson.extra.remove(PROPOSED_AT);
    lesson.extra.insert(REJECTED_AT.into(), json!(now));
    if let Some(reason) = reason.map(str::trim).filter(|reason| !reason.is_empty()) {
        lesson
            .extra
            .insert("rejected_because".into(), json!(reason));
    }
    let rejected = lesson.clone();
    with_file(&rejected_file(project), |file| {
        file.remove(&lesson.id);
        file.entries.push(Entry::Valid(lesson));
        Ok(((), true))
    })?;
    proposals.remove(&rejected.id);
    proposals.save()?;
    Ok(rejected)
}

/// The proposal whose id is `id` or starts with it (at least 4 characters, one match).
fn find<'a>(file: &'a LessonFile, id: &str) -> Result<&'a Lesson, LessonsError> {
    let id = id.trim();
    if let Some(exact) = file.lessons().find(|lesson| lesson.id == id) {
        return Ok(exact);
    }
    let matching: Vec<&Lesson> = if id.len() >= 4 {
        file.lessons()
            .filter(|lesson| lesson.id.starts_with(id))
            .collect()
    } else {
        Vec::new()
    };
    match matching.as_slice() {
        [one] => Ok(one),
        [] => Err(LessonsError::Invalid(format!(
            "no proposed lesson with id {id:?} in {} (`car lessons review --json` lists them)",
            file.path.display()
        ))),
        _ => Err(LessonsError::Invalid(format!(
            "{} proposed lessons have ids starting with {id:?}; give more of the id",
            matching.len()
        ))),
    }
}

/// Load, change and save a proposals or rejections file under its lock.
fn with_file<T>(
    path: &Path,
    change: impl FnOnce(&mut LessonFile) -> Result<(T, bool), LessonsError>,
) -> Result<T, LessonsError> {
    let _lock = FileLock::acquire(path, HOOK_LOCK_WAIT)?;
    let mut file = LessonFile::load(path)?;
    let (result, changed) = change(&mut file)?;
    if changed {
        file.save()?;
    }
    Ok(result)
}
