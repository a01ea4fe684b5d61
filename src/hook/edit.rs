//! From a tool payload to the edits it made: for each file, its content now and the text the edit
//! **added**, with line numbers. Lessons match only added text, so a mistake fires once, when it
//! is written, not on every later edit of the same file.
//!
//! Sources of the added lines, best first: Claude's `structuredPatch`; the diff of the old and new
//! strings located in the file (Edit, MultiEdit, Gemini `replace`, Cursor `afterFileEdit`); the
//! diff against the previous content (Write: `originalFile`, else the git HEAD version, else all of
//! it); the cell source (NotebookEdit); the `+` lines of a Codex `apply_patch`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::hook::payload::Payload;
use crate::project::Project;

/// Files larger than this are not checked (one note instead).
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// One line the edit added; `line` is 1-based in [`Edit::content`], 0 when it could not be located.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AddedLine {
    pub line: usize,
    pub text: String,
}

impl AddedLine {
    /// Every line of `text`, numbered from 1: a new file, or `car check`, where all of it counts.
    pub fn every_line(text: &str) -> Vec<AddedLine> {
        text.lines()
            .enumerate()
            .map(|(index, line)| AddedLine {
                line: index + 1,
                text: line.to_string(),
            })
            .collect()
    }
}

/// One file as an edit left it.
#[derive(Debug, Clone)]
pub struct Edit {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Path relative to the project root, `/`-separated.
    pub relative_path: String,
    /// The tool that made the edit ("Edit", "Write", "apply_patch", …).
    pub tool: String,
    /// The content to validate: the file as it is on disk now, or a notebook cell's source.
    pub content: String,
    /// The file before the edit, when the payload carries it.
    pub before: Option<String>,
    pub added: Vec<AddedLine>,
    /// A language that overrides the one the file name implies (a notebook cell's language).
    pub language: Option<String>,
}

impl Edit {
    /// The added lines joined by newlines (what lesson triggers are matched against).
    pub fn added_text(&self) -> String {
        let mut text = String::new();
        for added in &self.added {
            text.push_str(&added.text);
            text.push('\n');
        }
        text
    }
}

/// Everything one payload did to files.
#[derive(Debug, Default)]
pub struct Changes {
    pub edits: Vec<Edit>,
    /// Project-relative paths of files the tool deleted.
    pub deleted: Vec<String>,
    /// One line per file that was not checked, and why.
    pub notes: Vec<String>,
}

/// What a tool says it changed in one file, before the file is read.
enum Delta {
    /// `structuredPatch` hunks.
    Patch(Vec<Hunk>),
    /// Old/new string pairs (Edit, MultiEdit, replace, afterFileEdit).
    Replacements(Vec<(String, String)>),
    /// A whole-file write; `before` is the previous content when the payload has it
    /// (`Some(None)`: the file was created).
    Whole { before: Option<Option<String>> },
    /// Lines a patch added, with the patch's context to locate them.
    PatchLines(Vec<PatchChunk>),
    /// A notebook cell.
    Cell {
        source: String,
        language: Option<String>,
    },
}

struct Hunk {
    new_start: usize,
    lines: Vec<String>,
}

/// One `@@` section of a Codex patch: its new-side lines, each marked added or not.
struct PatchChunk {
    lines: Vec<(bool, String)>,
}

/// A file named by a payload, with what happened to it.
struct Touched {
    path: String,
    delta: Option<Delta>,
    before: Option<String>,
}

