//! car's hook entries for one agent, event by event, in the agent's own format: built from its
//! spec's hooks ([`super::spec::HookSpec`]) and the settings that shape them (the reviewer's
//! timeout, `editBriefing`, `maxStopPasses`).
//!
//! Invariants: each entry's timeout follows from the car hook it runs (one budget per hook, for
//! every agent), in the agent's unit; each entry's command names its agent
//! (`car hook stop --agent codex`), so car never has to guess who called.

use serde_json::{Map, Value, json};

use super::Agent;
use super::answer::HookEvent;
use super::spec::{HandlerShape, HookSpec};
use crate::settings::Settings;

/// Seconds the Stop hook may take beyond the reviewer's own timeout.
const STOP_TIMEOUT_MARGIN: u64 = 60;

/// The PostToolUse hook's time limit in seconds (its own budget is 20 s).
const POST_TOOL_USE_TIMEOUT: u64 = 30;

/// The PreToolUse hook's time limit in seconds (its own budget is 10 s; past it the write goes
/// through).
const PRE_TOOL_USE_TIMEOUT: u64 = 15;

/// The SessionEnd hook's time limit in seconds (its own budget is 0.9 s).
const SESSION_END_TIMEOUT: u64 = 2;

/// The SessionStart hook's time limit in seconds (its own budget is 4 s: one `git status`).
const SESSION_START_TIMEOUT: u64 = 5;

/// The Stop hook's time limit in seconds: the reviewer's timeout plus a margin.
pub(crate) fn stop_timeout(settings: &Settings) -> u64 {
    settings
        .reviewer_timeout_seconds
        .saturating_add(STOP_TIMEOUT_MARGIN)
}

/// The time limit in seconds of the hook that runs `car hook EVENT`.
fn timeout_seconds(runs: HookEvent, settings: &Settings) -> u64 {
    match runs {
        HookEvent::PreToolUse => PRE_TOOL_USE_TIMEOUT,
        HookEvent::PostToolUse => POST_TOOL_USE_TIMEOUT,
        HookEvent::Stop => stop_timeout(settings),
        HookEvent::SessionEnd => SESSION_END_TIMEOUT,
        HookEvent::SessionStart => SESSION_START_TIMEOUT,
    }
}

/// car's hook entries, event by event, in the agent's own format.
pub(super) fn entries(agent: Agent, settings: &Settings) -> Map<String, Value> {
    agent
        .spec()
        .hooks
        .iter()
        .map(|hook| {
            (
                hook.event.to_string(),
                json!([entry(agent, hook, settings)]),
            )
        })
        .collect()
}

/// One event's entry: the handler, in its group where the agent groups handlers.
fn entry(agent: Agent, hook: &HookSpec, settings: &Settings) -> Value {
    let file = &agent.spec().hook_file;
    let command_name = hook.runs.command_name();
    let mut handler = Map::new();
    if file.handler_shape == HandlerShape::NamedGroup {
        handler.insert("name".into(), json!(format!("car-{command_name}")));
    }
    if file.handler_shape != HandlerShape::Flat {
        handler.insert("type".into(), json!("command"));
    }
    handler.insert("command".into(), json!(hook_command(command_name, agent)));
    let timeout = file
        .timeout_unit
        .timeout_of(timeout_seconds(hook.runs, settings));
    handler.insert("timeout".into(), json!(timeout));
    if hook.has_loop_limit {
        handler.insert(
            "loop_limit".into(),
            json!(settings.max_stop_passes.saturating_mul(2)),
        );
    }
    let handler = Value::Object(handler);
    match file.handler_shape {
        HandlerShape::Flat => handler,
        HandlerShape::Group | HandlerShape::NamedGroup => {
            group(hook.matcher.text(settings.edit_briefing), handler)
        }
    }
}

/// A handler in its group, with the group's tool matcher if it has one.
fn group(matcher: Option<&str>, handler: Value) -> Value {
    let mut group = Map::new();
    if let Some(matcher) = matcher {
        group.insert("matcher".into(), json!(matcher));
    }
    group.insert("hooks".into(), json!([handler]));
    Value::Object(group)
}

