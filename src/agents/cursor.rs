//! Cursor: `.cursor/hooks.json` with `"version": 1` (required for project hooks), flat handler
//! lists per lowerCamelCase event, timeouts in seconds. `afterFileEdit` only observes (car tracks
//! and learns; its answer cannot reach the model), `stop` answers with a follow-up message, at
//! most `loop_limit` times in a row: twice car's own `maxStopPasses`, because with the manual
//! backend a round blocks two stops (the request, then the fix request) and car's breaker counts
//! one of them. car's breaker decides; Cursor's limit is the net below it.

use serde_json::{Map, Value, json};

use super::{POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT};

pub(super) fn entries(stop_timeout: u64, max_stop_passes: u32) -> Map<String, Value> {
    let mut entries = Map::new();
    entries.insert(
        "afterFileEdit".into(),
        json!([{"command": "car hook post-tool-use", "timeout": POST_TOOL_USE_TIMEOUT}]),
    );
    // The agent's own shell commands: what they change is its work, never a person's correction.
    entries.insert(
        "afterShellExecution".into(),
        json!([{"command": "car hook post-tool-use", "timeout": POST_TOOL_USE_TIMEOUT}]),
    );
    entries.insert(
        "stop".into(),
        json!([{"command": "car hook stop", "timeout": stop_timeout, "loop_limit": max_stop_passes.saturating_mul(2)}]),
    );
    entries.insert(
        "sessionEnd".into(),
        json!([{"command": "car hook session-end", "timeout": SESSION_END_TIMEOUT}]),
    );
    entries
}
