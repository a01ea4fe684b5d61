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

use serde_json::{Map, Value, json};

use super::answer::HookEvent;
use super::payload::{RawPayload, StopFacts, ToolCall, ToolUse, text};
use super::{Agent, POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, hook_command};
use crate::answer::Answer;

pub(super) fn entries(stop_timeout: u64, max_stop_passes: u32) -> Map<String, Value> {
    let command = |event: &str| hook_command(event, Agent::Cursor);
    let mut entries = Map::new();
    entries.insert(
        "afterFileEdit".into(),
        json!([{"command": command("post-tool-use"), "timeout": POST_TOOL_USE_TIMEOUT}]),
    );
    // The agent's own shell commands: what they change is its work, never a person's correction.
    entries.insert(
        "afterShellExecution".into(),
        json!([{"command": command("post-tool-use"), "timeout": POST_TOOL_USE_TIMEOUT}]),
    );
    entries.insert(
        "stop".into(),
        json!([{"command": command("stop"), "timeout": stop_timeout, "loop_limit": max_stop_passes.saturating_mul(2)}]),
    );
    entries.insert(
        "sessionEnd".into(),
        json!([{"command": command("session-end"), "timeout": SESSION_END_TIMEOUT}]),
    );
    entries
}

pub(super) fn tool_use(raw: &RawPayload) -> ToolUse {
    if raw.hook_event_name.as_deref() == Some("afterShellExecution") {
        let name = raw.tool_name.clone().unwrap_or_default();
        return ToolUse {
            name,
            call: super::payload::shell_call(raw),
        };
    }
    let Some(path) = raw.file_path.clone() else {
        // A payload shaped like Claude Code's (a hand-written one): read it as such.
        return super::claude::tool_use(raw);
    };
    let name = raw
        .tool_name
        .clone()
        .unwrap_or_else(|| "afterFileEdit".to_string());
    let mut replacements = super::payload::replacements(&raw.tool_input);
    if replacements.is_empty() {
        replacements = super::payload::replacements(&raw.edits);
    }
    let call = ToolCall::Replace {
        path: text(&raw.tool_input, "file_path").unwrap_or(path),
        original: text(&raw.tool_response, "originalFile")
            .or_else(|| text(&raw.tool_response, "originalFileContents")),
        hunks: Vec::new(),
        replacements,
    };
    ToolUse { name, call }
}

pub(super) fn stop_facts(raw: &RawPayload) -> StopFacts {
    StopFacts {
        is_interrupted: raw
            .status
            .as_deref()
            .is_some_and(|status| status != "completed"),
        ..StopFacts::of(raw, raw.last_assistant_message.clone())
    }
}

/// Only a stop's block reaches the model, as the follow-up message; `afterFileEdit` only
/// observes, and Cursor shows no `systemMessage`.
pub(super) fn answer(answer: &Answer, event: HookEvent) -> Value {
    let mut object = Map::new();
    if let Some(reason) = &answer.block_reason
        && event == HookEvent::Stop
    {
        object.insert("followup_message".into(), json!(reason));
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

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