/// The edits a PostToolUse payload made, read from disk.
pub fn derive(payload: &Payload, project: &Project) -> Changes {
    let mut changes = Changes::default();
    for touched in touched_files(payload) {
        let path = project.resolve(payload.cwd(), &touched.path);
        let Some(relative_path) = project.relative(&path) else {
            changes.notes.push(format!(
                "{}: outside the project {}; not tracked",
                path.display(),
                project.checkout().display()
            ));
            continue;
        };
        let Some(delta) = touched.delta else {
            changes.deleted.push(relative_path);
            continue;
        };
        if let Delta::Cell { source, language } = delta {
            changes
                .edits
                .push(cell_edit(payload, path, relative_path, source, language));
            continue;
        }
        let content = match read_text(&path, &relative_path) {
            Ok(content) => content,
            Err(note) => {
                changes.notes.push(note);
                continue;
            }
        };
        let before = touched.before.or_else(|| match &delta {
            Delta::Whole {
                before: Some(before),
            } => before.clone(),
            _ => None,
        });
        let added = added_lines(&delta, &content, project, &relative_path);
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

/// Reads a file car is to check, refusing what it does not check (over 2 MiB, binary, not
/// UTF-8) with the one-line note that says so.
pub fn read_text(path: &Path, relative_path: &str) -> Result<String, String> {
    let bytes = match crate::files::read_bounded(path, MAX_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(crate::files::FileError::TooLarge { .. }) => {
            return Err(format!("{relative_path}: larger than 2 MiB; not checked"));
        }
        Err(crate::files::FileError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Err(format!(
                "{relative_path}: no longer exists (deleted after the edit?); not checked"
            ));
        }
        Err(error) => return Err(format!("{error}; not checked")),
    };
    if bytes.contains(&0) {
        return Err(format!("{relative_path}: binary file; not checked"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{relative_path}: not UTF-8 text; not checked"))
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
            let before = match response.get("originalFile") {
                Some(Value::String(original)) => Some(Some(original.clone())),
                Some(Value::Null) => Some(None),
                _ if text(response, "type").as_deref() == Some("create") => Some(None),
                _ => None,
            };
            vec![Touched {
                path,
                delta: Some(Delta::Whole { before }),
                before: None,
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
                delta: Some(Delta::PatchLines(vec![PatchChunk { lines: Vec::new() }])),
                before: Some(String::new()),
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            touched.push(Touched {
                path: path.trim().to_string(),
                delta: Some(Delta::PatchLines(vec![PatchChunk { lines: Vec::new() }])),
                before: None,
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            touched.push(Touched {
                path: path.trim().to_string(),
                delta: None,
                before: None,
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
                chunks.push(PatchChunk { lines: Vec::new() });
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

fn added_lines(
    delta: &Delta,
    content: &str,
    project: &Project,
    relative_path: &str,
) -> Vec<AddedLine> {
    match delta {
        Delta::Patch(hunks) => from_hunks(hunks),
        Delta::Replacements(pairs) => pairs
            .iter()
            .flat_map(|(old, new)| from_replacement(old, new, content))
            .collect(),
        Delta::Whole {
            before: Some(Some(before)),
        } => diff_added(before, content),
        Delta::Whole { before: Some(None) } => AddedLine::every_line(content),
        Delta::Whole { before: None } => match project.head_version(relative_path) {
            Some(before) => diff_added(&before, content),
            None => AddedLine::every_line(content),
        },
        Delta::PatchLines(chunks) => chunks
            .iter()
            .flat_map(|chunk| from_patch_chunk(chunk, content))
            .collect(),
        Delta::Cell { source, .. } => AddedLine::every_line(source),
    }
}

fn from_hunks(hunks: &[Hunk]) -> Vec<AddedLine> {
    let mut added = Vec::new();
    for hunk in hunks {
        let mut line_number = hunk.new_start;
        for line in &hunk.lines {
            if let Some(text) = line.strip_prefix('+') {
                added.push(AddedLine {
                    line: line_number,
                    text: text.to_string(),
                });
                line_number += 1;
            } else if line.starts_with(' ') {
                line_number += 1;
            }
        }
    }
    added
}

/// The lines `new` adds over `old`, numbered where `new` stands in the file. Located lines carry
/// the whole file line, so a replacement inside a line is matched with its context.
fn from_replacement(old: &str, new: &str, content: &str) -> Vec<AddedLine> {
    if new.is_empty() {
        return Vec::new();
    }
    let inserted = inserted_indices(old, new);
    let new_lines: Vec<&str> = new.lines().collect();
    let Some(offset) = content.find(new) else {
        return inserted
            .into_iter()
            .filter_map(|index| new_lines.get(index))
            .map(|text| AddedLine {
                line: 0,
                text: text.to_string(),
            })
            .collect();
    };
    let first_line = content[..offset].matches('\n').count();
    let file_lines: Vec<&str> = content.lines().collect();
    inserted
        .into_iter()
        .filter_map(|index| {
            let line = first_line + index;
            let text = file_lines.get(line).or_else(|| new_lines.get(index))?;
            Some(AddedLine {
                line: line + 1,
                text: text.to_string(),
            })
        })
        .collect()
}

/// Indices (0-based, into `new`'s lines) of the lines a line diff marks as inserted.
fn inserted_indices(old: &str, new: &str) -> Vec<usize> {
    // A line diff sees "x" (last line, no newline) and "x\n" as different lines, so an Edit whose
    // old_string has no trailing newline (the usual case) would count its unchanged last line as
    // added, and a trigger already on that line would fire again. Compare whole lines.
    let terminated = |text: &str| {
        if text.is_empty() || text.ends_with('\n') {
            text.to_string()
        } else {
            format!("{text}\n")
        }
    };
    let (old, new) = (terminated(old), terminated(new));
    let diff = TextDiff::from_lines(&old, &new);
    let mut indices = Vec::new();
    for change in diff.iter_all_changes() {
        if change.tag() == ChangeTag::Insert
            && let Some(index) = change.new_index()
        {
            indices.push(index);
        }
    }
    indices
}

fn diff_added(before: &str, after: &str) -> Vec<AddedLine> {
    let after_lines: Vec<&str> = after.lines().collect();
    inserted_indices(before, after)
        .into_iter()
        .filter_map(|index| {
            after_lines.get(index).map(|text| AddedLine {
                line: index + 1,
                text: text.to_string(),
            })
        })
        .collect()
}

fn from_patch_chunk(chunk: &PatchChunk, content: &str) -> Vec<AddedLine> {
    let new_side: Vec<&str> = chunk.lines.iter().map(|(_, text)| text.as_str()).collect();
    let file_lines: Vec<&str> = content.lines().collect();
    let start = if new_side.is_empty() {
        None
    } else {
        file_lines
            .windows(new_side.len())
            .position(|window| window == new_side.as_slice())
    };
    chunk
        .lines
        .iter()
        .enumerate()
        .filter(|(_, (is_added, _))| *is_added)
        .map(|(index, (_, text))| AddedLine {
            line: start.map_or(0, |start| start + index + 1),
            text: text.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_patch_numbers_added_lines() {
        let hunk = Hunk {
            new_start: 4,
            lines: vec![
                " def load(path):".into(),
                "+    import os.path".into(),
                "-    old".into(),
                "+    return None".into(),
                "     return open(path).read()".into(),
            ],
        };
        let added = from_hunks(&[hunk]);
        assert_eq!(added.len(), 2);
        assert_eq!(added[0].line, 5);
        assert_eq!(added[1].line, 6);
        assert_eq!(added[1].text, "    return None");
    }

    #[test]
    fn replacement_is_located_with_full_line() {
        let content = "a\nx = foo(1)\nb\n";
        let added = from_replacement("bar(1)", "foo(1)", content);
        assert_eq!(
            added,
            vec![AddedLine {
                line: 2,
                text: "x = foo(1)".into()
            }]
        );
    }

    #[test]
    fn an_unchanged_line_without_newline_is_not_added() {
        // Claude's old_string usually ends without a newline.
        let content = "a\nconsole.log(a);\nconst c = 3;\nb\n";
        let added = from_replacement("console.log(a);", "console.log(a);\nconst c = 3;", content);
        assert_eq!(
            added,
            vec![AddedLine {
                line: 3,
                text: "const c = 3;".into()
            }]
        );
        let appended = diff_added("x = 1", "x = 1\ny = 2");
        assert_eq!(appended.len(), 1);
        assert_eq!(appended[0].text, "y = 2");
    }

    #[test]
    fn unchanged_lines_of_a_replacement_are_not_added() {
        let content = "keep\nnew line\nkeep2\n";
        let added = from_replacement("keep\nkeep2\n", "keep\nnew line\nkeep2\n", content);
        assert_eq!(
            added,
            vec![AddedLine {
                line: 2,
                text: "new line".into()
            }]
        );
    }

    #[test]
    fn write_diff_against_previous() {
        let added = diff_added("a\nb\n", "a\nc\nb\n");
        assert_eq!(
            added,
            vec![AddedLine {
                line: 2,
                text: "c".into()
            }]
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
        let Some(Delta::PatchLines(chunks)) = &touched[1].delta else {
            panic!("add file must carry lines");
        };
        let added = from_patch_chunk(&chunks[0], "def f():\n    pass\n");
        assert_eq!(
            added[1],
            AddedLine {
                line: 2,
                text: "    pass".into()
            }
        );
    }
}
