//! Learning from errors: a validator error an edit *wrote* teaches when it has a specific subject
//! (the missing module, the undefined reference, an external checker's coded finding): the
//! subject is the trigger, in the scope of the file's kind (`*.py`), if it passes the precision
//! rules ([`precision`]). A syntax slip has no subject and teaches nothing: the validator catches
//! it every time. Seen once the error becomes a candidate; seen again *independently* (in another
//! file, or in the same file after the first was fixed) the candidate is promoted to a lesson of
//! weight 2. When a later edit of the file no longer has the error and no longer contains the
//! trigger, the fix (the line the agent wrote instead) is added to the text.
//!
//! Invariants: nothing is written when the edit has no signal and no pending fix for its file.
//! Candidates are locked before lessons (the one lock order, shared with `maintain`). A signal
//! counts only when its trigger occurs in the edit's added text, so re-editing a file that still
//! has an old error does not count as making the mistake again; the same file with its first
//! error still unfixed never promotes. A fix is recorded only when the trigger is gone from the
//! file: an error that vanished while its trigger stayed (no interpreter, a module installed)
//! was not fixed by the agent.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::edit::Edit;
use crate::files::HOOK_LOCK_WAIT;
use crate::learning::precision::{self, Refusal};
use crate::lessons::library;
use crate::lessons::model::{
    Candidate, Lesson, Matching, PENDING_FIX, PROMOTED_WEIGHT, RawLesson, lesson_id,
};
use crate::lessons::store::{self, CandidateFile, LessonFile};
use crate::lessons::{EditLessons, LessonScope, LessonsError};
use crate::pipeline::config::VALIDATOR as SELF_TEST;
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

/// The scope learned lessons get: `*.ext`, or the file name when it has no extension.
pub(crate) fn scope_for(relative_path: &str) -> String {
    let name = relative_path.rsplit('/').next().unwrap_or(relative_path);
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && !extension.is_empty() => {
            format!("*.{extension}")
        }
        _ => name.to_string(),
    }
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
    // The config self-test's errors are about car's own configuration, not a mistake in the
    // project's code: learning from them would turn a lesson's trigger into a new lesson.
    let learnable = |d: &&Diagnostic| d.is_error() && d.validator != SELF_TEST;
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
/// the project's valid files of the scope (the edited file, and the file where the candidate was
/// first seen, excepted: they hold the error itself).
fn is_new_to_project(scope: &LessonScope<'_>, signal: &Signal, pool: &CandidateFile) -> bool {
    let first_seen = pool
        .candidates
        .iter()
        .find(|c| c.scope == signal.scope && c.trigger == signal.trigger)
        .and_then(|c| c.extra.get(PENDING_FIX))
        .and_then(|pending| pending.get("file"))
        .and_then(Value::as_str);
    let mut except = vec![signal.file.as_str()];
    except.extend(first_seen);
    precision::check_project(
        scope.project.checkout(),
        &signal.scope,
        &except,
        &signal.trigger,
    )
    .is_ok()
}

