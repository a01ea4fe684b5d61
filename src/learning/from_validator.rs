//! Learning from checker errors, from the fix: a validator error an edit *wrote* teaches when it
//! has a specific subject (the missing module, the undefined reference, an external checker's
//! coded finding) that passes the precision rules ([`precision`]); the subject is the trigger. A
//! syntax slip has no subject and teaches nothing: the validator catches it every time.
//!
//! Seen once, the error becomes a candidate waiting for its fix in that file. The agent's fix —
//! a later edit of the file within the fix window where the error and its trigger are gone — is
//! evidence: the line as written and as fixed. Seen again *independently* (another file, or the
//! same file after the first was fixed) and with a fix known, the candidate becomes a lesson of
//! weight 2 whose text says what every fix wrote instead ("Write `B`, not `A`."), scoped to the
//! sub-project where it was seen, firing only where the checker reports the subject again.
//!
//! Invariants: nothing is written when the edit has no signal and no waiting error in its file.
//! Candidates are locked before lessons (the one lock order, shared with `maintain`). A signal
//! counts only when its trigger occurs in the edit's added text, so re-editing a file that still
//! has an old error does not count as making the mistake again. No fix without a change of the
//! text: an error that vanished while its trigger stayed (no interpreter, a module installed)
//! teaches nothing, and neither does a change after the fix window (a refactor weeks later).

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::edit::Edit;
use crate::files::HOOK_LOCK_WAIT;
use crate::learning::precision::{self, Refusal};
use crate::learning::sighting::{Learned, learned_lesson, promoted_text, scope_for};
use crate::lessons::library;
use crate::lessons::model::{Candidate, Lesson, PENDING_FIX};
use crate::lessons::provenance::{EVIDENCE_FIELD, Evidence, SOURCE_FIELD, Source};
use crate::lessons::store::{self, CandidateFile, LessonFile};
use crate::lessons::{EditLessons, LessonScope, LessonsError};
use crate::validate::Diagnostic;

/// One error signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signal {
    pub(crate) scope: String,
    pub(crate) trigger: String,
    pub(crate) lesson: String,
    pub(crate) validator: String,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) line_text: String,
}

/// The trigger an error teaches: its subject, if it passes the static precision rules. `None`
/// for an error without a subject (a syntax slip).
pub(crate) fn trigger_for(diagnostic: &Diagnostic) -> Option<Result<String, Refusal>> {
    let subject = diagnostic.subject.as_deref()?.trim();
    Some(precision::check_subject(subject).map(|()| subject.to_string()))
}

/// The signals of an edit's errors whose triggers the edit itself wrote, one per trigger.
pub(crate) fn signals(edit: &Edit, diagnostics: &[Diagnostic]) -> Vec<Signal> {
    let added = edit.added_text();
    let lesson_scope = scope_for(&edit.relative_path);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // Only a checker of the project's code teaches: car's own configuration checks do not.
    let learnable = |d: &&Diagnostic| d.is_error() && d.origin.may_teach();
    for diagnostic in diagnostics.iter().filter(learnable) {
        let Some(Ok(trigger)) = trigger_for(diagnostic) else {
            continue;
        };
        if added.contains(&trigger) && seen.insert(trigger.clone()) {
            out.push(signal(&lesson_scope, trigger, diagnostic, edit));
        }
    }
    out
}

/// Whether a signal's trigger is specific to this mistake in this project: it must not occur in
/// the project's valid files of its kind (the edited file, and the files where the candidate
/// waits for its fix, excepted: they hold the error itself).
fn is_new_to_project(scope: &LessonScope<'_>, signal: &Signal, pool: &CandidateFile) -> bool {
    let waiting: Vec<Place> = pool
        .candidates
        .iter()
        .find(|c| c.scope == signal.scope && c.trigger == signal.trigger)
        .map(|c| Place::all_of(&c.extra))
        .unwrap_or_default();
    let mut except = vec![signal.file.as_str()];
    except.extend(waiting.iter().map(|place| place.file.as_str()));
    precision::check_project(
        scope.project.checkout(),
        &scope_for(&signal.file),
        &except,
        &signal.trigger,
    )
    .is_ok()
}

fn signal(scope: &str, trigger: String, diagnostic: &Diagnostic, edit: &Edit) -> Signal {
    Signal {
        lesson: format!(
            "{} [{}].",
            diagnostic.message.trim_end_matches('.'),
            diagnostic.validator
        ),
        scope: scope.to_string(),
        trigger,
        validator: diagnostic.validator.clone(),
        file: edit.relative_path.clone(),
        line: diagnostic.line,
        line_text: line_of(&edit.content, diagnostic.line),
    }
}

