//! An agent's tools as a table: each tool name the agent sends, with what a call of it does
//! ([`ToolKind`]), read into the [`ToolCall`] every agent shares. Claude Code's field names are
//! the common ground: Codex's aliases and Gemini CLI's edit tools carry them too, so one reader
//! per kind serves every agent ([`super::claude`] holds the readers of its own fields).
//!
//! Invariants: a name the table does not list is [`ToolCall::Other`] (car reads no change from
//! it); an agent's own payload shapes ([`super::spec::AgentSpec::own_payload`]) are read before
//! the table, and its additions to an edit ([`super::spec::AgentSpec::complete_edit`]) only to
//! a write or a replacement.

use super::payload::{RawPayload, ToolCall, ToolUse, read_call, shell_call, text};
use super::spec::AgentSpec;

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

/// The tool call of a payload, read by the agent's spec.
pub(super) fn tool_use(spec: &AgentSpec, raw: &RawPayload) -> ToolUse {
    if let Some(own) = spec.own_payload.and_then(|read| read(raw)) {
        return own;
    }
    let name = raw.tool_name.clone().unwrap_or_default();
    let call = match spec.tools.iter().find(|tool| tool.name == name) {
        Some(tool) => {
            let call = tool.kind.call(raw);
            match (tool.kind, spec.complete_edit) {
                (ToolKind::Write | ToolKind::Replace, Some(complete)) => complete(call, raw),
                _ => call,
            }
        }
        None => ToolCall::Other,
    };
    ToolUse { name, call }
}

impl ToolKind {
    fn call(self, raw: &RawPayload) -> ToolCall {
        match self {
            ToolKind::Write => super::claude::write_call(raw),
            ToolKind::Replace => super::claude::replace_call(raw),
            ToolKind::NotebookCell => super::claude::notebook_call(raw),
            ToolKind::Patch => ToolCall::Patch {
                text: patch_text(raw).unwrap_or_default(),
            },
            ToolKind::PatchOrWrite => envelope(raw).unwrap_or_else(|| ToolKind::Write.call(raw)),
            ToolKind::PatchOrReplace => {
                envelope(raw).unwrap_or_else(|| ToolKind::Replace.call(raw))
            }
            ToolKind::Shell => shell_call(raw),
            ToolKind::Read(fields) => read_call(raw, fields),
        }
    }
}

/// The patch text of a call: `tool_input.command`, else `tool_input.patch`.
fn patch_text(raw: &RawPayload) -> Option<String> {
    text(&raw.tool_input, "command").or_else(|| text(&raw.tool_input, "patch"))
}

/// The call as a patch, when its patch text is an envelope (`*** Begin Patch`).
fn envelope(raw: &RawPayload) -> Option<ToolCall> {
    patch_text(raw)
        .filter(|text| text.trim_start().starts_with("*** Begin Patch"))
        .map(|text| ToolCall::Patch { text })
}