/// The command car's hook entry runs for `event` (`post-tool-use`, `stop`, `session-end`): it
/// names its agent, so car never has to guess who called, and names this car by its path when a
/// package installed it (else `car`, found on PATH).
fn hook_command(event: &str, agent: Agent) -> String {
    let program = crate::installation::Installation::detect().hook_program();
    hook_command_of(&program, event, agent)
}

pub(super) fn hook_command_of(program: &str, event: &str, agent: Agent) -> String {
    format!("{program} hook {event} --agent {}", agent.name())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// What `car install` writes for each agent with the default settings, byte for byte (with
    /// this car's program named `car`): tools outside car read these files.
    #[test]
    fn entries_are_the_contract() {
        let program = crate::installation::Installation::detect().hook_program();
        for (agent, expected) in [
            (
                Agent::Claude,
                r#"{
    "PreToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "car hook pre-tool-use --agent claude", "timeout": 15}]}],
    "PostToolUse": [{"matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash|Read", "hooks": [{"type": "command", "command": "car hook post-tool-use --agent claude", "timeout": 30}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "car hook stop --agent claude", "timeout": 360}]}],
    "SubagentStop": [{"hooks": [{"type": "command", "command": "car hook stop --agent claude", "timeout": 360}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "car hook session-start --agent claude", "timeout": 5}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "car hook session-end --agent claude", "timeout": 2}]}]
}"#,
            ),
            (
                Agent::Codex,
                r#"{
    "PreToolUse": [{"matcher": "apply_patch|Edit|Write", "hooks": [{"type": "command", "command": "car hook pre-tool-use --agent codex", "timeout": 15}]}],
    "PostToolUse": [{"matcher": "apply_patch|Edit|Write|Bash", "hooks": [{"type": "command", "command": "car hook post-tool-use --agent codex", "timeout": 30}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "car hook stop --agent codex", "timeout": 360}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "car hook session-start --agent codex", "timeout": 5}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "car hook session-end --agent codex", "timeout": 2}]}]
}"#,
            ),
            (
                Agent::Gemini,
                r#"{
    "BeforeTool": [{"matcher": "^(write_file|replace)$", "hooks": [{"name": "car-pre-tool-use", "type": "command", "command": "car hook pre-tool-use --agent gemini", "timeout": 15000}]}],
    "AfterTool": [{"matcher": "^(write_file|replace|run_shell_command|read_file)$", "hooks": [{"name": "car-post-tool-use", "type": "command", "command": "car hook post-tool-use --agent gemini", "timeout": 30000}]}],
    "AfterAgent": [{"hooks": [{"name": "car-stop", "type": "command", "command": "car hook stop --agent gemini", "timeout": 360000}]}],
    "SessionStart": [{"hooks": [{"name": "car-session-start", "type": "command", "command": "car hook session-start --agent gemini", "timeout": 5000}]}],
    "SessionEnd": [{"hooks": [{"name": "car-session-end", "type": "command", "command": "car hook session-end --agent gemini", "timeout": 2000}]}]
}"#,
            ),
            (
                Agent::Cursor,
                r#"{
    "afterFileEdit": [{"command": "car hook post-tool-use --agent cursor", "timeout": 30}],
    "afterShellExecution": [{"command": "car hook post-tool-use --agent cursor", "timeout": 30}],
    "stop": [{"command": "car hook stop --agent cursor", "timeout": 360, "loop_limit": 10}],
    "sessionEnd": [{"command": "car hook session-end --agent cursor", "timeout": 2}]
}"#,
            ),
        ] {
            let expected: Value = serde_json::from_str(expected).unwrap();
            let written = serde_json::to_string(&entries(agent, &Settings::default()))
                .unwrap()
                .replace(&format!("\"{program} hook "), "\"car hook ");
            assert_eq!(written, expected.to_string(), "{agent:?}");
        }
    }
}
