//! One view of a session, folded from its event log once per stop attempt (or command): which
//! files the session changed and at which version, what was reviewed and what each review found
//! (which of those findings still block is the review engine's rule, `review::blocking`), which
//! validator errors are unresolved, how many stops in a row were blocked.
//!
//! Invariants: the snapshot is a pure function of the events (no I/O here), so every question the
//! gate asks during one stop attempt gets answers from the same view; later events win. Only the
//! latest review request can be pending: a newer request supersedes it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::lesson_warning::Warning;
use crate::session::event::{AllowKind, BlockKind, Event, EventRecord, Version, Versions};
use crate::session::finding::{Finding, KnownLimit};
use crate::session::rounds::{Escalation, Rounds};

mod frequent;
mod warning_places;

pub(crate) use frequent::{Frequent, WarningRef};
use warning_places::WarningPlaces;

/// A review that was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Request {
    pub(crate) id: String,
    pub(crate) backend: String,
    pub(crate) files: Versions,
    pub(crate) prompt_file: String,
    pub(crate) ts: i64,
}

/// A review that came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CompletedReview {
    pub(crate) id: String,
    pub(crate) files: Versions,
    pub(crate) findings: Vec<Finding>,
    pub(crate) known_limits: Vec<KnownLimit>,
    pub(crate) notes: Vec<String>,
}

/// A finding recorded as a known limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Deferral {
    pub(crate) review: String,
    pub(crate) finding: String,
    pub(crate) file: String,
    pub(crate) title: String,
    pub(crate) reason: String,
}

/// Why the previous stop was blocked, to tell whether anything changed since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LastBlock {
    pub(crate) kind: BlockKind,
    pub(crate) fingerprint: String,
}

/// One outstanding finding, with the review it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Outstanding {
    pub(crate) review: String,
    pub(crate) finding: Finding,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    pub(crate) session: String,
    /// Every file the session changed (edit tools or reconciliation) → its version now.
    pub(crate) files: BTreeMap<String, Version>,
    /// File → its version before the session's first edit.
    pub(crate) baselines: BTreeMap<String, Version>,
    pub(crate) worktree_baseline: Option<Versions>,
    /// When the worktree baseline was taken, in real time (ms since the Unix epoch).
    pub(crate) worktree_baseline_at_ms: Option<u64>,
    /// File → the errors of its latest validation.
    pub(crate) validated: BTreeMap<String, Vec<Diagnostic>>,
    /// File → its version when it was last validated (errors of an older version may be stale).
    pub(crate) validated_versions: BTreeMap<String, Version>,
    /// Lesson warnings of the session, each (lesson, file, line) once.
    pub(crate) warnings: Vec<Warning>,
    /// Where each (lesson, file, line) is in `warnings`, for the first so many of them (a
    /// snapshot read from the cache starts with none and indexes them on its first warning).
    #[serde(skip)]
    warning_places: WarningPlaces,
    pub(crate) requests: Vec<Request>,
    pub(crate) reviews: Vec<CompletedReview>,
    /// Review id → what failed.
    pub(crate) failures: BTreeMap<String, String>,
    pub(crate) deferred: Vec<Deferral>,
    /// Review requests dropped with `car review cancel`.
    pub(crate) cancelled: BTreeSet<String>,
    /// Findings across rounds: fix attempts, challenges, escalations.
    pub(crate) rounds: Rounds,
    /// Blocked stops since the last allowed one, for the breaker. A manual review request the
    /// agent answered with `car review submit` does not count: the agent did what the block
    /// asked, and a round (request, then fix request) costs the breaker one stop, as with a
    /// reviewer CLI. An ignored request counts.
    pub(crate) blocks_since_allow: u32,
    /// Whether the last blocked stop's review request was answered already (counted once).
    pub(crate) request_answered: bool,
    /// Fix rounds of the whole session: stops blocked with a fix request, a request repeated on
    /// exactly what the previous one saw (nothing was fixed) counted once (round reflection from
    /// the second).
    pub(crate) fix_rounds: u32,
    /// The fingerprint the latest fix request was made on.
    pub(crate) last_fix_request: Option<String>,
    pub(crate) last_block: Option<LastBlock>,
    /// The fingerprint on which the breaker let the agent stop with a fix request unanswered
    /// (nothing changed, or `maxStopPasses`): a later stop on the same fingerprint is let go the
    /// same way. Cleared by the next blocked stop, any other allowed one and a cancel.
    pub(crate) let_go: Option<String>,
    /// Changed files git ignores at this stop ([`crate::session::ignored`]): never reviewed.
    /// Found anew by every refresh, never stored.
    #[serde(skip)]
    pub(crate) ignored: BTreeSet<String>,
    /// Changed files git ignores by a rule added during the session → the file holding the rule:
    /// reviewed anyway (a new rule never hides a change), and the prompt says so. Found anew by
    /// every refresh, never stored.
    #[serde(skip)]
    pub(crate) unhidden: BTreeMap<String, String>,
    pub(crate) shown_offers: BTreeSet<String>,
    /// Writes the PreToolUse hook stopped before they landed.
    pub(crate) writes_stopped: usize,
    pub(crate) ended: bool,
    pub(crate) last_ts: i64,
    pub(crate) events: usize,
    /// Torn or unreadable lines skipped while reading.
    pub(crate) skipped_lines: usize,
}

