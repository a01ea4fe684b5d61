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

use serde_json::{Value, json};

use crate::diagnostic::Diagnostic;
use crate::edit::Edit;
use crate::files::HOOK_LOCK_WAIT;
use crate::learning::precision;
use crate::learning::refusal::{Refusal, Refused};
use crate::learning::replacement::common_replacement;
use crate::learning::sighting::{REFUSED_FIELD, Taught, WHY_FIELD, join_why, scope_for};
use crate::learning::verification::{ProjectCode, Verified};
use crate::lessons::model::{Candidate, Lesson};
use crate::lessons::provenance::{Evidence, SOURCE_FIELD, Source};
use crate::lessons::store::{self, CandidateFile, LessonFile};
use crate::lessons::{LessonScope, LessonsError, Warning};

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
pub(crate) fn trigger_for(diagnostic: &Diagnostic) -> Option<Result<String, precision::Refusal>> {
    let subject = diagnostic.subject.as_deref()?.trim();
    Some(precision::check_subject(subject).map(|()| subject.to_string()))
}

/// The signals of an edit's errors whose triggers the edit itself wrote, one per trigger, and the
/// errors whose subject is no specific name (refused, with the reason).
pub(crate) fn signals(edit: &Edit, diagnostics: &[Diagnostic]) -> (Vec<Signal>, Vec<Refused>) {
    let added = edit.added_text();
    let lesson_scope = scope_for(&edit.relative_path);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut refused = Vec::new();
    // Only a checker of the project's code teaches: car's own configuration checks do not.
    let learnable = |d: &&Diagnostic| d.is_error() && d.origin.may_teach();
    for diagnostic in diagnostics.iter().filter(learnable) {
        let trigger = match trigger_for(diagnostic) {
            Some(Ok(trigger)) => trigger,
            Some(Err(refusal)) => {
                let subject = diagnostic.subject.clone().unwrap_or_default();
                if added.contains(subject.trim()) && seen.insert(subject.clone()) {
                    refused.push(Refused {
                        refusal: Refusal::Subject(refusal),
                        source: Source::Validator,
                        scope: lesson_scope.clone(),
                        subject,
                        evidence: Vec::new(),
                    });
                }
                continue;
            }
            None => continue,
        };
        if added.contains(&trigger) && seen.insert(trigger.clone()) {
            out.push(signal(&lesson_scope, trigger, diagnostic, edit));
        }
    }
    (out, refused)
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

/// Learns from one edit: errors it wrote wait for their fix, fixes it made become evidence, and
/// a candidate seen twice with a fix known becomes a lesson once verified. `warnings` are the
/// lessons that fired on the edit: an error one of them already warns about is not news.
pub(crate) fn learn_from_edit(
    scope: &LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    lesson_fix_pending: bool,
    warnings: &[Warning],
) -> Taught {
    let (mut new_signals, refused) = signals(edit, diagnostics);
    let mut taught = Taught {
        notes: Vec::new(),
        refusals: refused,
    };
    new_signals.retain(|signal| !warnings.iter().any(|w| w.trigger == signal.trigger));
    let candidates_path = scope.project.candidates_file();
    let pool = match CandidateFile::load(&candidates_path) {
        Ok(pool) => pool,
        Err(error) => {
            taught
                .notes
                .push(format!("{error}; nothing was learned from this edit"));
            return taught;
        }
    };
    let waiting_here = pool.candidates.iter().any(|c| {
        Place::all_of(&c.extra)
            .iter()
            .any(|place| place.file == edit.relative_path)
    });
    if new_signals.is_empty() && !waiting_here && !lesson_fix_pending {
        return taught;
    }
    let errors = Errors::of(diagnostics);
    let result = store::with_candidates(&candidates_path, HOOK_LOCK_WAIT, |pool| {
        apply(scope, edit, &new_signals, &errors, pool)
    });
    match result {
        Ok(learned) => taught.extend(learned),
        Err(error) => taught
            .notes
            .push(format!("nothing was learned from this edit: {error}")),
    }
    taught
}

/// What the checkers say of the file after the edit: the subjects they report and the lines
/// they report errors on.
pub(crate) struct Errors {
    subjects: HashSet<String>,
    lines: Vec<(usize, String)>,
}

impl Errors {
    fn of(diagnostics: &[Diagnostic]) -> Errors {
        Errors {
            subjects: current_error_triggers(diagnostics),
            lines: diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| (d.line, d.message.clone()))
                .collect(),
        }
    }

    fn reports(&self, subject: &str) -> bool {
        self.subjects.contains(subject)
    }

    /// The error on `line`, if a checker still rejects it.
    fn on_line(&self, line: usize) -> Option<&str> {
        self.lines
            .iter()
            .find(|(at, _)| *at == line)
            .map(|(_, message)| message.as_str())
    }
}

