//! From a tool call that has not run yet to the edits it would make: each file as the tool would
//! leave it (a Write's content; an Edit's, MultiEdit's or `replace`'s strings applied to the file
//! on disk by the tool's own rule; a Codex patch applied as Codex applies it), with the lines it
//! would add.
//!
//! Invariants: an edit whose result car cannot know for certain is left out, never guessed: a
//! non-unique or missing `old_string` is the tool's own error, a Codex patch without its
//! `*** Begin Patch` / `*** End Patch` envelope is Codex's own error, a file car does not read
//! (outside the project, too large, binary) is not checked, a notebook cell and a deletion change
//! no text car checks before the tool runs. A result over car's read bound (2 MiB) is never
//! built: it is named, once, and gets no verdict (the write goes through).

use crate::agents::payload::{Payload, ToolCall};
use crate::edit::codex_patch::{self, Action};
use crate::edit::replace::NotApplied;
use crate::edit::{Delta, Edit, MAX_FILE_BYTES, NotChecked, read_project_file};
use crate::project::Project;

/// What a tool call would do to the files car checks.
#[derive(Debug, Default)]
pub(crate) struct Proposed {
    /// Each file as the tool would leave it.
    pub(crate) edits: Vec<Edit>,
    /// Files (project-relative) the tool call would leave over car's read bound: no verdict.
    pub(crate) too_large: Vec<String>,
}

/// The edits the payload's tool call would make. Nothing larger than [`MAX_FILE_BYTES`] is ever
/// built: a replacement's result size is known from its count before it is made.
pub(crate) fn derive(payload: &Payload, project: &Project) -> Proposed {
    let mut proposed = Proposed::default();
    for (file, content) in outcomes(payload, project) {
        match content {
            Ok(content) if content.len() as u64 <= MAX_FILE_BYTES => {
                proposed.edits.push(file.edit(&payload.tool.name, content));
            }
            Ok(_) | Err(NotApplied::TooLarge { .. }) => proposed.too_large.push(file.relative_path),
            // The tool's own error: no verdict.
            Err(_) => {}
        }
    }
    proposed
}

/// Each file the tool call names that car reads, with what the tool would leave in it.
fn outcomes(payload: &Payload, project: &Project) -> Vec<(File, Result<String, NotApplied>)> {
    let at = |path: &str| File::read(project, &project.resolve(payload.cwd(), path));
    match &payload.tool.call {
        ToolCall::Write {
            path,
            content: Some(content),
            ..
        } => at(path)
            .map(|file| (file, Ok(content.clone())))
            .into_iter()
            .collect(),
        ToolCall::Replace {
            path, replacements, ..
        } if !replacements.is_empty() => at(path)
            .map(|file| {
                let current = file.current.as_deref();
                let content = crate::edit::replace::apply(current, replacements, MAX_FILE_BYTES);
                (file, content)
            })
            .into_iter()
            .collect(),
        // Codex refuses a patch without its envelope: no verdict on what it would not apply.
        ToolCall::Patch { text } if codex_patch::has_envelope(text) => codex_patch::parse(text)
            .iter()
            .filter(|patch| !matches!(patch.action, Action::Delete))
            .filter_map(|patch| {
                let file = at(&patch.path)?;
                let content = patch.apply(file.current.as_deref())?;
                Some((file, Ok(content)))
            })
            .collect(),
        _ => Vec::new(),
    }
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
    /// checked after the edit either, so it is not checked before: [`derive`] says so instead).
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
