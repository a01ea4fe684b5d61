//! Codex CLI: everything car knows about it.
//! - Install: `.codex/hooks.json`, the Claude shape (`{"hooks": {event: [groups]}}`) and nothing
//!   else at the top (no `version`: Codex refuses unknown top-level keys), timeouts in seconds.
//! - Payload: file edits arrive as `apply_patch` with the patch envelope in
//!   `tool_input.command` (`Edit` and `Write` are its aliases in newer builds), `tool_response` a
//!   string; shell commands as `Bash` (`shell`, `exec_command` and `local_shell` are aliases; the
//!   command a string or an argv list); every payload carries a `turn_id`.
//! - Answer: Claude Code's shape. A Stop answer is checked against a closed schema (only
//!   `decision`, `reason`, `systemMessage`, … pass).
//! - Transcript: the rollout JSONL, `{"type": "response_item", "payload": {"type": "message",
//!   "role": "assistant", "content": [{"type": "output_text", …}]}}`.

use serde_json::{Map, Value, json};

use super::answer::{HookEvent, decision_shaped};
use super::payload::{RawPayload, StopFacts, ToolCall, ToolUse, text};
use super::{
    Agent, POST_TOOL_USE_TIMEOUT, PRE_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, SESSION_START_TIMEOUT,
    group, hook_command,
};
use crate::answer::Answer;

/// A matcher of plain names is an exact list in Codex. `Bash` is its shell tool (`shell`,
/// `exec_command` and `local_shell` are aliases): what the agent changes with its own commands is
/// its work, never a person's correction.
const EDIT_MATCHER: &str = "apply_patch|Edit|Write|Bash";

/// The edit tools, whose result PreToolUse can know before they run.
const WRITE_MATCHER: &str = "apply_patch|Edit|Write";

pub(super) fn entries(stop_timeout: u64) -> Map<String, Value> {
    let handler = |event: &str, timeout: u64| json!({"type": "command", "command": hook_command(event, Agent::Codex), "timeout": timeout});
    let mut entries = Map::new();
    entries.insert(
        "PreToolUse".into(),
        json!([group(
            Some(WRITE_MATCHER),
            handler("pre-tool-use", PRE_TOOL_USE_TIMEOUT)
        )]),
    );
    entries.insert(
        "PostToolUse".into(),
        json!([group(
            Some(EDIT_MATCHER),
            handler("post-tool-use", POST_TOOL_USE_TIMEOUT)
        )]),
    );
    entries.insert(
        "Stop".into(),
        json!([group(None, handler("stop", stop_timeout))]),
    );
    entries.insert(
        "SessionStart".into(),
        json!([group(None, handler("session-start", SESSION_START_TIMEOUT))]),
    );
    entries.insert(
        "SessionEnd".into(),
        json!([group(None, handler("session-end", SESSION_END_TIMEOUT))]),
    );
    entries
}

pub(super) fn tool_use(raw: &RawPayload) -> ToolUse {
    let name = raw.tool_name.clone().unwrap_or_default();
    let patch = text(&raw.tool_input, "command").or_else(|| text(&raw.tool_input, "patch"));
    let call = match name.as_str() {
        "apply_patch" => ToolCall::Patch {
            text: patch.unwrap_or_default(),
        },
        // The aliases: a patch envelope when they carry one, else Claude Code's fields (what
        // they send has not been captured yet).
        "Edit" | "Write" => match patch {
            Some(text) if text.trim_start().starts_with("*** Begin Patch") => {
                ToolCall::Patch { text }
            }
            _ if name == "Write" => super::claude::write_call(raw),
            _ => super::claude::replace_call(raw),
        },
        "Bash" | "shell" | "exec_command" | "local_shell" => super::payload::shell_call(raw),
        _ => ToolCall::Other,
    };
    ToolUse { name, call }
}

pub(super) fn stop_facts(raw: &RawPayload) -> StopFacts {
    StopFacts::of(raw, raw.last_assistant_message.clone())
}

pub(super) fn answer(answer: &Answer, event: HookEvent) -> Value {
    decision_shaped(answer, event, &super::claude::WORDS)
}

/// The assistant text of one rollout line; a line in Claude Code's shape is read too (older
/// builds, and what car read before it knew the rollout format).
pub(super) fn assistant_text(line: &Value) -> Option<String> {
    if line.get("type").and_then(Value::as_str) != Some("response_item") {
        return super::claude::assistant_text(line);
    }
    let item = line.get("payload")?;
    let is_assistant_message = item.get("type").and_then(Value::as_str) == Some("message")
        && item.get("role").and_then(Value::as_str) == Some("assistant");
    if !is_assistant_message {
        return None;
    }
    super::transcript::content_text(item.get("content")?, "output_text")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Codex plugin's `hooks/codex-hooks.json` wires the same events, matchers and timeouts as
    /// `car install --agent codex`, through the runner that finds car (`PLUGIN_ROOT` is the
    /// plugin's folder in a Codex plugin hook's environment).
    #[test]
    fn the_plugin_file_matches_the_installed_wiring() {
        crate::agents::assert_plugin_file_matches(
            include_str!("../../hooks/codex-hooks.json"),
            &entries(360),
            "PLUGIN_ROOT",
        );
    }

    #[test]
    fn rollout_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rollout.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Which option do you prefer?"}]}}"#,
                "\n",
                r#"{"type":"response_item","payload":{"type":"function_call","name":"shell"}}"#,
                "\n",
                r#"{"type":"event_msg","payload":{"type":"token_count"}}"#,
                "\n"
            ),
        )
        .unwrap();
        assert_eq!(
            Agent::Codex.transcript_last_text(&path).as_deref(),
            Some("Which option do you prefer?")
        );
    }
}
