//! A hook payload as an agent sends it ([`RawPayload`]: the union of every agent's fields, all
//! optional, unknown fields ignored), converted once into [`Payload`]: which agent, which session,
//! which project, and what happened in terms every agent shares ([`ToolCall`], the stop's facts).
//! Each agent's spec names its tools and fields ([`super::spec`]); this file only holds the shared
//! shapes.
//!
//! Invariants: the agent is the one the hook command names (`--agent`), and only a hook wired by
//! hand without it has its agent recognised from the payload ([`guess`]); nothing after the
//! conversion reads a raw field.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::Agent;
use crate::edit::Hunk;
use crate::edit::replace::{Occurrences, Replacement};

/// The session id of a payload that names none. It is no plain id (`@`), so its folder is hashed
/// ([`crate::project::folder_name_of`]) and never the folder of a session an agent named,
/// not even one called `unknown-session`.
pub(crate) const MISSING_SESSION_ID: &str = "unknown-session@";

/// Why a payload could not be read as one.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PayloadError {
    #[error("the hook payload on stdin is empty")]
    Empty,
    #[error(
        "the hook payload on stdin is not valid JSON (line {line}, column {column}): {message}"
    )]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the hook payload on stdin is not a JSON object (it starts with `{0}`)")]
    NotAnObject(char),
    #[error("the hook payload names no working directory (cwd or workspace_roots)")]
    NoWorkingDirectory,
}

/// The union of the fields Claude Code, Codex, Gemini CLI and Cursor send.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawPayload {
    pub(crate) session_id: Option<String>,
    /// Cursor's session.
    pub(crate) conversation_id: Option<String>,
    pub(crate) transcript_path: Option<String>,
    pub(crate) cwd: Option<String>,
    /// Cursor's project folders (it sends no `cwd`).
    pub(crate) workspace_roots: Vec<String>,
    pub(crate) hook_event_name: Option<String>,
    pub(crate) tool_name: Option<String>,
    pub(crate) tool_input: Value,
    pub(crate) tool_response: Value,
    pub(crate) last_assistant_message: Option<String>,
    /// Gemini CLI's AfterAgent: the agent's final answer.
    pub(crate) prompt_response: Option<String>,
    /// SessionEnd: why the session ended.
    pub(crate) reason: Option<String>,
    /// Cursor's stop: `completed`, `aborted` or `error`.
    pub(crate) status: Option<String>,
    /// Cursor's afterFileEdit.
    pub(crate) file_path: Option<String>,
    /// Cursor's afterFileEdit.
    pub(crate) edits: Value,
    /// Codex: the turn (only Codex sends it).
    pub(crate) turn_id: Option<String>,
    pub(crate) cursor_version: Option<String>,
    /// Claude Code: how long the tool ran (a shell command's run, to tell which files it touched).
    pub(crate) duration_ms: Option<u64>,
    /// Cursor's afterShellExecution: the command line.
    pub(crate) command: Option<String>,
}

/// A validated payload: the fields every hook relies on are present, the tool call is typed.
#[derive(Debug)]
pub(crate) struct Payload {
    pub(crate) agent: Agent,
    pub(crate) session_id: String,
    pub(crate) cwd: PathBuf,
    pub(crate) tool: ToolUse,
    pub(crate) stop: StopFacts,
    /// SessionEnd: why the session ended (empty when the agent does not say).
    pub(crate) end_reason: String,
}

/// The tool that ran: its name as the agent spells it, and what it did.
#[derive(Debug, Default)]
pub(crate) struct ToolUse {
    /// "Edit", "apply_patch", "replace", "afterFileEdit", … (empty: no tool).
    pub(crate) name: String,
    pub(crate) call: ToolCall,
}

