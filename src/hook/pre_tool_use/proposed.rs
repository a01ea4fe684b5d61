//! From a tool call that has not run yet to the edits it would make: each file as the tool would
//! leave it (a Write's content; an Edit's, MultiEdit's or `replace`'s strings applied to the file
//! on disk by the tool's own rule; a Codex patch applied as Codex applies it), with the lines it
//! would add.
//!
//! Invariant: an edit whose result car cannot know for certain is left out, never guessed: a
//! non-unique or missing `old_string` is the tool's own error, a file car does not read (outside
//! the project, too large, binary) is not checked, a notebook cell and a deletion change no text
//! car checks before the tool runs.

use crate::agents::payload::{Payload, ToolCall};
use crate::edit::codex_patch::{self, Action};
use crate::edit::{Delta, Edit, NotChecked, read_project_file};
use crate::project::Project;

/// The edits the payload's tool call would make.
pub(crate) fn derive(payload: &Payload, project: &Project) -> Vec<Edit> {
    let tool = &payload.tool.name;
    let at = |path: &str| File::read(project, &project.resolve(payload.cwd(), path));
    let edits: Vec<Edit> = match &payload.tool.call {
        ToolCall::Write {
            path,
            content: Some(content),
            ..
        } => at(path)
            .map(|file| file.edit(tool, content.clone()))
            .into_iter()
            .collect(),
        ToolCall::Replace {
            path, replacements, ..
        } if !replacements.is_empty() => at(path)
            .and_then(|file| {
                let content =
                    crate::edit::replace::apply(file.current.as_deref(), replacements).ok()?;
                Some(file.edit(tool, content))
            })
            .into_iter()
            .collect(),
        ToolCall::Patch { text } => codex_patch::parse(text)
            .into_iter()
            .filter(|patch| !matches!(patch.action, Action::Delete))
            .filter_map(|patch| {
                let file = at(&patch.path)?;
                let content = patch.apply(file.current.as_deref())?;
                Some(file.edit(tool, content))
            })
            .collect(),
        _ => Vec::new(),
    };
    edits
        .into_iter()
        .filter(|edit| edit.content.len() as u64 <= crate::edit::MAX_FILE_BYTES)
        .collect()
}

/// A file a tool call names, as it is now.
struct File {
    path: std::path::PathBuf,
    relative_path: String,
    /// `None`: the file does not exist yet.
    current: Option<String>,
}

impl File {
    /// The file at `path`, when car reads it (inside the project, text, within the bound) or it
    /// does not exist yet.
    fn read(project: &Project, path: &std::path::Path) -> Option<File> {
        let (inside, current) = match read_project_file(project, path) {
            Ok((inside, current)) => (inside, Some(current)),
            Err(NotChecked::Missing { .. }) => (project.inside(path)?, None),
            Err(_) => return None,
        };
        Some(File {
            path: inside.resolved,
            relative_path: inside.relative,
            current,
        })
    }

    /// The edit that leaves `content` in this file (content past car's read bound is not
    /// checked after the edit either, so it is not checked before: [`derive`] drops it).
    fn edit(self, tool: &str, content: String) -> Edit {
        let added = Delta::Whole {
            before: self.current.clone(),
        }
        .added_lines(&content);
        Edit {
            path: self.path,
            relative_path: self.relative_path,
            tool: tool.to_string(),
            content,
            before: self.current,
            added,
            language: None,
        }
    }
}
