//! The MCP wire format over stdio: JSON-RPC 2.0, one message per line. A line is read once into
//! a [`Message`] (or the JSON-RPC error it earns), and answers are built here.

use serde_json::{Value, json};

/// The protocol revisions car speaks, newest first; a client asking for another gets the newest.
pub(crate) const PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes car answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
}

impl ErrorCode {
    fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
        }
    }
}

/// One message from the client.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    /// `None` for a notification (no answer is sent).
    pub(crate) id: Option<Value>,
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// A line that is no message car can act on, and the answer it gets.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejected {
    pub(crate) id: Value,
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

/// Reads one line. A response from the client (it has no `method`) is `Ok(None)`: car sends no
/// requests, so there is nothing to match it with.
pub(crate) fn parse(line: &str) -> Result<Option<Message>, Rejected> {
    let value: Value = serde_json::from_str(line).map_err(|error| Rejected {
        id: Value::Null,
        code: ErrorCode::ParseError,
        message: format!("not JSON: {error}"),
    })?;
    let Value::Object(object) = value else {
        return Err(Rejected {
            id: Value::Null,
            code: ErrorCode::InvalidRequest,
            message: "a message must be a JSON object (batches are not part of MCP)".into(),
        });
    };
    let id = object.get("id").cloned();
    let Some(method) = object.get("method") else {
        return Ok(None);
    };
    let Some(method) = method.as_str() else {
        return Err(Rejected {
            id: id.unwrap_or(Value::Null),
            code: ErrorCode::InvalidRequest,
            message: "\"method\" must be a string".into(),
        });
    };
    Ok(Some(Message {
        id,
        method: method.to_string(),
        params: object.get("params").cloned().unwrap_or(Value::Null),
    }))
}

/// A successful answer.
pub(crate) fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error answer.
pub(crate) fn error(id: &Value, code: ErrorCode, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.code(), "message": message}})
}

/// The revision to answer `initialize` with: the client's when car speaks it, else the newest.
pub(crate) fn negotiated(params: &Value) -> &'static str {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    PROTOCOL_VERSIONS
        .iter()
        .find(|version| Some(**version) == asked)
        .copied()
        .unwrap_or(PROTOCOL_VERSIONS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_into_messages_or_the_error_they_earn() {
        let message = parse(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(message.id, Some(json!(3)));
        assert_eq!(message.method, "tools/list");
        assert_eq!(message.params, Value::Null);
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .unwrap()
                .unwrap()
                .id,
            None
        );
        assert_eq!(parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Ok(None));
        assert_eq!(parse("{oops").unwrap_err().code, ErrorCode::ParseError);
        assert_eq!(parse("[1]").unwrap_err().code, ErrorCode::InvalidRequest);
        let bad = parse(r#"{"id":7,"method":5}"#).unwrap_err();
        assert_eq!((bad.id, bad.code), (json!(7), ErrorCode::InvalidRequest));
    }

    #[test]
    fn the_protocol_version_is_the_clients_when_car_speaks_it() {
        assert_eq!(
            negotiated(&json!({"protocolVersion": "2025-03-26"})),
            "2025-03-26"
        );
        assert_eq!(
            negotiated(&json!({"protocolVersion": "1999-01-01"})),
            "2025-11-25"
        );
        assert_eq!(negotiated(&Value::Null), "2025-11-25");
    }
}
