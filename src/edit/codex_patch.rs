//! Codex's `apply_patch` envelope: which files it adds, updates and deletes, the new-side lines of
//! each (what the PostToolUse hook locates in the file as written), and the file an update would
//! leave (what the PreToolUse hook checks before the tool runs).
//!
//! ```text
//! *** Begin Patch
//! *** Update File: src/app.py
//! @@ def load(path):
//! -    return fh.read(
//! +    return fh.read()
//! *** Add File: src/util.py
//! +def f():
//! +    pass
//! *** Delete File: old.py
//! *** End Patch
//! ```
//!
//! Invariant: [`FilePatch::apply`] gives a result only where every chunk's old lines are found
//! in order the way Codex finds them (as they are, then ignoring trailing, then surrounding
//! whitespace); Codex's further leniency (typographic quotes and dashes) is not repeated, so such a
//! patch gets no verdict before it runs.

/// What the patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePatch {
    /// The path as the patch names it (the target of a `*** Move to:`).
    pub(crate) path: String,
    pub(crate) action: Action,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// A new file: its lines.
    Add(Vec<String>),
    /// Chunks applied to the file as it is.
    Update(Vec<Chunk>),
    Delete,
}

/// One `@@` section of an update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The line after `@@ ` that locates the chunk, when there is one.
    pub(crate) anchor: Option<String>,
    pub(crate) lines: Vec<PatchLine>,
    /// `*** End of File`: the old lines end the file.
    pub(crate) at_end: bool,
}

/// One line of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PatchLine {
    Context(String),
    Removed(String),
    Added(String),
}

impl Chunk {
    /// The lines the file has where the chunk applies (context and removed).
    fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                PatchLine::Context(text) | PatchLine::Removed(text) => Some(text.as_str()),
                PatchLine::Added(_) => None,
            })
            .collect()
    }

    /// The lines the file will have there (context and added), each marked whether it is added.
    pub(crate) fn new_lines(&self) -> Vec<(bool, &str)> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                PatchLine::Context(text) => Some((false, text.as_str())),
                PatchLine::Added(text) => Some((true, text.as_str())),
                PatchLine::Removed(_) => None,
            })
            .collect()
    }
}

