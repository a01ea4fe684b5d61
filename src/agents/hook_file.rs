//! An agent's hook file as car reads and edits it: the handlers in it (both shapes: groups with
//! a `hooks` list, as Claude Code, Codex and Gemini CLI write them, and Cursor's flat
//! handlers), which of them are car's, and car's entries added after the user's.
//!
//! Invariants: car's entries are the handlers whose command starts with `car hook ` (also as a
//! path ending in `/car hook …`, quoted or not: a car a package installed is named by its path,
//! [`crate::installation`]), and each names its agent (`car hook stop --agent codex`);
//! everything else in a file belongs to the user and is kept; adding is preceded by removing, so
//! wiring twice changes nothing, and a changed timeout, or an entry an older car wrote without
//! `--agent`, is refreshed in place.

use serde_json::{Map, Value, json};

use super::{Agent, mcp_hooks};

/// Commands that mark a hook entry as car's.
const CAR_COMMAND_PREFIX: &str = "car hook ";

/// Whether a hook command names its agent (entries an older car wrote do not; `car install`
/// rewrites them).
pub(crate) fn names_its_agent(command: &str) -> bool {
    command
        .split_whitespace()
        .any(|word| word == "--agent" || word.starts_with("--agent="))
}

/// Whether a hook command is car's.
pub(crate) fn is_car_command(command: &str) -> bool {
    let command = command.trim();
    command.starts_with(CAR_COMMAND_PREFIX)
        || command.contains(&format!("/{CAR_COMMAND_PREFIX}"))
        || command.contains("/car' hook ")
}

/// One handler found in a hook file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Handler {
    pub(crate) event: String,
    pub(crate) command: String,
    pub(crate) timeout: Option<u64>,
    /// The tool matcher of its group (`None`: the group has none, or the handler has no group).
    pub(crate) matcher: Option<String>,
}

/// Every command handler in a document's `hooks`, in both shapes: groups with a `hooks` list
/// (Claude, Codex, Gemini) and Cursor's flat handlers.
pub(crate) fn handlers(document: &Map<String, Value>) -> Vec<Handler> {
    let Some(Value::Object(hooks)) = document.get("hooks") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, list) in hooks {
        for entry in list.as_array().into_iter().flatten() {
            let inner = entry.get("hooks").and_then(Value::as_array);
            let handlers: Vec<&Value> = match inner {
                Some(list) => list.iter().collect(),
                None => vec![entry],
            };
            for handler in handlers {
                if let Some(command) = mcp_hooks::command_of(handler) {
                    found.push(Handler {
                        event: event.clone(),
                        command,
                        timeout: handler.get("timeout").and_then(Value::as_u64),
                        matcher: inner
                            .and(entry.get("matcher"))
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    });
                }
            }
        }
    }
    found
}

/// Removes every handler whose command `is_match`, then the groups and events that removal left
/// empty (never ones that were empty before); returns what it removed.
pub(crate) fn remove_handlers(
    document: &mut Map<String, Value>,
    is_match: impl Fn(&str) -> bool,
) -> Vec<Handler> {
    let Some(Value::Object(hooks)) = document.get_mut("hooks") else {
        return Vec::new();
    };
    let matches =
        |handler: &Value| mcp_hooks::command_of(handler).is_some_and(|command| is_match(&command));
    let mut removed = Vec::new();
    let mut emptied_events = Vec::new();
    for (event, list) in hooks.iter_mut() {
        let Value::Array(list) = list else { continue };
        let before = list.len();
        let mut kept = Vec::with_capacity(list.len());
        for mut entry in std::mem::take(list) {
            let matcher = entry
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            let record = |handler: &Value, removed: &mut Vec<Handler>| {
                removed.push(Handler {
                    event: event.clone(),
                    command: mcp_hooks::command_of(handler).unwrap_or_default(),
                    timeout: handler.get("timeout").and_then(Value::as_u64),
                    matcher: matcher.clone(),
                });
            };
            if let Some(Value::Array(inner)) = entry.get_mut("hooks") {
                let inner_before = inner.len();
                inner.retain(|handler| {
                    let hit = matches(handler);
                    if hit {
                        record(handler, &mut removed);
                    }
                    !hit
                });
                if inner.is_empty() && inner_before > 0 {
                    continue;
                }
            } else if matches(&entry) {
                record(&entry, &mut removed);
                continue;
            }
            kept.push(entry);
        }
        if kept.is_empty() && before > 0 {
            emptied_events.push(event.clone());
        }
        *list = kept;
    }
    for event in emptied_events {
        hooks.shift_remove(&event);
    }
    if hooks.is_empty() && !removed.is_empty() {
        document.shift_remove("hooks");
    }
    removed
}

