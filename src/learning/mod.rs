//! Learning: every signal that becomes a candidate and then a lesson. Validator errors an edit
//! wrote ([`from_validator`]), blocking review findings the agent fixed ([`fixed_findings`] →
//! [`from_review`]) and a person's corrections of what the agent wrote ([`from_correction`]);
//! the rules a learned trigger must pass ([`precision`], [`fragment`], [`reformat`]) and what a
//! sighting does to the lesson files ([`sighting`]). The hooks call [`on_edit`] after each edit
//! and the moments in [`signals`].
//!
//! Invariants: rather miss than false-alarm: a trigger that would fire on ordinary code is
//! refused; nothing here fails a hook: every problem becomes a note.

pub(crate) mod fixed_findings;
pub(crate) mod fragment;
pub(crate) mod from_correction;
pub(crate) mod from_review;
pub(crate) mod from_validator;
pub(crate) mod generated;
pub(crate) mod heed;
pub(crate) mod pattern;
pub(crate) mod precision;
pub(crate) mod reformat;
pub(crate) mod refusal;
pub(crate) mod sighting;
pub(crate) mod signals;
pub(crate) mod synthesis;
pub(crate) mod tokens;
pub(crate) mod verification;

use crate::edit::Edit;
use crate::lessons::{self, EditLessons, LessonScope, model};
use crate::validate::Diagnostic;

/// Matches the edit's added text, records hits, and learns from the edit's diagnostics (an empty
/// list after earlier errors in the same file means the agent fixed them).
pub(crate) fn on_edit(
    scope: LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
) -> EditLessons {
    let (mut out, layers) = lessons::match_edit(scope, edit, diagnostics);
    // A corrupt lessons file is never touched: no learning until it is fixed.
    if scope.settings.lessons_enabled
        && scope.record
        && layers.project.is_some()
        && scope.settings.learning_enabled
    {
        let pending = layers.has_pending_fix(&edit.relative_path);
        let known: Vec<&model::Lesson> = layers
            .active()
            .into_iter()
            .map(|(lesson, _)| lesson)
            .collect();
        from_validator::learn_from_edit(&scope, edit, diagnostics, pending, &known, &mut out);
    }
    out
}
