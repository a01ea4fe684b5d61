//! `car review submit [--session ID] [FILE|-]`: records an in-session review (manual backend)
//! and says what the gate will do at the next stop — computed the way the gate computes it, so
//! it never promises a stop that validator errors or open findings will still block.

use std::io::Read;
use std::path::Path;

use super::Context;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::review::blocking::{Blocking, NotBlocking};
use crate::review::findings::{self, RawFindings, Review};
use crate::review::gate::ReviewError;
use crate::session::event::Event;
use crate::session::finding::Severity;
use crate::session::snapshot::Snapshot;

pub(super) fn run(
    context: &Context<'_>,
    session: Option<&str>,
    file: Option<&Path>,
) -> Result<Outcome, Error> {
    let mut snapshot = context.with_pending_request(session)?;
    let Some(request) = snapshot.pending_request().cloned() else {
        return Err(ReviewError::NoPendingRequest {
            session: Some(snapshot.session.clone()),
        }
        .into());
    };
    let text = read_input(file)?;
    let review = parse_submission(&text)?.relative_to(context.project);
    let event = Event::ReviewCompleted {
        review: request.id.clone(),
        files: request.files.clone(),
        findings: review.findings.clone(),
        known_limits: review.known_limits.clone(),
        notes: review.notes.clone(),
    };
    context.append(&snapshot.session, event.clone())?;
    let now = context.clock.now();
    snapshot.apply_event(now, event);
    for escalation in crate::review::gate::guards::escalations(&snapshot, context.settings) {
        snapshot.apply_event(now, escalation);
    }
    print_summary(context, &review, &request.id, &snapshot);
    Ok(Outcome::Success)
}

/// What a submission recorded, and what the next stop will do.
fn print_summary(context: &Context<'_>, review: &Review, review_id: &str, snapshot: &Snapshot) {
    let threshold = context.settings.minimum_blocking_severity;
    let count = |severity| {
        review
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    let blocking = snapshot
        .outstanding(threshold)
        .iter()
        .filter(|item| item.review == review_id)
        .count();
    output::print_message(&format!(
        "recorded review {review_id} for session {}: {} P1, {} P2, {} P3; {blocking} blocking",
        snapshot.session,
        count(Severity::P1),
        count(Severity::P2),
        count(Severity::P3)
    ));
    for note in &review.notes {
        output::print_message(&format!("note: {note}"));
    }
    if let Some(completed) = snapshot.reviews.iter().find(|done| done.id == review_id) {
        for finding in &completed.findings {
            if let Some(NotBlocking::OutsideSession(_)) =
                snapshot.not_blocking(completed, finding, threshold)
            {
                output::print_message(&format!(
                    "note: {} is about {}, outside this session's change: it never blocks; it is shown to the person",
                    finding.id, finding.file
                ));
            }
        }
    }
    output::print_hint(&next_stop(snapshot, threshold, review_id));
}

/// What the gate will do at the next stop, as one hint.
fn next_stop(
    snapshot: &Snapshot,
    threshold: crate::settings::BlockingThreshold,
    review_id: &str,
) -> String {
    let open = snapshot.outstanding(threshold).len();
    let errors = snapshot.unresolved_errors();
    let scope: Vec<String> = snapshot.review_scope().into_keys().collect();
    let mut blockers = Vec::new();
    if open > 0 {
        blockers.push(format!(
            "fix the {} (P1/P2)",
            crate::text::plural(open, "blocking finding")
        ));
    }
    if let Some(first) = errors.first() {
        let more = match errors.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        blockers.push(format!(
            "fix the validator errors, which block the stop by themselves: {}{more}",
            first.render().lines().next().unwrap_or_default()
        ));
    }
    if !scope.is_empty() {
        blockers.push(format!(
            "files changed since {review_id} are reviewed at the next stop: {}",
            scope.join(", ")
        ));
    }
    if blockers.is_empty() {
        "stop again: the gate will let the agent stop".to_string()
    } else {
        format!(
            "{}; then stop again (P3 are offered to the user at the end)",
            blockers.join("; ")
        )
    }
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