/// Under the candidates lock: fixes, new sightings, and promotions (which take the lessons lock).
fn apply(
    scope: &LessonScope<'_>,
    edit: &Edit,
    signals: &[Signal],
    errors: &Errors,
    pool: &mut CandidateFile,
) -> Result<(Taught, bool), LessonsError> {
    let mut taught = Taught::default();
    let mut changed = waiting::resolve(scope, edit, errors, pool, &mut taught);
    // Read again under the lock: a parallel hook may have promoted the same error since this one
    // read the lessons, and a candidate recorded now would be left beside its own lesson.
    let lessons = LessonFile::load(&scope.project.lessons_file())?;
    for signal in signals
        .iter()
        .filter(|signal| !is_learned(&lessons, signal))
    {
        changed |= record_error(scope, signal, pool, &mut taught.notes);
    }
    let ready: Vec<usize> = (0..pool.candidates.len())
        .filter(|index| is_ready(&pool.candidates[*index]))
        .collect();
    let mut code = ProjectCode::new(scope.project);
    let mut promoted: Vec<(Lesson, Verified)> = Vec::new();
    for index in ready {
        let candidate = &mut pool.candidates[index];
        match promotion::promote(candidate, edit, scope, &mut code) {
            Ok(found) => promoted.push(found),
            Err(refusal) => {
                changed |= note_refusal(candidate, &refusal, scope.clock.now());
                taught.refusals.push(Refused {
                    refusal,
                    source: Source::Validator,
                    scope: candidate.scope.clone(),
                    subject: candidate.trigger.clone(),
                    evidence: Evidence::all_of(&candidate.extra),
                });
            }
        }
    }
    // Lessons (or proposals) first: if that write fails, the candidates stay and the next edit
    // retries.
    let to_lessons: &[(Lesson, Verified)] = if scope.settings.learning.waits_for_a_person() {
        promotion::propose_all(scope, &promoted, &mut taught)?;
        &[]
    } else {
        &promoted
    };
    taught
        .notes
        .extend(promotion::update_lessons(scope, edit, errors, to_lessons)?);
    if !promoted.is_empty() {
        pool.candidates.retain(|c| {
            !promoted.iter().any(|(l, _)| {
                l.error_subject.as_deref() == Some(c.trigger.as_str())
                    && l.scope.as_str().ends_with(c.scope.as_str())
            })
        });
        changed = true;
    }
    Ok((taught, changed))
}

/// Marks a candidate whose promotion was refused; whether it changed.
fn note_refusal(candidate: &mut Candidate, refusal: &Refusal, now: i64) -> bool {
    let kind = candidate
        .extra
        .get(REFUSED_FIELD)
        .and_then(|value| value.get("kind"))
        .and_then(Value::as_str);
    if kind == Some(refusal.kind()) {
        return false;
    }
    candidate.extra.insert(
        REFUSED_FIELD.into(),
        json!({"kind": refusal.kind(), "reason": refusal.to_string(), "at": now}),
    );
    true
}

/// Whether a lesson of `lessons` already warns about `signal` (its trigger, in its scope).
fn is_learned(lessons: &LessonFile, signal: &Signal) -> bool {
    lessons.lessons().any(|lesson| {
        lesson.triggers.iter().any(|t| t.as_str() == signal.trigger)
            && (lesson.scope.as_str() == signal.scope || lesson.scope.matches(&signal.file))
    })
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

/// A checker's candidate seen twice, and how it was fixed is known. A learned candidate (a
/// review fix, a correction) is promoted where it is recorded ([`crate::learning::sighting`]):
/// made a checker's lesson, it would wait for a checker to report its trigger, which none does.
fn is_ready(candidate: &Candidate) -> bool {
    candidate.hits() >= 2
        && !matches!(
            Source::of(&candidate.extra),
            Some(Source::Review | Source::Reversal | Source::ReviewHistory | Source::Agent)
        )
        && !Evidence::all_of(&candidate.extra).is_empty()
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

/// `why` and what every fix wrote instead of the subject: "Write `B`, not `A`." when the fixes
/// agree on `B`, else "Avoid `A`.".
pub(crate) fn promoted_text(why: &str, trigger: &str, evidence: &[Evidence]) -> String {
    let fixes = evidence
        .iter()
        .map(|item| (item.bad.as_str(), item.fixed.as_str()));
    let advice = match common_replacement(trigger, fixes) {
        Some(fix) if !evidence.is_empty() => format!("Write `{fix}`, not `{trigger}`."),
        _ => format!("Avoid `{trigger}`."),
    };
    join_why(why, advice)
}

/// How long after the error the agent's change still counts as fixing its slip: the correction
/// window. An error left in place longer was not a slip the agent saw and fixed (a later
/// refactor that drops an import teaches nothing).
const FIX_WINDOW_SECONDS: i64 = crate::session::authored::CORRECTION_WINDOW_SECONDS;

mod place;
mod promotion;
mod waiting;

use place::Place;

#[cfg(test)]
mod tests;
