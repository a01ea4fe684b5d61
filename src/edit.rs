//! The edit: one file as an edit left it, and the text the edit **added**, with line numbers.
//! Lessons match only added text, so a mistake fires once, when it is written, not on every later
//! edit of the same file.
//!
//! A [`Delta`] is what a tool says it changed, in agent-neutral terms (the hook turns each
//! agent's payload into one); [`Delta::added_lines`] locates the added lines in the file: hunks'
//! `+` lines, the diff of old and new strings located in the file, the diff against the previous
//! content, a notebook cell's source, or a patch's `+` lines located by their context.
//!
//! Invariant: every file car checks is read through [`read_text`] (size, binary and UTF-8 guard).

use std::path::{Path, PathBuf};

use similar::{ChangeTag, TextDiff};

use crate::project::{Inside, Project};

mod carried;
pub(crate) mod codex_patch;
mod not_checked;
pub(crate) mod replace;

pub(crate) use carried::CarriedOver;
pub(crate) use not_checked::NotChecked;
pub(crate) use replace::Replacement;

/// Files larger than this are not checked (one note instead).
pub(crate) const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// One line the edit added; `line` is 1-based in [`Edit::content`], 0 when it could not be located.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AddedLine {
    pub line: usize,
    pub text: String,
}

impl AddedLine {
    /// Added lines from (line number, text) pairs.
    #[cfg(test)]
    pub(crate) fn numbered(lines: &[(usize, &str)]) -> Vec<AddedLine> {
        lines
            .iter()
            .map(|(line, text)| AddedLine {
                line: *line,
                text: text.to_string(),
            })
            .collect()
    }

