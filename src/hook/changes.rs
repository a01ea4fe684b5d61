//! From a tool call to the edits it made: the protocol side of [`crate::edit`]. Each agent's file
//! (`agents/`) has already turned its tool payload (Claude Write / Edit / MultiEdit /
//! NotebookEdit, Gemini `write_file` / `replace`, Cursor `afterFileEdit`, Codex `apply_patch`)
//! into a typed [`ToolCall`] naming files and what it did to them; this turns that into
//! [`Delta`]s, reads each file once, and derives the added lines.
//!
//! A file is read only where it resolves inside the project ([`crate::project`]), found once per
//! file and read where it resolved: a link leading out of it is named in a note and never read.
//!
//! Sources of the added lines, best first: Claude's `structuredPatch`; the old and new strings
//! located in the file; the diff against the previous content (Write: `originalFile`, else the
//! git HEAD version, else all of it); the cell source (NotebookEdit); the `+` lines of a Codex
//! `apply_patch`.

use std::path::PathBuf;

use crate::agents::payload::{Payload, Previous, ToolCall};
use crate::edit::codex_patch::{self, Action};
use crate::edit::{AddedLine, Delta, Edit, NotChecked, PatchChunk, outside, read_inside};
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
    /// The shell command the tool ran, when it was one (it names no file: what it changed is
    /// found at the stop).
    pub(crate) shell: Option<ShellRun>,
    /// Project-relative paths of the files the tool read (a read tool, or a shell command's
    /// reading programs: [`crate::hook::file_lessons::reads`]).
    pub(crate) read: Vec<String>,
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

/// The shell command the agent ran (Claude Code `Bash`, Gemini CLI `run_shell_command`, Codex
/// `Bash` / `shell` / `exec_command`, Cursor `afterShellExecution`), if it was one: the files it
/// plausibly touched are the agent's own work, never a person's correction.
fn shell_run(payload: &Payload) -> Option<ShellRun> {
    match &payload.tool.call {
        ToolCall::Shell { command, duration } => Some(ShellRun {
            command: command.clone(),
            duration: *duration,
        }),
        _ => None,
    }
}

/// Whether [`derive`] finds the files the tool read: only their lessons need them, and reading a
/// shell command for its reads takes a parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    Find,
    Skip,
}

/// The edits a PostToolUse payload made, read from disk, the shell command it ran and, with
/// [`Reads::Find`], the files it read.
pub(crate) fn derive(payload: &Payload, project: &Project, reads: Reads) -> Changes {
    // What the payload names, taken whole before any file of it is looked at.
    let touched = touched_files(payload);
    let mut changes = Changes {
        shell: shell_run(payload),
        read: match reads {
            Reads::Find => crate::hook::file_lessons::reads::files_read(payload, project),
            Reads::Skip => Vec::new(),
        },
        ..Changes::default()
    };
    for touched in touched {
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
        ) = match read_inside(inside) {
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
            tool: payload.tool.name.clone(),
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
        tool: payload.tool.name.clone(),
        content: source,
        before: None,
        added,
        language,
    }
}

fn touched_files(payload: &Payload) -> Vec<Touched> {
    let touched = |path: &String, delta: Option<Delta>, before: Option<String>| Touched {
        path: path.clone(),
        delta,
        before,
        is_before_unknown: false,
    };
    match &payload.tool.call {
        ToolCall::Write { path, before, .. } => vec![Touched {
            is_before_unknown: *before == Previous::Unknown,
            ..touched(
                path,
                Some(Delta::Whole {
                    before: match before {
                        Previous::Known(before) => before.clone(),
                        Previous::Unknown => None,
                    },
                }),
                None,
            )
        }],
        ToolCall::Replace {
            path,
            original,
            hunks,
            replacements,
        } => {
            let delta = if hunks.is_empty() {
                Delta::Replacements(replacements.clone())
            } else {
                Delta::Patch(hunks.clone())
            };
            vec![touched(path, Some(delta), original.clone())]
        }
        ToolCall::NotebookCell {
            path,
            source,
            language,
            is_delete,
            ..
        } => {
            let cell = Delta::Cell {
                source: source.clone(),
                language: Some(language.clone()),
            };
            vec![touched(path, (!is_delete).then_some(cell), None)]
        }
        ToolCall::Patch { text } => codex_patch(text),
        ToolCall::Shell { .. } | ToolCall::Read { .. } | ToolCall::Other => Vec::new(),
    }
}

/// The files of a Codex patch envelope, with the new-side lines of each to locate its added
/// lines in the file as written.
fn codex_patch(patch: &str) -> Vec<Touched> {
    codex_patch::parse(patch)
        .into_iter()
        .map(|file| {
            let (delta, before) = match &file.action {
                Action::Add(lines) => {
                    let chunk = PatchChunk {
                        lines: lines.iter().map(|line| (true, line.clone())).collect(),
                    };
                    (Some(Delta::PatchLines(vec![chunk])), Some(String::new()))
                }
                Action::Update(chunks) => {
                    let chunks = chunks
                        .iter()
                        .map(|chunk| PatchChunk {
                            lines: chunk
                                .new_lines()
                                .into_iter()
                                .map(|(added, text)| (added, text.to_string()))
                                .collect(),
                        })
                        .collect();
                    (Some(Delta::PatchLines(chunks)), None)
                }
                Action::Delete => (None, None),
            };
            Touched {
                path: file.path,
                delta,
                before,
                is_before_unknown: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_shell_command_read_are_found_only_when_wanted() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("app.py"), "x = 1\n").unwrap();
        let payload = serde_json::json!({
            "session_id": "s", "cwd": root.path(), "hook_event_name": "PostToolUse",
            "tool_name": "Bash", "tool_input": {"command": "cat app.py"},
            "tool_response": {"stdout": "x = 1\n", "stderr": "", "interrupted": false},
        });
        let payload = Payload::parse(payload.to_string().as_bytes(), None).unwrap();
        let project = Project::discover(root.path());
        let found = derive(&payload, &project, Reads::Find);
        assert_eq!(found.read, ["app.py"]);
        assert!(found.shell.is_some());
        let skipped = derive(&payload, &project, Reads::Skip);
        assert!(skipped.read.is_empty());
        assert_eq!(
            skipped.shell.map(|run| run.command),
            found.shell.map(|run| run.command)
        );
    }

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
