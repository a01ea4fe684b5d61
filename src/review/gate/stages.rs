//! The Stop / SubagentStop hook: the review gate. Stages, in order, each leaving an event:
//! enabled? → unreviewed changes? (the session brought up to date with the disk: see
//! [`crate::session::change_set`]) → `[KNOWN LIMIT]` lines of the agent's last message → breaker
//! (`maxStopPasses` blocks in a row, or no progress since the last block) → classifier (is the
//! agent waiting for the user?) → reuse a pending review of exactly these versions → produce the
//! review → convergence guards (stuck and challenged findings go to a human) → verdict.
//!
//! Invariants: the verdict comes from the findings alone; P3 never appear in a fix request;
//! unresolved validator errors block by themselves; a reviewer CLI that is not installed lets
//! the agent stop with the changes pending and named ([`reviewer_missing`]: the agent cannot fix
//! that); one that times out or answers nothing usable blocks with what failed (until the
//! breaker); `stop_hook_active` never
//! ends the loop — the guards and the breaker do; a finding handed to a human never blocks again
//! in the session. SubagentStop is not gated: a subagent's edits are recorded in the parent
//! session's log and reviewed when the main agent stops. Any internal error fails open.

pub(crate) mod early;
mod reviewer_missing;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::answer::Answer;
use crate::review::answer::{self, Question, Unanswered};
use crate::review::blocking::Blocking;
use crate::review::findings::Review;
use crate::review::gate::classifier::{self, Verdict};
use crate::review::gate::prompt::{self, PromptInput};
use crate::review::gate::reasons::{self, FixRequest};
use crate::review::gate::stop_lock;
use crate::review::gate::{ReviewError, guards, known_limits, offers};
use crate::reviewer;
use crate::session::Session;
use crate::session::change_set::{self, Revalidate};
use crate::session::event::{AllowKind, BlockKind, Event, EventRecord, Stage, Versions};
use crate::session::log::EventLog;
use crate::session::rounds::Escalation;
use crate::session::snapshot::{Request, Snapshot};
use crate::settings::BlockingThreshold;
use crate::settings::ReviewerBackend;
use crate::state::names;

/// What the agent's stop says beyond its session.
pub(crate) struct StopInput<'a> {
    /// A subagent stopped (its edits are reviewed when the main agent stops).
    pub(crate) is_subagent: bool,
    /// The agent's last message, when the payload carries it.
    pub(crate) last_message: Option<String>,
    /// The last message as the agent's transcript holds it, read only when the payload does not
    /// carry it (the agent's own format, read by the hook).
    pub(crate) transcript_text: &'a dyn Fn() -> Option<String>,
    /// Validates a file as it is on disk now (the pipeline's validators).
    pub(crate) validate: &'a dyn Revalidate,
}

pub(crate) fn handle_stop(session: Session<'_>, input: &StopInput<'_>) -> Answer {
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
    stop_lock::one_at_a_time(&log.dir(), wait, || {
        match Gate::open(session, input, log).and_then(Gate::run) {
            Ok(answer) => answer,
            Err(error) => {
                crate::state::log_hook_error(
                    &session.project.state_dir(),
                    &format!("stop gate: {error}"),
                );
                Answer::fail_open(format!("the review gate failed ({error}); stop allowed"))
            }
        }
    })
}

/// Why a review could not run.
struct Failure {
    what: String,
    /// What the agent may do about it.
    fix: String,
    /// What the person may do about it (choosing another reviewer is theirs).
    person: String,
}

/// What producing the review led to.
enum Produced {
    /// Manual backend: the agent must review and submit.
    Requested(Request),
    /// The reviewer could not deliver.
    Failed(Failure),
    /// The reviewer CLI is not installed: the agent cannot fix that, so the stop is let go with
    /// the changes pending and the request saved for a review by hand.
    Missing { request: Request, program: String },
    /// Findings are recorded; go to the verdict.
    Reviewed,
}

