//! The learning door: everything a session teaches the lesson library starts here, one function
//! per hook moment, from the facts the checks returned. After an edit of the agent's edit tools
//! ([`after_edit`]: the checkers' errors it wrote or fixed, the person's corrections it
//! revealed), after its shell command ([`after_shell`]), after a write PreToolUse stopped
//! ([`after_stopped_write`]), after the stop gate answered ([`at_stop`]: corrections on disk,
//! review findings the agent fixed) and at the session's end ([`at_session_end`]); and, outside
//! a session, from the team's review history ([`from_review_history`]). What became of
//! each lesson warning (heeded, ignored) is settled at the same moments ([`heed`]). Every refusal
//! a moment produced is recorded here, in one place ([`crate::learning::refusal::log`]).
//!
//! Invariants: nothing happens when lessons or learning are switched off; nothing here fails a
//! hook — every problem becomes a note, even a panic ([`contained`]), so the gate's decision and
//! the edit's answer are never changed by learning.

use crate::diagnostic::Diagnostic;
use crate::edit::Edit;
use crate::learning::review_history::github::ReviewComment;
use crate::learning::review_history::{self, Imported};
use crate::learning::sighting::{Noted, Taught};
use crate::learning::{
    from_agent, from_correction, from_review, from_validator, heed, refusal::log as refusal_log,
};
use crate::lessons::{LessonScope, Warning};
use crate::session::Session;
use crate::session::authored::{Authored, ShellRun};
use crate::session::log::EventLog;

fn lesson_scope<'a>(session: &Session<'a>) -> Option<LessonScope<'a>> {
    let settings = session.settings;
    (settings.lessons_enabled && settings.learning_enabled).then_some(LessonScope {
        project: session.project,
        settings,
        clock: session.clock,
        record: true,
        user_layer: false,
    })
}

/// Runs one learning step; a panic inside it becomes a note instead of taking the hook's answer
/// with it.
fn contained(step: impl FnOnce() -> Taught) -> Taught {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step)).unwrap_or_else(|_| {
        noted("learning failed with an internal error; nothing was learned".into())
    })
}

/// What the checks found in one edit, as the learning door needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EditFacts<'a> {
    pub(crate) diagnostics: &'a [Diagnostic],
    pub(crate) warnings: &'a [Warning],
    /// The project's lessons file could be read (a corrupt one is never written).
    pub(crate) library_readable: bool,
    /// A learned lesson waits for the fix of an error in this file.
    pub(crate) fix_pending: bool,
}

/// Learns from the checkers' errors the edit wrote or fixed; records what the agent's edit wrote
/// and learns from the corrections it revealed; settles the earlier warnings of the file it
/// heeded. `hash` is the content hash of `edit.content`.
pub(crate) fn after_edit(
    session: Session<'_>,
    edit: &Edit,
    hash: &str,
    facts: EditFacts<'_>,
) -> Taught {
    contained(|| edit_step(session, edit, hash, facts))
}

fn edit_step(session: Session<'_>, edit: &Edit, hash: &str, facts: EditFacts<'_>) -> Taught {
    let Some(scope) = lesson_scope(&session) else {
        return Taught::default();
    };
    let mut taught = if facts.library_readable {
        from_validator::learn_from_edit(
            &scope,
            edit,
            facts.diagnostics,
            facts.fix_pending,
            facts.warnings,
        )
    } else {
        Taught::default()
    };
    let authored = Authored::for_session(session.project, session.id);
    match authored.record_edit(edit, hash, session.clock.now()) {
        Ok(corrections) => taught.extend(from_correction::learn(&scope, &corrections)),
        Err(error) => taught
            .notes
            .push(format!("could not record what the agent wrote: {error}")),
    }
    taught
        .notes
        .extend(heed::after_edit(&scope, &session, edit, facts.warnings));
    settled(&scope, taught)
}

/// The refusals of one moment recorded in the refusal log (the one place that writes it); what
/// the person is told, added to the notes.
fn settled(scope: &LessonScope<'_>, mut taught: Taught) -> Taught {
    match refusal_log::record(scope.project, scope.clock.now(), &taught.refusals) {
        Ok(told) => taught.notes.extend(told),
        Err(error) => taught.notes.push(format!(
            "could not record what car refused to learn: {error}"
        )),
    }
    taught
}

/// A write the PreToolUse hook stopped for `warnings` (lessons heavy enough to stop it): they
/// wait for their outcome like warnings after an edit ([`heed::after_stopped_write`]).
pub(crate) fn after_stopped_write(
    session: Session<'_>,
    edit: &Edit,
    warnings: &[Warning],
) -> Taught {
    contained(|| {
        if warnings.is_empty() || lesson_scope(&session).is_none() {
            return Taught::default();
        }
        match heed::after_stopped_write(&session, edit, warnings) {
            Ok(()) => Taught::default(),
            Err(error) => noted(format!("could not record lesson warnings: {error}")),
        }
    })
}

