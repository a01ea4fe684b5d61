//! The SessionEnd hook: the payload's end of session, handed to
//! [`crate::session::end`] (close the session, remove stale ones) and to
//! [`crate::lessons::close_session`] (fold the session's lesson hits into `lessons.json`, daily
//! maintenance).

use crate::answer::Answer;
use crate::hook::HookContext;

pub(crate) fn handle(context: &HookContext) -> Answer {
    let reason = context.payload.end_reason.as_str();
    let mut answer = crate::session::end::handle(context.session(), reason);
    crate::learning::signals::at_session_end(context.session());
    for note in crate::lessons::close_session(&context.project, &context.settings, context.clock) {
        answer = answer.with_system_line(format!("car: {note}"));
    }
    answer
}
