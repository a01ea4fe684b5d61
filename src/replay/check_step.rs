//! The replay steps that are not hook calls: `check` (what `car check PATH…` does: validators,
//! then the lessons on the whole file, learning from errors) and `maintain` (what
//! `car lessons maintain` does: decay, candidate expiry, merge).

use crate::clock::Clock;
use crate::hook::{AddedLine, Edit};
use crate::lessons::{self, LessonScope, Warning};
use crate::project::Project;
use crate::replay::observation::{Observation, WARNING_MARKER};
use crate::setup::settings::Settings;
use crate::validate::{Diagnostic, Source, Validators};

/// Checks each file as `car check` does and reports it as what the agent would have seen.
pub fn run(
    project: &Project,
    settings: &Settings,
    clock: Clock,
    paths: &[String],
) -> Result<Observation, String> {
    let validators = Validators::load(project, settings);
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut warnings = Vec::new();
    for relative in paths {
        let edit = whole_file(project, relative)?;
        let source = Source {
            path: &edit.path,
            display_path: &edit.relative_path,
            content: &edit.content,
            language: None,
            added: &[],
        };
        let report = validators.check(&source);
        let scope = LessonScope {
            project,
            settings,
            clock,
            learn: settings.learning_enabled,
        };
        let outcome = lessons::on_edit(scope, &edit, &report.diagnostics);
        errors.extend(report.diagnostics.into_iter().filter(Diagnostic::is_error));
        warnings.extend(outcome.warnings);
    }
    Ok(observation(&errors, &warnings))
}

/// What `car check` prints, as the agent would read it: errors as the block reason, lesson hits
/// as warnings in the hook's format.
fn observation(errors: &[Diagnostic], warnings: &[Warning]) -> Observation {
    let reason: Vec<String> = errors.iter().map(Diagnostic::render).collect();
    Observation {
        blocked: !errors.is_empty(),
        reason: reason.join("\n"),
        warnings: warnings
            .iter()
            .map(|warning| {
                format!(
                    "{WARNING_MARKER} (weight {}): {} ({}:{}, trigger {:?})",
                    warning.weight, warning.lesson, warning.file, warning.line, warning.trigger
                )
            })
            .collect(),
        ..Observation::default()
    }
}

/// `car check` treats the whole file as added.
fn whole_file(project: &Project, relative: &str) -> Result<Edit, String> {
    let path = project.root().join(relative);
    let content =
        std::fs::read_to_string(&path).map_err(|error| format!("check: {relative}: {error}"))?;
    let added = content
        .lines()
        .enumerate()
        .map(|(index, text)| AddedLine {
            line: index + 1,
            text: text.to_string(),
        })
        .collect();
    Ok(Edit {
        path,
        relative_path: relative.to_string(),
        tool: "check".into(),
        content,
        before: None,
        added,
        language: None,
    })
}

/// One maintenance run over the project's lessons and candidates (`car lessons maintain`); what
/// it reported, or why it could not run, is the step's message, so a scenario can expect either.
pub fn maintain(project: &Project, clock: Clock) -> Observation {
    let message = match crate::lessons::maintain::run(project, clock, false) {
        Ok(report) if report.is_empty() => "maintain: nothing to do".to_string(),
        Ok(report) => format!("maintain: {}", report.lines().join("; ")),
        Err(error) => format!("maintain: {error}"),
    };
    Observation {
        message,
        ..Observation::default()
    }
}
