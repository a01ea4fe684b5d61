//! Cursor: everything car knows about it.
//! - Install: `.cursor/hooks.json` with `"version": 1` (required for project hooks), flat handler
//!   lists per lowerCamelCase event, timeouts in seconds. `afterFileEdit` only observes (car
//!   tracks and learns; its answer cannot reach the model), `stop` answers with a follow-up
//!   message, at most `loop_limit` times in a row: twice car's own `maxStopPasses`, because with
//!   the manual backend a round blocks two stops (the request, then the fix request) and car's
//!   breaker counts one of them. car's breaker decides; Cursor's limit is the net below it.
//! - Payload: `conversation_id` and `workspace_roots` (no `session_id`, no `cwd`);
//!   `afterFileEdit` names the file and its `edits[]` at the top, `afterShellExecution` its
//!   `command`; `stop` carries a `status` (`completed`, `aborted`, `error`).
//! - Answer: `followup_message` for a blocked stop; nothing else (no `systemMessage`).
//! - Transcript: read in Claude Code's shape, as before.
//!
//! The data is its [`SPEC`]; the code here reads the payloads it shapes its own way.

use super::answer::{AnswerShape, HookEvent};
use super::payload::{RawPayload, StopFields, ToolCall, ToolUse, replacements, shell_call, text};
use super::spec::{AgentSpec, HandlerShape, HookFile, HookSpec, Matcher, TimeoutUnit};

pub(super) const SPEC: AgentSpec = AgentSpec {
    name: "cursor",
    title: "Cursor",
    hook_file: HookFile {
        path: ".cursor/hooks.json",
        is_hooks_only: true,
        required_keys: &[("version", 1)],
        timeout_unit: TimeoutUnit::Seconds,
        handler_shape: HandlerShape::Flat,
    },
    hooks: &[
        HookSpec::every("afterFileEdit", HookEvent::PostToolUse),
        // The agent's own shell commands: what they change is its work, never a person's
        // correction.
        HookSpec::every("afterShellExecution", HookEvent::PostToolUse),
        HookSpec {
            event: "stop",
            runs: HookEvent::Stop,
            matcher: Matcher::Every,
            has_loop_limit: true,
        },
        HookSpec::every("sessionEnd", HookEvent::SessionEnd),
    ],
    // A payload shaped like Claude Code's (a hand-written one) is read as such.
    tools: super::claude::TOOLS,
    own_payload: Some(own_payload),
    complete_edit: None,
    stop: StopFields {
        completed_status: Some("completed"),
        ..StopFields::SHARED
    },
    answer: AnswerShape::FollowUp,
    // Cursor always sends the last message; its transcript is read in Claude Code's shape, as
    // before car knew the agent.
    assistant_text: super::claude::assistant_text,
    trust_hint: None,
    // car does not register its server there.
    mcp: None,
    runs_mcp_tool_hooks: false,
};

/// afterShellExecution's command, and afterFileEdit's file with its `edits[]` at the top;
/// `None` for any other payload.
fn own_payload(raw: &RawPayload) -> Option<ToolUse> {
    if raw.hook_event_name.as_deref() == Some("afterShellExecution") {
        let name = raw.tool_name.clone().unwrap_or_default();
        return Some(ToolUse {
            name,
            call: shell_call(raw),
        });
    }
    let path = raw.file_path.clone()?;
    let name = raw
        .tool_name
        .clone()
        .unwrap_or_else(|| "afterFileEdit".to_string());
    let mut edits = replacements(&raw.tool_input);
    if edits.is_empty() {
        edits = replacements(&raw.edits);
    }
    let call = ToolCall::Replace {
        path: text(&raw.tool_input, "file_path").unwrap_or(path),
        original: text(&raw.tool_response, "originalFile")
            .or_else(|| text(&raw.tool_response, "originalFileContents")),
        hunks: Vec::new(),
        replacements: edits,
    };
    Some(ToolUse { name, call })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::answer::Answer;

    fn answer(answer: &Answer, event: HookEvent) -> Value {
        SPEC.answer.shape(answer, event)
    }

    #[test]
    fn answer_shapes() {
        let block = Answer::block("review first");
        assert_eq!(
            answer(&block, HookEvent::Stop),
            json!({"followup_message":"review first"})
        );
        assert_eq!(answer(&block, HookEvent::PostToolUse), json!({}));
    }
}
