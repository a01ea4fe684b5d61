//! The PostToolUse hook: derive what the tool did once (the files it changed, deleted, left
//! unread or read, the shell command it ran); for each file changed, validate it, match the added
//! text against the lessons and learn from what the checks found; record the whole tool call for
//! the stop gate in one write; answer. Below this file nothing sees the payload: each layer gets
//! the facts it needs.
//!
//! Answer rules (docs/contracts.md): validator errors block (PostToolUse cannot undo an edit; `block`
//! makes the model look), lesson warnings alone go to `additionalContext`, both together go into
//! the block reason; notes for the human go to `systemMessage`. Where the agent's client reads
//! context after a tool and not before it (Gemini CLI), the lessons of the files written come
//! with an answer that does not block ([`crate::hook::file_lessons`]).

use crate::agents::answer::HookEvent;
use crate::agents::payload::ToolCall;
use crate::answer::Answer;
use crate::diagnostic::Diagnostic;
use crate::edit::Edit;
use crate::hook::HookContext;
use crate::hook::changes::{self, Changes};
use crate::hook::file_lessons;
use crate::lesson_warning::Warning;
use crate::pipeline::kept_verdicts::Role;
use crate::pipeline::{Checker, EditReport, LessonUse};
use crate::session::edit_record::{CheckedEdit, Recording, ToolCallRecord, Unrecorded};

/// Lesson warnings shown per answer; the rest are counted.
pub(crate) const MAX_WARNINGS_SHOWN: usize = 5;

pub(crate) fn handle(context: &HookContext) -> Answer {
    if !context.settings.enabled {
        return Answer::allow();
    }
    // What an earlier stop could not tell the model goes with this answer.
    let agent_note = crate::session::agent_note::take(context.session());
    // The facts of the tool call, derived once: the rest of the hook hands them down.
    let reads = if file_lessons::may_give(context) {
        changes::Reads::Find
    } else {
        changes::Reads::Skip
    };
    let changes = changes::derive(&context.payload, &context.project, reads);
    if let ToolCall::Read { .. } = context.payload.tool.call {
        // A read changed nothing: nothing is checked or recorded, and the answer is the lessons
        // of the files read, before the agent's first edit of them.
        let answer = Answer {
            additional_context: agent_note,
            ..Answer::default()
        };
        return with_file_lessons(context, &changes.read, &[], &[], answer);
    }
    let mut notes: Vec<String> = changes
        .not_checked
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Some(run) = &changes.shell {
        notes.extend(crate::learning::signals::after_shell(context.session(), run).notes);
    }
    let tracked: Vec<&Edit> = changes
        .edits
        .iter()
        .filter(|edit| context.settings.is_tracked_extension(&edit.relative_path))
        .collect();
    let written: Vec<&str> = tracked
        .iter()
        .map(|edit| edit.relative_path.as_str())
        .collect();
    let checked = check_and_learn(context, &tracked, &mut notes);
    notes.extend(record(context, &changes, &checked));
    let Shown {
        diagnostics,
        mut warnings,
        told,
    } = shown(checked, notebook_cell(context));
    if context.settings.lessons_enabled {
        notes.extend(lesson_problems(context));
    }
    let fired: Vec<String> = warnings
        .iter()
        .map(|warning| warning.lesson_id.clone())
        .collect();
    let answer = respond(&diagnostics, &mut warnings, agent_note, &told, &notes);
    with_file_lessons(context, &changes.read, &written, &fired, answer)
}

/// One edit as checked: what the pipeline reported, and a finding told to the agent that does not
/// block, with why.
struct Checked<'a> {
    edit: &'a Edit,
    /// The content hash of `edit.content`: the kept verdicts, the event log and what the agent
    /// wrote all name this version by it.
    hash: String,
    report: EditReport,
    told: Option<(Diagnostic, String)>,
}

impl Checked<'_> {
    fn as_record(&self) -> CheckedEdit<'_> {
        CheckedEdit {
            edit: self.edit,
            hash: &self.hash,
            diagnostics: &self.report.diagnostics,
            warnings: &self.report.warnings,
            not_blocked: self
                .told
                .as_ref()
                .map(|(finding, why)| (finding, why.as_str())),
        }
    }
}

