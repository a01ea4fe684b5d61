//! From a tool payload to the edits it made: the protocol side of [`crate::edit`]. Each agent's
//! tool payload (Claude Write / Edit / MultiEdit / NotebookEdit, Gemini `write_file` / `replace`,
//! Cursor `afterFileEdit`, Codex `apply_patch`) names files and what it did to them; this turns
//! that into [`Delta`]s, reads each file once, and derives the added lines.
//!
//! A file is read only where it resolves inside the project ([`crate::project`]): a link leading
//! out of it is named in a note and never read.
//!
//! Sources of the added lines, best first: Claude's `structuredPatch`; the old and new strings
//! located in the file; the diff against the previous content (Write: `originalFile`, else the
//! git HEAD version, else all of it); the cell source (NotebookEdit); the `+` lines of a Codex
//! `apply_patch`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::edit::{
    AddedLine, Delta, Edit, Hunk, NotChecked, PatchChunk, outside, read_project_file,
};
use crate::hook::payload::Payload;
use crate::project::{Inside, Project};
use crate::session::authored::ShellRun;

/// Everything one payload did to files.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) edits: Vec<Edit>,
    /// Project-relative paths of files the tool deleted.
    pub(crate) deleted: Vec<String>,
    /// The files that were not checked, and why.
    pub(crate) not_checked: Vec<NotChecked>,
}

/// A file named by a payload, with what happened to it.
struct Touched {
    path: String,
    /// `None`: the tool deleted the file.
    delta: Option<Delta>,
    before: Option<String>,
    /// A whole-file write whose payload does not say what it replaced: the git HEAD version is
    /// the previous content, when there is one.
    is_before_unknown: bool,
}

/// The shell command the payload reports the agent ran (Claude Code `Bash`, Gemini CLI
/// `run_shell_command`, Codex `shell` / `exec_command`, Cursor `afterShellExecution`), if it
/// reports one: the files it plausibly touched are the agent's own work, never a person's
/// correction.
pub(crate) fn shell_run(payload: &Payload) -> Option<ShellRun> {
    let is_shell = matches!(
        payload.tool_name(),
        "Bash" | "run_shell_command" | "shell" | "exec_command" | "local_shell"
    ) || payload.event_name == "afterShellExecution";
    if !is_shell {
        return None;
    }
    let input = &payload.raw.tool_input;
    let command = match input.get("command") {
        Some(Value::String(line)) => line.clone(),
        // Codex's `shell` tool: an argv list.
        Some(Value::Array(argv)) => argv
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => payload.raw.command.clone().unwrap_or_default(),
    };
    Some(ShellRun {
        command,
        duration: payload.raw.duration_ms.map(Duration::from_millis),
    })
}

/// The edits a PostToolUse payload made, read from disk.
pub(crate) fn derive(payload: &Payload, project: &Project) -> Changes {
    let mut changes = Changes::default();
    for touched in touched_files(payload) {
        let path = project.resolve(payload.cwd(), &touched.path);
        let Some(inside) = project.inside(&path) else {
            changes.not_checked.push(outside(project, &path));
            continue;
        };
        let Some(delta) = touched.delta else {
            changes.deleted.push(inside.relative);
            continue;
        };
        if let Delta::Cell { source, language } = delta {
            changes.edits.push(cell_edit(
                payload,
                inside.resolved,
                inside.relative,
                source,
                language,
            ));
            continue;
        }
        let (
            Inside {
                relative: relative_path,
                resolved: path,
            },
            content,
        ) = match read_project_file(project, &path) {
            Ok(read) => read,
            Err(not_checked) => {
                changes.not_checked.push(not_checked);
                continue;
            }
        };
        let before = touched.before.or_else(|| delta.undo(&content));
        let delta = if touched.is_before_unknown {
            Delta::Whole {
                before: project.head_version(&relative_path),
            }
        } else {
            delta
        };
        let added = delta.added_lines(&content);
        changes.edits.push(Edit {
            path,
            relative_path,
            tool: payload.tool_name().to_string(),
            content,
            before,
            added,
            language: None,
        });
    }
    changes
}

fn cell_edit(
    payload: &Payload,
    path: PathBuf,
    relative_path: String,
    source: String,
    language: Option<String>,
) -> Edit {
    let added = AddedLine::every_line(&source);
    Edit {
        path,
        relative_path,
        tool: payload.tool_name().to_string(),
        content: source,
        before: None,
        added,
        language,
    }
}