    /// Every line of `text`, numbered from 1: a new file, or `car check`, where all of it counts.
    pub(crate) fn every_line(text: &str) -> Vec<AddedLine> {
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
pub(crate) struct Edit {
    /// Absolute path of the file.
    pub(crate) path: PathBuf,
    /// Path relative to the project root, `/`-separated.
    pub(crate) relative_path: String,
    /// The tool that made the edit ("Edit", "Write", "apply_patch", …).
    pub(crate) tool: String,
    /// The content to validate: the file as it is on disk now, or a notebook cell's source.
    pub(crate) content: String,
    /// The file before the edit, when the payload carries it.
    pub(crate) before: Option<String>,
    pub(crate) added: Vec<AddedLine>,
    /// A language that overrides the one the file name implies (a notebook cell's language).
    pub(crate) language: Option<String>,
}

impl Edit {
    /// The added lines joined by newlines (what lesson triggers are matched against).
    pub(crate) fn added_text(&self) -> String {
        let mut text = String::new();
        for added in &self.added {
            text.push_str(&added.text);
            text.push('\n');
        }
        text
    }
}

/// What a tool says it changed in one file, before the file is read.
#[derive(Debug)]
pub(crate) enum Delta {
    /// `structuredPatch` hunks.
    Patch(Vec<Hunk>),
    /// Old/new string pairs (Edit, MultiEdit, replace, afterFileEdit).
    Replacements(Vec<Replacement>),
    /// A whole-file write; `before` is the previous content (`None`: the file was created).
    Whole { before: Option<String> },
    /// Lines a patch added, with the patch's context to locate them.
    PatchLines(Vec<PatchChunk>),
    /// A notebook cell.
    Cell {
        source: String,
        language: Option<String>,
    },
}

/// One `structuredPatch` hunk: where it starts in the new file and its ` `/`+`/`-` lines.
#[derive(Debug, Clone)]
pub(crate) struct Hunk {
    pub(crate) new_start: usize,
    pub(crate) lines: Vec<String>,
}

/// One `@@` section of a patch: its new-side lines, each marked added or not.
#[derive(Debug, Default)]
pub(crate) struct PatchChunk {
    pub(crate) lines: Vec<(bool, String)>,
}

/// Reads a file car is to check, refusing what it does not check (over 2 MiB, binary, not
/// UTF-8, not a regular file) with the reason, which `relative_path` names.
pub(crate) fn read_text(path: &Path, relative_path: &str) -> Result<String, NotChecked> {
    text_of(
        crate::files::read_bounded(path, MAX_FILE_BYTES),
        relative_path,
    )
}

/// [`read_text`] of a file of the project: only where it resolves inside the checkout (a link
/// leading out of the project is never read), and a link that appears there meanwhile is refused.
pub(crate) fn read_project_file(
    project: &Project,
    path: &Path,
) -> Result<(Inside, String), NotChecked> {
    let Some(inside) = project.inside(path) else {
        return Err(outside(project, path));
    };
    read_inside(inside)
}

/// [`read_text`] of a file its caller already found inside the project ([`Project::inside`]): it
/// reads where that resolved, and a link that appears there meanwhile is refused.
pub(crate) fn read_inside(inside: Inside) -> Result<(Inside, String), NotChecked> {
    let bytes = crate::files::read_resolved(&inside.resolved, MAX_FILE_BYTES);
    text_of(bytes, &inside.relative).map(|text| (inside, text))
}

/// Why a file that resolves outside the project is not read.
pub(crate) fn outside(project: &Project, path: &Path) -> NotChecked {
    if project.is_named_inside(path) {
        let named = path.strip_prefix(project.checkout()).unwrap_or(path);
        NotChecked::LinkOutside {
            path: named.to_path_buf(),
        }
    } else {
        NotChecked::Outside {
            path: path.to_path_buf(),
            project: project.checkout().to_path_buf(),
        }
    }
}

fn text_of(
    read: Result<Vec<u8>, crate::files::FileError>,
    relative_path: &str,
) -> Result<String, NotChecked> {
    let bytes = read.map_err(|error| NotChecked::from_read(relative_path, error))?;
    if bytes.contains(&0) {
        return Err(NotChecked::Binary {
            path: relative_path.to_string(),
        });
    }
    String::from_utf8(bytes).map_err(|_| NotChecked::NotUtf8 {
        path: relative_path.to_string(),
    })
}

impl Delta {
    /// The lines this change added to `content` (the file as it is now).
    pub(crate) fn added_lines(&self, content: &str) -> Vec<AddedLine> {
        match self {
            Delta::Patch(hunks) => from_hunks(hunks),
            Delta::Replacements(pairs) => pairs
                .iter()
                .flat_map(|pair| from_replacement(&pair.old, &pair.new, content))
                .collect(),
            Delta::Whole {
                before: Some(before),
            } => diff_added(before, content),
            Delta::Whole { before: None } => AddedLine::every_line(content),
            Delta::PatchLines(chunks) => chunks
                .iter()
                .flat_map(|chunk| from_patch_chunk(chunk, content))
                .collect(),
            Delta::Cell { source, .. } => AddedLine::every_line(source),
        }
    }
}

impl Delta {
    /// The file before this change, rebuilt from `content` (the file now) when the change says
    /// exactly what it replaced: `structuredPatch` hunks, or old/new strings whose new text occurs
    /// exactly once. `None` when it cannot be known this way.
    pub(crate) fn undo(&self, content: &str) -> Option<String> {
        match self {
            Delta::Patch(hunks) => undo_hunks(hunks, content),
            Delta::Replacements(pairs) => {
                let mut text = content.to_string();
                for pair in pairs.iter().rev() {
                    let (old, new) = (&pair.old, &pair.new);
                    if new.is_empty() || text.matches(new.as_str()).count() != 1 {
                        return None;
                    }
                    text = text.replacen(new.as_str(), old, 1);
                }
                Some(text)
            }
            Delta::Whole { before } => before.clone(),
            Delta::PatchLines(_) | Delta::Cell { .. } => None,
        }
    }
}

/// Puts back the `-` lines of `structuredPatch` hunks and takes out the `+` lines; `None` when a
/// hunk's context does not match `content`.
fn undo_hunks(hunks: &[Hunk], content: &str) -> Option<String> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let mut before = String::with_capacity(content.len());
    let mut next = 0;
    for hunk in hunks {
        let start = hunk.new_start.saturating_sub(1);
        if start < next || start > lines.len() {
            return None;
        }
        before.extend(lines[next..start].iter().copied());
        next = start;
        for line in &hunk.lines {
            if let Some(text) = line.strip_prefix(' ') {
                let here = lines.get(next)?;
                if here.trim_end_matches(['\n', '\r']) != text {
                    return None;
                }
                before.push_str(here);
                next += 1;
            } else if let Some(text) = line.strip_prefix('-') {
                before.push_str(text);
                before.push('\n');
            } else if line.starts_with('+') {
                lines.get(next)?;
                next += 1;
            }
        }
    }
    before.extend(lines[next..].iter().copied());
    Some(before)
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

/// The lines of `after` that `before` does not have (a line-by-line diff).
pub(crate) fn diff_added(before: &str, after: &str) -> Vec<AddedLine> {
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

/// An edit as unit tests build one: `relative` under `root`, made by `tool`, with these added
/// lines (`(line, text)`).
#[cfg(test)]
pub(crate) fn test_edit(
    root: &Path,
    relative: &str,
    tool: &str,
    content: &str,
    before: Option<&str>,
    added: &[(usize, &str)],
) -> Edit {
    Edit {
        path: root.join(relative),
        relative_path: relative.into(),
        tool: tool.into(),
        content: content.into(),
        before: before.map(String::from),
        added: added
            .iter()
            .map(|(line, text)| AddedLine {
                line: *line,
                text: (*text).into(),
            })
            .collect(),
        language: None,
    }
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
    fn changes_are_undone_only_when_exact() {
        let hunk = Hunk {
            new_start: 2,
            lines: vec![
                " a".into(),
                "-old".into(),
                "+new".into(),
                "+more".into(),
                " b".into(),
            ],
        };
        let content = "top\na\nnew\nmore\nb\nend\n";
        assert_eq!(
            Delta::Patch(vec![hunk]).undo(content).as_deref(),
            Some("top\na\nold\nb\nend\n")
        );
        let wrong_context = Hunk {
            new_start: 1,
            lines: vec![" zzz".into()],
        };
        assert_eq!(Delta::Patch(vec![wrong_context]).undo(content), None);
        let pairs = vec![Replacement::once("x = 1", "x = 2")];
        assert_eq!(
            Delta::Replacements(pairs).undo("a\nx = 2\n").as_deref(),
            Some("a\nx = 1\n")
        );
        let twice = vec![Replacement::once("x", "y")];
        assert_eq!(Delta::Replacements(twice).undo("y y"), None);
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
}
