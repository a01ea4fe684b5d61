//! One deep review round, end to end: context → reviewer check → diff → round state (locked) →
//! prompt → reviewer → findings → guards → recorded round → verdict.
//!
//! Invariants: any failure before the guards decide is a STOPPED verdict that uses no round and
//! leaves the round state untouched; the guards see the state as loaded before the round, and the
//! round is recorded afterwards (the snapshot); the round's prompt and raw answer are kept beside
//! the state (`round-<n>.prompt.md`, `round-<n>.answer.txt`) so a human can read what was asked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::clock::Clock;
use crate::project::Project;
use crate::review::answer::{self, Question, Unanswered};
use crate::review::deep::StopCause;
use crate::review::deep::context::{self, Context};
use crate::review::deep::diff::{self, ChangeSet, PathFilter};
use crate::review::deep::guards::{self, Decision, RoundFacts};
use crate::review::deep::init;
use crate::review::deep::prompt::{self, PromptInput};
use crate::review::deep::state::{RoundRecord, RoundState, RoundStore, StateError};
use crate::review::deep::verdict::{ContextInfo, ReportedFinding, Status, Verdict};
use crate::review::findings::Review;
use crate::session::finding::Finding;
use crate::settings::{ReviewerBackend, Settings};
use crate::state::names::{ANSWER_SUFFIX, PROMPT_SUFFIX};

/// What a round needs: where, with which settings and clock, and the run's options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundRequest<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) clock: Clock,
    /// The user's home folder (for `~/.claude/review-contexts/`).
    pub(crate) home: Option<&'a Path>,
    /// `CONTEXT` as given (a name, a path, or `none`).
    pub(crate) context: &'a str,
    pub(crate) focus: &'a [String],
    pub(crate) base: Option<&'a str>,
    pub(crate) paths: &'a [String],
    pub(crate) max_rounds: u32,
    pub(crate) allow_skipped: bool,
    pub(crate) timeout: Duration,
}

impl RoundRequest<'_> {
    fn store(&self) -> RoundStore {
        RoundStore::new(self.project, &context::name_of(self.context))
    }
}

/// Runs one round; every failure becomes a STOPPED verdict.
pub(crate) fn run(request: &RoundRequest<'_>) -> Verdict {
    let mut info = ContextInfo {
        name: context::name_of(request.context),
        file: None,
    };
    match review_round(request, &mut info) {
        Ok(verdict) => verdict,
        Err(cause) => {
            let round = open_rounds(&request.store());
            let hint = cause.hint(request.settings, request.timeout.as_secs());
            Verdict::stopped(info, round, cause.to_string(), hint)
        }
    }
}

fn review_round(request: &RoundRequest<'_>, info: &mut ContextInfo) -> Result<Verdict, StopCause> {
    let project = request.project;
    let context = context::resolve(project.checkout(), request.home, request.context)?;
    info.file = context.file.as_ref().map(|file| {
        project
            .relative(file)
            .unwrap_or_else(|| file.display().to_string())
    });
    let settings = reviewer_settings(request.settings)?;
    let filter = PathFilter::new(project.checkout(), request.paths)?;
    let changes = diff::collect(project.checkout(), request.base, &filter)?;
    if changes.is_empty() {
        return empty_change(request, info, &changes);
    }
    let store = request.store();
    let _lock = store.lock()?;
    let mut before = store.load()?;
    before.open_loop();
    let round = Round {
        request,
        settings: &settings,
        store: &store,
        context: &context,
        changes: &changes,
        number: before.round + 1,
        before: &before,
    };
    let asked = round.ask()?;
    let decision = guards::decide(
        &before,
        &RoundFacts {
            round: round.number,
            findings: &asked.findings,
            diff_hash: &changes.hash(),
            max_rounds: request.max_rounds,
        },
    );
    round.record(&decision, &asked.findings)?;
    Ok(round.verdict(info, decision, asked))
}

/// An empty change: the loop's change was undone (PASS), nothing to review with
/// `--allow-skipped` (PASS), or else STOPPED (probably a wrong `--base`).
fn empty_change(
    request: &RoundRequest<'_>,
    info: &ContextInfo,
    changes: &ChangeSet,
) -> Result<Verdict, StopCause> {
    if let Some(verdict) = change_undone(request, info, changes)? {
        return Ok(verdict);
    }
    let open_loop = open_loop_scope(&request.store());
    if !request.allow_skipped {
        let mut scope = changes.scope_label();
        if !changes.left_out.is_empty() {
            scope.push_str(&format!(
                " (car's own files left out: {}; name them in --paths to review them)",
                changes.left_out.join(", ")
            ));
        }
        return Err(StopCause::EmptyDiff { scope, open_loop });
    }
    let round = open_rounds(&request.store());
    let mut verdict = Verdict::without_review(
        Status::Pass,
        info.clone(),
        round,
        "nothing to review".into(),
        None,
    );
    verdict
        .notes
        .push(format!("no change {}", changes.scope_label()));
    if let Some(open_loop) = open_loop {
        verdict.notes.push(format!(
            "the open loop stays open: its {open_loop} is not what this run looked at"
        ));
    }
    Ok(verdict)
}

