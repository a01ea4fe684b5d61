//! Shapes an [`Answer`] into the JSON object each agent's hook protocol reads on stdout: Claude
//! Code (`decision`/`reason`, `hookSpecificOutput.additionalContext`, `systemMessage`), Codex (the
//! same), Gemini CLI (`decision: deny`, `AfterTool`), Cursor (`followup_message` at stop, nothing
//! after an edit: its `afterFileEdit` only observes).
//!
//! Invariant: `hookSpecificOutput` is only ever sent after an edit. Codex validates a Stop answer
//! against a closed schema and fails the hook on any other field, and no agent reads extra
//! context at a stop or session end; there, context becomes part of the human message.

use serde_json::{Map, Value, json};

use crate::answer::Answer;

pub(crate) use crate::agents::Agent;

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
            if let Some(context) = &answer.additional_context
                && event == HookEvent::PostToolUse
            {
                let event_name = if agent == Agent::Gemini {
                    "AfterTool"
                } else {
                    "PostToolUse"
                };
                object.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": event_name, "additionalContext": context}),
                );
            }
        }
    }
    let context_for_people = answer
        .additional_context
        .as_ref()
        .filter(|_| event != HookEvent::PostToolUse && answer.block_reason.is_none());
    let message = match (&answer.system_message, context_for_people) {
        (Some(message), Some(context)) => Some(format!("{message}\n{context}")),
        (Some(message), None) => Some(message.clone()),
        (None, context) => context.cloned(),
    };
    if agent != Agent::Cursor
        && let Some(message) = message
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

    /// Codex fails a Stop hook whose answer has any field outside its Stop schema.
    #[test]
    fn stop_answers_never_carry_hook_specific_output() {
        let answer = Answer {
            additional_context: Some("⚠️ lesson".into()),
            system_message: Some("P3 offers".into()),
            ..Answer::default()
        };
        for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
            for event in [HookEvent::Stop, HookEvent::SessionEnd] {
                let json = to_json(&answer, agent, event);
                assert_eq!(
                    json,
                    json!({"systemMessage": "P3 offers\n⚠️ lesson"}),
                    "{agent:?} {event:?}"
                );
            }
        }
        let codex_block = to_json(
            &Answer::block("review first"),
            Agent::Codex,
            HookEvent::Stop,
        );
        let keys: Vec<&String> = codex_block.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["decision", "reason"]);
        let gemini = to_json(&answer, Agent::Gemini, HookEvent::PostToolUse);
        assert_eq!(gemini["hookSpecificOutput"]["hookEventName"], "AfterTool");
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
