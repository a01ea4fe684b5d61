//! The sessions as the report shows them: per session, what its log says happened, in order —
//! its edits (per file), the edits a checker blocked (a stop's re-check finding the same errors
//! again is not another), the writes stopped before they landed, the lesson warnings, each stop
//! attempt with the gate's stages and decision (identical stops in a row as one entry, counted), the review rounds with their findings, known limits,
//! challenges and escalations — and the P3 offers not shown yet. Sessions whose folder was
//! removed are read from the project's lifecycle log, with what it keeps (reviews and stops).
//!
//! Invariants: the logs are read with the session log's own reader and folded into the gate's
//! own snapshot (for the offers), never re-parsed here; one pass over each log, so the cost is
//! linear in events. Long logs are folded: the page keeps the newest [`TIMELINE_SHOWN`] entries
//! of a timeline and the newest [`DETAILS_SHOWN`] blocks and warnings, and says how many it left
//! out.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::clock::DAY;
use crate::diagnostic::Diagnostic;
use crate::lesson_warning::Warning;
use crate::project::Project;
use crate::report::sparkline::{Mark, Point};
use crate::review::gate::offers::{self, Offer};
use crate::review::gate::standing::Weights;
use crate::session::event::{AllowKind, BlockKind, Event, EventRecord, Stage};
use crate::session::log::{SessionRecords, lifecycle_records, session_records};
use crate::session::snapshot::Snapshot;
use crate::settings::Settings;

/// Timeline entries kept per session (the newest).
pub(crate) const TIMELINE_SHOWN: usize = 100;
/// Blocks and warnings listed per session (the newest); the counts cover all.
pub(crate) const DETAILS_SHOWN: usize = 20;

/// What the gate decided at the end of one stop attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    Blocked(BlockKind),
    Allowed(AllowKind),
    /// The log ends before a decision (the hook was killed, or is running).
    Unknown,
}

/// One step of a stop attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Stage {
        stage: Stage,
        outcome: String,
        detail: String,
    },
    /// The classifier's reading of the agent's last message.
    Classifier { verdict: String, reason: String },
}

/// One stop attempt: its steps in order and the decision; stops in a row that went exactly the
/// same way are one entry, with how many and when the last was.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stop {
    pub(crate) at: i64,
    pub(crate) steps: Vec<Step>,
    pub(crate) decision: Decision,
    /// How many stops in a row this entry stands for (1: itself).
    pub(crate) repeats: usize,
    /// When the last of them was.
    pub(crate) last_at: i64,
}

impl Stop {
    /// Whether `other` went exactly the same way (same steps, same decision).
    fn is_same_as(&self, other: &Stop) -> bool {
        self.decision == other.decision && self.steps == other.steps
    }
}

/// One line of a session's timeline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Entry {
    Stop(Stop),
    /// A review, deferral, challenge, escalation, cancel or the session's end, as logged.
    Event {
        at: i64,
        event: Event,
    },
}

/// A checker error that blocked an edit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    pub(crate) at: i64,
    pub(crate) error: Diagnostic,
}

/// A write the PreToolUse hook stopped before it landed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoppedWrite {
    pub(crate) at: i64,
    pub(crate) file: String,
    pub(crate) errors: Vec<Diagnostic>,
    pub(crate) lessons: Vec<Warning>,
}

/// One session, as the page shows it.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionReport {
    pub(crate) id: String,
    pub(crate) first_ts: i64,
    pub(crate) last_ts: i64,
    pub(crate) ended: bool,
    /// Its folder is gone: only the lifecycle log's events are known.
    pub(crate) archived: bool,
    /// File → edits of it.
    pub(crate) edits: BTreeMap<String, usize>,
    pub(crate) edit_count: usize,
    pub(crate) blocks: Vec<Block>,
    /// Edits a checker blocked after they landed; a stop's re-check that finds the same errors
    /// in the same file again is no new blocked edit.
    pub(crate) block_count: usize,
    pub(crate) stopped_writes: Vec<StoppedWrite>,
    /// Writes the PreToolUse hook stopped before they landed.
    pub(crate) stopped_count: usize,
    pub(crate) warnings: Vec<(i64, Warning)>,
    pub(crate) warning_count: usize,
    pub(crate) timeline: Vec<Entry>,
    /// Timeline entries left out (the oldest).
    pub(crate) timeline_left_out: usize,
    pub(crate) stops_blocked: usize,
    pub(crate) stops_allowed: usize,
    pub(crate) reviews: usize,
    pub(crate) escalations: usize,
    /// P3 offers not shown to the person yet.
    pub(crate) offers: Vec<Offer>,
    pub(crate) unreadable_lines: usize,
}

