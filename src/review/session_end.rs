//! The SessionEnd hook: close the session's state and remove stale sessions.

use crate::hook::HookContext;
use crate::output::HookResponse;

pub fn handle(_context: &HookContext) -> HookResponse {
    HookResponse::allow()
}
