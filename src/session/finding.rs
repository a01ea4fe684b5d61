//! A finding as the session records it: one item of a completed review in the event log (its id,
//! severity, place, title, the wrong output it names and the fix it suggests) and a known limit
//! the review declared. What makes one — the findings JSON, its validation and the quality rules
//! that downgrade a vague P1/P2 — is the review engine's (`review::findings`, `review::vagueness`).
//!
//! Invariants: these are plain recorded values; their serde shape is the event log's and never
//! changes. "The same finding" across rounds is [`Finding::key`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::settings::BlockingThreshold;

/// How bad a finding is. P1 and P2 block (down to `minimumBlockingSeverity`); P3 never does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) enum Severity {
    P1,
    P2,
    P3,
}

impl Severity {
    pub(crate) fn parse(text: &str) -> Option<Severity> {
        match text.trim().to_ascii_uppercase().as_str() {
            // The Python tool's five levels: critical/high block as P1, medium as P2, and
            // low/info never block.
            "P1" | "BLOCKER" | "CRITICAL" | "HIGH" => Some(Severity::P1),
            "P2" | "IMPORTANT" | "MAJOR" | "MEDIUM" => Some(Severity::P2),
            "P3" | "MINOR" | "NIT" | "LOW" | "INFO" => Some(Severity::P3),
            _ => None,
        }
    }

    /// Whether a finding of this severity blocks the stop at `threshold`.
    pub(crate) fn blocks_at(self, threshold: BlockingThreshold) -> bool {
        match self {
            Severity::P1 => true,
            Severity::P2 => threshold == BlockingThreshold::P2,
            Severity::P3 => false,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Severity::P1 => "P1",
            Severity::P2 => "P2",
            Severity::P3 => "P3",
        })
    }
}

/// One validated finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Finding {
    pub(crate) id: String,
    pub(crate) severity: Severity,
    pub(crate) file: String,
    /// 1-based; 0 when the reviewer named no line.
    #[serde(default)]
    pub(crate) line: u64,
    pub(crate) title: String,
    #[serde(default)]
    pub(crate) wrong_output: String,
    #[serde(default)]
    pub(crate) suggestion: String,
    /// The reviewer said P1/P2 but the wrong output is not concrete (`review::vagueness`): recorded
    /// as P3, so it never blocks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) downgraded: bool,
}

impl Finding {
    /// `file:line` (or just the file).
    pub(crate) fn location(&self) -> String {
        if self.line > 0 {
            format!("{}:{}", self.file, self.line)
        } else {
            self.file.clone()
        }
    }

    /// `[P1] F1 src/app.py:4: title`, one line.
    pub(crate) fn summary(&self) -> String {
        format!(
            "[{}] {} {}: {}",
            self.severity,
            self.id,
            self.location(),
            self.title
        )
    }

    /// What identifies "the same finding" across review rounds.
    pub(crate) fn key(&self) -> String {
        format!("{}|{}", self.file, normalize_title(&self.title))
    }
}

/// A finding recorded as a known limit, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KnownLimit {
    pub(crate) finding: String,
    pub(crate) reason: String,
}

fn normalize_title(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
