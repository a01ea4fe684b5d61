//! A review request made before the agent stops (`car review prompt --new`): the session is
//! brought up to date with the disk exactly as a stop brings it, and its unreviewed versions get
//! the request the next stop would make. Submitting that review (`car review submit`) covers
//! those versions, so the stop that follows has nothing left to ask for them.
//!
//! Invariants: it runs under the session's stop lock (never beside a stop); a pending request
//! for exactly these versions is handed back, not duplicated; nothing to review is an error
//! that says so, and it writes nothing then but what the refresh found on disk.

use std::time::Duration;

use super::{Gate, StopInput};
use crate::files::{FileError, FileLock};
use crate::review::gate::ReviewError;
use crate::session::Session;
use crate::session::change_set::Revalidate;
use crate::session::log::EventLog;
use crate::session::snapshot::Request;
use crate::state::names;

/// How long the command waits for a stop of the same session to finish.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// The request the command prints.
pub(crate) struct Early {
    pub(crate) request: Request,
    /// A pending request for exactly these versions existed already.
    pub(crate) reused: bool,
}

/// Makes (or hands back) the session's review request for its unreviewed versions now.
pub(crate) fn request_now(
    session: Session<'_>,
    validate: &dyn Revalidate,
) -> Result<Early, ReviewError> {
    let log = EventLog::for_session(session.project, session.id);
    if !log.exists() {
        return Err(ReviewError::NoSession {
            session: session.id.to_string(),
            folder: session.project.clients_dir(),
        });
    }
    let _lock = match FileLock::acquire(&log.dir().join(names::STOP_LOCK), STOP_WAIT) {
        Ok(lock) => lock,
        Err(FileError::LockTimeout { .. }) => {
            return Err(ReviewError::Invalid(format!(
                "a stop of session {} has been running for {} s; try again when it has answered",
                session.id,
                STOP_WAIT.as_secs()
            )));
        }
        Err(error) => return Err(error.into()),
    };
    let no_transcript = || None;
    let input = StopInput {
        is_subagent: false,
        last_message: None,
        transcript_text: &no_transcript,
        validate,
    };
    Gate::open(session, &input, log)?.request_early()
}

impl Gate<'_> {
    fn request_early(mut self) -> Result<Early, ReviewError> {
        self.refresh();
        let scope = self.snapshot.review_scope();
        if scope.is_empty() {
            self.flush()?;
            return Err(ReviewError::NothingToReview {
                session: self.context.id.to_string(),
            });
        }
        if let Some(request) = self.reusable_request(&scope) {
            self.flush()?;
            return Ok(Early {
                request,
                reused: true,
            });
        }
        let request = self.request(&scope)?;
        self.flush()?;
        Ok(Early {
            request,
            reused: false,
        })
    }
}
