//! `car review status | offers | submit | defer`: the gate's state for people, and the two ways an
//! agent talks back to the gate (an in-session review's findings; a P2 recorded as a known limit).
//!
//! Invariants: a P1 can never be deferred — neither by `defer` nor by a submitted `known_limits`
//! entry (both exit 2); a submission completes the session's pending request and covers exactly
//! the versions that request named.

use std::io::Read;
use std::path::Path;

use serde_json::{Value, json};

use crate::cli::ReviewCommand;
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::review::ReviewError;
use crate::review::event::Event;
use crate::review::findings::{self, RawFindings, Review, Severity, check_deferrable};
use crate::review::log::EventLog;
use crate::review::offers;
use crate::review::snapshot::Snapshot;
use crate::settings::Settings;

pub(crate) fn run(project: &Project, command: ReviewCommand) -> Result<Outcome, Error> {
    match command {
        ReviewCommand::Status { json } => status(project, json),
        ReviewCommand::Offers { json, session } => show_offers(project, session.as_deref(), json),
        ReviewCommand::Submit { session, file } => {
            submit(project, session.as_deref(), file.as_deref())
        }
        ReviewCommand::Defer {
            finding_id,
            reason,
            session,
        } => defer(project, &finding_id, &reason, session.as_deref()),
    }
}

/// Every session of the project with its snapshot, most recently active last.
fn find_session(project: &Project, session: Option<&str>) -> Result<Snapshot, Error> {
    let all = crate::review::log::sessions(project);
    match session {
        Some(id) => all
            .into_iter()
            .find(|snapshot| snapshot.session == id)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no session {id:?} in {}",
                    project.clients_dir().display()
                ))
            }),
        None => all.into_iter().last().ok_or_else(|| {
            Error::Usage("no session has recorded anything in this project yet".into())
        }),
    }
}

fn load_settings(project: &Project) -> Settings {
    Settings::load(project).unwrap_or_default()
}

fn status(project: &Project, as_json: bool) -> Result<Outcome, Error> {
    let settings = load_settings(project);
    let threshold = settings.minimum_blocking_severity;
    let rows: Vec<Value> = crate::review::log::sessions(project)
        .iter()
        .map(|snapshot| {
            json!({
                "session": snapshot.session,
                "last_event": Clock::fixed(snapshot.last_ts).rfc3339(),
                "ended": snapshot.ended,
                "changed_files": snapshot.session_changes().len(),
                "unreviewed": snapshot.unreviewed().keys().collect::<Vec<_>>(),
                "pending_review": snapshot.pending_request().map(|request| request.id.clone()),
                "open_findings": snapshot.outstanding(threshold).iter()
                    .map(|item| format!("[{}] {} {}: {}", item.finding.severity, item.finding.id, item.finding.location(), item.finding.title))
                    .collect::<Vec<_>>(),
                "validator_errors": snapshot.unresolved_errors().iter().map(|error| error.render()).collect::<Vec<_>>(),
                "blocked_stops_in_a_row": snapshot.blocks_since_allow,
                "reviews": snapshot.reviews.len(),
                "unreadable_lines": snapshot.skipped_lines,
            })
        })
        .collect();
    if as_json {
        output::print_json(&json!({"backend": settings.reviewer_backend.name(), "sessions": rows}));
        return Ok(Outcome::Success);
    }
    if rows.is_empty() {
        output::print_data("no session has recorded an edit in this project");
        return Ok(Outcome::Success);
    }
    for row in rows {
        output::print_data(&render_status_row(&row));
    }
    Ok(Outcome::Success)
}