fn line_of(content: &str, line: usize) -> String {
    content
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Every trigger the file's current errors point at (resolved or not by this edit), to decide
/// which waiting errors this edit resolved.
fn current_error_triggers(diagnostics: &[Diagnostic]) -> HashSet<String> {
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| {
            d.subject
                .as_deref()
                .map(|subject| subject.trim().to_string())
        })
        .collect()
}

/// A pending fix is done when its file was edited, its trigger's error is gone, and so is the
/// trigger (an error that vanished while the trigger stayed was not fixed by the agent).
fn fix_is_done(
    extra: &serde_json::Map<String, Value>,
    edit: &Edit,
    errors: &HashSet<String>,
    trigger: &str,
) -> bool {
    Place::all_of(extra)
        .iter()
        .any(|place| place.file == edit.relative_path)
        && !errors.contains(trigger)
        && !edit.content.contains(trigger)
}

/// What the agent wrote instead of `before` at `error_line`: the added line nearest to it, or
/// nothing when the edit only removed lines.
fn fixed_line(edit: &Edit, error_line: usize) -> String {
    edit.added
        .iter()
        .filter(|line| !line.text.trim().is_empty())
        .min_by_key(|line| line.line.abs_diff(error_line))
        .map(|line| line.text.trim().to_string())
        .unwrap_or_default()
}

