//! Claude Code: `.claude/settings.json` (shared with every other setting), groups of handlers per
//! event, timeouts in seconds. The same wiring ships as the plugin's `hooks/hooks.json`.

use serde_json::{Map, Value, json};

use super::{POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, group};

/// The tools whose edits car checks.
pub(crate) const EDIT_MATCHER: &str = "Write|Edit|MultiEdit|NotebookEdit";

pub(super) fn entries(stop_timeout: u64) -> Map<String, Value> {
    let handler = |command: &str, timeout: u64| json!({"type": "command", "command": command, "timeout": timeout});
    let mut entries = Map::new();
    entries.insert(
        "PostToolUse".into(),
        json!([group(
            Some(EDIT_MATCHER),
            handler("car hook post-tool-use", POST_TOOL_USE_TIMEOUT)
        )]),
    );
    for event in ["Stop", "SubagentStop"] {
        entries.insert(
            event.into(),
            json!([group(None, handler("car hook stop", stop_timeout))]),
        );
    }
    entries.insert(
        "SessionEnd".into(),
        json!([group(
            None,
            handler("car hook session-end", SESSION_END_TIMEOUT)
        )]),
    );
    entries
}
