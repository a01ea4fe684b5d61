//! The Stop / SubagentStop hook: the review gate. Stages, in order, each leaving an event:
//! enabled? → unreviewed changes? (after reconciling with `git status`) → breaker
//! (`maxStopPasses` blocks in a row, or no progress since the last block) → classifier (is the
//! agent waiting for the user?) → reuse a pending review of exactly these versions → produce the
//! review → verdict.
//!
//! Invariants: the verdict comes from the findings alone; P3 never appear in a fix request;
//! unresolved validator errors block by themselves; a reviewer that is missing, times out or
//! answers nothing usable blocks with what failed (until the breaker); `stop_hook_active` never
//! ends the loop — the breaker does. SubagentStop is not gated: a subagent's edits are recorded in
//! the parent session's log and reviewed when the main agent stops. Any internal error fails open.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::answer::Answer;
use crate::review::classifier::{self, Verdict};
use crate::review::event::{AllowKind, BlockKind, Event, EventRecord, Stage, Versions};
use crate::review::findings::Review;
use crate::review::log::EventLog;
use crate::review::offers;
use crate::review::one_stop;
use crate::review::prompt::{self, PromptInput};
use crate::review::reconcile;
use crate::review::snapshot::{Outstanding, Request, Snapshot};
use crate::review::{ReviewError, Session};
use crate::reviewer::{self, AskOptions, BackendError};
use crate::settings::BlockingThreshold;
use crate::settings::ReviewerBackend;

/// Review requests up to this size are put into the block reason itself.
const INLINE_PROMPT_LIMIT: usize = 16 * 1024;

/// What the agent's stop says beyond its session.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopInput {
    /// A subagent stopped (its edits are reviewed when the main agent stops).
    pub(crate) is_subagent: bool,
    /// The agent's last message, when the payload carries it.
    pub(crate) last_message: Option<String>,
    /// The transcript, to read the last message from when the payload does not carry it.
    pub(crate) transcript_path: Option<PathBuf>,
}

pub(crate) fn handle_stop(session: Session<'_>, input: &StopInput) -> Answer {
    if !session.settings.enabled || input.is_subagent {
        return Answer::allow();
    }
    let log = EventLog::for_session(session.project, session.id);
    if !log.exists() {
        // Nothing was edited in this session: the fast path.
        return Answer::allow();
    }
    // Parallel stops of one session share one gate run (and one review).
    let wait = Duration::from_secs(session.settings.reviewer_timeout_seconds.saturating_add(20));
    one_stop::one_at_a_time(&log.dir(), wait, || {
        match Gate::open(session, input, log).and_then(Gate::run) {
            Ok(answer) => answer,
            Err(error) => {
                crate::state_dir::log_hook_error(
                    &session.project.state_dir(),
                    &format!("stop gate: {error}"),
                );
                Answer::fail_open(format!("the review gate failed ({error}); stop allowed"))
            }
        }
    })
}

/// What producing the review led to.
enum Produced {
    /// Manual backend: the agent must review and submit.
    Requested(Request),
    /// The reviewer could not deliver; what failed and how to fix it.
    Failed(String, String),
    /// Findings are recorded; go to the verdict.
    Reviewed,
}

struct Gate<'a> {
    context: Session<'a>,
    input: &'a StopInput,
    log: EventLog,
    snapshot: Snapshot,
    /// `git status` at this stop, until reconciliation consumes it.
    dirty: Option<Versions>,
    pending: Vec<Event>,
    threshold: BlockingThreshold,
}

