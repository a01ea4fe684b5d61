//! Learning from errors: every validator error an edit *wrote* is an error signal. A signal is a
//! precise trigger (the missing module, the undefined name, the offending token) in the scope of
//! the file's kind (`*.py`). Seen once it becomes a candidate; seen again (another edit, another
//! session) the candidate is promoted to a lesson of weight 2. When a later edit of the same file
//! no longer has the error, the fix (the line the agent wrote instead) is added to the text.
//!
//! Invariants: nothing is written when the edit has no signal and no pending fix for its file.
//! Candidates are locked before lessons (the one lock order, shared with `maintain`). A signal
//! counts only when its trigger occurs in the edit's added text, so re-editing a file that still
//! has an old error does not count as making the mistake again.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::edit::Edit;
use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::model::{Candidate, Lesson, PROMOTED_WEIGHT, RawLesson, lesson_id};
use crate::lessons::precision::{self, Refusal};
use crate::lessons::store::{self, CandidateFile, LessonFile};
use crate::lessons::{EditLessons, LessonScope, LessonsError};
use crate::pipeline::config::VALIDATOR as SELF_TEST;
use crate::validate::Diagnostic;

/// Field marking a candidate or lesson whose fix is not known yet.
pub(crate) const PENDING_FIX: &str = "pending_fix";

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

/// The precise trigger of an error: its subject, a quoted name in the message, or the token at
/// the error's position, whichever first passes the precision rules. The refusals explain misses.
pub(crate) fn trigger_for(diagnostic: &Diagnostic, content: &str) -> Result<String, Vec<Refusal>> {
    let mut tried = Vec::new();
    tried.extend(diagnostic.subject.clone());
    tried.extend(quoted_tokens(&diagnostic.message));
    tried.extend(token_at(content, diagnostic.line, diagnostic.column));
    let mut refusals = Vec::new();
    for candidate in tried {
        match precision::check(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(refusal) => refusals.push(refusal),
        }
    }
    Err(refusals)
}

/// Text between matching quotes (`'x'`, `"x"`, `` `x` ``, `‘x’`) in a message.
fn quoted_tokens(message: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for (open, close) in [
        ('\'', '\''),
        ('"', '"'),
        ('`', '`'),
        ('‘', '’'),
        ('`', '\''),
    ] {
        let mut rest = message;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let token = &after[..end];
            if !token.is_empty() && !token.contains(char::is_whitespace) {
                tokens.push(token.to_string());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    tokens
}

/// The token (a run without spaces and without `,;()[]{}`) at 1-based `line`:`column`.
fn token_at(content: &str, line: usize, column: usize) -> Option<String> {
    let text: Vec<char> = content.lines().nth(line.checked_sub(1)?)?.chars().collect();
    let is_part = |c: &char| !c.is_whitespace() && !",;()[]{}".contains(*c);
    let mut position = column.checked_sub(1)?.min(text.len().checked_sub(1)?);
    if !is_part(&text[position]) {
        position = (position..text.len()).find(|index| is_part(&text[*index]))?;
    }
    let start = (0..=position)
        .rev()
        .take_while(|index| is_part(&text[*index]))
        .last()?;
    let end = (position..text.len())
        .take_while(|index| is_part(&text[*index]))
        .last()?;
    Some(text[start..=end].iter().collect())
}

/// The signals of an edit's errors whose triggers the edit itself wrote, one per trigger.
pub(crate) fn signals(
    scope: &LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    refused: &mut Vec<String>,
) -> Vec<Signal> {
    let added = edit.added_text();
    let lesson_scope = scope_for(&edit.relative_path);
    let extension = lesson_scope.strip_prefix("*.").unwrap_or_default();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // The config self-test's errors are about car's own configuration, not a mistake in the
    // project's code: learning from them would turn a lesson's trigger into a new lesson.
    let learnable = |d: &&Diagnostic| d.is_error() && d.validator != SELF_TEST;
    for diagnostic in diagnostics.iter().filter(learnable) {
        let trigger = match trigger_for(diagnostic, &edit.content) {
            Ok(trigger) => trigger,
            Err(refusals) => {
                let reason = refusals.first().map_or_else(
                    || "it names no identifier or token".to_string(),
                    ToString::to_string,
                );
                refused.push(format!(
                    "not learned from {}:{} (rather miss than false-alarm): {reason}",
                    diagnostic.file, diagnostic.line
                ));
                continue;
            }
        };
        if !added.contains(&trigger) || !seen.insert(trigger.clone()) {
            continue;
        }
        if !extension.is_empty()
            && let Err(refusal) =
                precision::check_project(scope.project.checkout(), extension, &edit.path, &trigger)
        {
            refused.push(format!(
                "not learned from {}:{} (rather miss than false-alarm): {refusal}",
                diagnostic.file, diagnostic.line
            ));
            continue;
        }
        out.push(signal(&lesson_scope, trigger, diagnostic, edit));
    }
    out
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
fn current_error_triggers(edit: &Edit, diagnostics: &[Diagnostic]) -> HashSet<String> {
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| trigger_for(d, &edit.content).ok())
        .collect()
}

/// A pending fix is done when its file was edited and its trigger's error is gone.
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
    let mut new_signals = signals(scope, edit, diagnostics, &mut out.refusals);
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
    let errors = current_error_triggers(edit, diagnostics);
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
    store::with_lessons(&path, HOOK_LOCK_WAIT, |file| {
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
