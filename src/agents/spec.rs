//! What car knows of one coding agent, as data: its names, its hook file and the hooks car wires
//! there, its tools, where a stop's facts are in its payload, the shape of its answers, how its
//! transcript holds assistant text and where its MCP servers are registered. Each agent's file
//! holds its [`AgentSpec`]; the cross-agent code (wiring, payload reading, answering,
//! `car status`) reads the spec instead of matching on the agent. What an agent truly does its own way stays code, named in its spec
//! (`own_payload`, `complete_edit`, `assistant_text`).
//!
//! Invariants: a spec is a `const`, read through [`super::Agent::spec`]; the order of `hooks`
//! is the order of the events in the file car writes (a contract: `car install`'s output is
//! pinned byte for byte), and each entry's timeout follows from the car hook it runs
//! ([`super::hook_entries`]), so two agents never disagree on a budget.

use serde_json::Value;

use super::answer::{AnswerShape, HookEvent};
use super::mcp_server::McpFormat;
use super::payload::{RawPayload, StopFields, ToolCall, ToolUse};

/// One coding agent car answers and wires.
pub(crate) struct AgentSpec {
    /// The name on the command line (`--agent codex`).
    pub(crate) name: &'static str,
    /// The product's own name, for people.
    pub(crate) title: &'static str,
    /// The project file car writes its hooks into.
    pub(crate) hook_file: HookFile,
    /// car's hooks in that file, in the file's order.
    pub(crate) hooks: &'static [HookSpec],
    /// Its tools by name: what each call does (read by [`super::tools`]).
    pub(crate) tools: &'static [Tool],
    /// Payloads the agent shapes its own way, read before the tool table (`None`: not this
    /// payload; Cursor's afterFileEdit and afterShellExecution).
    pub(crate) own_payload: Option<fn(&RawPayload) -> Option<ToolUse>>,
    /// What the agent's edit payloads say beyond Claude Code's fields (Gemini CLI's
    /// `returnDisplay`), added to a write or a replacement read from the tool table.
    pub(crate) complete_edit: Option<fn(ToolCall, &RawPayload) -> ToolCall>,
    /// Where a stop's facts are in its payload.
    pub(crate) stop: StopFields,
    /// The shape of its answers on stdout.
    pub(crate) answer: AnswerShape,
    /// The assistant text of one line of its transcript ([`super::transcript`]).
    pub(crate) assistant_text: fn(&Value) -> Option<String>,
    /// What the user still has to do in the agent itself, if anything.
    pub(crate) trust_hint: Option<&'static str>,
    /// Where car registers its MCP server for the agent (`None`: it registers none there).
    pub(crate) mcp: Option<McpFile>,
    /// Whether the agent can run a hook as a tool call into a running MCP server
    /// (`car install --hooks mcp`, [`super::mcp_hooks`]).
    pub(crate) runs_mcp_tool_hooks: bool,
}

/// The agent's MCP configuration file ([`super::mcp_server`]).
pub(crate) struct McpFile {
    /// Relative to the project.
    pub(crate) path: &'static str,
    pub(crate) format: McpFormat,
}

/// One tool name an agent sends, and what its call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) name: &'static str,
    pub(crate) kind: ToolKind,
}

impl Tool {
    pub(crate) const fn new(name: &'static str, kind: ToolKind) -> Tool {
        Tool { name, kind }
    }
}

/// What a call of a tool does, and so how its payload is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// A whole file written (`file_path`, `content`; `originalFile` says what it replaced).
    Write,
    /// Strings replaced in one file (`old_string`/`new_string` or `edits[]`, the agent's own
    /// diff in `structuredPatch`).
    Replace,
    /// One notebook cell written or deleted (`notebook_path`, `new_source`).
    NotebookCell,
    /// A patch envelope in `tool_input.command` (or `patch`).
    Patch,
    /// A patch envelope when the call carries one, else a [`ToolKind::Write`] (Codex's `Write`
    /// alias: what it sends has not been captured yet).
    PatchOrWrite,
    /// A patch envelope when the call carries one, else a [`ToolKind::Replace`] (Codex's `Edit`).
    PatchOrReplace,
    /// A shell command the agent ran: what it changed is the agent's own work.
    Shell,
    /// A read of one file, its path in the first of these `tool_input` fields that is there.
    Read(&'static [&'static str]),
}

