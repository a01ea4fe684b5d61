//! The Stop / SubagentStop hook: the payload's stop, handed to the review gate
//! ([`crate::review::gate::stages`]), which knows nothing of payloads. The gate validates files again
//! from disk with the pipeline's validators, handed in here.

use crate::answer::Answer;
use crate::hook::HookContext;
use crate::pipeline::OnDisk;
use crate::review::gate::stages::{self, StopInput};

pub(crate) fn handle(context: &HookContext) -> Answer {
    let stop = &context.payload.stop;
    // Cursor also calls its stop hook when the user aborted or the agent failed: no follow-up
    // then, the person is in charge.
    if stop.is_interrupted {
        return Answer::allow();
    }
    let validate = OnDisk::new(&context.project, &context.settings);
    // The transcript is read only when the gate needs the message (not on the no-edit fast path).
    let agent = context.payload.agent;
    let transcript_text = || {
        stop.transcript_path
            .as_deref()
            .and_then(|path| agent.transcript_last_text(path))
    };
    let input = StopInput {
        is_subagent: stop.is_subagent,
        last_message: stop.last_message.clone(),
        transcript_text: &transcript_text,
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