impl<'a> Gate<'a> {
    /// Reads the snapshot while `git status` runs beside it (the two costs overlap).
    fn open(
        context: Session<'a>,
        input: &'a StopInput,
        log: EventLog,
    ) -> Result<Gate<'a>, ReviewError> {
        let (snapshot, dirty) = std::thread::scope(|scope| {
            let git = scope.spawn(|| reconcile::dirty_versions(context.project, context.settings));
            let snapshot = crate::review::checkpoint::load(&log);
            (snapshot, git.join().ok().flatten())
        });
        Ok(Gate {
            context,
            input,
            log,
            snapshot: snapshot?,
            dirty,
            pending: Vec::new(),
            threshold: context.settings.minimum_blocking_severity,
        })
    }

    fn run(mut self) -> Result<Answer, ReviewError> {
        self.stage(Stage::Enabled, "yes", "");
        let Some(unreviewed) = self.pending_changes() else {
            return self.allow_final(AllowKind::Clean, None);
        };
        if let Some((kind, message)) = self.breaker() {
            self.stage(Stage::Breaker, kind.as_str(), "");
            return self.allow_final(kind, Some(message));
        }
        self.stage(Stage::Breaker, "closed", "");
        if let Some(answer) = self.classify(&unreviewed)? {
            return Ok(answer);
        }
        let produced = if unreviewed.is_empty() {
            self.stage(Stage::Review, "not needed", "every change was reviewed");
            Produced::Reviewed
        } else {
            self.produce(&unreviewed)?
        };
        match produced {
            Produced::Requested(request) => {
                let reason = request_reason(self.context, &request, &self.errors_to_fix());
                self.block(BlockKind::ReviewRequest, reason)
            }
            Produced::Failed(what, fix) => {
                let reason = failure_reason(&what, &fix, self.context.settings.max_stop_passes)
                    + &self.errors_to_fix();
                self.block(BlockKind::ReviewerFailed, reason)
            }
            Produced::Reviewed => self.verdict(),
        }
    }

    /// Reconciles with git, then the unreviewed files — `None` when nothing at all is pending
    /// (no unreviewed file, no open finding, no validator error).
    fn pending_changes(&mut self) -> Option<Versions> {
        let reconciled = reconcile::reconcile(
            self.context.project,
            self.context.settings,
            &self.snapshot,
            self.dirty.take(),
        );
        for event in reconciled {
            self.record(event);
        }
        let unreviewed = self.snapshot.unreviewed();
        let outstanding = self.snapshot.outstanding(self.threshold).len();
        let errors = self.snapshot.unresolved_errors().len();
        if unreviewed.is_empty() && outstanding == 0 && errors == 0 {
            self.stage(Stage::Changes, "none", "");
            return None;
        }
        let detail = format!(
            "{} unreviewed files, {outstanding} open findings, {errors} validator errors",
            unreviewed.len()
        );
        self.stage(Stage::Changes, "pending", &detail);
        Some(unreviewed)
    }

    /// The unresolved validator errors, for block reasons that are not a fix request.
    fn errors_to_fix(&self) -> String {
        let errors = self.snapshot.unresolved_errors();
        if errors.is_empty() {
            return String::new();
        }
        let mut text =
            String::from("\nAlso fix these validator errors (they block the stop by themselves):");
        for error in errors {
            text.push_str(&format!("\n- {}", error.render()));
        }
        text
    }

    /// Appends an event to the pending batch and folds it into the snapshot.
    fn record(&mut self, event: Event) {
        self.snapshot.apply(EventRecord {
            ts: self.context.clock.now(),
            session: self.snapshot.session.clone(),
            event: event.clone(),
        });
        self.pending.push(event);
    }

    fn stage(&mut self, stage: Stage, outcome: &str, detail: &str) {
        self.record(Event::StopStage {
            stage,
            outcome: outcome.into(),
            detail: detail.into(),
        });
    }

    fn flush(&mut self) -> Result<(), ReviewError> {
        let events = std::mem::take(&mut self.pending);
        self.log.append_all(self.context.clock.now(), events)?;
        Ok(())
    }

    /// `maxStopPasses` blocks in a row, or nothing moved since a findings block.
    fn breaker(&self) -> Option<(AllowKind, String)> {
        let max = self.context.settings.max_stop_passes;
        if self.snapshot.blocks_since_allow >= max {
            return Some((
                AllowKind::Breaker,
                format!(
                    "car: {} stops in a row were blocked (maxStopPasses {max}); letting the agent stop with the review still open. `car review status` shows what is pending.",
                    self.snapshot.blocks_since_allow
                ),
            ));
        }
        let last = self.snapshot.last_block.as_ref()?;
        if last.kind == BlockKind::Findings
            && last.fingerprint == self.snapshot.fingerprint(self.threshold)
        {
            return Some((
                AllowKind::NoProgress,
                "car: nothing changed since the last blocked stop and the findings are the same; letting the agent stop. The open findings are listed by `car review status`.".into(),
            ));
        }
        None
    }

    /// Lets the agent stop without a review when it is waiting for the user.
    fn classify(&mut self, unreviewed: &Versions) -> Result<Option<Answer>, ReviewError> {
        let transcript_text = || {
            self.input
                .transcript_path
                .as_deref()
                .and_then(classifier::transcript_last_text)
        };
        let message = self.input.last_message.clone().or_else(transcript_text);
        let result = classifier::classify(
            self.context.settings,
            self.context.project.checkout(),
            message.as_deref(),
        );
        self.record(Event::ClassifierResult {
            verdict: result.verdict.as_str().into(),
            source: result.source.clone(),
            reason: result.reason.clone(),
        });
        if result.verdict != Verdict::Incomplete {
            return Ok(None);
        }
        self.record(Event::StopAllowed {
            kind: AllowKind::Incomplete,
        });
        self.flush()?;
        Ok(Some(Answer::allow().with_system_line(format!(
            "car: review postponed: the agent's last message {}; {} changed files stay pending.",
            result.reason,
            unreviewed.len()
        ))))
    }

    /// Reuses a pending manual request for exactly these versions, or produces a new review.
    fn produce(&mut self, unreviewed: &Versions) -> Result<Produced, ReviewError> {
        let manual = self.context.settings.reviewer_backend == ReviewerBackend::Manual;
        if manual
            && let Some(request) = self.snapshot.pending_request()
            && request.files == *unreviewed
        {
            let request = request.clone();
            self.stage(Stage::Reuse, "pending request", &request.id);
            return Ok(Produced::Requested(request));
        }
        self.stage(Stage::Reuse, "none", "");
        let request = self.request(unreviewed)?;
        if manual {
            self.stage(Stage::Review, "requested", &request.id);
            return Ok(Produced::Requested(request));
        }
        self.flush()?;
        Ok(self.run_reviewer(&request))
    }

    /// Writes the prompt and records the request.
    fn request(&mut self, unreviewed: &Versions) -> Result<Request, ReviewError> {
        let id = self.snapshot.next_review_id();
        let text = prompt::build(&PromptInput {
            project: self.context.project,
            settings: self.context.settings,
            snapshot: &self.snapshot,
            files: unreviewed,
        });
        let path = self
            .log
            .dir()
            .join("reviews")
            .join(format!("{id}.prompt.md"));
        crate::files::write_atomic(&path, text.as_bytes())?;
        let prompt_file = self
            .context
            .project
            .relative(&path)
            .unwrap_or_else(|| path.display().to_string());
        let backend = self.context.settings.reviewer_backend.name().to_string();
        self.record(Event::ReviewRequested {
            review: id.clone(),
            backend,
            files: unreviewed.clone(),
            prompt_file,
        });
        self.snapshot
            .pending_request()
            .cloned()
            .ok_or_else(|| ReviewError::Invalid("the review request was not recorded".into()))
    }

    /// Asks the reviewer CLI (one retry for a crash or an unusable answer, inside the timeout).
    fn run_reviewer(&mut self, request: &Request) -> Produced {
        let settings = self.context.settings;
        let timeout = Duration::from_secs(settings.reviewer_timeout_seconds);
        let now = Instant::now();
        let deadline = now.checked_add(timeout).unwrap_or(now);
        let prompt_text =
            std::fs::read_to_string(self.context.project.root().join(&request.prompt_file))
                .unwrap_or_default();
        let options = AskOptions {
            output_schema: Some(prompt::findings_schema()),
            files_prefix: Some(self.log.dir().join("reviews").join(&request.id)),
        };
        let mut last_error = (String::new(), String::new());
        for attempt in 1..=2 {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if attempt > 1 && remaining < Duration::from_secs(2) {
                break;
            }
            let answer = reviewer::ask_with(
                settings,
                self.context.project.checkout(),
                &prompt_text,
                remaining,
                &options,
            );
            match self.accept(request, answer) {
                Ok(()) => return Produced::Reviewed,
                Err((what, fix, retryable)) => {
                    last_error = (what, fix);
                    if !retryable {
                        break;
                    }
                }
            }
        }
        self.record(Event::ReviewFailed {
            review: request.id.clone(),
            error: last_error.0.clone(),
        });
        self.stage(Stage::Review, "failed", &last_error.0);
        Produced::Failed(last_error.0, last_error.1)
    }

    /// Parses a reviewer answer into a completed review; on failure (what, fix, retryable).
    fn accept(
        &mut self,
        request: &Request,
        answer: Result<String, BackendError>,
    ) -> Result<(), (String, String, bool)> {
        let settings = self.context.settings;
        let text = answer.map_err(|error| {
            (
                error.to_string(),
                error.hint(settings),
                error.is_retryable(),
            )
        })?;
        let answer_path = self
            .log
            .dir()
            .join("reviews")
            .join(format!("{}.answer.txt", request.id));
        let _ = crate::files::write_atomic(&answer_path, text.as_bytes());
        let review = Review::parse_text(&text)
            .map(|review| review.relative_to(self.context.project))
            .map_err(|error| {
                (
                    format!("the reviewer's answer is unusable: {error}"),
                    format!(
                        "the raw answer is in {}; check the reviewer and its model",
                        answer_path.display()
                    ),
                    true,
                )
            })?;
        self.stage(Stage::Review, "completed", &request.id);
        self.record(Event::ReviewCompleted {
            review: request.id.clone(),
            files: request.files.clone(),
            findings: review.findings,
            known_limits: review.known_limits,
            notes: review.notes,
        });
        Ok(())
    }

    /// Blocks on open P1/P2 findings or unresolved validator errors; allows otherwise.
    fn verdict(mut self) -> Result<Answer, ReviewError> {
        let outstanding = self.snapshot.outstanding(self.threshold);
        let errors = self.snapshot.unresolved_errors();
        if outstanding.is_empty() && errors.is_empty() {
            self.stage(Stage::Verdict, "pass", "");
            return self.allow_final(AllowKind::Reviewed, None);
        }
        let detail = format!("{} findings, {} errors", outstanding.len(), errors.len());
        self.stage(Stage::Verdict, "block", &detail);
        let reason = findings_reason(self.context.id, &outstanding, &errors);
        self.block(BlockKind::Findings, reason)
    }

    fn block(mut self, kind: BlockKind, reason: String) -> Result<Answer, ReviewError> {
        let fingerprint = self.snapshot.fingerprint(self.threshold);
        self.record(Event::StopBlocked { kind, fingerprint });
        self.flush()?;
        Ok(Answer::block(reason))
    }

    /// The stop that is finally allowed: shows the P3 offers and known limits not shown yet.
    fn allow_final(
        mut self,
        kind: AllowKind,
        message: Option<String>,
    ) -> Result<Answer, ReviewError> {
        let settings = self.context.settings;
        let offers = offers::unshown(&self.snapshot, settings);
        let limits: Vec<(String, String)> = self
            .snapshot
            .known_limits()
            .into_iter()
            .filter(|(what, _)| {
                !self
                    .snapshot
                    .shown_offers
                    .contains(&format!("limit|{what}"))
            })
            .collect();
        let mut keys: Vec<String> = offers.iter().map(|offer| offer.key.clone()).collect();
        keys.extend(limits.iter().map(|(what, _)| format!("limit|{what}")));
        self.record(Event::StopAllowed { kind });
        if !keys.is_empty() {
            self.record(Event::OffersShown { keys });
        }
        self.flush()?;
        let mut answer = Answer::allow();
        if let Some(message) = message {
            answer = answer.with_system_line(message);
        }
        if !offers.is_empty() {
            answer = answer.with_system_line(offers::render_capped(&offers));
        }
        if !limits.is_empty() {
            answer = answer.with_system_line(offers::render_known_limits(&limits));
        }
        Ok(answer)
    }
}

