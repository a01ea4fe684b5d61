//! Reading a payload's tool call by the agent's table of tools ([`super::spec::Tool`]: each tool
//! name the agent sends, with what a call of it does), into the [`ToolCall`] every agent shares.
//! Claude Code's field names are the common ground: Codex's aliases and Gemini CLI's edit tools
//! carry them too, so one reader per kind serves every agent ([`super::claude`] holds the
//! readers of its own fields).
//!
//! Invariants: a name the table does not list is [`ToolCall::Other`] (car reads no change from
//! it); an agent's own payload shapes ([`super::spec::AgentSpec::own_payload`]) are read before
//! the table, and its additions to an edit ([`super::spec::AgentSpec::complete_edit`]) only to
//! a write or a replacement.

use super::payload::{RawPayload, ToolCall, ToolUse, read_call, shell_call, text};
use super::spec::{AgentSpec, ToolKind};

/// The tool call of a payload, read by the agent's spec.
pub(super) fn tool_use(spec: &AgentSpec, raw: &RawPayload) -> ToolUse {
    if let Some(own) = spec.own_payload.and_then(|read| read(raw)) {
        return own;
    }
    let name = raw.tool_name.clone().unwrap_or_default();
    let call = match spec.tools.iter().find(|tool| tool.name == name) {
        Some(tool) => {
            let call = call(tool.kind, raw);
            match (tool.kind, spec.complete_edit) {
                (ToolKind::Write | ToolKind::Replace, Some(complete)) => complete(call, raw),
                _ => call,
            }
        }
        None => ToolCall::Other,
    };
    ToolUse { name, call }
}

/// The call of a tool of this kind.
fn call(kind: ToolKind, raw: &RawPayload) -> ToolCall {
    match kind {
        ToolKind::Write => super::claude::write_call(raw),
        ToolKind::Replace => super::claude::replace_call(raw),
        ToolKind::NotebookCell => super::claude::notebook_call(raw),
        ToolKind::Patch => ToolCall::Patch {
            text: patch_text(raw).unwrap_or_default(),
        },
        ToolKind::PatchOrWrite => envelope(raw).unwrap_or_else(|| call(ToolKind::Write, raw)),
        ToolKind::PatchOrReplace => envelope(raw).unwrap_or_else(|| call(ToolKind::Replace, raw)),
        ToolKind::Shell => shell_call(raw),
        ToolKind::Read(fields) => read_call(raw, fields),
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