impl Snapshot {
    pub(crate) fn from_records(
        session: &str,
        records: Vec<EventRecord>,
        skipped: usize,
    ) -> Snapshot {
        let mut snapshot = Snapshot {
            session: session.to_string(),
            skipped_lines: skipped,
            ..Snapshot::default()
        };
        for record in records {
            snapshot.apply(record);
        }
        snapshot
    }

    /// Folds an event made at `ts` (not read from the log: the gate's own, or a command's look).
    pub(crate) fn apply_event(&mut self, ts: i64, event: Event) {
        let session = self.session.clone();
        self.apply(EventRecord { ts, session, event });
    }

    /// Folds one more event into the view.
    pub(crate) fn apply(&mut self, record: EventRecord) {
        match record.event {
            Event::EditTracked {
                file,
                tool,
                hash,
                reviewed,
            } => self.apply_frequent(
                record.ts,
                Frequent::Edit {
                    file: file.into(),
                    tool: tool.into(),
                    hash: hash.into(),
                    reviewed,
                },
            ),
            Event::Validated { file, errors } => self.apply_frequent(
                record.ts,
                Frequent::Validated {
                    file: file.into(),
                    errors,
                },
            ),
            Event::LessonWarned { file, warnings } => self.apply_frequent(
                record.ts,
                Frequent::Warned {
                    file: file.into(),
                    warnings: warnings.into_iter().map(WarningRef::from).collect(),
                },
            ),
            event => {
                self.count(record.ts);
                self.apply_rare(event, record.ts);
            }
        }
    }

    fn count(&mut self, ts: i64) {
        self.last_ts = self.last_ts.max(ts);
        self.events += 1;
    }

    /// Folds one of the events that make up nearly all of a long log. Borrowed from the log's
    /// text, they cost an allocation only for what the view does not hold yet (the same file at
    /// the same version again costs none), which keeps the first stop of a long session fast.
    pub(crate) fn apply_frequent(&mut self, ts: i64, event: Frequent<'_>) {
        self.count(ts);
        match event {
            Frequent::Edit { file, hash, .. } => match self.files.get_mut(file.as_ref()) {
                Some(Some(known)) if *known == hash => {}
                Some(version) => *version = Some(hash.into_owned()),
                None => {
                    self.files
                        .insert(file.into_owned(), Some(hash.into_owned()));
                }
            },
            Frequent::Validated { file, errors } => {
                // Which version of the file these errors are about.
                let version = self.files.get(file.as_ref()).cloned().flatten();
                match self.validated_versions.get_mut(file.as_ref()) {
                    Some(known) => *known = version,
                    None => {
                        self.validated_versions
                            .insert(file.clone().into_owned(), version);
                    }
                }
                match self.validated.get_mut(file.as_ref()) {
                    Some(known) => *known = errors,
                    None => {
                        self.validated.insert(file.into_owned(), errors);
                    }
                }
            }
            Frequent::Warned { warnings, .. } => {
                for warning in warnings {
                    self.note_warning(warning);
                }
            }
        }
    }

    /// Each (lesson, file, line) once; a later warning replaces an earlier one.
    fn note_warning(&mut self, warning: WarningRef<'_>) {
        self.warning_places.catch_up(&self.warnings);
        let known = self.warning_places.find(
            &self.warnings,
            &warning.lesson_id,
            &warning.file,
            warning.line,
        );
        match known {
            Some(index) if warning.is_same_as(&self.warnings[index]) => {}
            Some(index) => self.warnings[index] = warning.into_owned(),
            None => {
                self.warnings.push(warning.into_owned());
                self.warning_places.catch_up(&self.warnings);
            }
        }
    }

