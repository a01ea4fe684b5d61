//! The shape of every event car records about a session: one JSON object per line, with the time,
//! the session and a tagged `event`. Hooks write events; the stop gate reads them back into one
//! snapshot per stop attempt and never re-parses payloads.
//!
//! Invariants: events are facts, never rewritten; a file "version" is the SHA-256 of its content,
//! or `null` when the file does not exist. Lifecycle events (see [`Event::is_lifecycle`]) are
//! also copied into the project's `state.jsonl` by the one append path in [`crate::session::log`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::lesson_warning::Warning;
use crate::session::finding::{Finding, KnownLimit, Severity};

/// A file's content hash, or `None` when the file does not exist (deleted / never created).
pub(crate) type Version = Option<String>;

/// File → version, sorted so two sets compare and print the same way every time.
pub(crate) type Versions = BTreeMap<String, Version>;

/// The stages of a stop attempt, in the order the gate runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Stage {
    Enabled,
    Changes,
    /// `[KNOWN LIMIT]` lines of the agent's last message.
    KnownLimits,
    Breaker,
    Reuse,
    Review,
    /// The convergence guards after a review: stuck and challenged findings go to a human.
    Guards,
    Verdict,
}

/// Why the gate blocked a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BlockKind {
    /// Manual review: the agent must review and submit.
    ReviewRequest,
    /// The reviewer CLI could not deliver a usable review.
    ReviewerFailed,
    /// Open P1/P2 findings or unresolved validator errors.
    Findings,
}

/// Why the gate let the agent stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AllowKind {
    /// Nothing was pending.
    Clean,
    /// Everything pending was reviewed and nothing blocks.
    Reviewed,
    /// `maxStopPasses` blocks in a row.
    Breaker,
    /// Nothing changed since a findings block.
    NoProgress,
    /// The agent is waiting for the user; the review is postponed.
    Incomplete,
    /// What still blocked was handed to a human (stuck or challenged findings).
    Escalated,
    /// The reviewer CLI is not installed: the changes stay pending, unreviewed.
    ReviewerMissing,
}

impl AllowKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AllowKind::Clean => "clean",
            AllowKind::Reviewed => "reviewed",
            AllowKind::Breaker => "breaker",
            AllowKind::NoProgress => "no_progress",
            AllowKind::Incomplete => "incomplete",
            AllowKind::Escalated => "escalated",
            AllowKind::ReviewerMissing => "reviewer_missing",
        }
    }
}

/// Why a finding was handed to a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EscalationKind {
    /// It survived `maxFixAttempts` review rounds in which the agent changed its file.
    Stuck,
    /// The agent challenged it as a false positive and the reviewer reported it again.
    ChallengeUpheld,
    /// A challenged P1 the reviewer then left out: a P1 is never dropped, a person decides.
    ChallengedP1,
}

/// One line of a session's event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EventRecord {
    /// Unix seconds (from the one clock).
    pub(crate) ts: i64,
    pub(crate) session: String,
    #[serde(flatten)]
    pub(crate) event: Event,
}

