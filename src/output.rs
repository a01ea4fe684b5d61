//! Everything car prints: hook responses (one JSON object per hook call, shaped for the agent
//! that called) and terminal text for people (data on stdout, messages on stderr, `hint:` lines,
//! colour only when stderr is a terminal and `NO_COLOR` is unset).

use std::io::{IsTerminal, Write};

use serde_json::{Map, Value, json};

/// The agent whose hook protocol a response must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

/// Which hook event a response answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    PostToolUse,
    Stop,
    SessionEnd,
}

/// What a hook wants to say, before it is shaped for an agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookResponse {
    /// Make the agent look: a validator error after an edit, or a blocked stop.
    pub block_reason: Option<String>,
    /// Warnings the model should read (lesson hits) when nothing blocks.
    pub additional_context: Option<String>,
    /// A short line for the human.
    pub system_message: Option<String>,
}

impl HookResponse {
    pub fn allow() -> HookResponse {
        HookResponse::default()
    }

    pub fn block(reason: impl Into<String>) -> HookResponse {
        HookResponse {
            block_reason: Some(reason.into()),
            ..HookResponse::default()
        }
    }

    /// Fail open: the hook could not do its job; say so, never block.
    pub fn fail_open(message: impl Into<String>) -> HookResponse {
        HookResponse {
            system_message: Some(format!("car: {}", message.into())),
            ..HookResponse::default()
        }
    }

    /// Adds a line to the human message.
    pub fn with_system_line(mut self, line: impl AsRef<str>) -> HookResponse {
        let line = line.as_ref();
        if line.is_empty() {
            return self;
        }
        self.system_message = Some(match self.system_message.take() {
            Some(existing) => format!("{existing}\n{line}"),
            None => line.to_string(),
        });
        self
    }

    /// The JSON text the agent reads on stdout.
    pub fn render(&self, agent: Agent, event: HookEvent) -> String {
        self.to_json(agent, event).to_string()
    }

    pub fn to_json(&self, agent: Agent, event: HookEvent) -> Value {
        let mut object = Map::new();
        match (agent, &self.block_reason) {
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
                if let Some(context) = &self.additional_context {
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
            && let Some(message) = &self.system_message
        {
            object.insert("systemMessage".into(), json!(message));
        }
        Value::Object(object)
    }
}

/// Prints a hook response on stdout. A closed pipe is not an error worth reporting.
pub fn print_hook_response(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// Whether stderr may carry colour.
pub fn use_color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// Data for pipes: stdout. A broken pipe ends output quietly.
pub fn print_data(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
    let _ = stdout.flush();
}

/// Pretty JSON on stdout.
pub fn print_json(value: &Value) {
    print_data(&serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string()));
}

/// A message for people: stderr.
pub fn print_message(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// `error: …` on stderr (red when colour is on).
pub fn print_error(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;31merror\u{1b}[0m"
    } else {
        "error"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {text}");
}

/// `hint: …` on stderr: what to do next.
pub fn print_hint(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;36mhint\u{1b}[0m"
    } else {
        "hint"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_shapes() {
        let allow = HookResponse::allow();
        assert_eq!(allow.render(Agent::Claude, HookEvent::PostToolUse), "{}");
        let block = HookResponse::block("a.py:1:1: bad");
        assert_eq!(
            block.to_json(Agent::Claude, HookEvent::PostToolUse),
            json!({"decision":"block","reason":"a.py:1:1: bad"})
        );
        let warn = HookResponse {
            additional_context: Some("⚠️ lesson".into()),
            ..HookResponse::default()
        };
        assert_eq!(
            warn.to_json(Agent::Claude, HookEvent::PostToolUse),
            json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"⚠️ lesson"}})
        );
    }

    #[test]
    fn other_agents() {
        let block = HookResponse::block("review first");
        assert_eq!(
            block.to_json(Agent::Cursor, HookEvent::Stop),
            json!({"followup_message":"review first"})
        );
        assert_eq!(
            block.to_json(Agent::Gemini, HookEvent::PostToolUse),
            json!({"decision":"deny","reason":"review first"})
        );
    }
}