/// `Fix that worked: …` for a lesson of an older file still waiting for its fix.
fn describe_fix(extra: &serde_json::Map<String, Value>, edit: &Edit) -> String {
    let Some(place) = Place::all_of(extra).into_iter().next() else {
        return String::new();
    };
    let after = fixed_line(edit, place.line);
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

/// Learns from one edit: errors it wrote wait for their fix, fixes it made become evidence, and
/// a candidate seen twice with a fix known becomes a lesson.
pub(crate) fn learn_from_edit(
    scope: &LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    lesson_fix_pending: bool,
    known: &[&Lesson],
    out: &mut EditLessons,
) {
    let mut new_signals = signals(edit, diagnostics);
    // An error a lesson already warns about is not news: the lesson fired.
    new_signals.retain(|signal| {
        !known.iter().any(|lesson| {
            lesson.triggers.iter().any(|t| t.as_str() == signal.trigger)
                && (lesson.scope.as_str() == signal.scope || lesson.scope.matches(&signal.file))
        })
    });
    let candidates_path = scope.project.candidates_file();
    let pool = match CandidateFile::load(&candidates_path) {
        Ok(pool) => pool,
        Err(error) => {
            out.notes
                .push(format!("{error}; nothing was learned from this edit"));
            return;
        }
    };
    new_signals.retain(|signal| is_new_to_project(scope, signal, &pool));
    let waiting_here = pool.candidates.iter().any(|c| {
        Place::all_of(&c.extra)
            .iter()
            .any(|place| place.file == edit.relative_path)
    });
    if new_signals.is_empty() && !waiting_here && !lesson_fix_pending {
        return;
    }
    let errors = current_error_triggers(diagnostics);
    let result = store::with_candidates(&candidates_path, HOOK_LOCK_WAIT, |pool| {
        apply(scope, edit, &new_signals, &errors, pool)
    });
    match result {
        Ok(notes) => out.notes.extend(notes),
        Err(error) => out
            .notes
            .push(format!("nothing was learned from this edit: {error}")),
    }
}

/// Under the candidates lock: fixes, new sightings, and promotions (which take the lessons lock).
fn apply(
    scope: &LessonScope<'_>,
    edit: &Edit,
    signals: &[Signal],
    errors: &HashSet<String>,
    pool: &mut CandidateFile,
) -> Result<(Vec<String>, bool), LessonsError> {
    let mut notes = Vec::new();
    let mut changed = resolve_waiting(scope, edit, errors, pool, &mut notes);
    // Read again under the lock: a parallel hook may have promoted the same error since this one
    // read the lessons, and a candidate recorded now would be left beside its own lesson.
    let lessons = LessonFile::load(&scope.project.lessons_file())?;
    for signal in signals
        .iter()
        .filter(|signal| !is_learned(&lessons, signal))
    {
        changed |= record_error(scope, signal, pool, &mut notes);
    }
    let ready: Vec<usize> = (0..pool.candidates.len())
        .filter(|index| is_ready(&pool.candidates[*index]))
        .collect();
    let promoted: Vec<Lesson> = ready
        .iter()
        .filter_map(|index| promote(&pool.candidates[*index], edit, scope))
        .collect();
    // Lessons first: if that write fails, the candidates stay and the next edit retries.
    notes.extend(update_lessons(scope, edit, errors, &promoted)?);
    if !promoted.is_empty() {
        pool.candidates.retain(|c| {
            !promoted
                .iter()
                .any(|l| l.scope.as_str() == c.scope && l.trigger_texts() == [c.trigger.clone()])
        });
        changed = true;
    }
    Ok((notes, changed))
}

/// Whether a lesson of `lessons` already warns about `signal` (its trigger, in its scope).
fn is_learned(lessons: &LessonFile, signal: &Signal) -> bool {
    lessons.lessons().any(|lesson| {
        lesson.triggers.iter().any(|t| t.as_str() == signal.trigger)
            && (lesson.scope.as_str() == signal.scope || lesson.scope.matches(&signal.file))
    })
}

/// Places of this edit's file where an error waits for its fix: the error still there waits on;
/// gone with its trigger, it was fixed (evidence: the line as written and as fixed); gone while
/// the trigger stayed, the environment changed (a package got installed) and it teaches nothing.
/// A candidate left with neither a waiting place nor a fix is dropped.
fn resolve_waiting(
    scope: &LessonScope<'_>,
    edit: &Edit,
    errors: &HashSet<String>,
    pool: &mut CandidateFile,
    notes: &mut Vec<String>,
) -> bool {
    let mut changed = false;
    for candidate in &mut pool.candidates {
        let places = Place::all_of(&candidate.extra);
        let (here, elsewhere): (Vec<Place>, Vec<Place>) = places
            .into_iter()
            .partition(|place| place.file == edit.relative_path);
        if here.is_empty() || errors.contains(&candidate.trigger) {
            continue;
        }
        changed = true;
        let now = scope.clock.now();
        let mut evidence = Evidence::all_of(&candidate.extra);
        if edit.content.contains(&candidate.trigger) {
            notes.push(format!(
                "`{}` no longer errs in {} although it is still written there: nothing was learned from it",
                candidate.trigger, edit.relative_path
            ));
        } else if here.iter().any(|place| place.is_fresh(now)) {
            for place in here.iter().filter(|place| place.is_fresh(now)) {
                evidence.push(place.fixed_by(edit, now));
            }
            candidate
                .extra
                .insert(EVIDENCE_FIELD.into(), json!(evidence));
            let why = why_of(candidate);
            candidate.lesson = promoted_text(&why, &candidate.trigger, &evidence);
        }
        Place::store(&mut candidate.extra, &elsewhere);
    }
    pool.candidates.retain(|candidate| {
        !Place::all_of(&candidate.extra).is_empty()
            || !Evidence::all_of(&candidate.extra).is_empty()
    });
    changed
}

/// One error the edit wrote: a new candidate, or one more independent sighting of a known one.
/// The same file again while its first error still waits proves nothing.
fn record_error(
    scope: &LessonScope<'_>,
    signal: &Signal,
    pool: &mut CandidateFile,
    notes: &mut Vec<String>,
) -> bool {
    let found = pool
        .candidates
        .iter_mut()
        .find(|c| c.scope == signal.scope && c.trigger == signal.trigger);
    let Some(candidate) = found else {
        pool.candidates.push(new_candidate(signal, scope));
        notes.push(format!(
            "new lesson candidate: `{}` in {} (seen once; seen again, with the fix known, it becomes a lesson)",
            signal.trigger, signal.scope
        ));
        return true;
    };
    let mut places = Place::all_of(&candidate.extra);
    let now = scope.clock.now();
    if let Some(place) = places.iter_mut().find(|place| place.file == signal.file) {
        // Written again where it still waits: not a second sighting, but the fix window starts
        // from this latest writing.
        *place = Place::of(signal, now);
        Place::store(&mut candidate.extra, &places);
        return true;
    }
    places.push(Place::of(signal, now));
    Place::store(&mut candidate.extra, &places);
    candidate.hits = Some(candidate.hits() + 1);
    candidate.last_hit = Some(scope.clock.now());
    true
}

/// Seen twice, and how it was fixed is known.
fn is_ready(candidate: &Candidate) -> bool {
    candidate.hits() >= 2 && !Evidence::all_of(&candidate.extra).is_empty()
}

fn new_candidate(signal: &Signal, scope: &LessonScope<'_>) -> Candidate {
    let mut extra = serde_json::Map::new();
    extra.insert(SOURCE_FIELD.into(), json!(Source::Validator.as_str()));
    extra.insert("validator".into(), json!(signal.validator));
    extra.insert(WHY_FIELD.into(), json!(signal.lesson));
    Place::store(&mut extra, &[Place::of(signal, scope.clock.now())]);
    Candidate {
        scope: signal.scope.clone(),
        trigger: signal.trigger.clone(),
        lesson: signal.lesson.clone(),
        hits: Some(1),
        last_hit: Some(scope.clock.now()),
        created: Some(scope.clock.today()),
        extra,
    }
}

/// The error's words, kept apart from the fix (older pools: the lesson text).
fn why_of(candidate: &Candidate) -> String {
    candidate
        .extra
        .get(WHY_FIELD)
        .and_then(Value::as_str)
        .unwrap_or(&candidate.lesson)
        .to_string()
}

/// The lesson a ready candidate becomes (weight 2): what held in every fix, scoped to the
/// sub-project where the error was seen, firing only where the checker reports the same subject
/// again (`error_subject`: a module installed there, a name defined there, is no mistake).
fn promote(candidate: &Candidate, edit: &Edit, scope: &LessonScope<'_>) -> Option<Lesson> {
    let evidence = Evidence::all_of(&candidate.extra);
    let mut extra = serde_json::Map::new();
    if let Some(validator) = candidate.extra.get("validator") {
        extra.insert("validator".into(), validator.clone());
    }
    let lesson_scope =
        subproject_scope(scope.project.checkout(), &candidate.scope, &evidence, edit);
    learned_lesson(
        Learned {
            source: Source::Validator,
            scope: &lesson_scope,
            trigger: &candidate.trigger,
            why: &why_of(candidate),
            evidence: &evidence,
            error_subject: Some(&candidate.trigger),
        },
        extra,
        &scope.clock.today(),
    )
}

/// Field of a validator candidate: the error's words, kept apart from its fixes.
const WHY_FIELD: &str = "why";

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

/// How long after the error the agent's change still counts as fixing its slip: the correction
/// window. An error left in place longer was not a slip the agent saw and fixed (a later
/// refactor that drops an import teaches nothing).
const FIX_WINDOW_SECONDS: i64 = crate::session::authored::CORRECTION_WINDOW_SECONDS;

/// Where an error waits for its fix: the file, the line, the line as the agent wrote it, and
/// when (0 in older pools: no fix of it counts).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    file: String,
    line: usize,
    text: String,
    at: i64,
}