/// What folding every session reads once: the lessons' live weights (for the offers still
/// standing).
struct Reading<'a> {
    project: &'a Project,
    weights: Weights,
}

/// Every session, newest activity first, and each lesson's warnings over time (lesson id →
/// points, oldest first) for the library's sparklines.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    pub(crate) sessions: Vec<SessionReport>,
    pub(crate) history: HashMap<String, Vec<Point>>,
    /// Warnings shown in the week before the report.
    pub(crate) warnings_this_week: usize,
    /// What could not be read of the lifecycle log (ended sessions' records), for the page.
    pub(crate) lifecycle_problem: Option<String>,
}

impl Sessions {
    /// Reads every session log of the project and the lifecycle log.
    pub(crate) fn read(project: &Project, settings: &Settings, now: i64) -> Sessions {
        let mut all = Sessions::default();
        let mut reading = Reading {
            project,
            weights: Weights::default(),
        };
        let mut known = HashSet::new();
        for log in session_records(project) {
            known.insert(log.session.clone());
            let session = all.fold(&mut reading, log, settings, now, false);
            all.sessions.push(session);
        }
        let (records, skipped) = match lifecycle_records(project) {
            Ok(read) => read,
            Err(error) => {
                all.lifecycle_problem = Some(format!(
                    "the log of ended sessions could not be read ({error}); sessions that ended \
                     and were cleaned up are missing below"
                ));
                (Vec::new(), 0)
            }
        };
        if skipped > 0 {
            all.lifecycle_problem = Some(format!(
                "{} of the log of ended sessions ({}) could not be read and were skipped (a hook \
                 killed mid-write, or the file was damaged)",
                crate::text::plural(skipped, "line"),
                project.state_log().display()
            ));
        }
        let mut archived: BTreeMap<String, Vec<EventRecord>> = BTreeMap::new();
        for record in records {
            if !known.contains(&record.session) {
                archived
                    .entry(record.session.clone())
                    .or_default()
                    .push(record);
            }
        }
        for (session, records) in archived {
            let log = SessionRecords {
                session,
                records,
                skipped: 0,
            };
            let session = all.fold(&mut reading, log, settings, now, true);
            all.sessions.push(session);
        }
        all.sessions
            .sort_by(|a, b| (b.last_ts, &b.id).cmp(&(a.last_ts, &a.id)));
        all
    }

    fn fold(
        &mut self,
        reading: &mut Reading<'_>,
        log: SessionRecords,
        settings: &Settings,
        now: i64,
        archived: bool,
    ) -> SessionReport {
        let mut report = SessionReport {
            id: log.session.clone(),
            first_ts: log.records.first().map_or(0, |record| record.ts),
            archived,
            unreadable_lines: log.skipped,
            ..SessionReport::default()
        };
        let mut snapshot = Snapshot::from_records(&log.session, Vec::new(), log.skipped);
        let mut open_stop = None;
        for record in log.records {
            if is_recheck(&snapshot, &record.event) {
                // The stop validated the file again and found what the edit's check found.
                snapshot.apply(record);
                continue;
            }
            self.observe(&mut report, &mut open_stop, &record, now);
            snapshot.apply(record);
        }
        close_stop(&mut report, &mut open_stop);
        report.last_ts = snapshot.last_ts;
        report.ended = snapshot.ended;
        if !archived && !snapshot.ended {
            let standing = crate::review::gate::standing::warnings_with(
                reading.project,
                &snapshot.warnings,
                &mut reading.weights,
            );
            report.offers = offers::unshown(&snapshot, &standing, settings);
        }
        trim(&mut report);
        report
    }