fn touched_files(payload: &Payload) -> Vec<Touched> {
    let input = &payload.raw.tool_input;
    let response = &payload.raw.tool_response;
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(String::from);
    match payload.tool_name() {
        "Write" | "write_file" => {
            let Some(path) = text(input, "file_path").or_else(|| text(response, "filePath")) else {
                return Vec::new();
            };
            let (before, is_before_unknown) = match response.get("originalFile") {
                Some(Value::String(original)) => (Some(original.clone()), false),
                Some(Value::Null) => (None, false),
                _ if text(response, "type").as_deref() == Some("create") => (None, false),
                _ => (None, true),
            };
            vec![Touched {
                path,
                delta: Some(Delta::Whole { before }),
                before: None,
                is_before_unknown,
            }]
        }
        "Edit" | "MultiEdit" | "replace" | "afterFileEdit" => {
            let source = if payload.raw.file_path.is_some() && input.is_null() {
                None
            } else {
                Some(input)
            };
            let path = source
                .and_then(|input| text(input, "file_path"))
                .or_else(|| payload.raw.file_path.clone())
                .or_else(|| text(response, "filePath"));
            let Some(path) = path else {
                return Vec::new();
            };
            let before =
                text(response, "originalFile").or_else(|| text(response, "originalFileContents"));
            let delta = match structured_patch(response) {
                Some(hunks) if !hunks.is_empty() => Delta::Patch(hunks),
                _ => Delta::Replacements(replacements(input, &payload.raw.edits)),
            };
            vec![Touched {
                path,
                delta: Some(delta),
                before,
                is_before_unknown: false,
            }]
        }
        "NotebookEdit" => {
            let Some(path) = text(input, "notebook_path") else {
                return Vec::new();
            };
            let source = text(input, "new_source").unwrap_or_default();
            let cell_type = text(input, "cell_type").or_else(|| text(response, "cell_type"));
            let language = match cell_type.as_deref() {
                Some("markdown") => Some("markdown".to_string()),
                _ => Some(text(response, "language").unwrap_or_else(|| "python".to_string())),
            };
            let delete = text(input, "edit_mode").as_deref() == Some("delete");
            vec![Touched {
                path,
                delta: (!delete).then_some(Delta::Cell { source, language }),
                before: None,
                is_before_unknown: false,
            }]
        }
        "apply_patch" => codex_patch(
            &text(input, "command")
                .or_else(|| text(input, "patch"))
                .unwrap_or_default(),
        ),
        _ => Vec::new(),
    }
}

fn structured_patch(response: &Value) -> Option<Vec<Hunk>> {
    let hunks = response.get("structuredPatch")?.as_array()?;
    Some(
        hunks
            .iter()
            .filter_map(|hunk| {
                Some(Hunk {
                    new_start: hunk.get("newStart")?.as_u64()? as usize,
                    lines: hunk
                        .get("lines")?
                        .as_array()?
                        .iter()
                        .filter_map(|line| line.as_str().map(String::from))
                        .collect(),
                })
            })
            .collect(),
    )
}

/// Old/new pairs from `tool_input` (`old_string`/`new_string` or `edits[]`) or Cursor's `edits`.
fn replacements(input: &Value, cursor_edits: &Value) -> Vec<(String, String)> {
    let pair = |value: &Value| {
        let new = value.get("new_string")?.as_str()?.to_string();
        let old = value
            .get("old_string")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Some((old, new))
    };
    if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        return edits.iter().filter_map(pair).collect();
    }
    if let Some(single) = pair(input) {
        return vec![single];
    }
    cursor_edits
        .as_array()
        .map(|edits| edits.iter().filter_map(pair).collect())
        .unwrap_or_default()
}

/// Parses the Codex patch envelope (`*** Add File:`, `*** Update File:`, `*** Delete File:`).
fn codex_patch(patch: &str) -> Vec<Touched> {
    let mut touched: Vec<Touched> = Vec::new();
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            touched.push(Touched {
                path: path.trim().to_string(),
                delta: Some(Delta::PatchLines(vec![PatchChunk::default()])),
                before: Some(String::new()),
                is_before_unknown: false,
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            touched.push(Touched {
                path: path.trim().to_string(),
                delta: Some(Delta::PatchLines(vec![PatchChunk::default()])),
                before: None,
                is_before_unknown: false,
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            touched.push(Touched {
                path: path.trim().to_string(),
                delta: None,
                before: None,
                is_before_unknown: false,
            });
        } else if let Some(path) = line.strip_prefix("*** Move to: ") {
            if let Some(last) = touched.last_mut() {
                last.path = path.trim().to_string();
            }
        } else if line.starts_with("***") {
            continue;
        } else if let Some(Touched {
            delta: Some(Delta::PatchLines(chunks)),
            ..
        }) = touched.last_mut()
        {
            if line.starts_with("@@") {
                chunks.push(PatchChunk::default());
            } else if let Some(chunk) = chunks.last_mut() {
                if let Some(added) = line.strip_prefix('+') {
                    chunk.lines.push((true, added.to_string()));
                } else if let Some(context) = line.strip_prefix(' ') {
                    chunk.lines.push((false, context.to_string()));
                }
            }
        }
    }
    touched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_patch_envelope() {
        let touched = codex_patch(
            "*** Begin Patch\n*** Update File: src/app.py\n@@ def load(path):\n-    x\n+    y\n*** Add File: src/util.py\n+def f():\n+    pass\n*** Delete File: old.py\n*** End Patch\n",
        );
        assert_eq!(touched.len(), 3);
        assert_eq!(touched[0].path, "src/app.py");
        assert!(touched[2].delta.is_none());
        let mut touched = touched;
        let Some(Delta::PatchLines(chunks)) = &mut touched[1].delta else {
            panic!("add file must carry lines");
        };
        let added = Delta::PatchLines(std::mem::take(chunks)).added_lines("def f():\n    pass\n");
        assert_eq!(
            added[1],
            AddedLine {
                line: 2,
                text: "    pass".into()
            }
        );
    }
}