fn signal(scope: &str, trigger: String, diagnostic: &Diagnostic, edit: &Edit) -> Signal {
    Signal {
        lesson: format!(
            "Writing `{trigger}` caused an error: {} [{}].",
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
/// which pending fixes this edit completed.
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
    extra
        .get(PENDING_FIX)
        .and_then(|pending| pending.get("file"))
        .and_then(Value::as_str)
        == Some(edit.relative_path.as_str())
        && !errors.contains(trigger)
        && !edit.content.contains(trigger)
}

/// What the agent wrote instead: the added line nearest to the error's line.
fn describe_fix(extra: &serde_json::Map<String, Value>, edit: &Edit) -> String {
    let pending = extra.get(PENDING_FIX);
    let error_line = pending
        .and_then(|p| p.get("line"))
        .and_then(Value::as_u64)
        .unwrap_or(0) as usize;
    let before = pending
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let nearest = edit
        .added
        .iter()
        .filter(|line| !line.text.trim().is_empty())
        .min_by_key(|line| line.line.abs_diff(error_line));
    match nearest {
        Some(after) => format!(
            " Fix that worked: `{}` became `{}`.",
            crate::text::shorten(before, 120),
            crate::text::shorten(after.text.trim(), 120)
        ),
        None => format!(
            " Fix that worked: the line `{}` was removed.",
            crate::text::shorten(before, 120)
        ),
    }
}

fn pending_fix(signal: &Signal) -> Value {
    json!({"file": signal.file, "line": signal.line, "text": signal.line_text})
}

/// Learns from one edit: new candidates, promotions, and fixes of earlier errors.
pub(crate) fn learn_from_edit(
    scope: &LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    lesson_fix_pending: bool,
    known: &[&Lesson],
    out: &mut EditLessons,
) {
    let mut new_signals = signals(edit, diagnostics);
    // An error a lesson already warns about is not news: the hit was recorded.
    new_signals.retain(|signal| {
        !known.iter().any(|lesson| {
            lesson.scope.as_str() == signal.scope
                && lesson.triggers.iter().any(|t| t.as_str() == signal.trigger)
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
    let errors = current_error_triggers(diagnostics);
    let pending_here = pool
        .candidates
        .iter()
        .any(|c| fix_is_done(&c.extra, edit, &errors, &c.trigger))
        || lesson_fix_pending;
    if new_signals.is_empty() && !pending_here {
        return;
    }
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

/// Under the candidates lock: fixes, new candidates, and promotions (which take the lessons lock).
fn apply(
    scope: &LessonScope<'_>,
    edit: &Edit,
    signals: &[Signal],
    errors: &HashSet<String>,
    pool: &mut CandidateFile,
) -> Result<(Vec<String>, bool), LessonsError> {
    let mut changed = record_candidate_fixes(edit, errors, pool);
    let mut notes = Vec::new();
    let mut promoted: Vec<Lesson> = Vec::new();
    for signal in signals {
        let seen_before = pool
            .candidates
            .iter()
            .find(|c| c.scope == signal.scope && c.trigger == signal.trigger);
        match seen_before {
            // The same file again before its first error was fixed: not an independent second
            // occurrence (re-writing or re-checking unchanged content proves nothing).
            Some(candidate) if is_pending_in(candidate, &signal.file) => {}
            Some(candidate) => promoted.extend(promote(candidate, signal, scope)),
            None => {
                pool.candidates.push(new_candidate(signal, scope));
                notes.push(format!(
                    "new lesson candidate: `{}` in {} (seen once; once more and it becomes a lesson)",
                    signal.trigger, signal.scope
                ));
                changed = true;
            }
        }
    }
    // Lessons first: if that write fails, the candidates stay and the next occurrence retries.
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

/// Whether the candidate still waits for the fix of its error in `file`.
fn is_pending_in(candidate: &Candidate, file: &str) -> bool {
    candidate
        .extra
        .get(PENDING_FIX)
        .and_then(|pending| pending.get("file"))
        .and_then(Value::as_str)
        == Some(file)
}

/// Candidates whose error this edit fixed learn what the fix was.
fn record_candidate_fixes(edit: &Edit, errors: &HashSet<String>, pool: &mut CandidateFile) -> bool {
    let mut changed = false;
    for candidate in &mut pool.candidates {
        if fix_is_done(&candidate.extra, edit, errors, &candidate.trigger) {
            let fix = describe_fix(&candidate.extra, edit);
            candidate.lesson.push_str(&fix);
            candidate.extra.remove(PENDING_FIX);
            changed = true;
        }
    }
    changed
}

fn new_candidate(signal: &Signal, scope: &LessonScope<'_>) -> Candidate {
    let mut extra = serde_json::Map::new();
    extra.insert("source".into(), json!("validator"));
    extra.insert("validator".into(), json!(signal.validator));
    extra.insert(PENDING_FIX.into(), pending_fix(signal));
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

/// The lesson a candidate seen again becomes (weight 2); its fix stays pending if not known yet.
fn promote(candidate: &Candidate, signal: &Signal, scope: &LessonScope<'_>) -> Option<Lesson> {
    let triggers = vec![candidate.trigger.clone()];
    let mut extra = serde_json::Map::new();
    extra.insert("source".into(), json!("validator"));
    // The fix is awaited where the mistake was just made again, unless it is known already.
    if !candidate.lesson.contains("Fix that worked") {
        extra.insert(PENDING_FIX.into(), pending_fix(signal));
    }
    let raw = RawLesson {
        id: Some(lesson_id(&candidate.scope, &triggers)),
        scope: candidate.scope.clone(),
        triggers,
        lesson: candidate.lesson.clone(),
        weight: Some(u64::from(PROMOTED_WEIGHT)),
        hits: Some(0),
        created: Some(scope.clock.today()),
        whole_identifiers: Matching::CODE.whole_identifiers,
        code_only: Matching::CODE.code_only,
        extra,
        ..RawLesson::default()
    };
    Lesson::from_raw(raw).ok()
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
