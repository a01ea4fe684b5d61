//! car's hooks through its MCP server (`car install --hooks mcp`, Claude Code only): each
//! command handler becomes Claude Code's `"type": "mcp_tool"` handler, a call of the `hook` tool
//! of the server `car` that is already running ([`crate::mcp::hook_tool`]), with the same event,
//! matcher and timeout. Claude Code 2.1.332 runs such handlers; Codex 0.171.0 and Gemini CLI
//! 0.61.0 have none.
//!
//! Claude Code hands the tool only what `input` names, interpolating `${field}` from the payload
//! in string values: the handler lists every field car reads of that event.
//!
//! Only the events of a session's middle go through the server: Claude Code 2.1.332 refuses an
//! `mcp_tool` hook at SessionStart ("no MCP client context") and has shut the server down by
//! SessionEnd ("MCP server \"car\" is not connected"), both seen in `tests/e2e`; those two stay
//! command hooks.
//!
//! Invariants: a handler of this shape is car's (server `car`, tool `hook`) and is read as the
//! command it stands for ([`command_of`]), so recognising, refreshing and removing car's entries
//! works the same for both kinds.

use serde_json::{Map, Value, json};

use super::Agent;
use super::mcp_server::SERVER_NAME;

/// How car's hooks reach car.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookTransport {
    /// A new `car hook …` process per event (the default; every agent).
    Command,
    /// A tool call into the running `car mcp` (Claude Code only).
    Mcp,
}

/// The events whose hooks can call the server (the server runs then).
const THROUGH_SERVER_EVENTS: [&str; 4] = ["PreToolUse", "PostToolUse", "Stop", "SubagentStop"];

/// The tool car's MCP handlers call.
const TOOL: &str = "hook";

/// The payload fields every Claude Code hook event carries, and those of each event car reads.
const COMMON_FIELDS: [&str; 5] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "permission_mode",
];

fn event_fields(event: &str) -> &'static [&'static str] {
    match event {
        "PreToolUse" => &["tool_name", "tool_input", "tool_use_id"],
        "PostToolUse" => &["tool_name", "tool_input", "tool_response", "tool_use_id"],
        "Stop" | "SubagentStop" => &["stop_hook_active", "last_assistant_message"],
        "SessionStart" => &["source"],
        "SessionEnd" => &["reason"],
        _ => &[],
    }
}

/// Whether the agent runs hooks through an MCP server.
pub(crate) fn is_supported(agent: Agent) -> bool {
    agent.spec().runs_mcp_tool_hooks
}

/// `entries` (car's command handlers, event by event) with every handler a call into car's
/// MCP server instead.
pub(crate) fn through_server(agent: Agent, entries: &Map<String, Value>) -> Map<String, Value> {
    let mut converted = entries.clone();
    for (event, groups) in converted.iter_mut() {
        if !THROUGH_SERVER_EVENTS.contains(&event.as_str()) {
            continue;
        }
        for group in groups.as_array_mut().into_iter().flatten() {
            for handler in group
                .get_mut("hooks")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                *handler = mcp_handler(agent, event, handler);
            }
        }
    }
    converted
}

fn mcp_handler(agent: Agent, event: &str, handler: &Value) -> Value {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let hook = command
        .split_whitespace()
        .skip_while(|word| *word != "hook")
        .nth(1)
        .unwrap_or_default();
    let payload: Map<String, Value> = COMMON_FIELDS
        .iter()
        .chain(event_fields(event))
        .map(|field| ((*field).to_string(), json!(format!("${{{field}}}"))))
        .collect();
    let mut converted = json!({
        "type": "mcp_tool",
        "server": SERVER_NAME,
        "tool": TOOL,
        "input": {"event": hook, "agent": agent.name(), "payload": payload},
    });
    if let Some(timeout) = handler.get("timeout") {
        converted["timeout"] = timeout.clone();
    }
    converted
}

/// The command a handler stands for: its own `command`, or, for car's MCP handler, the
/// `car hook EVENT --agent AGENT` it replaces.
pub(crate) fn command_of(handler: &Value) -> Option<String> {
    if let Some(command) = handler.get("command").and_then(Value::as_str) {
        return Some(command.to_string());
    }
    is_car_mcp_handler(handler).then(|| {
        let input = &handler["input"];
        let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or_default();
        format!("car hook {} --agent {}", text("event"), text("agent"))
    })
}

/// Whether a handler is car's call into its MCP server.
pub(crate) fn is_car_mcp_handler(handler: &Value) -> bool {
    handler.get("type").and_then(Value::as_str) == Some("mcp_tool")
        && handler.get("server").and_then(Value::as_str) == Some(SERVER_NAME)
        && handler.get("tool").and_then(Value::as_str) == Some(TOOL)
}

/// How car's hooks in a hook file reach car now (command when none is car's MCP handler).
pub(crate) fn transport_of(document: &Map<String, Value>) -> HookTransport {
    let Some(Value::Object(hooks)) = document.get("hooks") else {
        return HookTransport::Command;
    };
    let any_mcp = hooks
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .any(is_car_mcp_handler);
    if any_mcp {
        HookTransport::Mcp
    } else {
        HookTransport::Command
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn every_command_handler_becomes_a_call_of_the_hook_tool() {
        let entries = Agent::Claude.entries(&Settings::default());
        let converted = through_server(Agent::Claude, &entries);
        assert_eq!(
            converted.keys().collect::<Vec<_>>(),
            entries.keys().collect::<Vec<_>>()
        );
        let post = &converted["PostToolUse"][0];
        assert_eq!(post["matcher"], entries["PostToolUse"][0]["matcher"]);
        let handler = &post["hooks"][0];
        assert_eq!(handler["type"], "mcp_tool");
        assert_eq!(handler["server"], "car");
        assert_eq!(handler["tool"], "hook");
        assert_eq!(
            handler["timeout"],
            entries["PostToolUse"][0]["hooks"][0]["timeout"]
        );
        assert_eq!(handler["input"]["event"], "post-tool-use");
        assert_eq!(handler["input"]["agent"], "claude");
        assert_eq!(handler["input"]["payload"]["tool_input"], "${tool_input}");
        assert_eq!(
            handler["input"]["payload"]["tool_response"],
            "${tool_response}"
        );
        assert_eq!(
            converted["SubagentStop"][0]["hooks"][0]["input"]["payload"]["stop_hook_active"],
            "${stop_hook_active}"
        );
        for event in ["SessionStart", "SessionEnd"] {
            assert_eq!(
                converted[event], entries[event],
                "{event} stays a command hook"
            );
        }
        assert_eq!(
            command_of(handler).as_deref(),
            Some("car hook post-tool-use --agent claude")
        );
        let mut document = Map::new();
        document.insert("hooks".into(), Value::Object(converted));
        assert_eq!(transport_of(&document), HookTransport::Mcp);
        document.insert("hooks".into(), Value::Object(entries));
        assert_eq!(transport_of(&document), HookTransport::Command);
        assert!(!is_car_mcp_handler(
            &json!({"type": "mcp_tool", "server": "github", "tool": "hook"})
        ));
    }
}
