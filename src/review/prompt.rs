//! The parts every review prompt is made of, whichever loop asks (the stop gate's request and the
//! deep review's round): the review rules (the project's, else car's defaults), the pitfall lines
//! from lesson warnings, the bounded diff section ([`DiffWriter`]) and the findings contract
//! ([`CONTRACT`], and [`findings_schema`] for backends that take a schema). Each loop adds the
//! sections that are its own and orders them.
//!
//! Invariants: the prompt is bounded in size (a diff over the per-file or total bound is replaced
//! by a note naming the file to read); a rules file that resolves outside the project is never
//! read (it would go to the reviewer); one contract for every backend and both loops.

use std::path::PathBuf;

use serde_json::{Value, json};
use similar::TextDiff;

use crate::files::FileError;
use crate::lesson_warning::Warning;
use crate::project::Project;
use crate::settings::Settings;

/// car's default review rules, installed as `.claude/claude-auto-review/rules.md`.
pub(crate) const DEFAULT_RULES: &str = include_str!("default_rules.md");

/// Largest diff shown per file, and for the whole prompt.
const MAX_FILE_DIFF: usize = 60 * 1024;
const MAX_TOTAL_DIFF: usize = 240 * 1024;

/// Writes the default rules file into the project unless one exists; its path when written.
pub(crate) fn install_default_rules(project: &Project) -> Result<Option<PathBuf>, FileError> {
    let path = project.state_dir().join(crate::state::names::RULES);
    if path.exists() {
        return Ok(None);
    }
    crate::files::write_atomic(&path, DEFAULT_RULES.as_bytes())?;
    Ok(Some(path))
}

/// The rules text and where it came from: `rulesFile`, else the installed file, else car's own.
/// A rules file that resolves outside the project is not read (it would go to the reviewer).
pub(crate) fn rules_text(project: &Project, settings: &Settings) -> (String, String) {
    if let Some(file) = &settings.rules_file {
        let path = project.root().join(file);
        let bytes =
            crate::project::read_inside_of(project.root(), &path, crate::files::MAX_STATE_BYTES);
        if let Some(text) = bytes.and_then(|bytes| String::from_utf8(bytes).ok()) {
            return (text, path.display().to_string());
        }
    }
    let installed = project.state_dir().join(crate::state::names::RULES);
    if let Ok(Some(text)) = crate::files::read_optional(&installed) {
        return (text, installed.display().to_string());
    }
    (DEFAULT_RULES.to_string(), "car's default rules".to_string())
}

/// The findings contract every backend is held to (the gate's and the deep review's).
pub(crate) const CONTRACT: &str = r#"
## Answer format
Answer with ONE JSON object and nothing else:
{"findings": [{"id": "F1", "severity": "P1", "file": "path/relative/to/project", "line": 42,
  "title": "what is wrong, in one line",
  "wrong_output": "these inputs -> this wrong result (required for P1/P2)",
  "suggestion": "how to fix it"}],
 "known_limits": []}
- P1 blocker (bug, security, data loss); P2 important (performance, maintainability);
  P3 minor (style, naming). P1 and P2 block the agent until fixed; P3 is only offered to the user.
- A P1/P2 blocks only if wrong_output names an input or call AND the observed wrong result
  (returns / raises / prints ... a value, or X instead of Y). "This could cause issues" or
  "returns wrong value" does not block: such a finding is shown to the user as non-blocking.
- No problems: {"findings": [], "known_limits": []}. Any verdict field you add is ignored.
"#;

/// Lesson warnings at or above `offerWeightThreshold` (lighter ones go to the P3 offer list) of
/// the files `is_reviewed` accepts, one pitfall line each.
pub(crate) fn lesson_pitfalls(
    warnings: &[Warning],
    settings: &Settings,
    is_reviewed: impl Fn(&Warning) -> bool,
) -> Vec<String> {
    warnings
        .iter()
        .filter(|warning| warning.weight >= settings.offer_weight_threshold && is_reviewed(warning))
        .map(|warning| {
            format!(
                "- lesson (weight {}): {} at {}:{} ({})",
                warning.weight,
                warning.lesson,
                warning.file,
                warning.line,
                crate::lessons::trigger::text::labelled(&warning.trigger)
            )
        })
        .collect()
}

/// The "Known pitfalls to verify" section (empty without lines).
pub(crate) fn pitfalls_section(mut lines: Vec<String>) -> String {
    lines.dedup();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Known pitfalls to verify\ncar flagged these while the agent worked; check whether \
         each is a real problem in the final code:\n{}\n\n",
        lines.join("\n")
    )
}

/// The diff section of a prompt: one unified diff per file, bounded per file and in total
/// (a cut diff is replaced by a note naming the file to read).
pub(crate) struct DiffWriter {
    text: String,
    total: usize,
}

impl DiffWriter {
    pub(crate) fn new(heading: &str) -> DiffWriter {
        DiffWriter {
            text: format!("## {heading}\n"),
            total: 0,
        }
    }

    /// A file whose content is not shown (it resolves outside the project, or is not text), and
    /// why.
    pub(crate) fn not_shown(&mut self, file: &str, note: &str) {
        self.text
            .push_str(&format!("\n### {file}\n({note}; not shown)\n"));
    }

    /// Adds one file's diff; `state` follows the name (" (deleted)", " (new)").
    pub(crate) fn file(&mut self, file: &str, state: &str, before: &str, after: &str) {
        let diff = TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{file}"), &format!("b/{file}"))
            .to_string();
        self.text.push_str(&format!("\n### {file}{state}\n"));
        if diff.len() > MAX_FILE_DIFF || self.total + diff.len() > MAX_TOTAL_DIFF {
            self.text.push_str(&format!(
                "(diff of {} bytes not shown: read {file} yourself)\n",
                diff.len()
            ));
            return;
        }
        self.total += diff.len();
        self.text.push_str("```diff\n");
        self.text.push_str(&diff);
        self.text.push_str("```\n");
    }

    /// Adds a line about a file whose diff cannot be shown (binary, too large to read).
    pub(crate) fn note(&mut self, file: &str, note: &str) {
        self.text.push_str(&format!("\n### {file}\n({note})\n"));
    }

    pub(crate) fn finish(self) -> String {
        self.text
    }
}

/// The JSON schema of the findings answer (strict: codex `--output-schema` requires every
/// property to be listed as required and no others allowed).
pub(crate) fn findings_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["findings", "known_limits"],
        "properties": {
            "findings": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["id", "severity", "file", "line", "title", "wrong_output", "suggestion"],
                "properties": {
                    "id": {"type": "string"},
                    "severity": {"type": "string", "enum": ["P1", "P2", "P3"]},
                    "file": {"type": "string"},
                    "line": {"type": ["integer", "null"]},
                    "title": {"type": "string"},
                    "wrong_output": {"type": "string"},
                    "suggestion": {"type": "string"}
                }
            }},
            "known_limits": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["finding", "reason"],
                "properties": {"finding": {"type": "string"}, "reason": {"type": "string"}}
            }}
        }
    })
}