    fn apply_rare(&mut self, event: Event, ts: i64) {
        match event {
            Event::FileDeleted { file } => {
                self.files.insert(file, None);
            }
            Event::Reconciled { file, hash } => {
                self.files.insert(file, hash);
            }
            Event::BaselineCaptured { file, hash, .. } => {
                self.baselines.entry(file).or_insert(hash);
            }
            Event::WorktreeBaseline { dirty, taken_at_ms } => {
                if self.worktree_baseline.is_none() {
                    self.worktree_baseline = Some(dirty);
                    self.worktree_baseline_at_ms = taken_at_ms;
                }
            }
            other => self.apply_gate_event(other, ts),
        }
    }

    fn apply_gate_event(&mut self, event: Event, ts: i64) {
        match event {
            Event::ReviewRequested {
                review,
                backend,
                files,
                prompt_file,
            } => {
                self.rounds.requested(&review);
                self.requests.push(Request {
                    id: review,
                    backend,
                    files,
                    prompt_file,
                    ts,
                });
            }
            Event::ReviewCompleted {
                review,
                files,
                findings,
                known_limits,
                notes,
            } => {
                if !self.request_answered
                    && self
                        .last_block
                        .as_ref()
                        .is_some_and(|last| last.kind == BlockKind::ReviewRequest)
                {
                    self.blocks_since_allow = self.blocks_since_allow.saturating_sub(1);
                    self.request_answered = true;
                }
                let known = &self.files;
                self.rounds
                    .completed(&review, &findings, |file| known.get(file).cloned());
                self.reviews.push(CompletedReview {
                    id: review,
                    files,
                    findings,
                    known_limits,
                    notes,
                });
            }
            Event::ReviewFailed { review, error } => {
                self.rounds.cancelled(&review);
                self.failures.insert(review, error);
            }
            Event::FindingDeferred {
                review,
                finding,
                file,
                title,
                reason,
            } => self.deferred.push(Deferral {
                review,
                finding,
                file,
                title,
                reason,
            }),
            other => self.apply_stop_event(other),
        }
    }

    /// What the stops decided, cancellations and the agent's words.
    fn apply_stop_event(&mut self, event: Event) {
        match event {
            Event::ReviewCancelled { review } => {
                if let Some(review) = review {
                    self.rounds.cancelled(&review);
                    self.cancelled.insert(review);
                }
                self.blocks_since_allow = 0;
                self.last_block = None;
                self.let_go = None;
            }
            Event::ClassifierResult { message, .. } if !message.is_empty() => {
                self.rounds.agent_said(&message);
            }
            Event::StopBlocked { kind, fingerprint } => {
                self.blocks_since_allow += 1;
                self.request_answered = false;
                self.let_go = None;
                if kind == BlockKind::Findings {
                    if self.last_fix_request.as_ref() != Some(&fingerprint) {
                        self.fix_rounds += 1;
                    }
                    self.last_fix_request = Some(fingerprint.clone());
                }
                self.last_block = Some(LastBlock { kind, fingerprint });
            }
            Event::StopAllowed { kind } => {
                self.let_go = match kind {
                    AllowKind::NoProgress | AllowKind::Breaker => self
                        .last_block
                        .take()
                        .filter(|last| last.kind == BlockKind::Findings)
                        .map(|last| last.fingerprint)
                        .or(self.let_go.take()),
                    _ => None,
                };
                self.blocks_since_allow = 0;
                self.last_block = None;
            }
            Event::OffersShown { keys } => self.shown_offers.extend(keys),
            Event::WriteStopped { .. } => self.writes_stopped += 1,
            Event::SessionEnded { .. } => self.ended = true,
            other => self.apply_round_event(other),
        }
    }

    /// Challenges and escalations (see [`Rounds`]).
    fn apply_round_event(&mut self, event: Event) {
        match event {
            Event::FindingChallenged {
                review,
                finding,
                file,
                title,
                severity,
                reason,
            } => {
                let reported = self.finding_in(&review, &finding).cloned();
                let finding = reported.unwrap_or(Finding {
                    id: finding,
                    severity,
                    file,
                    line: 0,
                    title,
                    wrong_output: String::new(),
                    suggestion: String::new(),
                    downgraded: false,
                });
                self.rounds.challenged(&review, finding, &reason);
            }
            escalated @ Event::FindingEscalated { .. } => {
                if let Some(escalation) = Escalation::of(&escalated) {
                    self.rounds.escalated(escalation);
                }
            }
            _ => {}
        }
    }

    /// Files the session changed and that differ from their baseline (an edit undone is no change).
    pub(crate) fn session_changes(&self) -> Versions {
        self.files
            .iter()
            .filter(|(file, version)| {
                self.baselines
                    .get(*file)
                    .is_none_or(|baseline| baseline != *version)
            })
            .map(|(file, version)| (file.clone(), version.clone()))
            .collect()
    }

