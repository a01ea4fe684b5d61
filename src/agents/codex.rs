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
//!
//! The data is its [`SPEC`]; the code here reads a line of its rollout.

use serde_json::Value;

use super::answer::{AnswerShape, HookEvent};
use super::mcp_server::McpFormat;
use super::payload::StopFields;
use super::spec::{
    AgentSpec, HandlerShape, HookFile, HookSpec, Matcher, McpFile, TimeoutUnit, Tool, ToolKind,
};

/// A matcher of plain names is an exact list in Codex. `Bash` is its shell tool (`shell`,
/// `exec_command` and `local_shell` are aliases): what the agent changes with its own commands is
/// its work, never a person's correction.
const EDIT_MATCHER: &str = "apply_patch|Edit|Write|Bash";

/// The edit tools, whose result PreToolUse can know before they run.
const WRITE_MATCHER: &str = "apply_patch|Edit|Write";

pub(super) const SPEC: AgentSpec = AgentSpec {
    name: "codex",
    title: "Codex CLI",
    hook_file: HookFile {
        path: ".codex/hooks.json",
        is_hooks_only: true,
        required_keys: &[],
        timeout_unit: TimeoutUnit::Seconds,
        handler_shape: HandlerShape::Group,
    },
    hooks: &[
        HookSpec::matching(
            "PreToolUse",
            HookEvent::PreToolUse,
            Matcher::Tools(WRITE_MATCHER),
        ),
        HookSpec::matching(
            "PostToolUse",
            HookEvent::PostToolUse,
            Matcher::Tools(EDIT_MATCHER),
        ),
        HookSpec::every("Stop", HookEvent::Stop),
        HookSpec::every("SessionStart", HookEvent::SessionStart),
        HookSpec::every("SessionEnd", HookEvent::SessionEnd),
    ],
    tools: &[
        Tool::new("apply_patch", ToolKind::Patch),
        // The aliases: a patch envelope when they carry one, else Claude Code's fields (what
        // they send has not been captured yet).
        Tool::new("Edit", ToolKind::PatchOrReplace),
        Tool::new("Write", ToolKind::PatchOrWrite),
        Tool::new("Bash", ToolKind::Shell),
        Tool::new("shell", ToolKind::Shell),
        Tool::new("exec_command", ToolKind::Shell),
        Tool::new("local_shell", ToolKind::Shell),
    ],
    own_payload: None,
    complete_edit: None,
    stop: StopFields::SHARED,
    answer: AnswerShape::Decision(super::claude::WORDS),
    assistant_text,
    // Codex's trust is read from its own records: [`super::codex_trust`].
    trust_hint: None,
    mcp: Some(McpFile {
        path: ".codex/config.toml",
        format: McpFormat::Toml,
    }),
    runs_mcp_tool_hooks: false,
};

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
    use crate::agents::Agent;
    use crate::settings::Settings;

    /// The Codex plugin's `hooks/codex-hooks.json` wires the same events, matchers and timeouts as
    /// `car install --agent codex`, through the runner that finds car (`PLUGIN_ROOT` is the
    /// plugin's folder in a Codex plugin hook's environment).
    #[test]
    fn the_plugin_file_matches_the_installed_wiring() {
        crate::agents::assert_plugin_file_matches(
            include_str!("../../hooks/codex-hooks.json"),
            &Agent::Codex.entries(&Settings {
                reviewer_timeout_seconds: 300,
                ..Settings::default()
            }),
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
