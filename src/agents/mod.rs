//! The coding agents car answers and wires itself into. One file per agent (`claude.rs`,
//! `codex.rs`, `gemini.rs`, `cursor.rs`) holds everything car knows about it, as a table (its
//! [`spec::AgentSpec`]: its hook file and the hooks car wires there, its tools, where a stop's
//! facts are, its answer shape) and code only where it truly behaves its own way. The shared
//! readers work from the spec: [`hook_entries`] builds car's entries, [`tools`] and [`payload`]
//! read a payload into the typed result, [`answer`] shapes an answer, [`transcript`] reads a
//! transcript. This file names the agent ([`Agent::spec`]) and edits the agents' hook files.
//!
//! Invariants: car's entries are the handlers whose command starts with `car hook ` (also as a
//! path ending in `/car hook …`, quoted or not: a car a package installed is named by its path,
//! [`crate::installation`]), and each names its agent (`car hook stop --agent codex`);
//! everything else in a file belongs to the user and is kept; adding is preceded by removing, so
//! wiring twice changes nothing, and a changed timeout, or an entry an older car wrote without
//! `--agent`, is refreshed in place.

pub(crate) mod answer;
mod claude;
mod codex;
pub(crate) mod codex_trust;
mod cursor;
mod gemini;
pub(crate) mod hook_binary;
mod hook_entries;
pub(crate) mod mcp_hooks;
pub(crate) mod mcp_server;
pub(crate) mod migrate;
pub(crate) mod payload;
pub(crate) mod spec;
mod tools;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::answer::Answer;
use crate::project::Project;
use crate::settings::Settings;
use answer::HookEvent;
use payload::{RawPayload, StopFacts, ToolUse};
use spec::AgentSpec;

pub(crate) use hook_entries::stop_timeout;

/// A coding agent whose hooks car answers and wires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

/// Commands that mark a hook entry as car's.
const CAR_COMMAND_PREFIX: &str = "car hook ";

impl Agent {
    pub(crate) const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Cursor];

    /// Everything car knows of the agent, as data.
    pub(crate) fn spec(self) -> &'static AgentSpec {
        match self {
            Agent::Claude => &claude::SPEC,
            Agent::Codex => &codex::SPEC,
            Agent::Gemini => &gemini::SPEC,
            Agent::Cursor => &cursor::SPEC,
        }
    }

    /// The name on the command line (`--agent codex`).
    pub(crate) fn name(self) -> &'static str {
        self.spec().name
    }

    /// The agent `--agent NAME` names.
    pub(crate) fn from_name(name: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|agent| agent.name() == name)
            .ok_or_else(|| UnknownAgent {
                name: name.to_string(),
            })
    }

    /// The product's own name, for people.
    pub(crate) fn title(self) -> &'static str {
        self.spec().title
    }

    /// The agent's project hook file, relative to the project.
    pub(crate) fn file(self) -> &'static str {
        self.spec().hook_file.path
    }

    pub(crate) fn path(self, project: &Project) -> PathBuf {
        project.root().join(self.file())
    }

    /// Whether the file holds nothing but hooks (so car may delete it once it is empty again).
    pub(crate) fn is_hooks_only_file(self) -> bool {
        self.spec().hook_file.is_hooks_only
    }

    /// car's hook entries, event by event, in the agent's own format.
    pub(crate) fn entries(self, settings: &Settings) -> Map<String, Value> {
        hook_entries::entries(self, settings)
    }

    /// The tool call of a payload, in the agent's own tool and field names.
    pub(crate) fn tool_use(self, raw: &RawPayload) -> ToolUse {
        tools::tool_use(self.spec(), raw)
    }

    /// What a stop payload says, in the agent's own field names.
    pub(crate) fn stop_facts(self, raw: &RawPayload) -> StopFacts {
        StopFacts::read(raw, &self.spec().stop)
    }

    /// The answer as the JSON object the agent reads on stdout, its texts made printable (no
    /// control character from elsewhere reaches the agent's terminal or its model).
    pub(crate) fn answer(self, answer: &Answer, event: HookEvent) -> Value {
        self.spec().answer.shape(&answer.printable(), event)
    }

    /// The hook whose context gives the agent the lessons of a file it writes: PreToolUse where
    /// the client hands that hook's context to its model (Claude Code, Codex: it arrives with
    /// the write's result), else PostToolUse where that one's is (Gemini CLI 0.61 drops
    /// BeforeTool context and appends AfterTool context to the tool's result: the same moment);
    /// `None` for an agent whose hooks pass no context to the model (Cursor).
    pub(crate) fn file_lessons_event(self) -> Option<HookEvent> {
        self.spec().answer.file_lessons_event()
    }

    /// The last assistant text of the agent's transcript (a bounded read from its end).
    pub(crate) fn transcript_last_text(self, path: &Path) -> Option<String> {
        transcript::last_text(path, self.spec().assistant_text)
    }

    /// Top-level keys the agent's file needs besides `hooks` (Cursor's `"version": 1`).
    fn required_keys(self) -> Map<String, Value> {
        self.spec()
            .hook_file
            .required_keys
            .iter()
            .map(|(key, value)| ((*key).to_string(), json!(value)))
            .collect()
    }

    /// What the user still has to do in the agent itself, if anything.
    pub(crate) fn trust_hint(self) -> Option<&'static str> {
        self.spec().trust_hint
    }

    /// The unit the agent's `timeout` is in.
    pub(crate) fn timeout_unit(self) -> &'static str {
        self.spec().hook_file.timeout_unit.symbol()
    }
}