/// Checks each edit and learns from what the check returned, edit by edit, so what one edit taught
/// is in the library when the next is checked.
fn check_and_learn<'a>(
    context: &HookContext,
    tracked: &[&'a Edit],
    notes: &mut Vec<String>,
) -> Vec<Checked<'a>> {
    if tracked.is_empty() {
        return Vec::new();
    }
    let lessons = LessonUse {
        record: context.settings.learning_enabled,
        user_layer: context.user_lessons,
    };
    // The content PreToolUse checked for this write is on disk now: its verdict stands.
    let checker = Checker::new(&context.project, &context.settings, context.clock, lessons)
        .with_kept_verdicts(context.session(), Role::Takes);
    let mut checked = Vec::new();
    for edit in tracked {
        // Hashed once: the kept verdicts, the event log and what the agent wrote all name
        // this version by it.
        let hash = crate::session::event::content_hash(edit.content.as_bytes());
        let mut report = checker.check_hashed(edit, Some(&hash));
        if !context.settings.lessons_warn() {
            // `learning: observe`: car learns and proposes, and no lesson speaks.
            report.warnings.clear();
        }
        notes.append(&mut report.notes);
        notes.append(&mut report.lesson_notes);
        let facts = crate::learning::signals::EditFacts {
            diagnostics: &report.diagnostics,
            warnings: &report.warnings,
            library_readable: report.lesson_facts.library_readable,
            fix_pending: report.lesson_facts.fix_pending,
        };
        let taught = crate::learning::signals::after_edit(context.session(), edit, &hash, facts);
        notes.extend(taught.notes);
        let told = told_finding(edit, &report.diagnostics);
        checked.push(Checked {
            edit,
            hash,
            report,
            told,
        });
    }
    checked
}