/// The agent's project hook file.
pub(crate) struct HookFile {
    /// Relative to the project.
    pub(crate) path: &'static str,
    /// Whether it holds nothing but hooks (so car may delete it once it is empty again).
    pub(crate) is_hooks_only: bool,
    /// Top-level keys it needs besides `hooks`, with their values (Cursor's `"version": 1`).
    pub(crate) required_keys: &'static [(&'static str, u64)],
    /// The unit of a handler's `timeout`.
    pub(crate) timeout_unit: TimeoutUnit,
    /// How a handler sits in an event's list.
    pub(crate) handler_shape: HandlerShape,
}

/// The unit an agent's `timeout` is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeoutUnit {
    Seconds,
    /// Gemini CLI's.
    Milliseconds,
}

impl TimeoutUnit {
    /// The unit's symbol, for people (`s`, `ms`).
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            TimeoutUnit::Seconds => "s",
            TimeoutUnit::Milliseconds => "ms",
        }
    }

    /// `seconds` in this unit.
    pub(crate) fn timeout_of(self, seconds: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => seconds,
            TimeoutUnit::Milliseconds => seconds.saturating_mul(1000),
        }
    }

    /// A timeout in this unit, in whole seconds.
    pub(crate) fn seconds_of(self, timeout: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => timeout,
            TimeoutUnit::Milliseconds => timeout / 1000,
        }
    }
}

/// How a handler sits in an event's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandlerShape {
    /// Claude Code's and Codex's: a group with the tool `matcher` (if any) and a `hooks` list of
    /// `{"type": "command", "command", "timeout"}`.
    Group,
    /// Gemini CLI's: a group whose handler has a `name` first (`car-stop`), for
    /// `/hooks enable|disable`.
    NamedGroup,
    /// Cursor's: `{"command", "timeout"}` straight in the event's list, no matcher.
    Flat,
}

/// One event car wires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookSpec {
    /// The agent's name for the event (`PostToolUse`, `AfterTool`, `afterFileEdit`).
    pub(crate) event: &'static str,
    /// The car hook it runs (`car hook post-tool-use`).
    pub(crate) runs: HookEvent,
    /// The tools it runs on.
    pub(crate) matcher: Matcher,
    /// Whether the handler carries Cursor's `loop_limit`: twice car's own `maxStopPasses`,
    /// because with the manual backend a round blocks two stops (the request, then the fix
    /// request) and car's breaker counts one of them. car's breaker decides; the agent's limit
    /// is the net below it.
    pub(crate) has_loop_limit: bool,
}

impl HookSpec {
    /// An event wired for the tools `matcher` names, without a loop limit.
    pub(crate) const fn matching(
        event: &'static str,
        runs: HookEvent,
        matcher: Matcher,
    ) -> HookSpec {
        HookSpec {
            event,
            runs,
            matcher,
            has_loop_limit: false,
        }
    }

    /// An event wired for every tool, without a loop limit.
    pub(crate) const fn every(event: &'static str, runs: HookEvent) -> HookSpec {
        HookSpec {
            event,
            runs,
            matcher: Matcher::Every,
            has_loop_limit: false,
        }
    }
}

/// The tools an event's group runs on, in the agent's matcher syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Matcher {
    /// No matcher: every call (and every event without tools).
    Every,
    /// These tools.
    Tools(&'static str),
    /// `with_reads` while `editBriefing` is on (a read brings the lessons of its file),
    /// `without_reads` otherwise (a read would start car for nothing).
    WithReads {
        with_reads: &'static str,
        without_reads: &'static str,
    },
}

