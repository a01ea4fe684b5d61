//! Claude Code: everything car knows about it.
//! - Install: `.claude/settings.json` (shared with every other setting), groups of handlers per
//!   event, timeouts in seconds. The same wiring ships as the plugin's `hooks/hooks.json`.
//! - Payload: `Write` / `Edit` / `MultiEdit` / `NotebookEdit` with `tool_input` and a
//!   `tool_response` that carries `structuredPatch` and `originalFile`; `Bash` with
//!   `duration_ms`; `Read` (`file_path`), a read; `SubagentStop` for a subagent's stop.
//! - Answer: `decision: block` + `reason`, `hookSpecificOutput.additionalContext`,
//!   `systemMessage`.
//! - Transcript: JSONL lines `{"type": "assistant", "message": {"content": [{"type": "text", …}]}}`.
//!
//! The data is its [`SPEC`]; the code here reads Claude Code's own fields (a write, a
//! replacement, a notebook cell), which Codex's aliases and Gemini CLI's edit tools carry too,
//! and a line of its transcript.

use serde_json::Value;

use super::answer::{AnswerShape, DecisionWords, DenyShape, HookEvent};
use super::mcp_server::McpFormat;
use super::payload::{Previous, RawPayload, StopFields, ToolCall, text};
use super::spec::{
    AgentSpec, HandlerShape, HookFile, HookSpec, Matcher, McpFile, TimeoutUnit, Tool, ToolKind,
};
use crate::edit::Hunk;

/// The tools whose edits car checks, and Bash: what the agent changes with its own shell commands is
/// its work, not a person's correction (lessons from corrections, docs/lessons.md); and Read, whose
/// answer brings the lessons of the file before the agent's first edit of it
/// (docs/before-the-edit.md), unless `editBriefing` is off ([`EDIT_MATCHER_NO_READS`]).
const EDIT_MATCHER: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash|Read";

/// [`EDIT_MATCHER`] without reads: with `editBriefing: false` a read would start car for nothing.
const EDIT_MATCHER_NO_READS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash";

/// The tools whose result PreToolUse can know before they run.
const WRITE_MATCHER: &str = "Write|Edit|MultiEdit";

/// Claude Code's tools (Cursor's hand-written payloads are read with them too).
pub(super) const TOOLS: &[Tool] = &[
    Tool::new("Write", ToolKind::Write),
    Tool::new("Edit", ToolKind::Replace),
    Tool::new("MultiEdit", ToolKind::Replace),
    Tool::new("NotebookEdit", ToolKind::NotebookCell),
    Tool::new("Bash", ToolKind::Shell),
    Tool::new("Read", ToolKind::Read(&["file_path"])),
];

pub(super) const SPEC: AgentSpec = AgentSpec {
    name: "claude",
    title: "Claude Code",
    hook_file: HookFile {
        path: ".claude/settings.json",
        is_hooks_only: false,
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
            Matcher::WithReads {
                with_reads: EDIT_MATCHER,
                without_reads: EDIT_MATCHER_NO_READS,
            },
        ),
        HookSpec::every("Stop", HookEvent::Stop),
        HookSpec::every("SubagentStop", HookEvent::Stop),
        HookSpec::every("SessionStart", HookEvent::SessionStart),
        HookSpec::every("SessionEnd", HookEvent::SessionEnd),
    ],
    tools: TOOLS,
    own_payload: None,
    complete_edit: None,
    stop: StopFields {
        subagent_event: Some("SubagentStop"),
        ..StopFields::SHARED
    },
    answer: AnswerShape::Decision(WORDS),
    assistant_text,
    trust_hint: None,
    mcp: Some(McpFile {
        path: ".mcp.json",
        format: McpFormat::Json,
    }),
    runs_mcp_tool_hooks: true,
};

/// A whole-file write: `originalFile` says what it replaced (`null` or `type: create`: nothing).
pub(super) fn write_call(raw: &RawPayload) -> ToolCall {
    let (input, response) = (&raw.tool_input, &raw.tool_response);
    let Some(path) = text(input, "file_path").or_else(|| text(response, "filePath")) else {
        return ToolCall::Other;
    };
    let before = match response.get("originalFile") {
        Some(Value::String(original)) => Previous::Known(Some(original.clone())),
        Some(Value::Null) => Previous::Known(None),
        _ if text(response, "type").as_deref() == Some("create") => Previous::Known(None),
        _ => Previous::Unknown,
    };
    ToolCall::Write {
        path,
        before,
        content: text(input, "content"),
    }
}

