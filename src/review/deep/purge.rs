//! Undoing `car deep-review init` for `car uninstall --purge`: a context file that is still the
//! untouched template goes, with its `CLAUDE.md` line; a context someone filled in stays (it is
//! their knowledge, not car's) and is named.
//!
//! Invariants: only what init wrote is removed — a context file byte-for-byte equal to the
//! template rendered for its name, and a line of the "Active review contexts" section naming a
//! removed file or carrying init's default description for a file that no longer exists; the
//! section heading goes only when that leaves it empty, `CLAUDE.md` only when nothing else is
//! left in it; nothing is removed through a link that leads out of the project.

use std::path::{Path, PathBuf};

use crate::review::deep::context::{CONTEXT_DIR, ContextError};
use crate::review::deep::init::{self, TEMPLATE};

/// Files larger than this are not init's.
const MAX_READ_BYTES: u64 = 1024 * 1024;

/// What the purge did and left.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Purged {
    /// Removed context files, relative to the checkout.
    pub(crate) removed: Vec<String>,
    /// Context files kept because someone filled them in, relative to the checkout.
    pub(crate) kept: Vec<String>,
    /// `CLAUDE.md` lines removed.
    pub(crate) lines: usize,
    /// Whether `CLAUDE.md` went too (nothing else was left in it).
    pub(crate) removed_claude_md: bool,
}

/// Removes init's untouched context files and their `CLAUDE.md` lines in `checkout`.
pub(crate) fn purge(checkout: &Path) -> Result<Purged, ContextError> {
    let project = crate::project::Project::at(checkout);
    let folder = checkout.join(CONTEXT_DIR);
    let mut purged = Purged::default();
    let mut removed_names = Vec::new();
    for (name, file) in context_files(&folder) {
        let relative = format!("{CONTEXT_DIR}/{name}.md");
        let Some(text) = project.read_inside(&relative, MAX_READ_BYTES) else {
            continue;
        };
        if text == TEMPLATE.replace("{{feature}}", &name) {
            project.check_write_inside(&file)?;
            std::fs::remove_file(&file)
                .map_err(|source| crate::files::FileError::io(&file, source))?;
            purged.removed.push(relative);
            removed_names.push(name);
        } else {
            purged.kept.push(relative);
        }
    }
    let _ = std::fs::remove_dir(&folder);
    let claude_md = checkout.join("CLAUDE.md");
    if let Some(text) = project.read_inside("CLAUDE.md", MAX_READ_BYTES) {
        let exists = |name: &str| folder.join(format!("{name}.md")).exists();
        let (kept, lines) = unregister(&text, &removed_names, exists);
        if lines > 0 {
            project.check_write_inside(&claude_md)?;
            purged.lines = lines;
            if kept.trim().is_empty() {
                std::fs::remove_file(&claude_md)
                    .map_err(|source| crate::files::FileError::io(&claude_md, source))?;
                purged.removed_claude_md = true;
            } else {
                crate::files::write_atomic(&claude_md, kept.as_bytes())?;
            }
        }
    }
    Ok(purged)
}

/// The `.md` files in the contexts folder: name (stem) and path, sorted.
fn context_files(folder: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".md")?.to_string();
            path.is_file().then_some((name, path))
        })
        .collect();
    files.sort();
    files
}

/// `text` without init's lines for `removed` contexts (and for gone contexts that still carry
/// init's default description), and without the section heading when that empties it; the
/// number of lines removed.
fn unregister(text: &str, removed: &[String], exists: impl Fn(&str) -> bool) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let Some(heading) = lines.iter().position(|line| init::is_section_heading(line)) else {
        return (text.to_string(), 0);
    };
    let end = lines[heading + 1..]
        .iter()
        .position(|line| line.trim_start().starts_with('#'))
        .map_or(lines.len(), |offset| heading + 1 + offset);
    let is_inits = |line: &str| {
        let Some(name) = listed_name(line) else {
            return false;
        };
        removed.contains(&name)
            || (!exists(&name) && line.ends_with(&init::default_description(&name)))
    };
    let dropped = lines[heading + 1..end]
        .iter()
        .filter(|line| is_inits(line))
        .count();
    if dropped == 0 {
        return (text.to_string(), 0);
    }
    let section_left = lines[heading + 1..end]
        .iter()
        .any(|line| !line.trim().is_empty() && !is_inits(line));
    let mut out: Vec<&str> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let in_section = index > heading && index < end;
        if in_section && (is_inits(line) || (!section_left && line.trim().is_empty())) {
            continue;
        }
        if index == heading && !section_left {
            while out.last().is_some_and(|line| line.trim().is_empty()) {
                out.pop();
            }
            continue;
        }
        out.push(line);
    }
    let mut joined = out.join("\n");
    if !joined.is_empty() && text.ends_with('\n') {
        joined.push('\n');
    }
    (joined, dropped)
}

/// The context a section line lists: ``- `fx.md` — …`` → `fx`.
fn listed_name(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("- `")?;
    let name = rest.split('`').next()?.strip_suffix(".md")?;
    Some(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inits_lines_leave_and_an_emptied_section_goes() {
        let text = "# Project\nRules.\n\n## Active review contexts\n\n- `fx.md` — domain context for `car deep-review run fx`\n";
        let (kept, lines) = unregister(text, &["fx".into()], |_| false);
        assert_eq!(kept, "# Project\nRules.\n");
        assert_eq!(lines, 1);

        let text =
            "## Active review contexts\n\n- `fx.md` — rates\n- `units.md` — units\n\n## Style\nx\n";
        let (kept, lines) = unregister(text, &["fx".into()], |_| true);
        assert_eq!(
            kept,
            "## Active review contexts\n\n- `units.md` — units\n\n## Style\nx\n"
        );
        assert_eq!(lines, 1);

        // A hand-written line for a context that is gone is the person's, not init's.
        let text = "## Active review contexts\n\n- `old.md` — our old notes\n";
        assert_eq!(unregister(text, &[], |_| false), (text.to_string(), 0));
        // init's default line for a gone context is init's.
        let text = "## Active review contexts\n\n- `old.md` — domain context for `car deep-review run old`\n";
        assert_eq!(unregister(text, &[], |_| false), (String::new(), 1));
    }
}
