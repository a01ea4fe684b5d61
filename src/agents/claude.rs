//! Claude Code: `.claude/settings.json` (shared with every other setting), groups of handlers per
//! event, timeouts in seconds. The same wiring ships as the plugin's `hooks/hooks.json`.

use serde_json::{Map, Value, json};

use super::{POST_TOOL_USE_TIMEOUT, SESSION_END_TIMEOUT, group};

/// The tools whose edits car checks, and Bash: what the agent changes with its own shell commands is
/// its work, not a person's correction (lessons from corrections, docs/lessons.md).
pub(crate) const EDIT_MATCHER: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash";

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The plugin's `hooks/hooks.json` wires the same events, matcher and timeouts as
    /// `car install`, through the runner that says when the binary is missing.
    #[test]
    fn the_plugin_file_matches_the_installed_wiring() {
        let plugin: Value = serde_json::from_str(include_str!("../../hooks/hooks.json")).unwrap();
        let installed = entries(360);
        let plugin_hooks = plugin["hooks"].as_object().unwrap();
        assert_eq!(
            plugin_hooks.keys().collect::<Vec<_>>(),
            installed.keys().collect::<Vec<_>>()
        );
        for (event, groups) in &installed {
            let ours = &groups[0];
            let theirs = &plugin_hooks[event][0];
            assert_eq!(ours.get("matcher"), theirs.get("matcher"), "{event}");
            assert_eq!(
                ours["hooks"][0]["timeout"], theirs["hooks"][0]["timeout"],
                "{event}"
            );
            let subcommand = ours["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .trim_start_matches("car hook ");
            assert_eq!(
                theirs["hooks"][0]["command"],
                format!("\"${{CLAUDE_PLUGIN_ROOT}}/hooks/car-hook\" {subcommand}"),
                "{event}"
            );
        }
    }
}