/// The open loop's last round as people read it (`round 1 against 1a2b3c4, limited to src/**`);
/// `None` when no loop is open.
fn open_loop_scope(store: &RoundStore) -> Option<String> {
    let state = store.load().ok().filter(RoundState::is_open)?;
    let last = state.last_round()?;
    let base: String = last.base.chars().take(7).collect();
    let paths = if state.paths.is_empty() {
        String::new()
    } else {
        format!(", limited to {}", state.paths.join(" "))
    };
    Some(format!("round {} against {base}{paths}", last.round))
}

/// The settings the reviewer runs with: the deep review's backend in place of the gate's.
fn reviewer_settings(settings: &Settings) -> Result<Settings, StopCause> {
    let backend = settings.deep_review_backend.clone();
    match backend {
        ReviewerBackend::Manual => return Err(StopCause::Manual),
        ReviewerBackend::Command if settings.reviewer_command.is_empty() => {
            return Err(StopCause::NoCommand);
        }
        _ => {}
    }
    Ok(Settings {
        reviewer_backend: backend,
        ..settings.clone()
    })
}

/// What the reviewer said, validated.
struct Asked {
    findings: Vec<ReportedFinding>,
    notes: Vec<String>,
}

/// One round in progress, under the state's lock; `before` is the state as loaded (the snapshot
/// the guards judge against).
struct Round<'a> {
    request: &'a RoundRequest<'a>,
    settings: &'a Settings,
    store: &'a RoundStore,
    context: &'a Context,
    changes: &'a ChangeSet,
    before: &'a RoundState,
    number: u32,
}

impl Round<'_> {
    /// Writes the prompt, asks the reviewer, keeps its answer and validates it.
    fn ask(&self) -> Result<Asked, StopCause> {
        let project = self.request.project;
        let warnings =
            prompt::lesson_warnings(project, self.settings, self.request.clock, self.changes);
        let text = prompt::build(&PromptInput {
            project,
            settings: self.settings,
            context: self.context,
            focus: self.request.focus,
            changes: self.changes,
            state: self.before,
            warnings: &warnings,
        });
        crate::files::write_atomic(&self.file(PROMPT_SUFFIX), text.as_bytes())
            .map_err(StateError::from)?;
        let answer_file = self.file(ANSWER_SUFFIX);
        let review = answer::ask(&Question {
            settings: self.settings,
            project,
            prompt: &text,
            timeout: self.request.timeout,
            files_prefix: self.file(""),
            answer_file: &answer_file,
        })
        .map_err(|unanswered| match unanswered {
            Unanswered::Backend(error) => StopCause::Reviewer(error),
            Unanswered::Unusable(error) => StopCause::Unusable {
                error,
                answer: self.shown(&answer_file),
            },
        })?;
        let mut asked = reported(review, self.settings);
        if !warnings.is_empty() {
            asked.notes.push(format!(
                "{} on the changed lines went to the reviewer as known pitfalls",
                crate::text::plural(warnings.len(), "lesson warning")
            ));
        }
        Ok(asked)
    }

    /// Records the judged round (after the guards: the snapshot rule).
    fn record(&self, decision: &Decision, findings: &[ReportedFinding]) -> Result<(), StopCause> {
        let mut after = self.before.clone();
        after.paths = crate::review::deep::state::loop_paths(&self.changes.paths);
        after.record(RoundRecord {
            round: self.number,
            at: self.request.clock.now(),
            base: self.changes.base.commit.clone(),
            diff_hash: self.changes.hash(),
            status: decision.status,
            guard: decision.guard,
            findings: findings.to_vec(),
        });
        self.store.save(&after)?;
        Ok(())
    }

    fn verdict(&self, info: &ContextInfo, decision: Decision, asked: Asked) -> Verdict {
        let mut notes = vec![format!(
            "reviewed {} {}; prompt: {}",
            crate::text::plural(self.changes.files.len(), "changed file"),
            self.changes.scope_label(),
            self.shown(&self.file(PROMPT_SUFFIX))
        )];
        notes.extend(self.context_note());
        if !self.changes.left_out.is_empty() {
            notes.push(format!(
                "left out car's own files: {} (name them in --paths to review them)",
                self.changes.left_out.join(", ")
            ));
        }
        notes.extend(asked.notes);
        Verdict {
            status: decision.status,
            reason: decision.reason,
            round: self.number,
            guard: decision.guard,
            blocking: blocking_ids(&asked.findings),
            findings: asked.findings,
            escalated: decision.escalated,
            context: info.clone(),
            hint: next_step(decision.status, &info.name),
            notes,
        }
    }

    /// A warning when the context still holds the template's placeholder text.
    fn context_note(&self) -> Option<String> {
        let (Some(file), Some(text)) = (&self.context.file, &self.context.text) else {
            return None;
        };
        let left = init::unfilled_sections(text);
        let file = self.shown(file);
        if left.len() == init::template_section_count() {
            Some(format!(
                "warning: {file} is the unfilled template from `car deep-review init`: the \
                 reviewer got no domain knowledge; fill it in, then run again"
            ))
        } else if !left.is_empty() {
            Some(format!(
                "{file} still holds the template's placeholder under {}",
                left.join(", ")
            ))
        } else {
            None
        }
    }

    fn file(&self, suffix: &str) -> PathBuf {
        self.store.round_file(self.number, suffix)
    }

    fn shown(&self, path: &Path) -> String {
        self.request
            .project
            .relative(path)
            .unwrap_or_else(|| path.display().to_string())
    }
}

