//! The SessionEnd hook: the payload's end of session, handed to
//! [`crate::review::session_end`].

use crate::answer::Answer;
use crate::hook::HookContext;

pub(crate) fn handle(context: &HookContext) -> Answer {
    let reason = context.payload.raw.reason.as_deref().unwrap_or_default();
    crate::review::session_end::handle(context.session(), reason)
}
