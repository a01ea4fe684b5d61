//! Shapes an [`Answer`] into the JSON object each agent's hook protocol reads on stdout: Claude
//! Code (`decision`/`reason`, `hookSpecificOutput.additionalContext`, `systemMessage`), Codex (the
//! same), Gemini CLI (`decision: deny`, `AfterTool`), Cursor (`followup_message` at stop, nothing
//! after an edit: its `afterFileEdit` only observes).

use serde_json::{Map, Value, json};

use crate::answer::Answer;

/// The agent whose hook protocol a response must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

/// Which hook event a response answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookEvent {
    PostToolUse,
    Stop,
    SessionEnd,
}

/// The JSON text the agent reads on stdout.
pub(crate) fn render(answer: &Answer, agent: Agent, event: HookEvent) -> String {
    to_json(answer, agent, event).to_string()
}

pub(crate) fn to_json(answer: &Answer, agent: Agent, event: HookEvent) -> Value {
    let mut object = Map::new();
    match (agent, &answer.block_reason) {
        (Agent::Cursor, Some(reason)) if event == HookEvent::Stop => {
            object.insert("followup_message".into(), json!(reason));
        }
        // Cursor's afterFileEdit can only observe: nothing it prints changes the agent.
        (Agent::Cursor, _) => {}
        (Agent::Gemini, Some(reason)) => {
            object.insert("decision".into(), json!("deny"));
            object.insert("reason".into(), json!(reason));
        }
        (_, Some(reason)) => {
            object.insert("decision".into(), json!("block"));
            object.insert("reason".into(), json!(reason));
        }
        (_, None) => {
            if let Some(context) = &answer.additional_context {
                let event_name = match (agent, event) {
                    (Agent::Gemini, _) => "AfterTool",
                    (_, HookEvent::Stop) => "Stop",
                    (_, HookEvent::SessionEnd) => "SessionEnd",
                    (_, HookEvent::PostToolUse) => "PostToolUse",
                };
                object.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": event_name, "additionalContext": context}),
                );
            }
        }
    }
    if agent != Agent::Cursor
        && let Some(message) = &answer.system_message
    {
        object.insert("systemMessage".into(), json!(message));
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_shapes() {
        let allow = Answer::allow();
        assert_eq!(render(&allow, Agent::Claude, HookEvent::PostToolUse), "{}");
        let block = Answer::block("a.py:1:1: bad");
        assert_eq!(
            to_json(&block, Agent::Claude, HookEvent::PostToolUse),
            json!({"decision":"block","reason":"a.py:1:1: bad"})
        );
        let warn = Answer {
            additional_context: Some("⚠️ lesson".into()),
            ..Answer::default()
        };
        assert_eq!(
            to_json(&warn, Agent::Claude, HookEvent::PostToolUse),
            json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"⚠️ lesson"}})
        );
    }

    #[test]
    fn other_agents() {
        let block = Answer::block("review first");
        assert_eq!(
            to_json(&block, Agent::Cursor, HookEvent::Stop),
            json!({"followup_message":"review first"})
        );
        assert_eq!(
            to_json(&block, Agent::Gemini, HookEvent::PostToolUse),
            json!({"decision":"deny","reason":"review first"})
        );
    }
}