/// Records what the tool call did for the stop gate (one write: [`ToolCallRecord`]); a note for
/// each part that could not be recorded.
fn record(context: &HookContext, changes: &Changes, checked: &[Checked<'_>]) -> Vec<String> {
    let record = ToolCallRecord {
        shell: changes.shell.as_ref(),
        tool: &context.payload.tool.name,
        edits: checked.iter().map(Checked::as_record).collect(),
        unread: changes
            .not_checked
            .iter()
            .filter_map(|note| note.too_large())
            .filter(|path| context.settings.is_tracked_extension(path))
            .collect(),
        deleted: &changes.deleted,
    };
    crate::session::edit_record::tool_call(context.session(), &record)
        .iter()
        .map(unrecorded_note)
        .collect()
}

/// What the agent is shown of the checked edits.
struct Shown {
    /// Errors, and the warnings worth showing ([`is_worth_showing`]), named in their cell.
    diagnostics: Vec<Diagnostic>,
    warnings: Vec<Warning>,
    /// The findings told and not blocking, with why.
    told: Vec<String>,
}

fn shown(checked: Vec<Checked<'_>>, cell: Option<&str>) -> Shown {
    let mut shown = Shown {
        diagnostics: Vec::new(),
        warnings: Vec::new(),
        told: Vec::new(),
    };
    for checked in checked {
        if let Some((finding, why)) = &checked.told {
            shown.told.push(format!(
                "car: a possible slip in this new file: {}\n  Not blocking: {why}; check that line.",
                finding.render()
            ));
        }
        shown.diagnostics.extend(
            checked
                .report
                .diagnostics
                .into_iter()
                .filter(is_worth_showing)
                .map(|diagnostic| in_cell(diagnostic, cell)),
        );
        shown.warnings.extend(checked.report.warnings);
    }
    shown
}

/// What the person is told when a part of the tool call's record could not be written.
fn unrecorded_note(unrecorded: &Unrecorded) -> String {
    let error = &unrecorded.error;
    match unrecorded.what {
        Recording::Baseline => format!("could not record the session's baseline: {error}"),
        Recording::Edit => format!("could not record the edit for review: {error}"),
        Recording::Deletion => format!("could not record the deletion for review: {error}"),
    }
}

/// The answer with the lessons of the files written, where this hook gives them to the agent
/// (Gemini CLI: [`crate::hook::file_lessons`]), but those it warns about (`fired`), and of the
/// files `read` (by a read tool, or a shell command); never with a block, whose reason says what
/// matters.
fn with_file_lessons(
    context: &HookContext,
    read: &[String],
    written: &[&str],
    fired: &[String],
    answer: Answer,
) -> Answer {
    if answer.block_reason.is_some() {
        return answer;
    }
    let of_writes = file_lessons::for_write(context, HookEvent::PostToolUse, written, fired);
    let read: Vec<&str> = read
        .iter()
        .map(String::as_str)
        .filter(|file| !written.contains(file))
        .collect();
    let of_reads = file_lessons::for_read(context, &read);
    let mut answer = answer;
    answer.additional_context = join_sections(
        answer.additional_context.take(),
        join_sections(of_writes, of_reads),
    );
    answer
}

/// The notebook cell the tool wrote, when it was one (its id or number).
fn notebook_cell(context: &HookContext) -> Option<&str> {
    match &context.payload.tool.call {
        ToolCall::NotebookCell { cell, .. } => cell.as_deref(),
        _ => None,
    }
}

/// A finding in a notebook cell names the cell: its line and column count in the cell.
fn in_cell(mut diagnostic: Diagnostic, cell: Option<&str>) -> Diagnostic {
    if let Some(cell) = cell {
        diagnostic.message = format!("in cell {cell}: {}", diagnostic.message);
    }
    diagnostic
}

/// In a new file, the first finding of a grammar car does not block on (trusted only for what an
/// edit introduced, its bracket balance not agreeing), with why: told to the agent, never silent.
/// Nothing when the file has an error (that one is said).
fn told_finding(edit: &Edit, diagnostics: &[Diagnostic]) -> Option<(Diagnostic, String)> {
    let is_new = edit.before.as_deref().is_none_or(str::is_empty);
    if !is_new || diagnostics.iter().any(Diagnostic::is_error) {
        return None;
    }
    let source = crate::validate::Source::of_edit(edit);
    diagnostics.iter().find_map(|diagnostic| {
        crate::validate::told_not_blocked(diagnostic, &source).map(|why| (diagnostic.clone(), why))
    })
}

/// Lesson entries car ignores, each told once per session (see `lessons::problems`).
fn lesson_problems(context: &HookContext) -> Vec<String> {
    let project_file = context.project.lessons_file();
    let user_file = context
        .user_lessons
        .then(crate::lessons::store::user_lessons_path)
        .flatten();
    let files: Vec<&std::path::Path> = std::iter::once(project_file.as_path())
        .chain(user_file.as_deref())
        .collect();
    let memory = context
        .project
        .client_dir(&context.payload.session_id)
        .join(crate::state::names::LESSON_PROBLEMS);
    crate::lessons::problems::not_yet_mentioned(&files, &memory)
}

/// Errors, and warnings from checkers that are sure of them (a configured linter rule). A
/// tree-sitter warning is a finding the grammar itself may have misread, so it stays quiet.
fn is_worth_showing(diagnostic: &Diagnostic) -> bool {
    diagnostic.is_error() || diagnostic.origin.is_authoritative()
}

fn respond(
    diagnostics: &[Diagnostic],
    warnings: &mut [Warning],
    agent_note: Option<String>,
    told: &[String],
    notes: &[String],
) -> Answer {
    warnings.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.line.cmp(&b.line)));
    let (errors, validator_warnings): (Vec<&Diagnostic>, Vec<&Diagnostic>) = diagnostics
        .iter()
        .partition(|diagnostic| diagnostic.is_error());
    let told = (!told.is_empty()).then(|| told.join("\n"));
    let warning_text = join_sections(
        agent_note,
        join_sections(
            join_sections(told, render_validator_warnings(&validator_warnings)),
            render_warnings(warnings),
        ),
    );
    let mut answer = if errors.is_empty() {
        Answer {
            additional_context: warning_text,
            ..Answer::default()
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
        Answer::block(reason.trim_end().to_string())
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
        .map(Warning::render)
        .collect();
    if warnings.len() > MAX_WARNINGS_SHOWN {
        lines.push(format!(
            "… and {} more lesson warnings",
            warnings.len() - MAX_WARNINGS_SHOWN
        ));
    }
    Some(lines.join("\n"))
}