/// Where a file's session baseline came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BaselineSource {
    /// The edit payload carried the previous content.
    Payload,
    /// The committed version (`git show HEAD:file`).
    GitHead,
    /// The file did not exist before the session (or car could not know its content).
    Absent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum Event {
    /// An edit tool changed a file; `hash` is the SHA-256 of its content afterwards; `reviewed`
    /// says whether a completed review already covered exactly this content (an edit back to a
    /// reviewed version). Informational: the snapshot derives coverage itself.
    EditTracked {
        file: String,
        tool: String,
        hash: String,
        #[serde(default)]
        reviewed: bool,
    },
    /// A tool deleted a file.
    FileDeleted { file: String },
    /// The validators ran on a file; an empty list means the file is clean now (this resolves the
    /// file's earlier errors).
    Validated {
        file: String,
        errors: Vec<Diagnostic>,
    },
    /// A checker that does not block on its own read a slip, and the agent was told as context (a
    /// grammar trusted only for edits, on a new file): what it read, and why it did not block.
    NotBlocked {
        file: String,
        finding: Diagnostic,
        why: String,
    },
    /// The PreToolUse hook stopped a write before it landed: the errors a checker car trusts
    /// found in the content the tool would have left, and the heavy lessons it repeated.
    WriteStopped {
        file: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        errors: Vec<Diagnostic>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lessons: Vec<Warning>,
    },
    /// Lessons fired on what an edit added.
    LessonWarned {
        file: String,
        warnings: Vec<Warning>,
    },
    /// The content of a file before the session first edited it was stored under
    /// `clients/<session>/baselines/`; `hash` is that content's version.
    BaselineCaptured {
        file: String,
        source: BaselineSource,
        hash: Version,
    },
    /// `git status` when the session first recorded something: the files already dirty then,
    /// with their stamps (`stamp:<size>:<mtime ns>`, `null` when missing), so changes made later
    /// outside the edit tools can be told apart.
    WorktreeBaseline {
        dirty: Versions,
        /// When it was taken, in real time (milliseconds since the Unix epoch; absent in older
        /// logs): an ignore rule written after it was added during the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        taken_at_ms: Option<u64>,
    },
    /// At stop time `git status` showed a file changed outside the edit tools (Bash rm/mv/…).
    Reconciled { file: String, hash: Version },
    /// One stage of a stop attempt and what it decided.
    StopStage {
        stage: Stage,
        outcome: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        detail: String,
    },
    /// The classifier's reading of the agent's last message; `message` is the start of that
    /// message (what the agent said it did, shown as a fix tried when a finding goes to a human).
    ClassifierResult {
        verdict: String,
        source: String,
        reason: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        message: String,
    },
    /// A review of `files` (at these versions) was asked for.
    ReviewRequested {
        review: String,
        backend: String,
        files: Versions,
        prompt_file: String,
    },
    /// A review came back; the verdict is derived from `findings` alone.
    ReviewCompleted {
        review: String,
        files: Versions,
        findings: Vec<Finding>,
        #[serde(default)]
        known_limits: Vec<KnownLimit>,
        #[serde(default)]
        notes: Vec<String>,
    },
    /// The reviewer could not produce a usable review (never counts as clean).
    ReviewFailed { review: String, error: String },
    /// A P2 finding was recorded as a known limit; it no longer blocks.
    FindingDeferred {
        review: String,
        finding: String,
        file: String,
        title: String,
        reason: String,
    },
    /// The agent holds a blocking finding to be a false positive (`car review challenge`); the
    /// reason goes into the next review prompt.
    FindingChallenged {
        review: String,
        finding: String,
        file: String,
        title: String,
        severity: Severity,
        reason: String,
    },
    /// A blocking finding was handed to a human: it no longer blocks in this session and is not
    /// requested again. `tried` holds what the agent said before each round the finding survived.
    FindingEscalated {
        review: String,
        finding: Finding,
        kind: EscalationKind,
        #[serde(default)]
        attempts: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tried: Vec<String>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        challenge: String,
    },
    /// `car review cancel`: the pending review request is dropped and the blocked-stop count
    /// starts again; the changes stay unreviewed.
    ReviewCancelled {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        review: Option<String>,
    },
    /// The gate blocked a stop.
    StopBlocked {
        kind: BlockKind,
        fingerprint: String,
    },
    /// The gate let the agent stop.
    StopAllowed { kind: AllowKind },
    /// P3 offers shown to the user (keys), so each is shown once.
    OffersShown { keys: Vec<String> },
    /// SessionEnd: the session is closed.
    SessionEnded {
        #[serde(default)]
        reason: String,
        /// Changed files no review covered when the session ended.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unreviewed: Vec<String>,
    },
    /// SessionEnd removed a stale session's folder (lifecycle log only).
    SessionRemoved { removed: String, last_seen: i64 },
}

impl Event {
    /// Events the project lifecycle log `state.jsonl` also keeps.
    pub(crate) fn is_lifecycle(&self) -> bool {
        matches!(
            self,
            Event::ReviewRequested { .. }
                | Event::ReviewCompleted { .. }
                | Event::ReviewFailed { .. }
                | Event::FindingDeferred { .. }
                | Event::FindingChallenged { .. }
                | Event::FindingEscalated { .. }
                | Event::ReviewCancelled { .. }
                | Event::StopBlocked { .. }
                | Event::StopAllowed { .. }
                | Event::SessionEnded { .. }
                | Event::SessionRemoved { .. }
        )
    }
}

/// SHA-256 of `bytes` as lower-case hex.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_as_flat_json() {
        let record = EventRecord {
            ts: 5,
            session: "s1".into(),
            event: Event::FileDeleted {
                file: "src/a.py".into(),
            },
        };
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(
            text,
            r#"{"ts":5,"session":"s1","event":"file_deleted","file":"src/a.py"}"#
        );
        assert_eq!(serde_json::from_str::<EventRecord>(&text).unwrap(), record);
    }

    #[test]
    fn versions_serialize_deleted_as_null() {
        let mut files = Versions::new();
        files.insert("a".into(), None);
        files.insert("b".into(), Some("ff".into()));
        let event = Event::Reconciled {
            file: "a".into(),
            hash: None,
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            serde_json::json!({"event":"reconciled","file":"a","hash":null})
        );
        assert!(!event.is_lifecycle());
        assert_eq!(
            serde_json::to_string(&files).unwrap(),
            r#"{"a":null,"b":"ff"}"#
        );
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
