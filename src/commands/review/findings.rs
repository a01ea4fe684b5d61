//! `car review defer` and `car review challenge`: the agent's two answers to a blocking finding
//! other than fixing it — a P2 recorded as a known limit, or a finding held to be a false
//! positive that the reviewer then judges again (and a person decides if it holds).
//!
//! Invariants: only an open finding can be deferred or challenged (the error says why another is
//! not open); a P1 is never deferred; a finding is challenged at most once until a review
//! answers the challenge.

use super::Context;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::review::finding_ref::{LookupError, open_finding};
use crate::review::gate::ReviewError;
use crate::session::event::Event;
use crate::session::finding::Severity;
use crate::session::snapshot::{Outstanding, Snapshot};

/// What the agent says about one finding: which one, why, and in which session.
pub(super) struct Said<'a> {
    /// `F2`, `R1/F2` or the finding's title.
    pub(super) label: &'a str,
    pub(super) reason: &'a str,
    pub(super) session: Option<&'a str>,
}

pub(super) fn defer(context: &Context<'_>, said: &Said<'_>) -> Result<Outcome, Error> {
    let (snapshot, item, reason) = resolve(context, said, "why the finding is a known limit")?;
    let finding = &item.finding;
    if finding.severity == Severity::P1 {
        return Err(ReviewError::NotDeferrable {
            session: snapshot.session.clone(),
            finding: format!("{}/{}", item.review, finding.id),
            title: finding.title.clone(),
        }
        .into());
    }
    context.append(
        &snapshot.session,
        Event::FindingDeferred {
            review: item.review.clone(),
            finding: finding.id.clone(),
            file: finding.file.clone(),
            title: finding.title.clone(),
            reason,
        },
    )?;
    output::print_message(&format!(
        "{} ({}) recorded as a known limit for session {}; it no longer blocks and is listed at the end",
        finding.id,
        finding.location(),
        snapshot.session
    ));
    Ok(Outcome::Success)
}

pub(super) fn challenge(context: &Context<'_>, said: &Said<'_>) -> Result<Outcome, Error> {
    let (snapshot, item, reason) = resolve(context, said, "why the finding is a false positive")?;
    let finding = &item.finding;
    if let Some(earlier) = snapshot
        .rounds
        .challenge_of(&finding.key())
        .filter(|challenge| challenge.upheld.is_none())
    {
        return Err(ReviewError::AlreadyChallenged {
            session: snapshot.session.clone(),
            finding: format!("{}/{}", item.review, finding.id),
            title: finding.title.clone(),
            reason: earlier.reason.clone(),
        }
        .into());
    }
    context.append(
        &snapshot.session,
        Event::FindingChallenged {
            review: item.review.clone(),
            finding: finding.id.clone(),
            file: finding.file.clone(),
            title: finding.title.clone(),
            severity: finding.severity,
            reason,
        },
    )?;
    output::print_message(&format!(
        "{} ({}: {}) challenged in session {}: the next review judges it again with your reason",
        finding.id,
        finding.location(),
        finding.title,
        snapshot.session
    ));
    output::print_hint(if finding.severity == Severity::P1 {
        "stop again; a P1 is never dropped: whatever the reviewer says, a person decides"
    } else {
        "stop again; if the reviewer reports it again, a person decides instead of the gate blocking again"
    });
    Ok(Outcome::Success)
}

/// The open finding the agent names, and its reason (which must say `what`).
fn resolve(
    context: &Context<'_>,
    said: &Said<'_>,
    what: &'static str,
) -> Result<(Snapshot, Outstanding, String), ReviewError> {
    let reason = said.reason.trim();
    if reason.is_empty() {
        return Err(ReviewError::NoReason { what });
    }
    let (snapshot, item) = open_in(context, said.label, said.session)?;
    Ok((snapshot, item, reason.to_string()))
}

/// The open finding `label` names: in the given session, else in the newest session that has
/// it open. When no session has it open, the newest session's reason why.
fn open_in(
    context: &Context<'_>,
    label: &str,
    session: Option<&str>,
) -> Result<(Snapshot, Outstanding), ReviewError> {
    let threshold = context.settings.minimum_blocking_severity;
    if session.is_some() {
        let snapshot = context.session(session)?;
        let item = open_finding(&snapshot, threshold, label)?;
        return Ok((snapshot, item));
    }
    let mut first_error = None;
    for snapshot in context.sessions().into_iter().rev() {
        match open_finding(&snapshot, threshold, label) {
            Ok(item) => return Ok((snapshot, item)),
            Err(LookupError::NotFound { .. }) => {}
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    Err(match first_error {
        Some(error) => error.into(),
        None => ReviewError::NoOpenFinding {
            label: label.to_string(),
        },
    })
}
