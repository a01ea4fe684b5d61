//! Codex CLI: `.codex/hooks.json`, the Claude shape (`{"hooks": {event: [groups]}}`) and nothing
//! else at the top (no `version`: Codex refuses unknown top-level keys), timeouts in seconds.
//! File edits arrive as `apply_patch` (`Edit` and `Write` are its aliases in newer builds), shell
//! commands as `Bash`.

use serde_json::{Map, Value, json};

use super::{POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, group};

/// A matcher of plain names is an exact list in Codex. `Bash` is its shell tool (`shell`,
/// `exec_command` and `local_shell` are aliases): what the agent changes with its own commands is
/// its work, never a person's correction.
const EDIT_MATCHER: &str = "apply_patch|Edit|Write|Bash";

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
    entries.insert(
        "Stop".into(),
        json!([group(None, handler("car hook stop", stop_timeout))]),
    );
    entries.insert(
        "SessionEnd".into(),
        json!([group(
            None,
            handler("car hook session-end", SESSION_END_TIMEOUT)
        )]),
    );
    entries
}
