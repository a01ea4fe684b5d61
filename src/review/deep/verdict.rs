//! The deep review's answer: one [`Verdict`] per run, printed as the contract's JSON object
//! (`status`, `reason`, `round`, `guard`, `findings`, `blocking`, `escalated`, `context`) and as a
//! readable summary for people.
//!
//! Invariants: the status is derived from the findings and the guards, never from a verdict a
//! model wrote; a STOPPED verdict always carries the reason no review happened; `blocking` lists
//! exactly the findings whose `blocking` flag is set.

use serde::{Deserialize, Serialize};

use crate::session::finding::Finding;

/// How a deep review run ended (exit 0 / 1 / 2 / 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Status {
    /// No blocking finding (or nothing to review with `--allow-skipped`).
    Pass,
    /// Blocking findings: fix them and run the next round.
    Fail,
    /// No review happened (a missing reviewer, context file or ref; unusable output; …).
    Stopped,
    /// A convergence guard hands the call to a human.
    Escalate,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Stopped => "STOPPED",
            Status::Escalate => "ESCALATE",
        }
    }
}

/// The convergence guard that decided a round, in the order they are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Guard {
    /// (1) No blocking finding → PASS.
    NoBlocking,
    /// (2) A finding marked fixed is reported again → ESCALATE.
    Stuck,
    /// (3) A challenged finding is reported again → ESCALATE with both sides' words.
    Dispute,
    /// (4) The same blocking set as the previous round and no change in the diff → ESCALATE.
    NoProgress,
    /// (5) The blocking count grew two rounds in a row → ESCALATE (nitpick drift).
    Diverging,
    /// (6) The round cap (`--max-rounds`) is reached → ESCALATE.
    RoundCap,
}

impl Guard {
    /// The JSON spelling (`no_progress`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Guard::NoBlocking => "no_blocking",
            Guard::Stuck => "stuck",
            Guard::Dispute => "dispute",
            Guard::NoProgress => "no_progress",
            Guard::Diverging => "diverging",
            Guard::RoundCap => "round_cap",
        }
    }
}

/// A finding of a round: the reviewer's finding, its identity across rounds, and whether it
/// blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ReportedFinding {
    #[serde(flatten)]
    pub(crate) finding: Finding,
    /// File + normalised title ([`Finding::key`]): the same finding in every round, whatever id
    /// the reviewer gave it.
    pub(crate) key: String,
    pub(crate) blocking: bool,
}

impl ReportedFinding {
    pub(crate) fn new(finding: Finding, blocking: bool) -> ReportedFinding {
        ReportedFinding {
            key: finding.key(),
            finding,
            blocking,
        }
    }

    /// `[P1] F1 src/a.py:3: title`.
    pub(crate) fn headline(&self) -> String {
        let finding = &self.finding;
        format!(
            "[{}] {} {}: {}",
            finding.severity,
            finding.id,
            finding.location(),
            finding.title
        )
    }
}

/// A finding handed to a human, with both sides' words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Escalated {
    pub(crate) id: String,
    pub(crate) key: String,
    pub(crate) severity: String,
    pub(crate) location: String,
    pub(crate) title: String,
    /// The reviewer's words: the wrong output it names.
    pub(crate) reviewer: String,
    /// The author's words: the challenge reason, or that it was marked fixed; `None` when the
    /// author said nothing about it.
    pub(crate) author: Option<String>,
}

impl Escalated {
    /// `  for a human: [P1] F1 fx.py:2: title` with the reviewer's and the author's words.
    fn render(&self) -> String {
        let mut text = format!(
            "  for a human: [{}] {} {}: {}\n      reviewer: {}\n",
            self.severity, self.id, self.location, self.title, self.reviewer
        );
        if let Some(author) = &self.author {
            text.push_str(&format!("      author: {author}\n"));
        }
        text
    }

