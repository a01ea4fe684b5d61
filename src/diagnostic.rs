//! One problem a checker found in a file, as every layer passes it on: the validators make it,
//! the session log records it, the gate and the report read it back. A plain record: what may
//! make one (the checkers) lives in `validate/`; only which kind of checker found it
//! ([`origin`]) travels with it.

pub(crate) mod origin;

use serde::{Deserialize, Serialize};

pub(crate) use crate::diagnostic::origin::Origin;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// One problem a validator found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Project-relative path (or the path as given to `car check`).
    pub(crate) file: String,
    /// 1-based.
    pub(crate) line: usize,
    /// 1-based.
    pub(crate) column: usize,
    pub(crate) severity: Severity,
    /// Which checker, as shown: "python", "bash", "json", "tree-sitter-rust", a custom rule's
    /// id, … Display only: what the diagnostic may do is its [`Origin`].
    pub(crate) validator: String,
    /// Which kind of checker found it, and so whether it may block and teach. Not serialized:
    /// outputs show `validator`; read back from the session log it is [`Origin::Recorded`].
    #[serde(skip)]
    pub(crate) origin: Origin,
    pub(crate) message: String,
    /// The offending source line, trimmed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) snippet: Option<String>,
    /// A precise token the error is about (missing module, undefined name), for learning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<String>,
}

impl Diagnostic {
    /// `file:line:col: message [validator]`, plus the offending line.
    pub(crate) fn render(&self) -> String {
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

    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
