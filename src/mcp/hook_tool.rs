//! The `hook` tool: one hook event answered by the running server instead of a new `car hook`
//! process, for Claude Code's `"type": "mcp_tool"` hooks (2.1.332):
//! `{"type": "mcp_tool", "server": "car", "tool": "hook", "input": {"event": "post-tool-use",
//! "agent": "claude", "payload": {"session_id": "${session_id}", "tool_input": "${tool_input}", …}}}`.
//! Its text is the hook's JSON answer, which Claude Code reads like a command hook's stdout.
//!
//! Claude Code hands the payload over as its own interpolation of `${path}` in string values: an
//! object arrives as its JSON text, a boolean as `"true"`, a missing field as `""`. The payload is
//! rebuilt from that once, here ([`payload_from_interpolated`]), and then answered by the same
//! code as the command hook ([`crate::hook::answer_payload`]).
//!
//! Invariants: not in `tools/list` (the model never sees it; a hook calls it by name); it always
//! answers with a hook answer, a fail-open one for arguments it cannot use, never a tool error
//! (which Claude Code would report as a failed hook).

use serde_json::{Map, Value, json};

use crate::agents::Agent;
use crate::agents::answer::HookEvent;
use crate::answer::Answer;

/// The tool's name.
pub(crate) const NAME: &str = "hook";

/// Payload fields that carry a JSON object or array (interpolated as their JSON text).
const OBJECT_FIELDS: [&str; 3] = ["tool_input", "tool_response", "tool_output"];

/// Payload fields that carry a boolean (interpolated as `"true"` / `"false"`).
const BOOLEAN_FIELDS: [&str; 1] = ["stop_hook_active"];

/// The hook's JSON answer (as text) for `arguments` `{"event", "agent", "payload"}`.
pub(crate) fn call(arguments: &Value) -> String {
    let event = arguments
        .get("event")
        .and_then(Value::as_str)
        .and_then(HookEvent::from_command_name);
    let agent = arguments
        .get("agent")
        .and_then(Value::as_str)
        .map_or(Ok(Agent::Claude), Agent::from_name);
    let payload = arguments.get("payload").and_then(Value::as_object);
    let answer = match (event, agent, payload) {
        (Some(event), Ok(agent), Some(payload)) => {
            let payload = Value::Object(payload_from_interpolated(payload));
            crate::hook::answer_payload(payload.to_string().as_bytes(), agent, event)
        }
        (None, _, _) => fail_open(
            "\"event\" must name a hook: pre-tool-use, post-tool-use, stop, session-start or session-end",
        ),
        (_, Err(unknown), _) => fail_open(&unknown.to_string()),
        (_, _, None) => fail_open("\"payload\" must be an object of the hook's fields"),
    };
    answer.to_string()
}

fn fail_open(why: &str) -> Value {
    let answer = Answer::fail_open(format!("car's hook tool: {why}; nothing was checked"));
    Agent::Claude.answer(&answer, HookEvent::Stop)
}

/// The payload as the agent sent it, from Claude Code's interpolation of its fields into strings.
fn payload_from_interpolated(fields: &Map<String, Value>) -> Map<String, Value> {
    let mut payload = Map::new();
    for (key, value) in fields {
        let value = match value {
            Value::String(text) if text.is_empty() => continue,
            Value::String(text) if OBJECT_FIELDS.contains(&key.as_str()) => {
                serde_json::from_str::<Value>(text)
                    .ok()
                    .filter(|parsed| parsed.is_object() || parsed.is_array())
                    .unwrap_or_else(|| json!(text))
            }
            Value::String(text) if BOOLEAN_FIELDS.contains(&key.as_str()) => json!(text == "true"),
            other => other.clone(),
        };
        payload.insert(key.clone(), value);
    }
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_is_rebuilt_from_its_interpolated_fields() {
        let fields = json!({
            "session_id": "s1",
            "transcript_path": "",
            "tool_input": "{\"file_path\":\"/p/a.py\",\"content\":\"x = 1\\n\"}",
            "tool_response": "not json",
            "stop_hook_active": "true",
            "last_assistant_message": "{\"looks\": \"like json\"}",
        });
        let payload = payload_from_interpolated(fields.as_object().unwrap());
        assert_eq!(
            Value::Object(payload),
            json!({
                "session_id": "s1",
                "tool_input": {"file_path": "/p/a.py", "content": "x = 1\n"},
                "tool_response": "not json",
                "stop_hook_active": true,
                "last_assistant_message": "{\"looks\": \"like json\"}",
            })
        );
    }

    #[test]
    fn arguments_it_cannot_use_fail_open() {
        for arguments in [
            json!({"agent": "claude", "payload": {}}),
            json!({"event": "lunch", "payload": {}}),
            json!({"event": "stop", "agent": "vscode", "payload": {}}),
            json!({"event": "stop"}),
        ] {
            let answer: Value = serde_json::from_str(&call(&arguments)).unwrap();
            let message = answer["systemMessage"].as_str().unwrap_or_default();
            assert!(
                message.contains("nothing was checked"),
                "{arguments}: {answer}"
            );
            assert!(answer.get("decision").is_none(), "{answer}");
        }
    }
}