/// What one tool call did, in terms every agent shares.
#[derive(Debug, Default)]
pub(crate) enum ToolCall {
    /// A whole file written (Claude Code `Write`, Gemini CLI `write_file`).
    Write {
        path: String,
        before: Previous,
        /// The content the tool writes, as its input says (what PreToolUse checks; after the
        /// tool ran, the file on disk is read instead).
        content: Option<String>,
    },
    /// Strings replaced in one file (Claude Code `Edit` / `MultiEdit`, Gemini CLI `replace`,
    /// Cursor `afterFileEdit`).
    Replace {
        path: String,
        /// The file before the edit, when the payload carries it.
        original: Option<String>,
        /// The agent's own diff of the edit (Claude Code's `structuredPatch`), best first.
        hunks: Vec<Hunk>,
        /// Old/new string pairs, to locate the new text when there is no diff (and, before
        /// the tool runs, to apply).
        replacements: Vec<Replacement>,
    },
    /// One notebook cell written or deleted (Claude Code `NotebookEdit`).
    NotebookCell {
        path: String,
        source: String,
        language: String,
        is_delete: bool,
        /// The cell's id (or number), to name it in what car says.
        cell: Option<String>,
    },
    /// A patch envelope naming files to add, update and delete (Codex `apply_patch`).
    Patch { text: String },
    /// A shell command the agent ran: what it changed is the agent's own work.
    Shell {
        /// The command line (empty when the payload does not carry it).
        command: String,
        /// How long it ran, when the agent says.
        duration: Option<Duration>,
    },
    /// Files the agent read with its own read tool (Claude Code `Read`, Gemini CLI `read_file`):
    /// nothing changed; the lessons of the files may be due ([`crate::hook::file_lessons`]).
    Read {
        /// The paths as the tool named them (absolute, or relative to the payload's cwd).
        paths: Vec<String>,
    },
    /// No tool, or one whose changes car does not read.
    #[default]
    Other,
}

/// What a whole-file write replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Previous {
    /// The payload says: the old content, or `None` for a new file.
    Known(Option<String>),
    /// The payload does not say (the git HEAD version stands in for it).
    Unknown,
}

/// Where a stop's facts are in the agent's payload, beyond the shared fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StopFields {
    /// The `hook_event_name` of a subagent's stop (Claude Code's `SubagentStop`).
    pub(crate) subagent_event: Option<&'static str>,
    /// Whether the final answer is in `prompt_response` when `last_assistant_message` is missing
    /// (Gemini CLI's AfterAgent).
    pub(crate) reads_prompt_response: bool,
    /// The `status` of a turn that ran to its end; any other status is an interrupted turn
    /// (Cursor calls its stop hook on `aborted` and `error` too).
    pub(crate) completed_status: Option<&'static str>,
}

impl StopFields {
    /// Only the fields every agent shares.
    pub(crate) const SHARED: StopFields = StopFields {
        subagent_event: None,
        reads_prompt_response: false,
        completed_status: None,
    };
}

/// What a stop says beyond the session.
#[derive(Debug, Default)]
pub(crate) struct StopFacts {
    /// A subagent stopped (Claude Code's SubagentStop).
    pub(crate) is_subagent: bool,
    /// The person aborted the turn or it failed (Cursor calls its stop hook then too).
    pub(crate) is_interrupted: bool,
    /// The agent's last message, when the payload carries it.
    pub(crate) last_message: Option<String>,
    /// The agent's transcript, to read the last message from when the payload does not carry it.
    pub(crate) transcript_path: Option<PathBuf>,
}

impl StopFacts {
    /// A stop's facts, where the agent's payload holds them.
    pub(super) fn read(raw: &RawPayload, fields: &StopFields) -> StopFacts {
        let event = raw.hook_event_name.as_deref();
        let status = raw.status.as_deref();
        let last_message = raw.last_assistant_message.clone().or_else(|| {
            raw.prompt_response
                .clone()
                .filter(|_| fields.reads_prompt_response)
        });
        StopFacts {
            is_subagent: fields
                .subagent_event
                .is_some_and(|subagent| event == Some(subagent)),
            is_interrupted: fields
                .completed_status
                .is_some_and(|completed| status.is_some_and(|status| status != completed)),
            last_message,
            transcript_path: raw.transcript_path.as_ref().map(Into::into),
        }
    }
}

