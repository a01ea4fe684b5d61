//! Gemini CLI: everything car knows about it.
//! - Install: `.gemini/settings.json` (shared with every other setting), the Claude shape with
//!   Gemini's events (`AfterTool`, `AfterAgent`, `SessionStart`, `SessionEnd`), a `name` per hook (for
//!   `/hooks enable|disable`), timeouts in **milliseconds**. The matcher is a regular expression
//!   over tool names, anchored so that MCP tools whose names contain `replace` do not match.
//! - Payload: `write_file` and `replace` (`file_path`, `old_string`/`new_string`, `instruction`;
//!   no `expected_replacements`), `run_shell_command`, `read_file` (`file_path`, a read);
//!   AfterAgent's final answer is `prompt_response`. The edit tools' `tool_response.returnDisplay`
//!   is an object that holds the file as the tool found it (`originalContent`, `isNewFile`): car
//!   diffs against that, as it does against Claude Code's `originalFile`.
//! - Answer: the Claude shape with `decision: deny` and `hookEventName: AfterTool`.
//! - Transcript: read in Claude Code's shape, as before (Gemini always sends `prompt_response`).
//!
//! The data is its [`SPEC`]; the code here reads what its edit tools say of the file as they
//! found it.

use serde_json::Value;

use super::answer::{AnswerShape, DecisionWords, DenyShape, HookEvent};
use super::mcp_server::McpFormat;
use super::payload::{Previous, RawPayload, StopFields, ToolCall};
use super::spec::{
    AgentSpec, HandlerShape, HookFile, HookSpec, Matcher, McpFile, TimeoutUnit, Tool, ToolKind,
};

/// The edit tools, and `run_shell_command`: what the agent changes with its own commands is its
/// work, never a person's correction; and `read_file`, whose answer brings the lessons of the file
/// before the agent's first edit of it (docs/before-the-edit.md).
const EDIT_MATCHER: &str = "^(write_file|replace|run_shell_command|read_file)$";

/// [`EDIT_MATCHER`] without reads: with `editBriefing: false` a read would start car for nothing.
const EDIT_MATCHER_NO_READS: &str = "^(write_file|replace|run_shell_command)$";

/// The edit tools, whose result BeforeTool can know before they run.
const WRITE_MATCHER: &str = "^(write_file|replace)$";

pub(super) const SPEC: AgentSpec = AgentSpec {
    name: "gemini",
    title: "Gemini CLI",
    hook_file: HookFile {
        path: ".gemini/settings.json",
        is_hooks_only: false,
        required_keys: &[],
        timeout_unit: TimeoutUnit::Milliseconds,
        handler_shape: HandlerShape::NamedGroup,
    },
    hooks: &[
        HookSpec::matching(
            "BeforeTool",
            HookEvent::PreToolUse,
            Matcher::Tools(WRITE_MATCHER),
        ),
        HookSpec::matching(
            "AfterTool",
            HookEvent::PostToolUse,
            Matcher::WithReads {
                with_reads: EDIT_MATCHER,
                without_reads: EDIT_MATCHER_NO_READS,
            },
        ),
        HookSpec::every("AfterAgent", HookEvent::Stop),
        HookSpec::every("SessionStart", HookEvent::SessionStart),
        HookSpec::every("SessionEnd", HookEvent::SessionEnd),
    ],
    // Its edit tools carry Claude Code's field names.
    tools: &[
        Tool::new("write_file", ToolKind::Write),
        Tool::new("replace", ToolKind::Replace),
        Tool::new("run_shell_command", ToolKind::Shell),
        // `absolute_path`: its name in Gemini CLI builds before `file_path`.
        Tool::new("read_file", ToolKind::Read(&["file_path", "absolute_path"])),
    ],
    own_payload: None,
    complete_edit: Some(with_found_content),
    stop: StopFields {
        reads_prompt_response: true,
        ..StopFields::SHARED
    },
    answer: AnswerShape::Decision(WORDS),
    // Gemini CLI always sends `prompt_response`; its transcript is read in Claude Code's shape,
    // as before car knew the agent.
    assistant_text: super::claude::assistant_text,
    trust_hint: Some(
        "Gemini CLI runs project hooks only in a trusted folder (trust it when Gemini asks, or in ~/.gemini/trustedFolders.json); there it takes new project hooks with a printed warning, without asking",
    ),
    // The file its hooks are in.
    mcp: Some(McpFile {
        path: ".gemini/settings.json",
        format: McpFormat::Json,
    }),
    runs_mcp_tool_hooks: false,
};

