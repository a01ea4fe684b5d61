//! `car review status | offers | submit | defer | challenge | prompt | cancel`: the gate's state for
//! people, and the ways an agent (or a person) talks back to the gate: an in-session review's
//! findings, a P2 recorded as a known limit, a finding held to be a false positive, the pending
//! request printed or dropped.
//!
//! Invariants: what these commands show is the gate's own computation of the session now
//! ([`crate::session::change_set`]: reconciled with the disk, errors re-checked, guards applied),
//! never a second one; a P1 can never be deferred — neither by `defer` nor by a submitted
//! `known_limits` entry (both exit 2); a submission completes the session's pending request and
//! covers exactly the versions that request named.

mod findings;
mod status;
mod submit;

use serde_json::json;

use crate::cli::ReviewCommand;
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::pipeline::OnDisk;
use crate::project::Project;
use crate::review::gate::ReviewError;
use crate::review::gate::offers;
use crate::session::event::Event;
use crate::session::log::EventLog;
use crate::session::snapshot::{Request, Snapshot};
use crate::settings::Settings;

pub(crate) fn run(project: &Project, command: ReviewCommand) -> Result<Outcome, Error> {
    let settings = Settings::load(project).unwrap_or_default();
    let context = Context {
        project,
        settings: &settings,
        clock: Clock::from_env()?,
    };
    match command {
        ReviewCommand::Status { json } => status::run(&context, json),
        ReviewCommand::Offers { json, session } => show_offers(&context, session.as_deref(), json),
        ReviewCommand::Submit { session, file } => {
            submit::run(&context, session.as_deref(), file.as_deref())
        }
        ReviewCommand::Defer {
            finding_id,
            reason,
            session,
        } => findings::defer(
            &context,
            &findings::Said {
                label: &finding_id,
                reason: &reason,
                session: session.as_deref(),
            },
        ),
        ReviewCommand::Challenge {
            finding_id,
            reason,
            session,
        } => findings::challenge(
            &context,
            &findings::Said {
                label: &finding_id,
                reason: &reason,
                session: session.as_deref(),
            },
        ),
        ReviewCommand::Prompt { session, new } => {
            if new {
                new_prompt(&context, session.as_deref())
            } else {
                prompt(&context, session.as_deref())
            }
        }
        ReviewCommand::Cancel { session } => cancel(&context, session.as_deref()),
    }
}

/// What every review command works with.
struct Context<'a> {
    project: &'a Project,
    settings: &'a Settings,
    clock: Clock,
}

impl Context<'_> {
    /// Every session as its gate would see it now, oldest activity first.
    fn sessions(&self) -> Vec<Snapshot> {
        let validate = OnDisk::new(self.project, self.settings);
        crate::review::gate::session_view::sessions_now(
            self.project,
            self.settings,
            self.clock,
            &validate,
        )
    }

    /// The named session, else the most recently active one.
    fn session(&self, session: Option<&str>) -> Result<Snapshot, ReviewError> {
        let all = self.sessions();
        match session {
            Some(id) => all
                .into_iter()
                .find(|snapshot| snapshot.session == id)
                .ok_or_else(|| ReviewError::NoSession {
                    session: id.to_string(),
                    folder: self.project.clients_dir(),
                }),
            None => all.into_iter().last().ok_or(ReviewError::NoSessions),
        }
    }

    /// The named session, else the one whose pending request is the newest.
    fn with_pending_request(&self, session: Option<&str>) -> Result<Snapshot, ReviewError> {
        if session.is_some() {
            return self.session(session);
        }
        self.sessions()
            .into_iter()
            .filter(|snapshot| snapshot.pending_request().is_some())
            .max_by_key(|snapshot| snapshot.pending_request().map(|request| request.ts))
            .ok_or(ReviewError::NoPendingRequest { session: None })
    }

    fn append(&self, session: &str, event: Event) -> Result<(), ReviewError> {
        EventLog::for_session(self.project, session).append(self.clock.now(), event)?;
        Ok(())
    }
}