/// The review's findings with their stable keys, unique ids and blocking flags.
fn reported(review: Review, settings: &Settings) -> Asked {
    let threshold = settings.minimum_blocking_severity;
    let blocks: Vec<bool> = review
        .findings
        .iter()
        .map(|finding| review.is_blocking(finding, threshold))
        .collect();
    let mut found: Vec<Finding> = review.findings;
    unique_ids(&mut found);
    let findings = found
        .into_iter()
        .zip(blocks)
        .map(|(finding, blocks)| ReportedFinding::new(finding, blocks))
        .collect();
    Asked {
        findings,
        notes: review.notes,
    }
}

/// Makes every finding id unique within the round (`F1`, `F1.2`), so `fixed ID` names one.
fn unique_ids(findings: &mut [Finding]) {
    let mut seen = HashSet::new();
    for finding in findings {
        let mut id = finding.id.clone();
        let mut count = 2;
        while !seen.insert(id.clone()) {
            id = format!("{}.{count}", finding.id);
            count += 1;
        }
        finding.id = id;
    }
}

fn blocking_ids(findings: &[ReportedFinding]) -> Vec<String> {
    findings
        .iter()
        .filter(|found| found.blocking)
        .map(|found| found.finding.id.clone())
        .collect()
}

/// An empty change in an open loop whose last round had a change against the same base and with
/// the same `--paths`: the change was undone (by a fix or by hand), not a wrong `--base` or
/// `--paths`. PASS, and the loop ends. Another base or other paths say nothing about the loop's
/// change: the caller stops with "nothing to review" and the loop stays open.
fn change_undone(
    request: &RoundRequest<'_>,
    info: &ContextInfo,
    changes: &ChangeSet,
) -> Result<Option<Verdict>, StopCause> {
    let store = request.store();
    let _lock = store.lock()?;
    let mut state = store.load()?;
    let round = match state.last_round() {
        Some(last)
            if state.is_open() && state.is_same_scope(&changes.base.commit, &changes.paths) =>
        {
            last.round
        }
        _ => return Ok(None),
    };
    state.close(Status::Pass, request.clock.now());
    store.save(&state)?;
    let reason = format!(
        "nothing left to review: the change reviewed in round {round} is gone (no change {})",
        changes.scope_label()
    );
    Ok(Some(Verdict::without_review(
        Status::Pass,
        info.clone(),
        round,
        reason,
        None,
    )))
}

/// Rounds completed in the context's open loop (0 when none is open).
fn open_rounds(store: &RoundStore) -> u32 {
    store
        .load()
        .ok()
        .filter(RoundState::is_open)
        .map_or(0, |state| state.round)
}

fn next_step(status: Status, context: &str) -> Option<String> {
    match status {
        Status::Fail => Some(format!(
            "fix the blocking findings (only those), then `car deep-review fixed ID…` — or `car deep-review challenge ID --reason \"…\"` for a false positive — and `car deep-review run {context}` again"
        )),
        Status::Escalate => Some(format!(
            "a human decides now; write the decision into the context file so the next review knows it. The next `car deep-review run {context}` starts a new loop"
        )),
        Status::Pass | Status::Stopped => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::finding::Severity;

    #[test]
    fn duplicate_ids_become_unique() {
        let finding = |id: &str| Finding {
            id: id.into(),
            severity: Severity::P3,
            file: "a".into(),
            line: 0,
            title: "t".into(),
            wrong_output: String::new(),
            suggestion: String::new(),
            downgraded: false,
        };
        let mut findings = vec![finding("F1"), finding("F1"), finding("F2"), finding("F1")];
        unique_ids(&mut findings);
        let ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["F1", "F1.2", "F2", "F1.3"]);
    }

    #[test]
    fn manual_is_refused_and_command_needs_argv() {
        let settings = Settings {
            deep_review_backend: ReviewerBackend::Manual,
            ..Settings::default()
        };
        assert!(matches!(
            reviewer_settings(&settings),
            Err(StopCause::Manual)
        ));
        let settings = Settings {
            deep_review_backend: ReviewerBackend::Command,
            ..Settings::default()
        };
        assert!(matches!(
            reviewer_settings(&settings),
            Err(StopCause::NoCommand)
        ));
        let chosen = reviewer_settings(&Settings::default()).unwrap();
        assert_eq!(chosen.reviewer_backend, ReviewerBackend::Codex);
    }
}