/// An edit of strings in one file, with Claude Code's own diff of it when the response has one.
pub(super) fn replace_call(raw: &RawPayload) -> ToolCall {
    let (input, response) = (&raw.tool_input, &raw.tool_response);
    let Some(path) = text(input, "file_path").or_else(|| text(response, "filePath")) else {
        return ToolCall::Other;
    };
    ToolCall::Replace {
        path,
        original: text(response, "originalFile").or_else(|| text(response, "originalFileContents")),
        hunks: structured_patch(response),
        replacements: super::payload::replacements(input),
    }
}

pub(super) fn notebook_call(raw: &RawPayload) -> ToolCall {
    let (input, response) = (&raw.tool_input, &raw.tool_response);
    let Some(path) = text(input, "notebook_path") else {
        return ToolCall::Other;
    };
    let cell_type = text(input, "cell_type").or_else(|| text(response, "cell_type"));
    let language = match cell_type.as_deref() {
        Some("markdown") => "markdown".to_string(),
        _ => text(response, "language").unwrap_or_else(|| "python".to_string()),
    };
    ToolCall::NotebookCell {
        path,
        source: text(input, "new_source").unwrap_or_default(),
        language,
        is_delete: text(input, "edit_mode").as_deref() == Some("delete"),
        cell: text(input, "cell_id")
            .or_else(|| text(response, "cell_id"))
            .or_else(|| {
                input
                    .get("cell_number")
                    .and_then(Value::as_u64)
                    .map(|n| n.to_string())
            }),
    }
}

/// `tool_response.structuredPatch`: the hunks of the edit as Claude Code applied it.
fn structured_patch(response: &Value) -> Vec<Hunk> {
    let Some(hunks) = response.get("structuredPatch").and_then(Value::as_array) else {
        return Vec::new();
    };
    hunks
        .iter()
        .filter_map(|hunk| {
            Some(Hunk {
                new_start: hunk.get("newStart")?.as_u64()? as usize,
                lines: hunk
                    .get("lines")?
                    .as_array()?
                    .iter()
                    .filter_map(|line| line.as_str().map(String::from))
                    .collect(),
            })
        })
        .collect()
}

/// Claude Code's words (Codex reads the same).
pub(super) const WORDS: DecisionWords = DecisionWords {
    block: "block",
    context_event: "PostToolUse",
    deny_before_tool: DenyShape::PermissionDecision,
    context_before_tool: true,
};

/// The assistant text of one transcript line: `{"type": "assistant", "message": {"content": …}}`
/// (or a bare `{"role": "assistant", "content": …}` message).
pub(super) fn assistant_text(line: &Value) -> Option<String> {
    let message = line.get("message").unwrap_or(line);
    let role = line
        .get("type")
        .or_else(|| message.get("role"))
        .and_then(Value::as_str)?;
    if role != "assistant" {
        return None;
    }
    super::transcript::content_text(message.get("content")?, "text")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agents::Agent;
    use crate::answer::Answer;
    use crate::settings::Settings;

    fn answer(answer: &Answer, event: HookEvent) -> Value {
        SPEC.answer.shape(answer, event)
    }

    /// The plugin's `hooks/hooks.json` wires the same events, matcher and timeouts as
    /// `car install`, through the runner that says when the binary is missing.
    #[test]
    fn the_plugin_file_matches_the_installed_wiring() {
        crate::agents::assert_plugin_file_matches(
            include_str!("../../hooks/hooks.json"),
            &Agent::Claude.entries(&Settings {
                reviewer_timeout_seconds: 300,
                edit_briefing: true,
                ..Settings::default()
            }),
            "CLAUDE_PLUGIN_ROOT",
        );
    }

    #[test]
    fn answer_shapes() {
        assert_eq!(
            answer(&Answer::allow(), HookEvent::PostToolUse).to_string(),
            "{}"
        );
        assert_eq!(
            answer(&Answer::block("a.py:1:1: bad"), HookEvent::PostToolUse),
            json!({"decision":"block","reason":"a.py:1:1: bad"})
        );
        let warn = Answer {
            additional_context: Some("⚠️ lesson".into()),
            ..Answer::default()
        };
        assert_eq!(
            answer(&warn, HookEvent::PostToolUse),
            json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"⚠️ lesson"}})
        );
        // A write let through with the lessons of its file: context, no permission decision.
        assert_eq!(
            answer(&warn, HookEvent::PreToolUse),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"⚠️ lesson"}})
        );
    }

    #[test]
    fn transcript_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
                "\n",
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Want me to continue?"}]}}"#,
                "\n",
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Read"}]}}"#,
                "\n{\"torn"
            ),
        )
        .unwrap();
        assert_eq!(
            Agent::Claude.transcript_last_text(&path).as_deref(),
            Some("Want me to continue?")
        );
        assert_eq!(
            Agent::Claude.transcript_last_text(&dir.path().join("missing")),
            None
        );
    }
}