fn render_status_row(row: &Value) -> String {
    let list = |key: &str| {
        row[key]
            .as_array()
            .map(|items| items.iter().filter_map(Value::as_str).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let mut text = format!(
        "session {} (last event {}{})\n  changed files: {}, unreviewed: {}, reviews: {}, blocked stops in a row: {}",
        row["session"].as_str().unwrap_or_default(),
        row["last_event"].as_str().unwrap_or_default(),
        if row["ended"] == json!(true) {
            ", ended"
        } else {
            ""
        },
        row["changed_files"],
        list("unreviewed").len(),
        row["reviews"],
        row["blocked_stops_in_a_row"],
    );
    if let Some(pending) = row["pending_review"].as_str() {
        text.push_str(&format!(
            "\n  pending review: {pending} (car review submit --session {} FILE)",
            row["session"].as_str().unwrap_or_default()
        ));
    }
    for line in list("open_findings")
        .into_iter()
        .chain(list("validator_errors"))
    {
        text.push_str(&format!("\n  open: {line}"));
    }
    if let Some(lines) = row["unreadable_lines"].as_u64().filter(|lines| *lines > 0) {
        text.push_str(&format!(
            "\n  {lines} unreadable log lines skipped (a hook killed mid-write)"
        ));
    }
    text
}

fn show_offers(project: &Project, session: Option<&str>, as_json: bool) -> Result<Outcome, Error> {
    let settings = load_settings(project);
    if session.is_none() && crate::review::log::sessions(project).is_empty() {
        // Nothing recorded yet is an empty list, not an error.
        if as_json {
            output::print_json(&json!({"session": null, "offers": [], "known_limits": []}));
        } else {
            output::print_data(
                "no P3 offers: no session has recorded anything in this project yet",
            );
        }
        return Ok(Outcome::Success);
    }
    let snapshot = find_session(project, session)?;
    let offers = offers::collect(&snapshot, &settings);
    let limits = snapshot.known_limits();
    if as_json {
        let limits: Vec<Value> = limits
            .iter()
            .map(|(what, reason)| json!({"finding": what, "reason": reason}))
            .collect();
        output::print_json(
            &json!({"session": snapshot.session, "offers": offers, "known_limits": limits}),
        );
        return Ok(Outcome::Success);
    }
    if offers.is_empty() && limits.is_empty() {
        output::print_data(&format!("no P3 offers for session {}", snapshot.session));
        return Ok(Outcome::Success);
    }
    if !offers.is_empty() {
        output::print_data(&offers::render(&offers));
    }
    if !limits.is_empty() {
        output::print_data(&offers::render_known_limits(&limits));
    }
    Ok(Outcome::Success)
}

fn submit(project: &Project, session: Option<&str>, file: Option<&Path>) -> Result<Outcome, Error> {
    let settings = load_settings(project);
    let snapshot = submit_target(project, session)?;
    let Some(request) = snapshot.pending_request().cloned() else {
        return Err(Error::Usage(format!(
            "session {} has no pending review request (stop the agent to get one)",
            snapshot.session
        )));
    };
    let text = read_input(file)?;
    let review = parse_submission(&text)?.relative_to(project);
    let log = EventLog::for_session(project, &snapshot.session);
    log.append(
        Clock::from_env()?.now(),
        Event::ReviewCompleted {
            review: request.id.clone(),
            files: request.files.clone(),
            findings: review.findings.clone(),
            known_limits: review.known_limits.clone(),
            notes: review.notes.clone(),
        },
    )
    .map_err(ReviewError::from)?;
    print_summary(&review, &request.id, &snapshot.session, &settings);
    Ok(Outcome::Success)
}

/// What a submission recorded, and what to do next.
fn print_summary(review: &Review, review_id: &str, session: &str, settings: &Settings) {
    let count = |severity| {
        review
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    let blocking = review.blocking(settings.minimum_blocking_severity).count();
    output::print_message(&format!(
        "recorded review {review_id} for session {session}: {} P1, {} P2, {} P3; {blocking} blocking",
        count(Severity::P1),
        count(Severity::P2),
        count(Severity::P3)
    ));
    for note in &review.notes {
        output::print_message(&format!("note: {note}"));
    }
    output::print_hint(if blocking > 0 {
        "fix the blocking findings (P1/P2), then stop again; P3 are offered to the user at the end"
    } else {
        "stop again: the gate will let the agent stop"
    });
}

/// The named session, else the one whose pending request is the newest.
fn submit_target(project: &Project, session: Option<&str>) -> Result<Snapshot, Error> {
    if session.is_some() {
        return find_session(project, session);
    }
    crate::review::log::sessions(project)
        .into_iter()
        .filter(|snapshot| snapshot.pending_request().is_some())
        .max_by_key(|snapshot| snapshot.pending_request().map(|request| request.ts))
        .ok_or_else(|| {
            Error::Usage(
                "no session has a pending review request; the gate asks for one when the agent stops"
                    .into(),
            )
        })
}

/// Validates a submission; a P1 named in `known_limits` is refused outright.
fn parse_submission(text: &str) -> Result<Review, Error> {
    let value = findings::extract_json(text).map_err(ReviewError::from)?;
    let raw: RawFindings = serde_json::from_value(value).map_err(|error| {
        Error::Usage(format!(
            "the findings JSON does not have the expected shape: {error}"
        ))
    })?;
    let review = Review::from_raw(raw).map_err(ReviewError::from)?;
    if let Some(note) = review
        .notes
        .iter()
        .find(|note| note.contains("P1 can never be deferred"))
    {
        return Err(Error::Usage(format!("{note}; nothing was recorded")));
    }
    Ok(review)
}

fn read_input(file: Option<&Path>) -> Result<String, Error> {
    match file {
        Some(path) if path != Path::new("-") => {
            fs_err::read_to_string(path).map_err(|error| Error::Usage(error.to_string()))
        }
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|error| {
                    Error::Usage(format!("cannot read the findings from stdin: {error}"))
                })?;
            Ok(text)
        }
    }
}

fn defer(
    project: &Project,
    finding_id: &str,
    reason: &str,
    session: Option<&str>,
) -> Result<Outcome, Error> {
    if reason.trim().is_empty() {
        return Err(Error::Usage(
            "--reason must say why the finding is a known limit".into(),
        ));
    }
    let candidates = match session {
        Some(_) => vec![find_session(project, session)?],
        None => crate::review::log::sessions(project)
            .into_iter()
            .rev()
            .collect(),
    };
    // The id as given, or a prefix naming one finding of the most recent session that has any.
    let mut resolved = finding_id.to_string();
    for snapshot in &candidates {
        let ids = snapshot
            .reviews
            .iter()
            .flat_map(|r| r.findings.iter().map(|f| f.id.as_str()));
        match crate::text::resolve_id(finding_id, ids) {
            Ok(id) => {
                resolved = id.to_string();
                break;
            }
            Err(crate::text::IdMatch::Ambiguous(ids)) => {
                return Err(Error::Usage(format!(
                    "{finding_id:?} names several findings ({}); give more of the id",
                    ids.join(", ")
                )));
            }
            Err(crate::text::IdMatch::None) => {}
        }
    }
    let finding_id = resolved.as_str();
    let found = candidates.iter().find_map(|snapshot| {
        snapshot.reviews.iter().rev().find_map(|review| {
            review
                .findings
                .iter()
                .find(|finding| finding.id == finding_id)
                .map(|finding| (snapshot, review.id.clone(), finding.clone()))
        })
    });
    let Some((snapshot, review, finding)) = found else {
        return Err(Error::Usage(format!(
            "no finding {finding_id:?} in any review of this project"
        )));
    };
    check_deferrable(&finding).map_err(Error::Usage)?;
    EventLog::for_session(project, &snapshot.session)
        .append(
            Clock::from_env()?.now(),
            Event::FindingDeferred {
                review,
                finding: finding.id.clone(),
                file: finding.file.clone(),
                title: finding.title.clone(),
                reason: reason.trim().to_string(),
            },
        )
        .map_err(ReviewError::from)?;
    output::print_message(&format!(
        "{} ({}) recorded as a known limit for session {}; it no longer blocks and is listed at the end",
        finding.id,
        finding.location(),
        snapshot.session
    ));
    Ok(Outcome::Success)
}
