//! Gemini CLI: `.gemini/settings.json` (shared with every other setting), the Claude shape with
//! Gemini's events (`AfterTool`, `AfterAgent`, `SessionEnd`), a `name` per hook (for
//! `/hooks enable|disable`), timeouts in **milliseconds**. The matcher is a regular expression
//! over tool names, anchored so that MCP tools whose names contain `replace` do not match.

use serde_json::{Map, Value, json};

use super::{POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, group};

/// The edit tools, and `run_shell_command`: what the agent changes with its own commands is its
/// work, never a person's correction.
const EDIT_MATCHER: &str = "^(write_file|replace|run_shell_command)$";

pub(super) fn entries(stop_timeout: u64) -> Map<String, Value> {
    let handler = |name: &str, command: &str, seconds: u64| json!({"name": name, "type": "command", "command": command, "timeout": seconds.saturating_mul(1000)});
    let mut entries = Map::new();
    entries.insert(
        "AfterTool".into(),
        json!([group(
            Some(EDIT_MATCHER),
            handler(
                "car-post-tool-use",
                "car hook post-tool-use",
                POST_TOOL_USE_TIMEOUT
            )
        )]),
    );
    entries.insert(
        "AfterAgent".into(),
        json!([group(
            None,
            handler("car-stop", "car hook stop", stop_timeout)
        )]),
    );
    entries.insert(
        "SessionEnd".into(),
        json!([group(
            None,
            handler(
                "car-session-end",
                "car hook session-end",
                SESSION_END_TIMEOUT
            )
        )]),
    );
    entries
}