fn show_offers(
    context: &Context<'_>,
    session: Option<&str>,
    as_json: bool,
) -> Result<Outcome, Error> {
    if session.is_none() && crate::session::log::sessions(context.project).is_empty() {
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
    let snapshot = context.session(session)?;
    let standing = crate::review::gate::standing::warnings(context.project, &snapshot.warnings);
    let offers = offers::collect(&snapshot, &standing, context.settings);
    let limits = snapshot.known_limits();
    if as_json {
        let limits: Vec<serde_json::Value> = limits
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

/// Prints the pending request's prompt (stdout: data that can be piped).
fn prompt(context: &Context<'_>, session: Option<&str>) -> Result<Outcome, Error> {
    let snapshot = context.with_pending_request(session)?;
    let Some(request) = snapshot.pending_request() else {
        return Err(ReviewError::NoPendingRequest {
            session: Some(snapshot.session.clone()),
        }
        .into());
    };
    print_prompt(context, &snapshot.session, request)?;
    Ok(Outcome::Success)
}

/// Makes the session's review request now (before its stop) and prints its prompt.
fn new_prompt(context: &Context<'_>, session: Option<&str>) -> Result<Outcome, Error> {
    let id = match session {
        Some(id) => id.to_string(),
        None => crate::session::log::sessions(context.project)
            .into_iter()
            .max_by_key(|snapshot| snapshot.last_ts)
            .map(|snapshot| snapshot.session)
            .ok_or(ReviewError::NoSessions)?,
    };
    let validate = OnDisk::new(context.project, context.settings);
    let session = crate::session::Session {
        project: context.project,
        settings: context.settings,
        clock: context.clock,
        id: &id,
    };
    let early = crate::review::gate::stages::early::request_now(session, &validate)?;
    if early.reused {
        output::print_message(&format!(
            "session {id}: review {} already asks for exactly these versions",
            early.request.id
        ));
    }
    print_prompt(context, &id, &early.request)?;
    Ok(Outcome::Success)
}

fn print_prompt(context: &Context<'_>, session: &str, request: &Request) -> Result<(), Error> {
    let path = context.project.root().join(&request.prompt_file);
    let text = crate::review::gate::prompt::request_text(context.project, request)
        .map_err(ReviewError::from)?
        .ok_or_else(|| {
            ReviewError::Invalid(format!(
                "session {session}: the prompt of review {} is missing ({})",
                request.id,
                path.display()
            ))
        })?;
    output::print_data(text.trim_end());
    output::print_hint(&format!(
        "review {} of session {session}; record the findings with: car review submit --session {session} FILE",
        request.id
    ));
    Ok(())
}

/// Drops the pending request and restarts the blocked-stop count; the changes stay unreviewed.
fn cancel(context: &Context<'_>, session: Option<&str>) -> Result<Outcome, Error> {
    let snapshot = context.with_pending_request(session)?;
    let request = snapshot.pending_request().map(|request| request.id.clone());
    if request.is_none() && snapshot.blocks_since_allow == 0 {
        return Err(ReviewError::NoPendingRequest {
            session: Some(snapshot.session.clone()),
        }
        .into());
    }
    context.append(
        &snapshot.session,
        Event::ReviewCancelled {
            review: request.clone(),
        },
    )?;
    let what = match &request {
        Some(id) => format!("cancelled review {id} of session {}", snapshot.session),
        None => format!(
            "session {} had no pending request; its blocked-stop count starts again",
            snapshot.session
        ),
    };
    output::print_message(&what);
    let unreviewed = snapshot.unreviewed().len();
    if unreviewed > 0 {
        output::print_hint(&format!(
            "{} stay unreviewed: the agent's next stop asks for a new review",
            crate::text::plural(unreviewed, "changed file")
        ));
    }
    Ok(Outcome::Success)
}