impl Place {
    fn of(signal: &Signal, now: i64) -> Place {
        Place {
            file: signal.file.clone(),
            line: signal.line,
            text: signal.line_text.clone(),
            at: now,
        }
    }

    /// Whether a change at `now` can still be the fix of this error.
    fn is_fresh(&self, now: i64) -> bool {
        self.at > 0 && now - self.at <= FIX_WINDOW_SECONDS
    }

    /// The places stored under [`PENDING_FIX`]: a list, or (older files) one object.
    fn all_of(extra: &serde_json::Map<String, Value>) -> Vec<Place> {
        let read = |value: &Value| {
            Some(Place {
                file: value.get("file")?.as_str()?.to_string(),
                line: value.get("line").and_then(Value::as_u64).unwrap_or(0) as usize,
                text: value
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                at: value.get("at").and_then(Value::as_i64).unwrap_or(0),
            })
        };
        match extra.get(PENDING_FIX) {
            Some(Value::Array(list)) => list.iter().filter_map(read).collect(),
            Some(object) => read(object).into_iter().collect(),
            None => Vec::new(),
        }
    }

    fn store(extra: &mut serde_json::Map<String, Value>, places: &[Place]) {
        if places.is_empty() {
            extra.remove(PENDING_FIX);
            return;
        }
        let list: Vec<Value> = places
            .iter()
            .map(|place| {
                json!({"file": place.file, "line": place.line, "text": place.text, "at": place.at})
            })
            .collect();
        extra.insert(PENDING_FIX.into(), Value::Array(list));
    }

    /// The evidence this place gives once `edit` fixed it.
    fn fixed_by(&self, edit: &Edit, now: i64) -> Evidence {
        Evidence {
            session: String::new(),
            file: self.file.clone(),
            line: self.line,
            review: None,
            finding: None,
            bad: self.text.clone(),
            fixed: fixed_line(edit, self.line),
            at: now,
        }
    }
}

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
fn subproject_of(checkout: &Path, file: &str) -> Option<String> {
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

/// Under the lessons lock: add promoted lessons (no duplicates) and record fixes of lessons.
fn update_lessons(
    scope: &LessonScope<'_>,
    edit: &Edit,
    errors: &HashSet<String>,
    promoted: &[Lesson],
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
        for lesson in promoted {
            let triggers = lesson.trigger_texts();
            if file
                .lessons()
                .any(|l| l.is_duplicate_of(lesson.scope.as_str(), &triggers))
            {
                continue;
            }
            notes.push(format!(
                "learned a lesson (weight {}) from a repeated error: {}",
                lesson.weight, lesson.text
            ));
            file.entries
                .push(crate::lessons::model::Entry::Valid(lesson.clone()));
            changed = true;
        }
        Ok((notes, changed))
    })
}

#[cfg(test)]
mod tests;
