//! The replay steps that are not edit-hook calls: `check` (what `car check PATH…` does:
//! validators, then the lessons on the whole file, read-only: no hit, no learning), `maintain`
//! (what `car lessons maintain` does: decay, candidate expiry, merge) and `session_end` (what the
//! SessionEnd hook does to the lessons: fold the hit log, daily maintenance).

use crate::clock::Clock;
use crate::diagnostic::Diagnostic;
use crate::edit::{AddedLine, Edit, NotChecked};
use crate::lesson_warning::Warning;
use crate::pipeline::{Checker, LessonUse};
use crate::project::Project;
use crate::scenario::observation::Observation;
use crate::settings::Settings;

/// Checks each file as `car check` does (through the same pipeline) and reports it as what the
/// agent would have seen; a file car does not check (binary, too large, missing) is a note in
/// the step's message, as `car check` prints it.
pub(crate) fn run(
    project: &Project,
    settings: &Settings,
    clock: Clock,
    paths: &[String],
) -> Observation {
    let lessons = LessonUse {
        record: false,
        user_layer: false,
    };
    let checker = Checker::new(project, settings, clock, lessons);
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    for relative in paths {
        let edit = match whole_file(project, relative) {
            Ok(edit) => edit,
            Err(note) => {
                notes.push(format!("note: {note}"));
                continue;
            }
        };
        let report = checker.check(&edit);
        errors.extend(report.diagnostics.into_iter().filter(Diagnostic::is_error));
        warnings.extend(report.warnings);
    }
    Observation {
        message: notes.join("\n"),
        ..observation(&errors, &warnings)
    }
}

/// What `car check` prints, as the agent would read it: errors as the block reason, lesson hits
/// as warnings in the hook's format.
fn observation(errors: &[Diagnostic], warnings: &[Warning]) -> Observation {
    let reason: Vec<String> = errors.iter().map(Diagnostic::render).collect();
    Observation {
        blocked: !errors.is_empty(),
        reason: reason.join("\n"),
        warnings: warnings.iter().map(Warning::render).collect(),
        ..Observation::default()
    }
}

/// `car check` treats the whole file as added; the file is read with the same guard.
fn whole_file(project: &Project, relative: &str) -> Result<Edit, NotChecked> {
    let path = project.root().join(relative);
    let content = crate::edit::read_text(&path, relative)?;
    Ok(Edit {
        path,
        relative_path: relative.to_string(),
        tool: "check".into(),
        added: AddedLine::every_line(&content),
        content,
        before: None,
        language: None,
    })
}

/// One maintenance run over the project's lessons and candidates (`car lessons maintain`); what
/// it reported, or why it could not run, is the step's message, so a scenario can expect either.
pub(crate) fn maintain(project: &Project, clock: Clock) -> Observation {
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

/// The lessons' part of the end of a session ([`crate::lessons::close_session`]); its notes are
/// the step's message.
pub(crate) fn session_end(project: &Project, settings: &Settings, clock: Clock) -> Observation {
    let notes = crate::lessons::close_session(project, settings, clock);
    Observation {
        message: notes.join("\n"),
        ..Observation::default()
    }
}