    /// Changed files whose current version no completed review covered.
    pub(crate) fn unreviewed(&self) -> Versions {
        self.session_changes()
            .into_iter()
            .filter(|(file, _)| !self.ignored.contains(file))
            .filter(|(file, version)| {
                !self
                    .reviews
                    .iter()
                    .any(|review| review.files.get(file) == Some(version))
            })
            .collect()
    }

    /// What the next review covers: the unreviewed changes, plus the files of findings the agent
    /// challenged that no review prompt carried yet (at their versions now, reviewed or not).
    pub(crate) fn review_scope(&self) -> Versions {
        let mut scope = self.unreviewed();
        for challenge in self.rounds.unsent_challenges() {
            match self.files.get(&challenge.finding.file) {
                Some(version) => {
                    scope.insert(challenge.finding.file.clone(), version.clone());
                }
                // A finding about a file the session did not change: the session's changes are
                // what the reviewer judged it against.
                None => scope.extend(self.session_changes()),
            }
        }
        scope
    }

    /// The finding `id` of review `review`.
    pub(crate) fn finding_in(&self, review: &str, id: &str) -> Option<&Finding> {
        self.reviews
            .iter()
            .find(|completed| completed.id == review)?
            .findings
            .iter()
            .find(|finding| finding.id == id)
    }

    /// Findings handed to a human in this session.
    pub(crate) fn escalations(&self) -> &[Escalation] {
        &self.rounds.escalations
    }

    /// Whether the agent challenged the finding or it was handed to a person: a dispute, which
    /// never teaches a lesson (its disappearing says nothing about a fix).
    pub(crate) fn is_disputed(&self, finding: &Finding) -> bool {
        let key = finding.key();
        self.rounds.is_escalated(&key) || self.rounds.challenge_of(&key).is_some()
    }

    /// Errors of each file's latest validation, for files that still exist.
    pub(crate) fn unresolved_errors(&self) -> Vec<Diagnostic> {
        self.validated
            .iter()
            .filter(|(file, _)| !matches!(self.files.get(*file), Some(None)))
            .flat_map(|(_, errors)| errors.iter().cloned())
            .collect()
    }

    /// The latest review request, unless it completed, failed or was cancelled (an older request
    /// is superseded by a newer one and never pending again).
    pub(crate) fn pending_request(&self) -> Option<&Request> {
        self.requests.last().filter(|request| {
            !self.failures.contains_key(&request.id)
                && !self.cancelled.contains(&request.id)
                && !self.reviews.iter().any(|review| review.id == request.id)
        })
    }

    /// The id the next review request gets.
    pub(crate) fn next_review_id(&self) -> String {
        format!("R{}", self.requests.len() + 1)
    }

    /// Deferred findings and known limits declared by reviews, for the final summary and prompts.
    pub(crate) fn known_limits(&self) -> Vec<(String, String)> {
        let mut limits: Vec<(String, String)> = self
            .deferred
            .iter()
            .map(|deferral| {
                (
                    format!(
                        "{} {} ({})",
                        deferral.finding, deferral.title, deferral.file
                    ),
                    deferral.reason.clone(),
                )
            })
            .collect();
        for review in &self.reviews {
            for limit in &review.known_limits {
                if let Some(finding) = review.findings.iter().find(|f| f.id == limit.finding) {
                    limits.push((
                        format!("{} {} ({})", finding.id, finding.title, finding.location()),
                        limit.reason.clone(),
                    ));
                }
            }
        }
        limits.dedup();
        limits
    }

    /// The round a fix request on `fingerprint` opens: the next one, unless the latest request
    /// was made on exactly this (nothing was fixed since, so no new attempt began).
    pub(crate) fn fix_round(&self, fingerprint: &str) -> u32 {
        if self.last_fix_request.as_deref() == Some(fingerprint) {
            self.fix_rounds.max(1)
        } else {
            self.fix_rounds + 1
        }
    }

    pub(crate) fn is_deferred(&self, review: &CompletedReview, finding: &Finding) -> bool {
        review
            .known_limits
            .iter()
            .any(|limit| limit.finding == finding.id)
            || self.deferred.iter().any(|deferral| {
                (deferral.review == review.id && deferral.finding == finding.id)
                    || format!("{}|{}", deferral.file, deferral.title)
                        == format!("{}|{}", finding.file, finding.title)
            })
    }
}

#[cfg(test)]
mod tests;
