//! The PreToolUse hook (Claude Code `PreToolUse`, Codex `PreToolUse`, Gemini CLI `BeforeTool`):
//! before an edit tool runs, check the file as the tool would leave it ([`proposed`]) and
//! stop the write when car is certain it is wrong, so the broken file never touches disk:
//! - a checker car fully trusts ([`crate::validate::is_certain`]: Python's compiler, `bash -n`,
//!   the JSON and YAML parsers, `gofmt`, `ruby -c`, the grammars trusted to block) rejects the new
//!   content where the file as it is now is clean;
//! - the added lines repeat a lesson of weight at least `preventWeight`.
//!
//! Everything else is let through: a lighter lesson, an import (what is installed decides), a
//! grammar trusted only for what an edit introduced, a linter's opinion, an edit car cannot apply
//! the way the tool would. The PostToolUse hook still checks, warns and records what the write
//! left. A write let through gets the lessons of its file as context for the model, once per file
//! and session ([`crate::hook::file_lessons`]); a denied one only the deny.
//!
//! Invariants: this hook never learns and never writes the lessons: the only traces of a stop are
//! the session's note of it ([`stopped_writes`]: the same write sent again
//! unchanged goes through), a `write_stopped` event in the session's log (for `car report` and
//! `car status`) and, for a stop by lessons, their warnings waiting for an outcome like
//! warnings after an edit ([`crate::learning::heed`]: heeded when the agent's next write leaves the
//! line out); a failure lets the write through (fail open).

mod proposed;
mod stopped_writes;

use stopped_writes::Decision;

use crate::agents::answer::HookEvent;
use crate::answer::Answer;
use crate::edit::{Edit, NotChecked};
use crate::hook::HookContext;
use crate::lesson_warning::Warning;
use crate::pipeline::kept_verdicts::Role;
use crate::pipeline::{Checker, LessonUse};
use crate::session::event::{Event, content_hash};
use crate::validate::language::Language;
use crate::validate::{Diagnostic, Source};

/// Why one file's write was stopped.
struct Stop<'a> {
    edit: &'a Edit,
    hash: String,
    errors: Vec<Diagnostic>,
    lessons: Vec<Warning>,
}

pub(crate) fn handle(context: &HookContext) -> Answer {
    let settings = &context.settings;
    if !settings.enabled || !(settings.prevent_edits || settings.edit_briefing) {
        return Answer::allow();
    }
    let proposed = proposed::derive(&context.payload, &context.project);
    let mut answer = Answer::allow();
    for path in proposed.too_large {
        if settings.prevent_edits && settings.is_tracked_extension(&path) {
            let note = NotChecked::WouldBeTooLarge { path };
            answer = answer.with_system_line(format!("car: {note}"));
        }
    }
    let edits: Vec<Edit> = proposed
        .edits
        .into_iter()
        .filter(|edit| settings.is_tracked_extension(&edit.relative_path))
        .collect();
    if edits.is_empty() {
        return answer;
    }
    let mut fired = Vec::new();
    if settings.prevent_edits {
        answer = check(context, &edits, answer, &mut fired);
    }
    if answer.block_reason.is_some() {
        // A denied write: the deny says what matters.
        return answer;
    }
    let files: Vec<&str> = edits
        .iter()
        .map(|edit| edit.relative_path.as_str())
        .collect();
    Answer {
        additional_context: crate::hook::file_lessons::for_write(
            context,
            HookEvent::PreToolUse,
            &files,
            &fired,
        ),
        ..answer
    }
}

/// Checks the writes and stops those car would stop; the ids of the lessons the writes repeat go
/// to `fired` (the warning after the edit names them).
fn check(
    context: &HookContext,
    edits: &[Edit],
    mut answer: Answer,
    fired: &mut Vec<String>,
) -> Answer {
    let lessons = LessonUse {
        record: false,
        user_layer: context.user_lessons,
    };
    let checker = Checker::new(&context.project, &context.settings, context.clock, lessons)
        .with_kept_verdicts(context.session(), Role::Keeps);
    let mut lesson_notes = Vec::new();
    let stops: Vec<Stop> = edits
        .iter()
        .filter_map(|edit| stop_for(context, &checker, edit, &mut lesson_notes, fired))
        .collect();
    let mut said = std::collections::HashSet::new();
    for note in lesson_notes
        .into_iter()
        .filter(|note| said.insert(note.clone()))
    {
        answer = answer.with_system_line(format!("car: {note}"));
    }
    if stops.is_empty() {
        return answer;
    }
    stop_writes(context, stops, answer)
}

/// Stops the writes car would stop, unless the agent sent them again unchanged or they cannot be
/// remembered ([`stopped_writes`]: a stop car could not let through later is never made).
fn stop_writes(context: &HookContext, stops: Vec<Stop>, mut answer: Answer) -> Answer {
    let writes: Vec<(&str, &str)> = stops
        .iter()
        .map(|stop| (stop.edit.relative_path.as_str(), stop.hash.as_str()))
        .collect();
    let decisions = match stopped_writes::decide(context.session(), &writes) {
        Ok(decisions) => decisions,
        Err(error) => {
            let message = format!(
                "could not remember the stop of this write ({error}), so car let it through: a stop the agent could not get past would be a wall; the check after the edit still reports it"
            );
            crate::state::log_hook_error(&context.project.state_dir(), &message);
            return answer.with_system_line(format!("car: {message}"));
        }
    };
    let mut stopped = Vec::new();
    for (stop, decision) in stops.into_iter().zip(decisions) {
        let file = &stop.edit.relative_path;
        if decision == Decision::SentAgain {
            answer = answer.with_system_line(format!(
                "car: let the write of {file} through unchanged, as the agent sent it again after car stopped it; the check after the edit still reports it"
            ));
            continue;
        }
        let taught = crate::learning::signals::after_stopped_write(
            context.session(),
            stop.edit,
            &stop.lessons,
        );
        for note in taught.notes {
            answer = answer.with_system_line(format!("car: {note}"));
        }
        stopped.push(stop);
    }
    if stopped.is_empty() {
        return answer;
    }
    if let Err(error) = record_stops(context, &stopped) {
        // The stop stands (it is remembered in its own list); only the report misses it.
        crate::state::log_hook_error(
            &context.project.state_dir(),
            &format!("pre-tool-use: the stopped write was not logged: {error}"),
        );
    }
    Answer {
        block_reason: Some(reason(&stopped, context.settings.prevent_weight)),
        ..answer
    }
}