/// The manual review request: what to review and the exact command to record the findings.
/// `also` (validator errors to fix) comes before the request text, where it is seen.
fn request_reason(context: Session<'_>, request: &Request, also: &str) -> String {
    let session = context.id;
    let files: Vec<&str> = request.files.keys().map(String::as_str).collect();
    let mut reason = format!(
        "car: review {} required before stopping ({} changed files: {}).\n\
         Review the session's changes as the request below says, write the findings JSON to a \
         file, and record it:\n  car review submit --session {session} FILE\n\
         or pipe it: car review submit --session {session} -\n\
         The request is saved at {}.\n",
        request.id,
        files.len(),
        files.join(", "),
        request.prompt_file
    );
    if !also.is_empty() {
        reason.push_str(also.trim_start());
        reason.push('\n');
    }
    let prompt_text = std::fs::read_to_string(context.project.root().join(&request.prompt_file))
        .unwrap_or_default();
    if prompt_text.len() <= INLINE_PROMPT_LIMIT {
        reason.push('\n');
        reason.push_str(&prompt_text);
    } else {
        reason.push_str("Read that file: it is too large to show here.\n");
    }
    reason
}

fn failure_reason(what: &str, fix: &str, max_stop_passes: u32) -> String {
    format!(
        "car: the review could not run, so the stop stays blocked (a failed review never counts as clean).\n\
         What failed: {what}\nHow to fix it: {fix}\n\
         The gate lets the agent stop after {max_stop_passes} blocked stops in a row (maxStopPasses)."
    )
}