    pub(crate) fn of(reported: &ReportedFinding, author: Option<String>) -> Escalated {
        let finding = &reported.finding;
        Escalated {
            id: finding.id.clone(),
            key: reported.key.clone(),
            severity: finding.severity.to_string(),
            location: finding.location(),
            title: finding.title.clone(),
            reviewer: finding.wrong_output.clone(),
            author,
        }
    }
}

/// Which domain context the review used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ContextInfo {
    /// The context's name (`none` for the generic rubric).
    pub(crate) name: String,
    /// The context file, relative to the project when inside it; `None` for `none` or when it
    /// was not found.
    pub(crate) file: Option<String>,
}

/// One deep review run's answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Verdict {
    pub(crate) status: Status,
    pub(crate) reason: String,
    /// The round this verdict belongs to; for STOPPED the rounds completed so far (a stopped
    /// run uses no round).
    pub(crate) round: u32,
    pub(crate) guard: Option<Guard>,
    pub(crate) findings: Vec<ReportedFinding>,
    /// Ids of the blocking findings.
    pub(crate) blocking: Vec<String>,
    pub(crate) escalated: Vec<Escalated>,
    pub(crate) context: ContextInfo,
    /// What to do next (stderr only).
    #[serde(skip)]
    pub(crate) hint: Option<String>,
    /// Lines for people: the diff's base, the prompt file, downgrades (stderr only).
    #[serde(skip)]
    pub(crate) notes: Vec<String>,
}

impl Verdict {
    /// A run in which no review happened.
    pub(crate) fn stopped(
        context: ContextInfo,
        round: u32,
        reason: String,
        hint: Option<String>,
    ) -> Verdict {
        Verdict::without_review(Status::Stopped, context, round, reason, hint)
    }

    /// A verdict no reviewer answer backs: STOPPED, or a PASS with nothing to review.
    pub(crate) fn without_review(
        status: Status,
        context: ContextInfo,
        round: u32,
        reason: String,
        hint: Option<String>,
    ) -> Verdict {
        Verdict {
            status,
            reason,
            round,
            guard: None,
            findings: Vec::new(),
            blocking: Vec::new(),
            escalated: Vec::new(),
            context,
            hint,
            notes: Vec::new(),
        }
    }

    /// The blocking findings, in the reviewer's order.
    pub(crate) fn blocking_findings(&self) -> impl Iterator<Item = &ReportedFinding> {
        self.findings.iter().filter(|reported| reported.blocking)
    }

    /// The summary for people (stderr): status line, findings, what is handed to a human, notes,
    /// and the next step.
    pub(crate) fn summary(&self) -> String {
        let mut text = format!(
            "deep review {} (context {}, round {}): {}\n",
            self.status.as_str(),
            self.context.name,
            self.round,
            self.reason
        );
        self.push_findings(&mut text);
        for escalated in &self.escalated {
            text.push_str(&escalated.render());
        }
        for note in &self.notes {
            text.push_str(&format!("  note: {note}\n"));
        }
        text.trim_end().to_string()
    }

    /// Blocking findings with their wrong output, then the minor ones; a finding handed to a
    /// human is left to its own entry, with both sides' words.
    fn push_findings(&self, text: &mut String) {
        let handed_over = |key: &str| self.escalated.iter().any(|item| item.key == key);
        for reported in self
            .blocking_findings()
            .filter(|found| !handed_over(&found.key))
        {
            text.push_str(&format!("  {}\n", reported.headline()));
            if !reported.finding.wrong_output.is_empty() {
                text.push_str(&format!(
                    "      wrong output: {}\n",
                    reported.finding.wrong_output
                ));
            }
        }
        let minor: Vec<&ReportedFinding> = self
            .findings
            .iter()
            .filter(|found| !found.blocking)
            .collect();
        if !minor.is_empty() {
            text.push_str("  not blocking (you decide):\n");
            for reported in minor {
                text.push_str(&format!("    {}\n", reported.headline()));
            }
        }
    }
}
