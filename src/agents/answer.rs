//! The answer shapes the agents share: an [`Answer`] becomes the JSON object one agent's hook
//! protocol reads on stdout. Each agent's file picks its shape and its words; `output` prints it.
//!
//! Invariant: `hookSpecificOutput` is only ever sent before and after an edit and at a session's
//! start (the briefing, which Claude Code, Codex and Gemini CLI all put before the model). Codex validates a
//! Stop answer against a closed schema and fails the hook on any other field, and no agent reads
//! extra context at a stop or session end; there, context becomes part of the human message.

use serde_json::{Map, Value, json};

use crate::answer::Answer;

/// Which hook event an answer answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookEvent {
    PreToolUse,
    PostToolUse,
    Stop,
    SessionEnd,
    SessionStart,
}

impl HookEvent {
    /// The event `car hook NAME` answers (`post-tool-use`, `stop`, …).
    pub(crate) fn from_command_name(name: &str) -> Option<HookEvent> {
        Some(match name {
            "pre-tool-use" => HookEvent::PreToolUse,
            "post-tool-use" => HookEvent::PostToolUse,
            "stop" => HookEvent::Stop,
            "session-end" => HookEvent::SessionEnd,
            "session-start" => HookEvent::SessionStart,
            _ => return None,
        })
    }
}

/// The words of the Claude-style shape (`decision`/`reason`, `hookSpecificOutput`,
/// `systemMessage`) that Claude Code, Codex and Gemini CLI share.
pub(super) struct DecisionWords {
    /// The `decision` that makes the agent look (`block`, Gemini's `deny`).
    pub(super) block: &'static str,
    /// The `hookEventName` of context after an edit.
    pub(super) context_event: &'static str,
    /// How a write is stopped before the tool runs: Claude Code's and Codex's
    /// `hookSpecificOutput.permissionDecision: deny`, or Gemini CLI's `decision: deny`.
    pub(super) deny_before_tool: DenyShape,
    /// Whether context before the tool runs (`hookSpecificOutput.additionalContext` with
    /// `hookEventName: PreToolUse` and no `permissionDecision`) reaches the model: Claude Code's
    /// and Codex's PreToolUse pass it on; Gemini CLI 0.61's BeforeTool reads no context at all.
    pub(super) context_before_tool: bool,
}

/// The shape of a stop before the tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DenyShape {
    /// `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
    /// "permissionDecisionReason": …}}`.
    PermissionDecision,
    /// `{"decision": <block word>, "reason": …}`.
    Decision,
}

/// The Claude-style answer in the agent's own words.
pub(super) fn decision_shaped(answer: &Answer, event: HookEvent, words: &DecisionWords) -> Value {
    let mut object = Map::new();
    if let Some(reason) = &answer.block_reason
        && event == HookEvent::PreToolUse
        && words.deny_before_tool == DenyShape::PermissionDecision
    {
        object.insert(
            "hookSpecificOutput".into(),
            json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}),
        );
    } else if let Some(reason) = &answer.block_reason {
        object.insert("decision".into(), json!(words.block));
        object.insert("reason".into(), json!(reason));
    } else if let Some(context) = &answer.additional_context {
        let event_name = match event {
            HookEvent::PostToolUse => Some(words.context_event),
            HookEvent::SessionStart => Some("SessionStart"),
            // No `permissionDecision`: an allowed write is left to the client's own permission
            // flow (Codex 0.171 reports `allow` as unsupported).
            HookEvent::PreToolUse if words.context_before_tool => Some("PreToolUse"),
            HookEvent::PreToolUse | HookEvent::Stop | HookEvent::SessionEnd => None,
        };
        if let Some(event_name) = event_name {
            object.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": event_name, "additionalContext": context}),
            );
        }
    }
    if let Some(message) = message_for_people(answer, event, words) {
        object.insert("systemMessage".into(), json!(message));
    }
    Value::Object(object)
}

/// The line for the person: the answer's own, plus context no agent reads at this event.
fn message_for_people(answer: &Answer, event: HookEvent, words: &DecisionWords) -> Option<String> {
    let model_reads_it = match event {
        HookEvent::PostToolUse | HookEvent::SessionStart => true,
        HookEvent::PreToolUse => words.context_before_tool,
        HookEvent::Stop | HookEvent::SessionEnd => false,
    };
    let context_for_people = answer
        .additional_context
        .as_ref()
        .filter(|_| !model_reads_it && answer.block_reason.is_none());
    match (&answer.system_message, context_for_people) {
        (Some(message), Some(context)) => Some(format!("{message}\n{context}")),
        (Some(message), None) => Some(message.clone()),
        (None, context) => context.cloned(),
    }
}
