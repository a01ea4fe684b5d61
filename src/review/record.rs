//! What the PostToolUse hook records for the stop gate: the edit (with its content hash), the
//! validator errors of the file now, and the lesson warnings the edit drew.

use crate::files::FileError;
use crate::hook::{Edit, HookContext};
use crate::lessons::Warning;
use crate::review::event::{Event, content_hash};
use crate::review::log::EventLog;
use crate::validate::Diagnostic;

/// Records one checked edit.
pub fn edit_checked(
    context: &HookContext,
    edit: &Edit,
    diagnostics: &[Diagnostic],
    warnings: &[Warning],
) -> Result<(), FileError> {
    let log = EventLog::for_session(&context.project, context.session_id());
    let now = context.clock.now();
    log.append(
        now,
        Event::EditTracked {
            file: edit.relative_path.clone(),
            tool: edit.tool.clone(),
            hash: content_hash(edit.content.as_bytes()),
        },
    )?;
    log.append(
        now,
        Event::Validated {
            file: edit.relative_path.clone(),
            errors: diagnostics
                .iter()
                .filter(|d| d.is_error())
                .cloned()
                .collect(),
        },
    )?;
    if !warnings.is_empty() {
        log.append(
            now,
            Event::LessonWarned {
                file: edit.relative_path.clone(),
                warnings: warnings.to_vec(),
            },
        )?;
    }
    Ok(())
}

/// Records a file a tool deleted.
pub fn file_deleted(context: &HookContext, relative_path: &str) -> Result<(), FileError> {
    EventLog::for_session(&context.project, context.session_id()).append(
        context.clock.now(),
        Event::FileDeleted {
            file: relative_path.to_string(),
        },
    )
}
