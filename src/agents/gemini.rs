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

use serde_json::{Map, Value, json};

use super::answer::{DecisionWords, DenyShape, HookEvent, decision_shaped};
use super::payload::{Previous, RawPayload, StopFacts, ToolCall, ToolUse};
use super::{
    Agent, POST_TOOL_USE_TIMEOUT, PRE_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, SESSION_START_TIMEOUT,
    group, hook_command,
};
use crate::answer::Answer;

/// The edit tools, and `run_shell_command`: what the agent changes with its own commands is its
/// work, never a person's correction; and `read_file`, whose answer brings the lessons of the file
/// before the agent's first edit of it (docs/before-the-edit.md).
const EDIT_MATCHER: &str = "^(write_file|replace|run_shell_command|read_file)$";

/// [`EDIT_MATCHER`] without reads: with `editBriefing: false` a read would start car for nothing.
const EDIT_MATCHER_NO_READS: &str = "^(write_file|replace|run_shell_command)$";

/// The edit tools, whose result BeforeTool can know before they run.
const WRITE_MATCHER: &str = "^(write_file|replace)$";

/// car's hooks; `reads`: whether AfterTool runs on `read_file` too (`editBriefing`).
pub(super) fn entries(stop_timeout: u64, reads: bool) -> Map<String, Value> {
    let handler = |name: &str, event: &str, seconds: u64| json!({"name": name, "type": "command", "command": hook_command(event, Agent::Gemini), "timeout": seconds.saturating_mul(1000)});
    let mut entries = Map::new();
    entries.insert(
        "BeforeTool".into(),
        json!([group(
            Some(WRITE_MATCHER),
            handler("car-pre-tool-use", "pre-tool-use", PRE_TOOL_USE_TIMEOUT)
        )]),
    );
    entries.insert(
        "AfterTool".into(),
        json!([group(
            Some(if reads {
                EDIT_MATCHER
            } else {
                EDIT_MATCHER_NO_READS
            }),
            handler("car-post-tool-use", "post-tool-use", POST_TOOL_USE_TIMEOUT)
        )]),
    );
    entries.insert(
        "AfterAgent".into(),
        json!([group(None, handler("car-stop", "stop", stop_timeout))]),
    );
    entries.insert(
        "SessionStart".into(),
        json!([group(
            None,
            handler("car-session-start", "session-start", SESSION_START_TIMEOUT)
        )]),
    );
    entries.insert(
        "SessionEnd".into(),
        json!([group(
            None,
            handler("car-session-end", "session-end", SESSION_END_TIMEOUT)
        )]),
    );
    entries
}

pub(super) fn tool_use(raw: &RawPayload) -> ToolUse {
    let name = raw.tool_name.clone().unwrap_or_default();
    // Its edit tools carry Claude Code's field names.
    let call = match name.as_str() {
        "write_file" => with_found_content(super::claude::write_call(raw), raw),
        "replace" => with_found_content(super::claude::replace_call(raw), raw),
        "run_shell_command" => super::payload::shell_call(raw),
        // `absolute_path`: its name in Gemini CLI builds before `file_path`.
        "read_file" => super::payload::read_call(raw, &["file_path", "absolute_path"]),
        _ => ToolCall::Other,
    };
    ToolUse { name, call }
}

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

pub(super) fn stop_facts(raw: &RawPayload) -> StopFacts {
    let last_message = raw.last_assistant_message.clone();
    StopFacts::of(raw, last_message.or_else(|| raw.prompt_response.clone()))
}

pub(super) const WORDS: DecisionWords = DecisionWords {
    block: "deny",
    context_event: "AfterTool",
    deny_before_tool: DenyShape::Decision,
    // BeforeTool's output class reads a deny, a stop and new tool input, never context (0.61).
    context_before_tool: false,
};

pub(super) fn answer(answer: &Answer, event: HookEvent) -> Value {
    decision_shaped(answer, event, &WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

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
