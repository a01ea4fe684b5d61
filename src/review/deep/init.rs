//! `car deep-review init FEATURE`: a new context file from the shipped template, registered in
//! `CLAUDE.md` under "Active review contexts" (the deep review's setup).
//!
//! Invariants: an existing context file is never overwritten; the `CLAUDE.md` line is added once
//! (a line naming the file already in the section counts), the section is created when missing,
//! and the rest of `CLAUDE.md` is kept byte for byte.

use std::path::{Path, PathBuf};

use crate::review::deep::context::{CONTEXT_DIR, ContextError, valid_name};

/// The shipped template; `{{feature}}` is replaced by the feature's name.
pub(crate) const TEMPLATE: &str = include_str!("context_template.md");
/// The `CLAUDE.md` section listing the active review contexts.
const SECTION: &str = "Active review contexts";

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Initialized {
    pub(crate) name: String,
    pub(crate) file: PathBuf,
    /// False when the context file already existed (it was left as it was).
    pub(crate) created: bool,
    pub(crate) claude_md: PathBuf,
    /// False when `CLAUDE.md` already listed the file.
    pub(crate) registered: bool,
}

/// Writes `.claude/review-contexts/FEATURE.md` (unless it exists) and registers it.
pub(crate) fn init(
    checkout: &Path,
    feature: &str,
    description: Option<&str>,
) -> Result<Initialized, ContextError> {
    let name = valid_name(feature)?;
    let file = checkout.join(CONTEXT_DIR).join(format!("{name}.md"));
    // Nothing is written where a committed link leads out of the project (a linked
    // `.claude/review-contexts/` or `CLAUDE.md`): checked for both files before either is written.
    let project = crate::project::Project::at(checkout);
    let claude_md = checkout.join("CLAUDE.md");
    project.check_write_inside(&file)?;
    project.check_write_inside(&claude_md)?;
    let created = !file.exists();
    if created {
        let text = TEMPLATE.replace("{{feature}}", &name);
        crate::files::write_atomic(&file, text.as_bytes())?;
    }
    let current = crate::files::read_optional(&claude_md)?.unwrap_or_default();
    let description = description
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(String::from)
        .unwrap_or_else(|| default_description(&name));
    let line = format!("- `{name}.md` — {description}");
    let registered = match register(&current, &format!("`{name}.md`"), &line) {
        Some(text) => {
            crate::files::write_atomic(&claude_md, text.as_bytes())?;
            true
        }
        None => false,
    };
    Ok(Initialized {
        name,
        file,
        created,
        claude_md,
        registered,
    })
}

/// `text` with `line` added under the "Active review contexts" heading (created at the end when
/// missing); `None` when a line of that section already contains `marker`.
pub(crate) fn register(text: &str, marker: &str, line: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(heading) = lines.iter().position(|line| is_section_heading(line)) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("## {SECTION}\n\n{line}\n"));
        return Some(out);
    };
    let end = lines[heading + 1..]
        .iter()
        .position(|line| line.trim_start().starts_with('#'))
        .map_or(lines.len(), |offset| heading + 1 + offset);
    let section = &lines[heading + 1..end];
    if section.iter().any(|existing| existing.contains(marker)) {
        return None;
    }
    let last_content = section
        .iter()
        .rposition(|line| !line.trim().is_empty())
        .map_or(heading, |offset| heading + 1 + offset);
    let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
    out.insert(last_content + 1, line.to_string());
    if last_content == heading {
        out.insert(heading + 1, String::new());
    }
    let mut joined = out.join("\n");
    joined.push('\n');
    Some(joined)
}

/// The template's sections whose placeholder text `context` still holds, in the template's
/// order: all of them for a context nobody filled in.
pub(crate) fn unfilled_sections(context: &str) -> Vec<&'static str> {
    template_sections()
        .into_iter()
        .filter(|(_, body)| context.contains(body))
        .map(|(heading, _)| heading)
        .collect()
}

