//! `car review status [--json]`: every session of the project as its gate sees it now — the
//! files to review, the pending request, open findings and validator errors, challenges waiting
//! for a review, and the findings handed to a person.

use serde_json::{Value, json};

use super::Context;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::review::blocking::Blocking;
use crate::session::snapshot::Snapshot;

pub(super) fn run(context: &Context<'_>, as_json: bool) -> Result<Outcome, Error> {
    let threshold = context.settings.minimum_blocking_severity;
    let rows: Vec<Value> = context
        .sessions()
        .iter()
        .map(|snapshot| row(snapshot, threshold))
        .collect();
    if as_json {
        output::print_json(
            &json!({"backend": context.settings.reviewer_backend.name(), "sessions": rows}),
        );
        return Ok(Outcome::Success);
    }
    if rows.is_empty() {
        output::print_data("no session has recorded an edit in this project");
        return Ok(Outcome::Success);
    }
    for row in rows {
        output::print_data(&render(&row));
    }
    Ok(Outcome::Success)
}

fn row(snapshot: &Snapshot, threshold: crate::settings::BlockingThreshold) -> Value {
    let challenged: Vec<String> = snapshot
        .rounds
        .challenges
        .iter()
        .filter(|challenge| challenge.upheld.is_none())
        .filter(|challenge| !snapshot.rounds.is_escalated(&challenge.finding.key()))
        .map(|challenge| {
            format!(
                "{} (reason: {})",
                challenge.finding.summary(),
                challenge.reason
            )
        })
        .collect();
    let escalated: Vec<String> = snapshot
        .escalations()
        .iter()
        .map(|escalation| format!("{} — {}", escalation.finding.summary(), escalation.why()))
        .collect();
    json!({
        "session": snapshot.session,
        "last_event": crate::clock::Clock::fixed(snapshot.last_ts).rfc3339(),
        "ended": snapshot.ended,
        "changed_files": snapshot.session_changes().len(),
        "unreviewed": snapshot.review_scope().keys().collect::<Vec<_>>(),
        "pending_review": snapshot.pending_request().map(|request| request.id.clone()),
        "open_findings": snapshot.outstanding(threshold).iter()
            .map(|item| item.finding.summary())
            .collect::<Vec<_>>(),
        "validator_errors": snapshot.unresolved_errors().iter().map(|error| error.render()).collect::<Vec<_>>(),
        "challenged": challenged,
        "escalated": escalated,
        "blocked_stops_in_a_row": snapshot.blocks_since_allow,
        "reviews": snapshot.reviews.len(),
        "unreadable_lines": snapshot.skipped_lines,
    })
}

fn render(row: &Value) -> String {
    let list = |key: &str| {
        row[key]
            .as_array()
            .map(|items| items.iter().filter_map(Value::as_str).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let session = row["session"].as_str().unwrap_or_default();
    let mut text = format!(
        "session {session} (last event {}{})\n  changed files: {}, to review: {}, reviews: {}, blocked stops in a row: {}",
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
            "\n  pending review: {pending} (car review submit --session {session} FILE)"
        ));
    }
    for (key, label) in [
        ("open_findings", "open"),
        ("validator_errors", "open"),
        ("challenged", "challenged"),
        ("escalated", "escalated to you"),
    ] {
        for item in list(key) {
            text.push_str(&format!("\n  {label}: {item}"));
        }
    }
    if let Some(lines) = row["unreadable_lines"].as_u64().filter(|lines| *lines > 0) {
        text.push_str(&format!(
            "\n  {lines} unreadable log lines skipped (a hook killed mid-write)"
        ));
    }
    text
}