/// The agent's shell command changed files: what it plausibly touched is its own work, never a
/// correction.
pub(crate) fn after_shell(session: Session<'_>, run: &ShellRun) -> Taught {
    contained(|| shell_step(session, run))
}

fn shell_step(session: Session<'_>, run: &ShellRun) -> Taught {
    if lesson_scope(&session).is_none() {
        return Taught::default();
    }
    let authored = Authored::for_session(session.project, session.id);
    match authored.shell_ran(session.project, session.clock.now(), run) {
        Ok(()) => Taught::default(),
        Err(error) => noted(format!(
            "could not record the agent's shell changes: {error}"
        )),
    }
}

/// After the stop gate: corrections in the files on disk, then the review findings the agent
/// fixed.
pub(crate) fn at_stop(session: Session<'_>) -> Taught {
    contained(|| {
        let Some(scope) = lesson_scope(&session) else {
            return Taught::default();
        };
        settled(&scope, stop_step(session, &scope))
    })
}

fn stop_step(session: Session<'_>, scope: &LessonScope<'_>) -> Taught {
    let scope = *scope;
    let authored = Authored::for_session(session.project, session.id);
    let mut taught = match authored.observe(session.project, session.clock.now()) {
        Ok(corrections) => from_correction::learn(&scope, &corrections),
        Err(error) => noted(format!("could not look for corrections: {error}")),
    };
    let log = EventLog::for_session(session.project, session.id);
    let snapshot = || crate::session::checkpoint::load(&log).ok();
    taught
        .notes
        .extend(heed::at_stop(&scope, &session, snapshot));
    if !log.exists() || !has_two_reviews(&log) {
        return taught;
    }
    let snapshot = match crate::session::checkpoint::load(&log) {
        Ok(snapshot) if snapshot.reviews.len() >= 2 => snapshot,
        Ok(_) => return taught,
        Err(error) => {
            taught
                .notes
                .push(format!("could not read the session's reviews: {error}"));
            return taught;
        }
    };
    let fixes = crate::learning::fixed_findings::find(&session, &snapshot, &authored);
    taught.extend(from_review::learn(&scope, &fixes.fixes));
    if let Err(error) = fixes.mark_decided(&session) {
        taught.notes.push(format!(
            "could not remember which findings were learned from: {error}"
        ));
    }
    taught
}

/// `car lessons learn-from-reviews`: the suggested changes in the team's review comments
/// ([`review_history`]); its refusals are recorded like a session's.
pub(crate) fn from_review_history(
    scope: &LessonScope<'_>,
    comments: &[ReviewComment],
    progress: impl FnMut(usize),
    ask: Option<review_history::Ask<'_>>,
) -> Imported {
    let mut imported = review_history::learn(scope, comments, progress, ask);
    imported.taught = settled(scope, std::mem::take(&mut imported.taught));
    imported
}

/// The agent proposed a lesson from a mistake it made (`car mcp`'s `propose_lesson`): one
/// sighting of source `agent`, recorded as a candidate and verified like every other; it never
/// becomes a lesson by itself ([`crate::learning::sighting`]).
pub(crate) fn from_agent_proposal(
    scope: &LessonScope<'_>,
    proposal: &from_agent::Proposal<'_>,
) -> (Noted, Taught) {
    let mut taught = Taught::default();
    let noted = from_agent::record(scope, proposal, &mut taught);
    (noted, settled(scope, taught))
}

/// The session ended: its warnings still open are dropped uncounted.
pub(crate) fn at_session_end(session: Session<'_>) {
    heed::forget(&session);
}

/// Whether the session asked for two reviews or more (the gate writes one prompt per request):
/// with fewer nothing can have disappeared in a later review, and the snapshot is not read again.
fn has_two_reviews(log: &EventLog) -> bool {
    let Ok(entries) = std::fs::read_dir(log.dir().join(crate::state::names::REVIEWS_DIR)) else {
        return false;
    };
    entries
        .flatten()
        .filter(|entry| {
            (entry.file_name().to_string_lossy()).ends_with(crate::state::names::PROMPT_SUFFIX)
        })
        .nth(1)
        .is_some()
}

fn noted(note: String) -> Taught {
    Taught {
        notes: vec![note],
        refusals: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_learning_is_a_note() {
        let taught = contained(|| panic!("index out of bounds"));
        assert_eq!(taught.notes.len(), 1);
        assert!(taught.notes[0].contains("internal error"), "{taught:?}");
    }
}