/// The edit with the file as the tool found it, where the payload says it and the Claude Code
/// fields did not: without it a write is diffed against git HEAD, and a person's uncommitted
/// lines would pass for the agent's.
fn with_found_content(call: ToolCall, raw: &RawPayload) -> ToolCall {
    let found = found_content(&raw.tool_response);
    match (call, found) {
        (
            ToolCall::Write {
                path,
                before: Previous::Unknown,
                content,
            },
            Previous::Known(before),
        ) => ToolCall::Write {
            path,
            before: Previous::Known(before),
            content,
        },
        (
            ToolCall::Replace {
                path,
                original: None,
                hunks,
                replacements,
            },
            Previous::Known(original),
        ) => ToolCall::Replace {
            path,
            original,
            hunks,
            replacements,
        },
        (call, _) => call,
    }
}

/// `tool_response.returnDisplay` of `write_file` / `replace` (Gemini CLI 0.61): `isNewFile`, else
/// `originalContent`. An older build's plain-text `returnDisplay` says nothing.
fn found_content(response: &Value) -> Previous {
    let Some(display) = response
        .get("returnDisplay")
        .filter(|display| display.is_object())
    else {
        return Previous::Unknown;
    };
    if display.get("isNewFile").and_then(Value::as_bool) == Some(true) {
        return Previous::Known(None);
    }
    match display.get("originalContent") {
        Some(Value::String(original)) => Previous::Known(Some(original.clone())),
        _ => Previous::Unknown,
    }
}

const WORDS: DecisionWords = DecisionWords {
    block: "deny",
    context_event: "AfterTool",
    deny_before_tool: DenyShape::Decision,
    // BeforeTool's output class reads a deny, a stop and new tool input, never context (0.61).
    context_before_tool: false,
};

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::answer::Answer;

    fn answer(answer: &Answer, event: HookEvent) -> Value {
        SPEC.answer.shape(answer, event)
    }

    #[test]
    fn answer_shapes() {
        assert_eq!(
            answer(&Answer::block("review first"), HookEvent::PostToolUse),
            json!({"decision":"deny","reason":"review first"})
        );
        let warn = Answer {
            additional_context: Some("⚠️ lesson".into()),
            ..Answer::default()
        };
        assert_eq!(
            answer(&warn, HookEvent::PostToolUse)["hookSpecificOutput"]["hookEventName"],
            "AfterTool"
        );
        // BeforeTool reads no context: what would be context goes to the person alone.
        assert_eq!(
            answer(&warn, HookEvent::PreToolUse),
            json!({"systemMessage":"⚠️ lesson"})
        );
    }

    /// Gemini CLI 0.61's returnDisplay object tells the file as the tool found it; an older
    /// build's plain text, or an object without the content, says nothing.
    #[test]
    fn found_content_from_return_display() {
        let display = |value: Value| json!({"llmContent": "ok", "returnDisplay": value});
        assert_eq!(
            found_content(&display(
                json!({"originalContent": "a\n", "isNewFile": false})
            )),
            Previous::Known(Some("a\n".into()))
        );
        assert_eq!(
            found_content(&display(json!({"originalContent": "", "isNewFile": true}))),
            Previous::Known(None)
        );
        assert_eq!(
            found_content(&display(json!("Successfully modified file"))),
            Previous::Unknown
        );
        assert_eq!(
            found_content(&display(json!({"fileName": "app.py"}))),
            Previous::Unknown
        );
        assert_eq!(found_content(&json!("")), Previous::Unknown);
    }
}