/// The number of sections in the template.
pub(crate) fn template_section_count() -> usize {
    template_sections().len()
}

/// The template's `## ` sections: heading and placeholder text.
fn template_sections() -> Vec<(&'static str, &'static str)> {
    let mut sections = Vec::new();
    let mut rest = TEMPLATE;
    while let Some(start) = rest.find("\n## ") {
        let after = &rest[start + 4..];
        let heading_end = after.find('\n').unwrap_or(after.len());
        let body_and_more = &after[heading_end..];
        let body_end = body_and_more.find("\n## ").unwrap_or(body_and_more.len());
        sections.push((
            after[..heading_end].trim(),
            body_and_more[..body_end].trim(),
        ));
        rest = body_and_more;
    }
    sections
}

/// The `CLAUDE.md` description init writes when none is given.
pub(crate) fn default_description(name: &str) -> String {
    format!("domain context for `car deep-review run {name}`")
}

/// Whether a line is the "Active review contexts" heading.
pub(crate) fn is_section_heading(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.starts_with('#')
        && trimmed
            .trim_start_matches('#')
            .trim()
            .eq_ignore_ascii_case(SECTION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_knows_which_template_sections_are_left() {
        let untouched = TEMPLATE.replace("{{feature}}", "fx");
        assert_eq!(
            unfilled_sections(&untouched).len(),
            template_section_count()
        );
        assert_eq!(template_section_count(), 6);
        assert!(unfilled_sections(&untouched).contains(&"Invariants"));
        let filled = untouched.replace(
            "What must always hold (totals add up, shares sum to 1, one row per key, no double counting).",
            "Shares per region sum to 1.",
        );
        assert!(!unfilled_sections(&filled).contains(&"Invariants"));
        assert_eq!(unfilled_sections(&filled).len(), 5);
        assert!(unfilled_sections("# fx\nRates are EUR per USD.\n").is_empty());
    }

    const LINE: &str = "- `fx.md` — currency conversion";

    #[test]
    fn adds_the_section_when_missing() {
        assert_eq!(
            register("", "`fx.md`", LINE).unwrap(),
            format!("## Active review contexts\n\n{LINE}\n")
        );
        assert_eq!(
            register("# Project\nRules.", "`fx.md`", LINE).unwrap(),
            format!("# Project\nRules.\n\n## Active review contexts\n\n{LINE}\n")
        );
    }

    #[test]
    fn appends_inside_the_section_once() {
        let text = "# P\n\n## Active review contexts\n- `units.md` — units\n\n## Style\nx\n";
        let added = register(text, "`fx.md`", LINE).unwrap();
        assert_eq!(
            added,
            format!(
                "# P\n\n## Active review contexts\n- `units.md` — units\n{LINE}\n\n## Style\nx\n"
            )
        );
        assert_eq!(register(&added, "`fx.md`", LINE), None);
        let empty_section = "## active review contexts\n## Style\n";
        assert_eq!(
            register(empty_section, "`fx.md`", LINE).unwrap(),
            format!("## active review contexts\n\n{LINE}\n## Style\n")
        );
    }

    #[test]
    fn init_writes_the_template_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let first = init(dir.path(), "fx.md", Some("currency conversion")).unwrap();
        assert!(first.created && first.registered);
        let text = std::fs::read_to_string(&first.file).unwrap();
        assert!(text.starts_with("# Review context: fx\n"), "{text}");
        assert!(text.contains("## What a wrong output looks like"));
        std::fs::write(&first.file, "my notes").unwrap();
        let second = init(dir.path(), "fx", None).unwrap();
        assert!(!second.created && !second.registered);
        assert_eq!(std::fs::read_to_string(&first.file).unwrap(), "my notes");
        let claude = std::fs::read_to_string(dir.path().join("CLAUDE.md")).unwrap();
        assert_eq!(claude.matches("`fx.md`").count(), 1, "{claude}");
    }
}
