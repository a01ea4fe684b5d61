//! `car mcp`: an MCP server over stdio for the agent — the lessons of a file before it is edited,
//! a check of code before it is written, a lesson's evidence, and a lesson the agent proposes
//! ([`tools`]). JSON-RPC 2.0, one message per line ([`protocol`]).
//!
//! Written by hand, not with an SDK: the server needs four methods (`initialize`, `ping`,
//! `tools/list`, `tools/call`) over one blocking stdin/stdout loop, and the SDKs bring an async
//! runtime whose build time the whole binary — the hook's included — would pay.
//!
//! Invariants: stdout carries protocol messages only (one per line); nothing a client sends
//! ends the server but the end of its input; a tool's failure is a tool error result, a
//! malformed message a JSON-RPC error.

pub(crate) mod hook_tool;
pub(crate) mod protocol;
pub(crate) mod tools;

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::project::Project;
use protocol::{ErrorCode, Message};

/// Serves `input` until it ends, answering on `output`.
pub(crate) fn serve(
    project: &Project,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match protocol::parse(&line) {
            Ok(Some(message)) => answer(project, &message),
            Ok(None) => None,
            Err(rejected) => Some(protocol::error(
                &rejected.id,
                rejected.code,
                &rejected.message,
            )),
        };
        if let Some(answer) = answer {
            writeln!(output, "{answer}")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The answer to one message; `None` for a notification.
fn answer(project: &Project, message: &Message) -> Option<Value> {
    let id = message.id.as_ref()?;
    Some(match message.method.as_str() {
        "initialize" => protocol::result(
            id,
            json!({
                "protocolVersion": protocol::negotiated(&message.params),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "car", "version": env!("CARGO_PKG_VERSION")},
                "instructions": "car knows this project's lessons: call lessons_for before you edit a file, check to test code before writing it, and propose_lesson when you fixed a mistake of your own.",
            }),
        ),
        "ping" => protocol::result(id, json!({})),
        "tools/list" => protocol::result(id, json!({"tools": tools::list()})),
        "tools/call" => call_tool(project, id, &message.params),
        other => protocol::error(
            id,
            ErrorCode::MethodNotFound,
            &format!("car has no method {other:?}"),
        ),
    })
}

fn call_tool(project: &Project, id: &Value, params: &Value) -> Value {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return protocol::error(id, ErrorCode::InvalidParams, "tools/call needs \"name\"");
    };
    if name == hook_tool::NAME {
        let arguments = params.get("arguments").unwrap_or(&Value::Null);
        let text = hook_tool::call(arguments);
        return protocol::result(
            id,
            json!({"content": [{"type": "text", "text": text}], "isError": false}),
        );
    }
    if !tools::is_known(name) {
        return protocol::error(
            id,
            ErrorCode::InvalidParams,
            &format!("unknown tool {name:?} (lessons_for, check, explain, propose_lesson)"),
        );
    }
    let arguments = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let result = match tools::call(project, name, &arguments) {
        Ok(answer) => json!({
            "content": [{"type": "text", "text": crate::output::printable(&answer.text)}],
            "structuredContent": answer.data,
            "isError": false,
        }),
        Err(error) => json!({
            "content": [{"type": "text", "text": format!("car {name}: {error}")}],
            "isError": true,
        }),
    };
    protocol::result(id, result)
}