/// Whether Codex reads `patch` as a patch at all: its first line `*** Begin Patch` and its last
/// `*** End Patch` (each trimmed, the whole text trimmed first), or the same inside a heredoc
/// (`<<EOF`, `<<'EOF'`, `<<"EOF"` … `EOF`), as Codex's own parser checks before anything else.
pub(crate) fn has_envelope(patch: &str) -> bool {
    let lines: Vec<&str> = patch.trim().lines().collect();
    let is_enveloped = |lines: &[&str]| {
        matches!(lines, [first, .., last]
            if first.trim() == "*** Begin Patch" && last.trim() == "*** End Patch")
    };
    if is_enveloped(&lines) {
        return true;
    }
    match lines.as_slice() {
        [first, inner @ .., last] if lines.len() >= 4 => {
            matches!(*first, "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
                && last.ends_with("EOF")
                && is_enveloped(inner)
        }
        _ => false,
    }
}

/// The files a patch envelope names, in order.
pub(crate) fn parse(patch: &str) -> Vec<FilePatch> {
    let mut files: Vec<FilePatch> = Vec::new();
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            files.push(FilePatch {
                path: path.trim().to_string(),
                action: Action::Add(Vec::new()),
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            files.push(FilePatch {
                path: path.trim().to_string(),
                action: Action::Update(vec![Chunk::default()]),
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            files.push(FilePatch {
                path: path.trim().to_string(),
                action: Action::Delete,
            });
        } else if let Some(path) = line.strip_prefix("*** Move to: ") {
            if let Some(last) = files.last_mut() {
                last.path = path.trim().to_string();
            }
        } else if line.starts_with("*** End of File") {
            if let Some(FilePatch {
                action: Action::Update(chunks),
                ..
            }) = files.last_mut()
                && let Some(chunk) = chunks.last_mut()
            {
                chunk.at_end = true;
            }
        } else if line.starts_with("***") {
            continue;
        } else {
            match files.last_mut().map(|file| &mut file.action) {
                Some(Action::Add(lines)) => {
                    if let Some(added) = line.strip_prefix('+') {
                        lines.push(added.to_string());
                    }
                }
                Some(Action::Update(chunks)) => update_line(chunks, line),
                Some(Action::Delete) | None => {}
            }
        }
    }
    for file in &mut files {
        if let Action::Update(chunks) = &mut file.action {
            chunks.retain(|chunk| chunk.anchor.is_some() || !chunk.lines.is_empty());
        }
    }
    files
}

/// One line inside an update: a new `@@` chunk, or a line of the current one.
fn update_line(chunks: &mut Vec<Chunk>, line: &str) {
    if let Some(header) = line.strip_prefix("@@") {
        let anchor = header.trim();
        chunks.push(Chunk {
            anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
            ..Chunk::default()
        });
        return;
    }
    let Some(chunk) = chunks.last_mut() else {
        return;
    };
    let line = match line.split_at_checked(1) {
        Some(("+", text)) => PatchLine::Added(text.to_string()),
        Some(("-", text)) => PatchLine::Removed(text.to_string()),
        Some((" ", text)) => PatchLine::Context(text.to_string()),
        // An empty line inside a chunk is an empty context line (Codex reads it so).
        None => PatchLine::Context(String::new()),
        Some(_) => return,
    };
    chunk.lines.push(line);
}

impl FilePatch {
    /// The file this patch leaves, from `current` (the file now; `None`: it does not exist).
    /// `None` when Codex would refuse the patch, or when car cannot be sure how Codex reads it.
    pub(crate) fn apply(&self, current: Option<&str>) -> Option<String> {
        match &self.action {
            Action::Add(lines) => Some(lines.iter().map(|line| format!("{line}\n")).collect()),
            Action::Update(chunks) => apply_chunks(current?, chunks),
            Action::Delete => None,
        }
    }
}

/// The chunks applied to `original`, each found at or after the previous one.
fn apply_chunks(original: &str, chunks: &[Chunk]) -> Option<String> {
    let mut lines: Vec<&str> = original.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let mut replacements: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    let mut from = 0;
    for chunk in chunks {
        if let Some(anchor) = &chunk.anchor {
            from = seek(&lines, &[anchor.as_str()], from, false)? + 1;
        }
        let mut old = chunk.old_lines();
        let mut new: Vec<&str> = chunk
            .new_lines()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        if old.is_empty() {
            replacements.push((lines.len(), 0, new));
            continue;
        }
        let mut found = seek(&lines, &old, from, chunk.at_end);
        if found.is_none() && old.last() == Some(&"") {
            // A trailing empty line in the patch stands for the file's final newline.
            old.pop();
            if new.last() == Some(&"") {
                new.pop();
            }
            found = seek(&lines, &old, from, chunk.at_end);
        }
        let start = found?;
        replacements.push((start, old.len(), new));
        from = start + old.len();
    }
    replacements.sort_by_key(|(start, _, _)| *start);
    let mut result: Vec<&str> = lines;
    for (start, length, new) in replacements.into_iter().rev() {
        result.splice(start..start + length, new);
    }
    let mut text = result.join("\n");
    text.push('\n');
    Some(text)
}

/// Where `pattern` starts in `lines` at or after `from` (at the end first when `at_end`): as it
/// is, then ignoring trailing whitespace, then surrounding whitespace.
fn seek(lines: &[&str], pattern: &[&str], from: usize, at_end: bool) -> Option<usize> {
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    let starts = || {
        let end_first = at_end.then_some(last_start).filter(|start| *start >= from);
        end_first.into_iter().chain(from..=last_start)
    };
    let same = |compare: fn(&str, &str) -> bool| {
        starts().find(|start| {
            pattern
                .iter()
                .zip(&lines[*start..])
                .all(|(want, have)| compare(want, have))
        })
    };
    same(|want, have| want == have)
        .or_else(|| same(|want, have| want.trim_end() == have.trim_end()))
        .or_else(|| same(|want, have| want.trim() == have.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\n*** Update File: src/app.py\n@@ def load(path):\n-    x\n+    y\n*** Add File: src/util.py\n+def f():\n+    pass\n*** Delete File: old.py\n*** End Patch\n";

    #[test]
    fn the_envelope_names_each_file_and_what_happens_to_it() {
        let files = parse(PATCH);
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].path, "src/app.py");
        assert_eq!(
            files[1].action,
            Action::Add(vec!["def f():".into(), "    pass".into()])
        );
        assert_eq!(files[2].action, Action::Delete);
        let Action::Update(chunks) = &files[0].action else {
            panic!("an update: {files:?}");
        };
        assert_eq!(chunks.len(), 1, "the empty chunk before `@@` is dropped");
        assert_eq!(chunks[0].anchor.as_deref(), Some("def load(path):"));
    }

    #[test]
    fn an_update_applies_where_its_lines_are() {
        let files = parse(PATCH);
        let current = "import os\n\ndef load(path):\n    x\n    return 1\n";
        assert_eq!(
            files[0].apply(Some(current)).unwrap(),
            "import os\n\ndef load(path):\n    y\n    return 1\n"
        );
        assert_eq!(files[1].apply(None).unwrap(), "def f():\n    pass\n");
        assert_eq!(files[2].apply(Some(current)), None);
    }

    #[test]
    fn whitespace_is_forgiven_as_codex_does_and_a_missing_line_gives_nothing() {
        let patch = parse("*** Update File: a.py\n@@\n-x = 1   \n+x = 2\n");
        assert_eq!(patch[0].apply(Some("x = 1\n")).unwrap(), "x = 2\n");
        let indented = parse("*** Update File: a.py\n@@\n-x = 1\n+x = 2\n");
        assert_eq!(indented[0].apply(Some("    x = 1\n")).unwrap(), "x = 2\n");
        let missing = parse("*** Update File: a.py\n@@\n-y = 1\n+y = 2\n");
        assert_eq!(missing[0].apply(Some("x = 1\n")), None);
        assert_eq!(missing[0].apply(None), None, "no file to update");
    }

    #[test]
    fn chunks_apply_in_order_and_an_end_of_file_chunk_applies_at_the_end() {
        let patch = parse(
            "*** Update File: a.py\n@@\n-a\n+A\n@@\n-a\n+B\n*** End of File\n*** End Patch\n",
        );
        assert_eq!(patch[0].apply(Some("a\nb\na\n")).unwrap(), "A\nb\nB\n");
        let insert = parse("*** Update File: a.py\n@@\n+tail\n");
        assert_eq!(insert[0].apply(Some("a\n")).unwrap(), "a\ntail\n");
    }

    #[test]
    fn only_a_patch_in_its_envelope_is_one_codex_applies() {
        assert!(has_envelope(PATCH));
        assert!(has_envelope(&format!(
            "  {}  \n",
            PATCH.replace("*** End Patch", " *** End Patch ")
        )));
        assert!(has_envelope(&format!("<<'EOF'\n{PATCH}EOF\n")));
        let body = PATCH.trim_start_matches("*** Begin Patch\n");
        assert!(!has_envelope(body), "no `*** Begin Patch`");
        assert!(!has_envelope(
            PATCH.trim_end().trim_end_matches("*** End Patch")
        ));
        assert!(!has_envelope("*** Begin Patch"), "one line is no envelope");
        assert!(!has_envelope(&format!("<<EOF\n{body}EOF\n")));
    }
}