    fn observe(
        &mut self,
        report: &mut SessionReport,
        open_stop: &mut Option<(usize, Stop)>,
        record: &EventRecord,
        now: i64,
    ) {
        let at = record.ts;
        match &record.event {
            Event::EditTracked { file, .. } => {
                report.edit_count += 1;
                *report.edits.entry(file.clone()).or_default() += 1;
            }
            Event::Validated { errors, .. } => {
                let blocking: Vec<&Diagnostic> = errors.iter().filter(|e| e.is_error()).collect();
                if !blocking.is_empty() {
                    report.block_count += 1;
                    for error in blocking {
                        report.blocks.push(Block {
                            at,
                            error: error.clone(),
                        });
                    }
                    keep_newest(&mut report.blocks);
                }
            }
            Event::WriteStopped {
                file,
                errors,
                lessons,
            } => {
                report.stopped_count += 1;
                report.stopped_writes.push(StoppedWrite {
                    at,
                    file: file.clone(),
                    errors: errors.clone(),
                    lessons: lessons.clone(),
                });
                keep_newest(&mut report.stopped_writes);
            }
            Event::LessonWarned { warnings, .. } => {
                for warning in warnings {
                    report.warning_count += 1;
                    if at >= now - 7 * DAY {
                        self.warnings_this_week += 1;
                    }
                    self.history
                        .entry(warning.lesson_id.clone())
                        .or_default()
                        .push(Point {
                            at,
                            weight: warning.weight,
                            mark: Mark::Warned,
                        });
                    report.warnings.push((at, warning.clone()));
                }
                keep_newest(&mut report.warnings);
            }
            Event::StopStage {
                stage,
                outcome,
                detail,
            } => stop_of(report, open_stop, at).steps.push(Step::Stage {
                stage: *stage,
                outcome: outcome.clone(),
                detail: detail.clone(),
            }),
            Event::ClassifierResult {
                verdict, reason, ..
            } => stop_of(report, open_stop, at).steps.push(Step::Classifier {
                verdict: verdict.clone(),
                reason: reason.clone(),
            }),
            Event::StopBlocked { kind, .. } => {
                report.stops_blocked += 1;
                stop_of(report, open_stop, at).decision = Decision::Blocked(*kind);
                close_stop(report, open_stop);
            }
            Event::StopAllowed { kind } => {
                report.stops_allowed += 1;
                stop_of(report, open_stop, at).decision = Decision::Allowed(*kind);
                close_stop(report, open_stop);
            }
            event @ (Event::ReviewRequested { .. }
            | Event::ReviewCompleted { .. }
            | Event::ReviewFailed { .. }
            | Event::FindingDeferred { .. }
            | Event::FindingChallenged { .. }
            | Event::FindingEscalated { .. }
            | Event::ReviewCancelled { .. }
            | Event::NotBlocked { .. }
            | Event::SessionEnded { .. }) => {
                match event {
                    Event::ReviewCompleted { .. } => report.reviews += 1,
                    Event::FindingEscalated { .. } => report.escalations += 1,
                    _ => {}
                }
                report.timeline.push(Entry::Event {
                    at,
                    event: event.clone(),
                });
            }
            Event::FileDeleted { .. }
            | Event::BaselineCaptured { .. }
            | Event::WorktreeBaseline { .. }
            | Event::Reconciled { .. }
            | Event::OffersShown { .. }
            | Event::SessionRemoved { .. } => {}
        }
    }
}

/// Whether `event` is a re-check of a file whose errors its last validation found already, with
/// no edit of it since (the stop validates files with errors again, in case another file fixed
/// them): the same blocked edit, not a new one.
fn is_recheck(snapshot: &Snapshot, event: &Event) -> bool {
    let Event::Validated { file, errors } = event else {
        return false;
    };
    !errors.is_empty()
        && snapshot.validated.get(file) == Some(errors)
        && snapshot.validated_versions.get(file) == snapshot.files.get(file)
}

/// The stop attempt being logged (with where it goes in the timeline), opened at `at` when none
/// is.
fn stop_of<'a>(
    report: &SessionReport,
    open: &'a mut Option<(usize, Stop)>,
    at: i64,
) -> &'a mut Stop {
    let (_, stop) = open.get_or_insert_with(|| {
        (
            report.timeline.len(),
            Stop {
                at,
                steps: Vec::new(),
                decision: Decision::Unknown,
                repeats: 1,
                last_at: at,
            },
        )
    });
    stop
}

/// Puts the stop attempt into the timeline where it began (before the reviews it ran), or counts
/// it into the entry just before when that stop went exactly the same way.
fn close_stop(report: &mut SessionReport, open: &mut Option<(usize, Stop)>) {
    let Some((index, stop)) = open.take() else {
        return;
    };
    if let Some(Entry::Stop(previous)) = index
        .checked_sub(1)
        .and_then(|before| report.timeline.get_mut(before))
        && previous.is_same_as(&stop)
    {
        previous.repeats += 1;
        previous.last_at = stop.at;
        return;
    }
    report.timeline.insert(index, Entry::Stop(stop));
}

/// Drops the oldest of a list once it holds twice what is shown (amortised: linear overall).
fn keep_newest<T>(list: &mut Vec<T>) {
    if list.len() >= 2 * DETAILS_SHOWN {
        list.drain(..list.len() - DETAILS_SHOWN);
    }
}

fn trim(report: &mut SessionReport) {
    let blocks = report.blocks.len().saturating_sub(DETAILS_SHOWN);
    report.blocks.drain(..blocks);
    let stopped = report.stopped_writes.len().saturating_sub(DETAILS_SHOWN);
    report.stopped_writes.drain(..stopped);
    let warnings = report.warnings.len().saturating_sub(DETAILS_SHOWN);
    report.warnings.drain(..warnings);
    report.timeline_left_out = report.timeline.len().saturating_sub(TIMELINE_SHOWN);
    report.timeline.drain(..report.timeline_left_out);
}