/// Adds car's entries after the user's, with the keys the file needs.
pub(crate) fn add_entries(
    agent: Agent,
    document: &mut Map<String, Value>,
    entries: &Map<String, Value>,
) -> Result<(), WiringError> {
    for (key, value) in agent.required_keys() {
        document.entry(key).or_insert(value);
    }
    let hooks = document.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err(WiringError::NotAnObject { file: agent.file() });
    };
    for (event, additions) in entries {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(WiringError::NotAList {
                file: agent.file(),
                event: event.clone(),
            });
        };
        list.extend(additions.as_array().cloned().unwrap_or_default());
    }
    Ok(())
}

/// Whether a document holds nothing a user wrote (what is left of a hooks-only file once car's
/// entries are gone).
pub(crate) fn is_left_empty(agent: Agent, document: &Map<String, Value>) -> bool {
    document
        .iter()
        .all(|(key, value)| agent.required_keys().get(key) == Some(value))
}

/// A hook file car cannot wire itself into without guessing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WiringError {
    #[error("{file}: \"hooks\" is not an object; fix it by hand")]
    NotAnObject { file: &'static str },
    #[error("{file}: hooks.{event} is not a list; fix it by hand")]
    NotAList { file: &'static str, event: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::hook_entries::hook_command_of;
    use crate::settings::Settings;

    #[test]
    fn wiring_is_idempotent_and_keeps_the_users_hooks() {
        for agent in Agent::ALL {
            let user = if agent == Agent::Cursor {
                json!({"command": "my-linter"})
            } else {
                json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]})
            };
            let event = agent
                .entries(&Settings::default())
                .keys()
                .next()
                .unwrap()
                .clone();
            let mut document = Map::new();
            document.insert("hooks".into(), json!({ event.clone(): [user.clone()] }));
            document.insert("model".into(), json!("opus"));
            let original = document.clone();
            let entries = agent.entries(&Settings::default());
            remove_handlers(&mut document, is_car_command);
            add_entries(agent, &mut document, &entries).unwrap();
            let once = document.clone();
            remove_handlers(&mut document, is_car_command);
            add_entries(agent, &mut document, &entries).unwrap();
            assert_eq!(once, document, "{agent:?}");
            assert_eq!(document["hooks"][&event][0], user, "{agent:?}");
            let wired: Vec<Handler> = handlers(&document)
                .into_iter()
                .filter(|h| is_car_command(&h.command))
                .collect();
            assert_eq!(
                wired.len(),
                entries.len(),
                "{agent:?}: one handler per event"
            );
            assert!(!remove_handlers(&mut document, is_car_command).is_empty());
            for (key, value) in agent.required_keys() {
                assert_eq!(document.shift_remove(&key), Some(value));
            }
            assert_eq!(document, original, "{agent:?}");
        }
    }

    #[test]
    fn timeouts_follow_the_reviewer_in_each_agents_unit() {
        let settings = Settings {
            reviewer_timeout_seconds: 100,
            ..Settings::default()
        };
        let stop = |agent: Agent, event: &str| {
            let entries = agent.entries(&settings);
            let mut document = Map::new();
            document.insert("hooks".into(), Value::Object(entries));
            handlers(&document)
                .into_iter()
                .find(|h| h.event == event)
                .unwrap()
                .timeout
        };
        assert_eq!(stop(Agent::Claude, "Stop"), Some(160));
        assert_eq!(stop(Agent::Codex, "Stop"), Some(160));
        assert_eq!(stop(Agent::Gemini, "AfterAgent"), Some(160_000));
        assert_eq!(stop(Agent::Cursor, "stop"), Some(160));
    }

    #[test]
    fn car_commands_are_recognised() {
        assert!(is_car_command("car hook stop"));
        assert!(is_car_command(
            " /home/me/.cargo/bin/car hook post-tool-use"
        ));
        assert!(!is_car_command(
            "python -m claude_auto_review.hooks.stop_hook"
        ));
        assert!(!is_car_command("scar hook x"));
        // A packaged car is named by its path, quoted when the shell needs it.
        for program in [
            "/venv/bin/car",
            "'/home/a b/node_modules/@car-hooks/linux-x64/bin/car'",
        ] {
            let command = hook_command_of(program, "stop", Agent::Claude);
            assert!(is_car_command(&command), "{command}");
            assert!(names_its_agent(&command), "{command}");
        }
    }
}
