//! The coding agents car answers and wires itself into. One file per agent (`claude.rs`,
//! `codex.rs`, `gemini.rs`, `cursor.rs`) holds everything car knows about it, as a table (its
//! [`spec::AgentSpec`]: its hook file and the hooks car wires there, its tools, where a stop's
//! facts are, its answer shape, its MCP file) and code only where it truly behaves its own way.
//! The shared readers work from the spec: [`hook_entries`] builds car's entries and [`hook_file`]
//! puts them into the agent's file, [`tools`] and [`payload`] read a payload into the typed
//! result, [`answer`] shapes an answer, [`transcript`] reads a transcript. This file names the
//! agent ([`Agent::spec`]).

pub(crate) mod answer;
mod claude;
mod codex;
pub(crate) mod codex_trust;
mod cursor;
mod gemini;
pub(crate) mod hook_binary;
mod hook_entries;
mod hook_file;
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
pub(crate) use hook_file::{
    Handler, WiringError, add_entries, handlers, is_car_command, is_left_empty, names_its_agent,
    remove_handlers,
};

/// A coding agent whose hooks car answers and wires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

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
    pub(super) fn required_keys(self) -> Map<String, Value> {
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