impl Payload {
    /// Parses a payload for the agent the hook command names, else the one [`guess`]ed.
    pub(crate) fn parse(bytes: &[u8], named: Option<Agent>) -> Result<Payload, PayloadError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(PayloadError::Empty);
        }
        let raw: RawPayload = serde_json::from_slice(bytes).map_err(|error| {
            // `[1, 2]` or `"text"`: say what is wrong, not which type serde wanted first.
            let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
            let is_json = error.classify() == serde_json::error::Category::Data;
            if let Some(&first) =
                first.filter(|first| is_json && **first != b'{' && first.is_ascii())
            {
                return PayloadError::NotAnObject(char::from(first));
            }
            let located = crate::text::JsonError::of(&error);
            PayloadError::Json {
                line: located.line,
                column: located.column,
                message: located.message,
            }
        })?;
        Payload::from_raw(raw, named)
    }

    /// The one conversion from the raw fields: the session's identity here, the rest by the
    /// agent's own file.
    pub(crate) fn from_raw(raw: RawPayload, named: Option<Agent>) -> Result<Payload, PayloadError> {
        let agent = named.unwrap_or_else(|| guess(&raw));
        // Cursor names its session and folder differently; no other agent sends these fields,
        // so they are read for every agent (a hand-written payload may mix them).
        let cwd = raw
            .cwd
            .clone()
            .filter(|cwd| !cwd.is_empty())
            .or_else(|| raw.workspace_roots.first().cloned())
            .ok_or(PayloadError::NoWorkingDirectory)?;
        let session_id = raw
            .session_id
            .clone()
            .or_else(|| raw.conversation_id.clone())
            .filter(|id| !id.trim().is_empty())
            .unwrap_or_else(|| MISSING_SESSION_ID.to_string());
        Ok(Payload {
            agent,
            session_id,
            cwd: PathBuf::from(cwd),
            tool: agent.tool_use(&raw),
            stop: agent.stop_facts(&raw),
            end_reason: raw.reason.clone().unwrap_or_default(),
        })
    }

    pub(crate) fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }
}

/// The agent of a hook wired by hand without `--agent`, recognised by what only it sends.
pub(crate) fn guess(raw: &RawPayload) -> Agent {
    let event = raw.hook_event_name.as_deref().unwrap_or_default();
    if raw.cursor_version.is_some()
        || (!raw.workspace_roots.is_empty() && raw.cwd.is_none())
        || event == "afterFileEdit"
        || event == "afterShellExecution"
        || event == "stop"
    {
        Agent::Cursor
    } else if event == "AfterTool" || event == "AfterAgent" || event == "BeforeTool" {
        Agent::Gemini
    } else if raw.turn_id.is_some() || raw.tool_name.as_deref() == Some("apply_patch") {
        Agent::Codex
    } else {
        Agent::Claude
    }
}

/// A string field of a JSON object.
pub(super) fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(String::from)
}

/// Old/new pairs of an edit: `edits[]` (MultiEdit), a list of them (Cursor's afterFileEdit) or
/// one `old_string`/`new_string` pair, each with how many places it replaces (`replace_all`,
/// Gemini CLI's `allow_multiple` or `expected_replacements`).
pub(super) fn replacements(value: &Value) -> Vec<Replacement> {
    let pair = |value: &Value| {
        let new = value.get("new_string")?.as_str()?.to_string();
        let old = value
            .get("old_string")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let flag = |key: &str| value.get(key).and_then(Value::as_bool) == Some(true);
        let expected = value.get("expected_replacements").and_then(Value::as_u64);
        let occurrences = match expected {
            _ if flag("replace_all") || flag("allow_multiple") => Occurrences::Every,
            Some(count) if count > 1 => {
                Occurrences::Exactly(usize::try_from(count).unwrap_or(usize::MAX))
            }
            _ => Occurrences::One,
        };
        Some(Replacement {
            old,
            new,
            occurrences,
        })
    };
    let list = value
        .get("edits")
        .and_then(Value::as_array)
        .or_else(|| value.as_array());
    if let Some(edits) = list {
        return edits.iter().filter_map(pair).collect();
    }
    pair(value).into_iter().collect()
}