/// A request the reviewer CLI will not answer: the agent's (manual), or nobody's until a person
/// installs the missing CLI.
fn by_hand(request: Request, missing: Option<String>) -> Produced {
    match missing {
        Some(program) => Produced::Missing { request, program },
        None => Produced::Requested(request),
    }
}

struct Gate<'a> {
    context: Session<'a>,
    input: &'a StopInput<'a>,
    log: EventLog,
    snapshot: Snapshot,
    /// `git status` at this stop, until the refresh consumes it.
    dirty: Option<Versions>,
    /// What the person is told about a session log car could not fully read.
    log_notice: Option<String>,
    pending: Vec<Event>,
    threshold: BlockingThreshold,
    /// The agent's last message (payload, else transcript), read once.
    message: Option<String>,
    /// `[KNOWN LIMIT]` lines that deferred nothing, with why.
    refused: Vec<String>,
    /// Findings `[KNOWN LIMIT]` lines deferred at this stop.
    deferred: Vec<String>,
    /// Findings handed to a person at this stop.
    handed: Vec<Escalation>,
}

impl<'a> Gate<'a> {
    /// Reads the snapshot while `git status` runs beside it (the two costs overlap).
    fn open(
        context: Session<'a>,
        input: &'a StopInput<'a>,
        log: EventLog,
    ) -> Result<Gate<'a>, ReviewError> {
        let (snapshot, dirty) = std::thread::scope(|scope| {
            let git = scope.spawn(|| {
                crate::session::reconcile::dirty_versions(context.project, context.settings)
            });
            let snapshot = crate::session::checkpoint::load(&log);
            (snapshot, git.join().ok().flatten())
        });
        let (snapshot, log_notice) =
            crate::session::unreadable::opened(context, &log, snapshot, dirty.is_some())?;
        Ok(Gate {
            context,
            input,
            log,
            snapshot,
            log_notice,
            dirty,
            pending: Vec::new(),
            threshold: context.settings.minimum_blocking_severity,
            message: input
                .last_message
                .clone()
                .or_else(|| (input.transcript_text)()),
            refused: Vec::new(),
            deferred: Vec::new(),
            handed: Vec::new(),
        })
    }

    /// Decides the stop; a log car could not fully read is named in the answer, whatever it is.
    fn run(mut self) -> Result<Answer, ReviewError> {
        // An older note for the agent is about an earlier stop; this one says what stands now
        // (a stop let through with the reviewer still missing leaves it again).
        crate::session::agent_note::take(self.context);
        let notice = self.log_notice.take();
        let answer = self.decide()?;
        Ok(notice.into_iter().fold(answer, Answer::with_system_line))
    }

    fn decide(mut self) -> Result<Answer, ReviewError> {
        self.stage(Stage::Enabled, "yes", "");
        let Some(scope) = self.pending_changes() else {
            return self.allow_final(AllowKind::Clean, None);
        };
        self.known_limits();
        let no_progress_applies = self.refused.is_empty();
        if let Some((kind, message)) =
            guards::breaker(&self.snapshot, self.context.settings, no_progress_applies)
        {
            self.stage(Stage::Breaker, kind.as_str(), "");
            return self.allow_final(kind, Some(message));
        }
        self.stage(Stage::Breaker, "closed", "");
        if let Some(answer) = self.classify(&scope)? {
            return Ok(answer);
        }
        let produced = if scope.is_empty() {
            self.stage(Stage::Review, "not needed", "every change was reviewed");
            Produced::Reviewed
        } else {
            self.produce(&scope)?
        };
        match produced {
            Produced::Requested(request) => {
                let also = reasons::errors_to_fix(&self.snapshot.unresolved_errors());
                let reason = reasons::request(self.context, &request, &also);
                self.block(BlockKind::ReviewRequest, reason, None)
            }
            Produced::Failed(failure) => {
                let max = self.context.settings.max_stop_passes;
                let reason = reasons::failure(&failure.what, &failure.fix, max)
                    + &reasons::errors_to_fix(&self.snapshot.unresolved_errors());
                let person = format!(
                    "car: the reviewer could not run ({}); {}",
                    failure.what, failure.person
                );
                self.block(BlockKind::ReviewerFailed, reason, Some(person))
            }
            Produced::Missing { request, program } => self.allow_unreviewed(&request, &program),
            Produced::Reviewed => {
                self.guards();
                self.verdict()
            }
        }
    }

    /// Brings the session up to date with the disk, then what the next review covers — `None`
    /// when nothing at all is pending (nothing to review, no open finding, no validator error).
    fn pending_changes(&mut self) -> Option<Versions> {
        self.refresh();
        let scope = self.snapshot.review_scope();
        let outstanding = self.snapshot.outstanding(self.threshold).len();
        let errors = self.snapshot.unresolved_errors().len();
        if scope.is_empty() && outstanding == 0 && errors == 0 {
            self.stage(Stage::Changes, "none", "");
            return None;
        }
        let detail = format!(
            "{} files to review, {outstanding} open findings, {errors} validator errors",
            scope.len()
        );
        self.stage(Stage::Changes, "pending", &detail);
        Some(scope)
    }

    /// Brings the snapshot up to date with the disk ([`change_set::refresh`]); its events join the
    /// pending batch.
    fn refresh(&mut self) {
        let events = change_set::refresh(
            self.context,
            &mut self.snapshot,
            self.dirty.take(),
            self.input.validate,
        );
        self.pending.extend(events);
    }

    /// The pending request for exactly `scope`, unless a challenge waits for a new prompt.
    fn reusable_request(&self, scope: &Versions) -> Option<Request> {
        let challenge_waits = self.snapshot.rounds.unsent_challenges().next().is_some();
        self.snapshot
            .pending_request()
            .filter(|request| !challenge_waits && request.files == *scope)
            .cloned()
    }

    /// `[KNOWN LIMIT]` lines of the agent's last message: a P2 is deferred, a P1 refused.
    fn known_limits(&mut self) {
        let Some(message) = self.message.clone() else {
            return;
        };
        let decided = known_limits::decide(&self.snapshot, self.threshold, &message);
        if decided.deferrals.is_empty() && decided.refused.is_empty() {
            return;
        }
        let detail = format!(
            "{} deferred, {} refused",
            decided.deferrals.len(),
            decided.refused.len()
        );
        for event in decided.deferrals {
            if let Event::FindingDeferred {
                finding,
                file,
                title,
                ..
            } = &event
            {
                self.deferred.push(format!("{finding} {file}: {title}"));
            }
            self.record(event);
        }
        self.refused = decided.refused;
        self.stage(Stage::KnownLimits, "declared", &detail);
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

    /// Lets the agent stop without a review when it is waiting for the user.
    fn classify(&mut self, scope: &Versions) -> Result<Option<Answer>, ReviewError> {
        let result = classifier::classify(
            self.context.settings,
            self.context.project.checkout(),
            self.message.as_deref(),
        );
        self.record(Event::ClassifierResult {
            verdict: result.verdict.as_str().into(),
            source: result.source.as_str().into(),
            reason: result.reason.clone(),
            message: self
                .message
                .as_deref()
                .map(known_limits::what_it_did)
                .unwrap_or_default(),
        });
        if result.verdict != Verdict::Incomplete {
            return Ok(None);
        }
        self.record(Event::StopAllowed {
            kind: AllowKind::Incomplete,
        });
        self.flush()?;
        let files: Vec<&str> = scope.keys().map(String::as_str).collect();
        let pending = if files.is_empty() {
            "the open findings stay pending".to_string()
        } else {
            format!("these changes stay pending: {}", files.join(", "))
        };
        Ok(Some(Answer::allow().with_system_line(format!(
            "car: review postponed: {}; {pending}.",
            result.why_postponed()
        ))))
    }

    /// Reuses a pending manual request for exactly these versions (unless a challenge waits for
    /// a prompt), or produces a new review.
    fn produce(&mut self, scope: &Versions) -> Result<Produced, ReviewError> {
        let settings = self.context.settings;
        let manual = settings.reviewer_backend == ReviewerBackend::Manual;
        // Validator errors the agent can fix keep the stop blocked (with what failed), so a
        // missing reviewer lets the agent go only when nothing else is left for it to do.
        let missing = reviewer::missing_program(
            settings,
            &settings.reviewer_backend,
            self.context.project.checkout(),
        )
        .filter(|_| self.snapshot.unresolved_errors().is_empty());
        if (manual || missing.is_some())
            && let Some(request) = self.reusable_request(scope)
        {
            self.stage(Stage::Reuse, "pending request", &request.id);
            return Ok(by_hand(request, missing));
        }
        self.stage(Stage::Reuse, "none", "");
        let request = self.request(scope)?;
        if manual || missing.is_some() {
            let outcome = match missing {
                Some(_) => "reviewer missing",
                None => "requested",
            };
            self.stage(Stage::Review, outcome, &request.id);
            return Ok(by_hand(request, missing));
        }
        self.flush()?;
        Ok(self.run_reviewer(&request))
    }

    /// Writes the prompt and records the request.
    fn request(&mut self, scope: &Versions) -> Result<Request, ReviewError> {
        let id = self.snapshot.next_review_id();
        let text = prompt::build(&PromptInput {
            project: self.context.project,
            settings: self.context.settings,
            snapshot: &self.snapshot,
            files: scope,
        });
        let path = self
            .log
            .dir()
            .join(names::REVIEWS_DIR)
            .join(format!("{id}{}", names::PROMPT_SUFFIX));
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
            files: scope.clone(),
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
        let prompt_text = prompt::request_text(self.context.project, request)
            .ok()
            .flatten()
            .unwrap_or_default();
        let files_prefix = self.log.dir().join(names::REVIEWS_DIR).join(&request.id);
        let answer_file = self.log.dir().join(names::REVIEWS_DIR).join(format!(
            "{}{}",
            request.id,
            names::ANSWER_SUFFIX
        ));
        let mut last_error = Failure {
            what: String::new(),
            fix: String::new(),
            person: String::new(),
        };
        for attempt in 1..=2 {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if attempt > 1 && remaining < Duration::from_secs(2) {
                break;
            }
            let answer = answer::ask(&Question {
                settings,
                project: self.context.project,
                prompt: &prompt_text,
                timeout: remaining,
                files_prefix: files_prefix.clone(),
                answer_file: &answer_file,
            });
            match self.accept(request, answer, &answer_file) {
                Ok(()) => return Produced::Reviewed,
                Err((failure, retryable)) => {
                    last_error = failure;
                    if !retryable {
                        break;
                    }
                }
            }
        }
        self.record(Event::ReviewFailed {
            review: request.id.clone(),
            error: last_error.what.clone(),
        });
        self.stage(Stage::Review, "failed", &last_error.what);
        Produced::Failed(last_error)
    }

    /// Records a reviewer's answer as a completed review; on failure what failed and whether
    /// another attempt could help.
    fn accept(
        &mut self,
        request: &Request,
        answer: Result<Review, Unanswered>,
        answer_file: &Path,
    ) -> Result<(), (Failure, bool)> {
        let settings = self.context.settings;
        let review = answer.map_err(|unanswered| match unanswered {
            Unanswered::Backend(error) => {
                let failure = Failure {
                    what: error.to_string(),
                    fix: error.hint(settings),
                    person: error.person_hint(settings),
                };
                (failure, error.is_retryable())
            }
            Unanswered::Unusable(error) => {
                let fix = format!(
                    "the raw answer is in {}; check the reviewer and its model",
                    answer_file.display()
                );
                let failure = Failure {
                    what: format!("the reviewer's answer is unusable: {error}"),
                    person: format!("{fix}, or choose another reviewer (car config --backend …)"),
                    fix,
                };
                (failure, true)
            }
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

    /// The convergence guards: stuck and challenged findings go to a human.
    fn guards(&mut self) {
        let events = guards::escalations(&self.snapshot, self.context.settings);
        if events.is_empty() {
            return;
        }
        let detail = format!("{} handed to a person", events.len());
        for event in events {
            self.handed.extend(Escalation::of(&event));
            self.record(event);
        }
        self.stage(Stage::Guards, "escalated", &detail);
    }

    /// Blocks on open P1/P2 findings or unresolved validator errors; allows otherwise.
    fn verdict(mut self) -> Result<Answer, ReviewError> {
        let outstanding = self.snapshot.outstanding(self.threshold);
        let errors = self.snapshot.unresolved_errors();
        if outstanding.is_empty() && errors.is_empty() {
            self.stage(Stage::Verdict, "pass", "");
            let kind = if self.handed.is_empty() {
                AllowKind::Reviewed
            } else {
                AllowKind::Escalated
            };
            return self.allow_final(kind, None);
        }
        let detail = format!(
            "{}, {}",
            crate::text::plural(outstanding.len(), "finding"),
            crate::text::plural(errors.len(), "error")
        );
        self.stage(Stage::Verdict, "block", &detail);
        let reason = reasons::fix_request(&FixRequest {
            session: self.context.id,
            outstanding: &outstanding,
            errors: &errors,
            round: self
                .snapshot
                .fix_round(&self.snapshot.fingerprint(self.threshold)),
            refused: &self.refused,
            deferred: &self.deferred,
            handed: &self.handed,
        });
        self.block(BlockKind::Findings, reason, None)
    }

    fn block(
        mut self,
        kind: BlockKind,
        reason: String,
        person: Option<String>,
    ) -> Result<Answer, ReviewError> {
        let fingerprint = self.snapshot.fingerprint(self.threshold);
        self.record(Event::StopBlocked { kind, fingerprint });
        let handed = self.unshown_escalations();
        self.flush()?;
        let mut answer = Answer::block(reason);
        if let Some(person) = person {
            answer = answer.with_system_line(person);
        }
        if let Some(handed) = handed {
            answer = answer.with_system_line(handed);
        }
        Ok(answer)
    }

    /// The findings handed to a person not shown to them yet, marked as shown.
    fn unshown_escalations(&mut self) -> Option<String> {
        let unshown: Vec<Escalation> = self
            .snapshot
            .escalations()
            .iter()
            .filter(|escalation| {
                let key = format!("escalated|{}", escalation.finding.key());
                !self.snapshot.shown_offers.contains(&key)
            })
            .cloned()
            .collect();
        if unshown.is_empty() {
            return None;
        }
        let keys = unshown
            .iter()
            .map(|escalation| format!("escalated|{}", escalation.finding.key()))
            .collect();
        self.record(Event::OffersShown { keys });
        Some(reasons::handed_to_person(
            &unshown.iter().collect::<Vec<_>>(),
        ))
    }

    /// The stop that is finally allowed: shows the findings handed to the person, the P3 offers
    /// and the known limits not shown yet.
    fn allow_final(
        mut self,
        kind: AllowKind,
        message: Option<String>,
    ) -> Result<Answer, ReviewError> {
        let settings = self.context.settings;
        let handed = self.unshown_escalations();
        let standing =
            crate::review::gate::standing::warnings(self.context.project, &self.snapshot.warnings);
        let offers = offers::unshown(&self.snapshot, &standing, settings);
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
        for line in [message, handed].into_iter().flatten() {
            answer = answer.with_system_line(line);
        }
        if !offers.is_empty() {
            answer = answer.with_system_line(offers::render_capped(&offers));
        }
        if !limits.is_empty() {
            answer = answer.with_system_line(offers::render_known_limits_capped(&limits));
        }
        Ok(answer)
    }
}
