//! The Stop / SubagentStop hook: the payload's stop, handed to the review gate
//! ([`crate::gate::stages`]), which knows nothing of payloads. The gate validates files again
//! from disk with the pipeline's validators, handed in here.

use crate::answer::Answer;
use crate::gate::stages::{self, StopInput};
use crate::hook::HookContext;
use crate::hook::render::Agent;
use crate::pipeline::OnDisk;

pub(crate) fn handle(context: &HookContext) -> Answer {
    let raw = &context.payload.raw;
    // Cursor also calls its stop hook when the user aborted or the agent failed: no follow-up
    // then, the person is in charge.
    if context.payload.agent == Agent::Cursor
        && raw
            .status
            .as_deref()
            .is_some_and(|status| status != "completed")
    {
        return Answer::allow();
    }
    let validate = OnDisk::new(&context.project, &context.settings);
    let input = StopInput {
        is_subagent: context.payload.is_subagent_stop(),
        last_message: raw.last_assistant_message.clone(),
        transcript_path: raw.transcript_path.as_ref().map(Into::into),
        validate: &validate,
    };
    let mut answer = stages::handle_stop(context.session(), &input);
    // The Python tool's reviewFeedbackMaxChars: the agent reads at most this much.
    if let Some(reason) = answer.block_reason.take() {
        let limit = context.settings.review_feedback_max_chars;
        answer.block_reason = Some(crate::text::shorten(&reason, limit));
    }
    if input.is_subagent || !context.settings.enabled {
        return answer;
    }
    // After the gate, so a review that just completed can show a finding fixed.
    let taught = crate::learning::signals::at_stop(context.session());
    taught.notes.into_iter().fold(answer, |answer, note| {
        answer.with_system_line(format!("car: {note}"))
    })
}