/// The fix request: blocking findings (never P3) and unresolved validator errors.
fn findings_reason(
    session: &str,
    outstanding: &[Outstanding],
    errors: &[crate::validate::Diagnostic],
) -> String {
    let mut reason = String::from(
        "car: the stop is blocked; fix these, then stop again (car re-reviews what you change):\n",
    );
    for item in outstanding {
        let finding = &item.finding;
        reason.push_str(&format!(
            "- [{}] {} {}: {}\n",
            finding.severity,
            finding.id,
            finding.location(),
            finding.title
        ));
        if !finding.wrong_output.is_empty() {
            reason.push_str(&format!("    wrong output: {}\n", finding.wrong_output));
        }
        if !finding.suggestion.is_empty() {
            reason.push_str(&format!("    fix: {}\n", finding.suggestion));
        }
    }
    if !errors.is_empty() {
        reason.push_str("Unresolved validator errors (they block whatever the review says):\n");
        for error in errors {
            reason.push_str(&format!("- {}\n", error.render()));
        }
    }
    if outstanding
        .iter()
        .any(|item| item.finding.severity != crate::review::findings::Severity::P1)
    {
        reason.push_str(&format!(
            "A P2 that is a deliberate limitation can be recorded instead of fixed: car review defer ID --reason \"…\" --session {session} (never a P1).\n"
        ));
    }
    reason.trim_end().to_string()
}
