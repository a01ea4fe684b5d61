//! The PostToolUse hook: for each file the tool changed, validate it, match the added text
//! against the lessons, learn from errors, record what happened for the stop gate, and answer.
//!
//! Answer rules (DESIGN.md): validator errors block (PostToolUse cannot undo an edit; `block`
//! makes the model look), lesson warnings alone go to `additionalContext`, both together go into
//! the block reason; notes for the human go to `systemMessage`.

use crate::hook::HookContext;
use crate::hook::edit::{self, Edit};
use crate::lessons::{self, Warning};
use crate::output::HookResponse;
use crate::validate::{Diagnostic, Report, Source, Validators};

/// Lesson warnings shown per answer; the rest are counted.
pub const MAX_WARNINGS_SHOWN: usize = 5;

pub fn handle(context: &HookContext) -> HookResponse {
    if !context.settings.enabled {
        return HookResponse::allow();
    }
    let changes = edit::derive(&context.payload, &context.project);
    let mut notes = changes.notes;
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let tracked: Vec<&Edit> = changes
        .edits
        .iter()
        .filter(|edit| context.settings.is_tracked_extension(&edit.relative_path))
        .collect();
    if !tracked.is_empty() {
        let validators = Validators::load(&context.project, &context.settings);
        for edit in tracked {
            let report = check_edit(context, &validators, edit);
            notes.extend(report.notes.iter().cloned());
            let scope = lessons::LessonScope {
                project: &context.project,
                settings: &context.settings,
                clock: context.clock,
                learn: context.settings.learning_enabled,
            };
            let lesson_outcome = lessons::on_edit(scope, edit, &report.diagnostics);
            notes.extend(lesson_outcome.notes);
            if let Err(error) = crate::review::record::edit_checked(
                context,
                edit,
                &report.diagnostics,
                &lesson_outcome.warnings,
            ) {
                notes.push(format!("could not record the edit for review: {error}"));
            }
            diagnostics.extend(report.diagnostics.into_iter().filter(is_worth_showing));
            warnings.extend(lesson_outcome.warnings);
        }
    }
    for deleted in &changes.deleted {
        if let Err(error) = crate::review::record::file_deleted(context, deleted) {
            notes.push(format!("could not record the deletion for review: {error}"));
        }
    }
    respond(&diagnostics, &mut warnings, &notes)
}

/// Validators, then the self-test of car's own configuration when the edit touched it.
fn check_edit(context: &HookContext, validators: &Validators, edit: &Edit) -> Report {
    let source = Source {
        path: &edit.path,
        display_path: &edit.relative_path,
        content: &edit.content,
        language: edit.language.as_deref(),
        added: &edit.added,
    };
    let mut report = validators.check(&source);
    if !report.diagnostics.iter().any(Diagnostic::is_error) {
        report
            .diagnostics
            .extend(crate::replay::self_test::check_config_edit(context, edit));
    }
    report
}

/// Errors, and warnings from checkers that are sure of them (a configured linter rule). A
/// tree-sitter warning is a finding the grammar itself may have misread, so it stays quiet.
fn is_worth_showing(diagnostic: &Diagnostic) -> bool {
    diagnostic.is_error() || !diagnostic.validator.starts_with("tree-sitter")
}

fn respond(diagnostics: &[Diagnostic], warnings: &mut [Warning], notes: &[String]) -> HookResponse {
    warnings.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.line.cmp(&b.line)));
    let (errors, validator_warnings): (Vec<&Diagnostic>, Vec<&Diagnostic>) = diagnostics
        .iter()
        .partition(|diagnostic| diagnostic.is_error());
    let warning_text = join_sections(
        render_validator_warnings(&validator_warnings),
        render_warnings(warnings),
    );
    let mut answer = if errors.is_empty() {
        HookResponse {
            additional_context: warning_text,
            ..HookResponse::default()
        }
    } else {
        let mut reason = String::from("car: the file you just edited has errors; fix them now:\n");
        for error in errors {
            reason.push_str(&error.render());
            reason.push('\n');
        }
        if let Some(warning_text) = warning_text {
            reason.push('\n');
            reason.push_str(&warning_text);
        }
        HookResponse::block(reason.trim_end().to_string())
    };
    for note in notes {
        answer = answer.with_system_line(format!("car: {note}"));
    }
    answer
}

/// Validator warnings the agent should see: `car warning: file:line:col: message [validator]`.
fn render_validator_warnings(warnings: &[&Diagnostic]) -> Option<String> {
    if warnings.is_empty() {
        return None;
    }
    let lines: Vec<String> = warnings
        .iter()
        .map(|warning| format!("car warning: {}", warning.render()))
        .collect();
    Some(lines.join("\n"))
}

fn join_sections(first: Option<String>, second: Option<String>) -> Option<String> {
    match (first, second) {
        (Some(first), Some(second)) => Some(format!("{first}\n{second}")),
        (first, second) => first.or(second),
    }
}

/// `⚠️ lesson (weight N): text (file:line)`, strongest first, at most [`MAX_WARNINGS_SHOWN`].
fn render_warnings(warnings: &[Warning]) -> Option<String> {
    if warnings.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = warnings
        .iter()
        .take(MAX_WARNINGS_SHOWN)
        .map(|warning| {
            let location = if warning.line > 0 {
                format!("{}:{}", warning.file, warning.line)
            } else {
                warning.file.clone()
            };
            format!(
                "⚠️ lesson (weight {}): {} ({location}, trigger {:?})",
                warning.weight, warning.lesson, warning.trigger
            )
        })
        .collect();
    if warnings.len() > MAX_WARNINGS_SHOWN {
        lines.push(format!(
            "… and {} more lesson warnings",
            warnings.len() - MAX_WARNINGS_SHOWN
        ));
    }
    Some(lines.join("\n"))
}
