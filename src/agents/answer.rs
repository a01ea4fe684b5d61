//! The answer shapes the agents share: an [`Answer`] becomes the JSON object one agent's hook
//! protocol reads on stdout. Each agent's spec picks its shape and its words ([`AnswerShape`]);
//! `output` prints it.
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
    const ALL: [HookEvent; 5] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::Stop,
        HookEvent::SessionEnd,
        HookEvent::SessionStart,
    ];

    /// The name of `car hook NAME` for the event (`post-tool-use`, `stop`, …).
    pub(crate) fn command_name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "pre-tool-use",
            HookEvent::PostToolUse => "post-tool-use",
            HookEvent::Stop => "stop",
            HookEvent::SessionEnd => "session-end",
            HookEvent::SessionStart => "session-start",
        }
    }

    /// The event `car hook NAME` answers.
    pub(crate) fn from_command_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL
            .into_iter()
            .find(|event| event.command_name() == name)
    }
}

/// How an agent's answers are shaped.
pub(crate) enum AnswerShape {
    /// The Claude-style shape, in the agent's words (Claude Code, Codex, Gemini CLI).
    Decision(DecisionWords),
    /// Cursor's: only a stop's block reaches the model, as the `followup_message`; its
    /// `afterFileEdit` only observes, and it shows no `systemMessage`.
    FollowUp,
}

impl AnswerShape {
    /// The answer as the JSON object the agent reads on stdout.
    pub(super) fn shape(&self, answer: &Answer, event: HookEvent) -> Value {
        match self {
            AnswerShape::Decision(words) => decision_shaped(answer, event, words),
            AnswerShape::FollowUp => follow_up(answer, event),
        }
    }

    /// The hook whose context gives the agent the lessons of a file it writes: PreToolUse where
    /// the client hands that hook's context to its model, else PostToolUse; `None` where its
    /// hooks pass no context to the model (Cursor).
    pub(super) fn file_lessons_event(&self) -> Option<HookEvent> {
        match self {
            AnswerShape::Decision(words) if words.context_before_tool => {
                Some(HookEvent::PreToolUse)
            }
            AnswerShape::Decision(_) => Some(HookEvent::PostToolUse),
            AnswerShape::FollowUp => None,
        }
    }
}

/// The words of the Claude-style shape (`decision`/`reason`, `hookSpecificOutput`,
/// `systemMessage`) that Claude Code, Codex and Gemini CLI share.
pub(crate) struct DecisionWords {
    /// The `decision` that makes the agent look (`block`, Gemini's `deny`).
    pub(crate) block: &'static str,
    /// The `hookEventName` of context after an edit.
    pub(crate) context_event: &'static str,
    /// How a write is stopped before the tool runs: Claude Code's and Codex's
    /// `hookSpecificOutput.permissionDecision: deny`, or Gemini CLI's `decision: deny`.
    pub(crate) deny_before_tool: DenyShape,
    /// Whether context before the tool runs (`hookSpecificOutput.additionalContext` with
    /// `hookEventName: PreToolUse` and no `permissionDecision`) reaches the model: Claude Code's
    /// and Codex's PreToolUse pass it on; Gemini CLI 0.61's BeforeTool reads no context at all.
    pub(crate) context_before_tool: bool,
}

/// The shape of a stop before the tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DenyShape {
    /// `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
    /// "permissionDecisionReason": …}}`.
    PermissionDecision,
    /// `{"decision": <block word>, "reason": …}`.
    Decision,
}

/// The Claude-style answer in the agent's own words.
fn decision_shaped(answer: &Answer, event: HookEvent, words: &DecisionWords) -> Value {
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

/// Cursor's answer: a stop's block as the follow-up message, nothing else.
fn follow_up(answer: &Answer, event: HookEvent) -> Value {
    let mut object = Map::new();
    if let Some(reason) = &answer.block_reason
        && event == HookEvent::Stop
    {
        object.insert("followup_message".into(), json!(reason));
    }
    Value::Object(object)
}