/// An `--agent` value that names no agent car knows.
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown agent `{name}` for --agent (expected claude, codex, gemini or cursor); fix the hook command"
)]
pub(crate) struct UnknownAgent {
    name: String,
}

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

/// Asserts that a plugin's hooks file wires the same events, matchers and timeouts as
/// `car install` (`installed`), each through the plugin's runner (`"${ROOT}/hooks/car-hook" EVENT
/// --agent NAME`, `root_variable` the variable the agent sets to the plugin's folder).
#[cfg(test)]
pub(crate) fn assert_plugin_file_matches(
    plugin: &str,
    installed: &Map<String, Value>,
    root_variable: &str,
) {
    let plugin: Value = serde_json::from_str(plugin).unwrap();
    let plugin_hooks = plugin["hooks"].as_object().unwrap();
    assert_eq!(
        plugin_hooks.keys().collect::<Vec<_>>(),
        installed.keys().collect::<Vec<_>>()
    );
    for (event, groups) in installed {
        let ours = &groups[0];
        let theirs = &plugin_hooks[event][0];
        assert_eq!(ours.get("matcher"), theirs.get("matcher"), "{event}");
        assert_eq!(
            ours["hooks"][0]["timeout"], theirs["hooks"][0]["timeout"],
            "{event}"
        );
        let command = ours["hooks"][0]["command"].as_str().unwrap();
        let subcommand = &command[command.find(" hook ").unwrap() + " hook ".len()..];
        assert!(subcommand.contains(" --agent "), "{subcommand}");
        assert_eq!(
            theirs["hooks"][0]["command"],
            format!("\"${{{root_variable}}}/hooks/car-hook\" {subcommand}"),
            "{event}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let command = hook_entries::hook_command_of(program, "stop", Agent::Claude);
            assert!(is_car_command(&command), "{command}");
            assert!(names_its_agent(&command), "{command}");
        }
    }

    #[test]
    fn every_entry_names_its_agent() {
        for agent in Agent::ALL {
            let mut document = Map::new();
            document.insert(
                "hooks".into(),
                Value::Object(agent.entries(&Settings::default())),
            );
            for handler in handlers(&document) {
                assert!(is_car_command(&handler.command), "{handler:?}");
                assert!(
                    handler
                        .command
                        .ends_with(&format!(" --agent {}", agent.name())),
                    "{handler:?}"
                );
                assert!(names_its_agent(&handler.command));
            }
        }
        assert!(!names_its_agent("car hook stop"));
        assert_eq!(Agent::from_name("gemini").unwrap(), Agent::Gemini);
        let unknown = Agent::from_name("vscode").unwrap_err().to_string();
        assert!(unknown.contains("`vscode`"), "{unknown}");
        assert!(
            unknown.contains("claude, codex, gemini or cursor"),
            "{unknown}"
        );
    }

    /// No agent reads context at a stop or a session end: it goes to the person instead.
    #[test]
    fn context_at_a_stop_goes_to_the_person() {
        let answer = Answer {
            additional_context: Some("⚠️ lesson".into()),
            system_message: Some("P3 offers".into()),
            ..Answer::default()
        };
        for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
            for event in [HookEvent::Stop, HookEvent::SessionEnd] {
                assert_eq!(
                    agent.answer(&answer, event),
                    json!({"systemMessage": "P3 offers\n⚠️ lesson"}),
                    "{agent:?} {event:?}"
                );
            }
        }
        assert_eq!(Agent::Cursor.answer(&answer, HookEvent::Stop), json!({}));
    }
}
