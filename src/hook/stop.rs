//! The Stop / SubagentStop hook: the payload's stop, handed to the review gate
//! ([`crate::review::gate`]), which knows nothing of payloads.

use crate::answer::Answer;
use crate::hook::HookContext;
use crate::review::gate::{self, StopInput};

pub(crate) fn handle(context: &HookContext) -> Answer {
    let raw = &context.payload.raw;
    let input = StopInput {
        is_subagent: context.payload.is_subagent_stop(),
        last_message: raw.last_assistant_message.clone(),
        transcript_path: raw.transcript_path.as_ref().map(Into::into),
    };
    gate::handle_stop(context.session(), &input)
}