impl Matcher {
    /// The matcher string for these settings (`None`: the group has none).
    pub(crate) fn text(self, edit_briefing: bool) -> Option<&'static str> {
        match self {
            Matcher::Every => None,
            Matcher::Tools(tools) => Some(tools),
            Matcher::WithReads {
                with_reads,
                without_reads,
            } => Some(if edit_briefing {
                with_reads
            } else {
                without_reads
            }),
        }
    }
}

impl AgentSpec {
    /// The agent's event of its main stop hook (`Stop`, Gemini CLI's `AfterAgent`, Cursor's
    /// `stop`): the first hook that runs `car hook stop`.
    pub(crate) fn stop_event(&self) -> Option<&'static str> {
        self.hooks
            .iter()
            .find(|hook| hook.runs == HookEvent::Stop)
            .map(|hook| hook.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::Agent;

    /// The tool names in a matcher: `A|B` (Claude Code, Codex) or `^(A|B)$` (Gemini CLI).
    fn matcher_tools(matcher: &str) -> Vec<&str> {
        let list = matcher
            .strip_prefix("^(")
            .and_then(|rest| rest.strip_suffix(")$"))
            .unwrap_or(matcher);
        list.split('|').collect()
    }

    /// A matcher names only tools the agent's table reads: a tool wired but not read would start
    /// car for a call it then ignores.
    #[test]
    fn matchers_name_tools_of_the_table() {
        for agent in Agent::ALL {
            let spec = agent.spec();
            for hook in spec.hooks {
                for edit_briefing in [true, false] {
                    let Some(matcher) = hook.matcher.text(edit_briefing) else {
                        continue;
                    };
                    for name in matcher_tools(matcher) {
                        assert!(
                            spec.tools.iter().any(|tool| tool.name == name),
                            "{agent:?} {}: `{name}` is in no tool of the table",
                            hook.event
                        );
                    }
                }
            }
        }
    }

    /// A flat handler has no group to carry a matcher, and only Cursor's stop loops.
    #[test]
    fn flat_handlers_have_no_matcher() {
        for agent in Agent::ALL {
            let spec = agent.spec();
            for hook in spec.hooks {
                if spec.hook_file.handler_shape == HandlerShape::Flat {
                    assert_eq!(hook.matcher, Matcher::Every, "{agent:?} {}", hook.event);
                }
                assert!(
                    !hook.has_loop_limit || hook.runs == HookEvent::Stop,
                    "{agent:?} {}",
                    hook.event
                );
            }
        }
    }

    /// Every agent wires the hooks car cannot do without, each event once, and its names and
    /// files are its own.
    #[test]
    fn every_agent_wires_the_edit_and_stop_hooks() {
        for agent in Agent::ALL {
            let spec = agent.spec();
            for runs in [
                HookEvent::PostToolUse,
                HookEvent::Stop,
                HookEvent::SessionEnd,
            ] {
                assert!(
                    spec.hooks.iter().any(|hook| hook.runs == runs),
                    "{agent:?} {runs:?}"
                );
            }
            let mut events: Vec<&str> = spec.hooks.iter().map(|hook| hook.event).collect();
            events.sort_unstable();
            events.dedup();
            assert_eq!(events.len(), spec.hooks.len(), "{agent:?}");
            assert!(spec.stop_event().is_some(), "{agent:?}");
            for other in Agent::ALL.into_iter().filter(|other| *other != agent) {
                assert_ne!(spec.name, other.spec().name);
                assert_ne!(spec.hook_file.path, other.spec().hook_file.path);
            }
        }
        assert_eq!(Agent::Gemini.spec().stop_event(), Some("AfterAgent"));
    }

    #[test]
    fn timeouts_convert_between_units() {
        for unit in [TimeoutUnit::Seconds, TimeoutUnit::Milliseconds] {
            assert_eq!(unit.seconds_of(unit.timeout_of(360)), 360, "{unit:?}");
        }
        assert_eq!(TimeoutUnit::Milliseconds.timeout_of(u64::MAX), u64::MAX);
        assert_eq!(TimeoutUnit::Milliseconds.symbol(), "ms");
    }
}