/// Logs each stopped write as a session event, for `car report` and `car status`.
fn record_stops(context: &HookContext, stopped: &[Stop]) -> Result<(), crate::files::FileError> {
    let events = stopped
        .iter()
        .map(|stop| Event::WriteStopped {
            file: stop.edit.relative_path.clone(),
            errors: stop.errors.clone(),
            lessons: stop.lessons.clone(),
        })
        .collect();
    crate::session::edit_record::writes_stopped(context.session(), events)
}

/// What stops this edit, if anything; what the lessons had to say besides (a lessons file car
/// cannot read) goes to `lesson_notes`, the ids of the lessons it repeats to `fired`.
fn stop_for<'a>(
    context: &HookContext,
    checker: &Checker<'_>,
    edit: &'a Edit,
    lesson_notes: &mut Vec<String>,
    fired: &mut Vec<String>,
) -> Option<Stop<'a>> {
    let report = checker.check(edit);
    lesson_notes.extend(report.lesson_notes);
    fired.extend(
        report
            .warnings
            .iter()
            .map(|warning| warning.lesson_id.clone()),
    );
    let source = source_of(edit, &edit.content);
    let mut errors: Vec<Diagnostic> = report
        .diagnostics
        .into_iter()
        .filter(|diagnostic| crate::validate::is_certain(diagnostic, &source))
        .collect();
    if !errors.is_empty() && !is_clean_now(checker, edit) {
        // The file is broken already: the agent may be fixing it a piece at a time.
        errors.clear();
    }
    let lessons: Vec<Warning> = if context.settings.lessons_warn() {
        report
            .warnings
            .into_iter()
            .filter(|warning| warning.weight >= context.settings.prevent_weight)
            .collect()
    } else {
        Vec::new()
    };
    if errors.is_empty() && lessons.is_empty() {
        return None;
    }
    Some(Stop {
        edit,
        hash: content_hash(edit.content.as_bytes()),
        errors,
        lessons,
    })
}

/// Whether the file as it is now has no error car is certain of (a file that does not exist yet
/// is clean). Python's is read by its grammar, in process, instead of a second interpreter start:
/// a grammar error (or a misread of valid code) counts as not clean, which lets the write
/// through; a file only the compiler finds broken counts as clean, and the write, whose new
/// content the compiler rejected, is stopped.
fn is_clean_now(checker: &Checker<'_>, edit: &Edit) -> bool {
    let Some(current) = edit.before.as_deref() else {
        return true;
    };
    let source = source_of(edit, current);
    let language = Language::detect(source.path, source.content, source.language);
    if language == Some(Language::Python) {
        return crate::validate::treesitter::parse_errors(current, Language::Python, 1)
            .is_ok_and(|errors| errors.is_empty());
    }
    let report = checker.validators().check(&source, None);
    !report
        .diagnostics
        .iter()
        .any(|diagnostic| crate::validate::is_certain(diagnostic, &source))
}

/// The edit's file holding `content`, with nothing added (an import check looks at added lines
/// only, and imports never stop a write).
fn source_of<'a>(edit: &'a Edit, content: &'a str) -> Source<'a> {
    Source {
        content,
        added: &[],
        ..Source::of_edit(edit)
    }
}

/// The deny reason: the errors in the words the PostToolUse block uses, then the lessons.
fn reason(stopped: &[Stop], prevent_weight: u32) -> String {
    let mut text = String::new();
    let errors: Vec<&Diagnostic> = stopped.iter().flat_map(|stop| &stop.errors).collect();
    if !errors.is_empty() {
        text.push_str(
            "car: this edit was not made: the file would have errors; fix them in the edit and try again:\n",
        );
        for error in errors {
            text.push_str(&error.render());
            text.push('\n');
        }
    }
    let mut lessons: Vec<&Warning> = stopped.iter().flat_map(|stop| &stop.lessons).collect();
    lessons.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.line.cmp(&b.line)));
    if !lessons.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        // Say truly where the lessons came from: learned here, or put there by a person.
        let what = if lessons.iter().all(|warning| warning.origin.is_some()) {
            "a mistake car learned in this project"
        } else if lessons.iter().all(|warning| warning.origin.is_none()) {
            "what a lesson of this project warns about"
        } else {
            "mistakes car learned or this project's lessons warn about"
        };
        text.push_str(&format!(
            "car: this edit was not made: it repeats {what} (lessons of weight {prevent_weight} or more stop an edit); write it the way the lesson says and try again:\n"
        ));
        for warning in lessons
            .iter()
            .take(super::post_tool_use::MAX_WARNINGS_SHOWN)
        {
            text.push_str(&warning.render());
            text.push('\n');
        }
    }
    text.trim_end().to_string()
}
