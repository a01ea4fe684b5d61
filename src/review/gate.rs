//! The Stop / SubagentStop hook: the review gate.

use crate::hook::HookContext;
use crate::output::HookResponse;

pub fn handle_stop(_context: &HookContext) -> HookResponse {
    HookResponse::allow()
}