/// A shell command line: a string, or an argv list (Codex's `shell` tool) joined by spaces.
pub(super) fn command_line(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(line) => Some(line.clone()),
        Value::Array(argv) => Some(
            argv.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// A shell call: the command line from `tool_input.command`, else the payload's own `command`.
pub(super) fn shell_call(raw: &RawPayload) -> ToolCall {
    ToolCall::Shell {
        command: command_line(raw.tool_input.get("command"))
            .or_else(|| raw.command.clone())
            .unwrap_or_default(),
        duration: raw.duration_ms.map(Duration::from_millis),
    }
}

/// A read of one file, its path in the first of `fields` of `tool_input` that is there.
pub(super) fn read_call(raw: &RawPayload, fields: &[&str]) -> ToolCall {
    match fields.iter().find_map(|field| text(&raw.tool_input, field)) {
        Some(path) if !path.is_empty() => ToolCall::Read { paths: vec![path] },
        _ => ToolCall::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_named() {
        let parse = |bytes: &[u8]| Payload::parse(bytes, None);
        assert!(matches!(parse(b"  \n"), Err(PayloadError::Empty)));
        assert!(matches!(
            parse(b"{\"cwd\":"),
            Err(PayloadError::Json { .. })
        ));
        assert!(matches!(
            parse(b"{}"),
            Err(PayloadError::NoWorkingDirectory)
        ));
        // Regression: `[1,2]` was "invalid type: integer `1`, expected a string".
        let array = parse(b" [1,2]").unwrap_err().to_string();
        assert_eq!(
            array,
            "the hook payload on stdin is not a JSON object (it starts with `[`)"
        );
    }

    #[test]
    fn guesses_agents_without_the_flag() {
        let parse = |bytes: &[u8]| Payload::parse(bytes, None).unwrap();
        let cursor = parse(br#"{"hook_event_name":"stop","workspace_roots":["/p"]}"#);
        assert_eq!(cursor.agent, Agent::Cursor);
        let gemini = parse(br#"{"hook_event_name":"AfterTool","cwd":"/p"}"#);
        assert_eq!(gemini.agent, Agent::Gemini);
        let after_agent =
            parse(br#"{"hook_event_name":"AfterAgent","cwd":"/p","prompt_response":"Which one?"}"#);
        assert_eq!(after_agent.agent, Agent::Gemini);
        assert_eq!(after_agent.stop.last_message.as_deref(), Some("Which one?"));
        let claude = parse(br#"{"hook_event_name":"Stop","cwd":"/p","session_id":"s"}"#);
        assert_eq!(claude.agent, Agent::Claude);
        assert_eq!(claude.session_id, "s");
    }

    /// The flag decides: a payload that looks like Claude Code's is read as the named agent's.
    #[test]
    fn the_named_agent_wins_over_the_guess() {
        let bytes =
            br#"{"cwd":"/p","tool_name":"write_file","tool_input":{"file_path":"/p/a.py"}}"#;
        let guessed = Payload::parse(bytes, None).unwrap();
        assert_eq!(guessed.agent, Agent::Claude);
        assert!(matches!(guessed.tool.call, ToolCall::Other));
        let named = Payload::parse(bytes, Some(Agent::Gemini)).unwrap();
        assert_eq!(named.agent, Agent::Gemini);
        assert!(matches!(named.tool.call, ToolCall::Write { .. }));
    }

    #[test]
    fn shell_commands_keep_their_line_and_duration() {
        let payload = Payload::parse(
            br#"{"cwd":"/p","turn_id":"t","tool_name":"shell","tool_input":{"command":["bash","-lc","rm a.py"]}}"#,
            None,
        )
        .unwrap();
        let ToolCall::Shell { command, duration } = payload.tool.call else {
            panic!("a shell call: {payload:?}");
        };
        assert_eq!(command, "bash -lc rm a.py");
        assert_eq!(duration, None);
        let claude = Payload::parse(
            br#"{"cwd":"/p","tool_name":"Bash","tool_input":{"command":"pytest"},"duration_ms":1500}"#,
            Some(Agent::Claude),
        )
        .unwrap();
        let ToolCall::Shell { command, duration } = claude.tool.call else {
            panic!("a shell call");
        };
        assert_eq!(command, "pytest");
        assert_eq!(duration, Some(Duration::from_millis(1500)));
    }
}
