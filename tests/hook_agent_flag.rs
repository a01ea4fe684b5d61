//! `car hook EVENT --agent NAME`: the payloads the real CLIs sent (`fixtures/hook-payloads/captured/`)
//! answered in each agent's own shape when the hook names its agent, the same answers when it
//! does not (a hook wired by hand: car recognises the payload), a clear message for an unknown
//! name, and `car install` writing the flag (and upgrading an older install in place).

use serde_json::{Value, json};

use crate::support::TestProject;

/// 2026-12-01T19:10:00Z, the captured sessions' day.
const NOW: &str = "1796152200";

/// A captured session: the agent's name, its folder, the file its first edit wrote (broken) and
/// that content, and the payloads replayed here, each with its `car hook` event.
struct Captured {
    agent: &'static str,
    folder: &'static str,
    file: &'static str,
    broken: &'static str,
    steps: [(&'static str, &'static str); 3],
}

const CAPTURED: [Captured; 3] = [
    Captured {
        agent: "claude",
        folder: "claude-code-2.1.332",
        file: "bad.py",
        broken: "def f(:\n    return 1\n",
        steps: [
            ("post-tool-use", "01-PostToolUse-Write.json"),
            ("stop", "04-Stop.json"),
            ("session-end", "10-SessionEnd.json"),
        ],
    },
    Captured {
        agent: "codex",
        folder: "codex-0.171.0",
        file: "app.py",
        broken: "def load(path):\n    with open(path) as fh:\n        return fh.read(\n",
        steps: [
            ("post-tool-use", "01-PostToolUse-apply_patch.json"),
            ("stop", "03-Stop.json"),
            ("session-end", "06-SessionEnd.json"),
        ],
    },
    Captured {
        agent: "gemini",
        folder: "gemini-cli-0.61.0",
        file: "app.py",
        broken: "def load(path):\n    with open(path) as fh:\n        return fh.read(\n",
        steps: [
            ("post-tool-use", "01-AfterTool-write_file.json"),
            ("stop", "03-AfterAgent.json"),
            ("session-end", "06-SessionEnd.json"),
        ],
    },
];

/// Replays a captured session's edit (the file written as the tool left it), stop and session
/// end, with `--agent` or without; the answers, redacted.
fn replay(captured: &Captured, is_named: bool) -> Vec<Value> {
    let mut project = TestProject::new();
    project.at(NOW);
    project.write(captured.file, captured.broken);
    captured
        .steps
        .iter()
        .map(|(event, name)| {
            let payload = project.fixture(&format!("captured/{}/{name}", captured.folder));
            let answer = if is_named {
                project.hook_as(captured.agent, event, &payload)
            } else {
                project.hook(event, &payload)
            };
            assert_eq!(answer.code, 0, "{name}: {answer:?}");
            answer.redacted(&project)
        })
        .collect()
}

#[test]
fn captured_payloads_are_answered_in_each_agents_shape() {
    for captured in &CAPTURED {
        let answers = replay(captured, true);
        let agent = captured.agent;
        let (edit, stop, end) = (&answers[0], &answers[1], &answers[2]);
        // A syntax error makes the agent look: Gemini's word is deny, the others' block.
        let word = if agent == "gemini" { "deny" } else { "block" };
        assert_eq!(edit["decision"], word, "{agent}: {edit}");
        let reason = edit["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains(&format!("{}:3:", captured.file))
                || reason.contains(&format!("{}:1:", captured.file)),
            "{agent}: the error is located: {reason}"
        );
        // The stop is gated until the edit is reviewed, in the same words.
        assert_eq!(stop["decision"], word, "{agent}: {stop}");
        assert!(
            stop["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("car review submit"),
            "{agent}: {stop}"
        );
        if agent == "codex" {
            let keys: Vec<&String> = stop.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["decision", "reason"], "Codex's closed Stop schema");
        }
        assert!(end.get("decision").is_none(), "{agent}: {end}");
    }
}

/// Hooks wired by hand without `--agent` (and every install before it existed) keep working:
/// car recognises the captured payloads and answers exactly as when the hook names its agent.
#[test]
fn without_the_flag_the_payload_is_recognised() {
    for captured in &CAPTURED {
        assert_eq!(
            replay(captured, false),
            replay(captured, true),
            "{}",
            captured.agent
        );
    }
}

/// What the flag is for: a payload that does not say who sent it (here Gemini's write without
/// its event name) is read as the named agent's, and answered in its shape.
#[test]
fn the_flag_decides_who_called() {
    let project = TestProject::new();
    let captured = &CAPTURED[2];
    project.write(captured.file, captured.broken);
    let mut payload =
        project.fixture_json("captured/gemini-cli-0.61.0/01-AfterTool-write_file.json");
    payload.as_object_mut().unwrap().remove("hook_event_name");
    let named = project.hook_as("gemini", "post-tool-use", &payload.to_string());
    assert_eq!(named.json["decision"], "deny", "{named:?}");
    let guessed = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(
        guessed.json,
        json!({}),
        "read as Claude Code's, whose tools have other names: {guessed:?}"
    );
}

#[test]
fn an_unknown_agent_is_named_and_the_hook_still_answers() {
    let project = TestProject::new();
    let payload = project.fixture("captured/claude-code-2.1.332/04-Stop.json");
    let answer = project.hook_as("vscode", "stop", &payload);
    assert_eq!(answer.code, 0, "a hook never wedges the agent: {answer:?}");
    let message = answer.system_message();
    assert!(
        message.contains("unknown agent `vscode` for --agent")
            && message.contains("claude, codex, gemini or cursor"),
        "{answer:?}"
    );
    assert!(answer.json.get("decision").is_none(), "{answer:?}");
    assert!(
        answer.stderr.contains("unknown agent `vscode`"),
        "{answer:?}"
    );
    let help = project.run(&["hook", "stop", "--help"]);
    assert!(
        help.stdout.contains("--agent <AGENT>")
            && help.stdout.contains("claude, codex, gemini or cursor"),
        "{}",
        help.stdout
    );
}

/// car's handlers in a hook file, as (event, command).
fn car_commands(document: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (event, list) in document["hooks"].as_object().into_iter().flatten() {
        for entry in list.as_array().into_iter().flatten() {
            let handlers = entry["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![entry.clone()]);
            for handler in handlers {
                let command = handler["command"].as_str().unwrap_or_default();
                if command.starts_with("car hook ") {
                    found.push((event.clone(), command.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn install_names_the_agent_in_every_hook() {
    let project = TestProject::new();
    let run = project.run(&["install", "--non-interactive", "--agent", "all"]);
    assert_eq!(run.code, 0, "{run:?}");
    for (agent, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json"),
    ] {
        let commands = car_commands(&crate::support::read_jsonc(&project.read(file)));
        assert!(!commands.is_empty(), "{file}");
        for (event, command) in commands {
            assert!(
                command.ends_with(&format!(" --agent {agent}")),
                "{file} {event}: {command}"
            );
        }
    }
}

/// An install an older car made (no `--agent`) is upgraded in place by `car install`: one handler
/// per event, now naming the agent, the user's hooks kept; `car status` points at it before.
#[test]
fn reinstall_upgrades_an_old_install_in_place() {
    let project = TestProject::new();
    let old = |command: &str, timeout: u64| json!({"type": "command", "command": command, "timeout": timeout});
    let settings = json!({
        "model": "opus",
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit"}]},
                {"matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash", "hooks": [old("car hook post-tool-use", 30)]}
            ],
            "Stop": [{"hooks": [old("car hook stop", 360)]}],
            "SubagentStop": [{"hooks": [old("car hook stop", 360)]}],
            "SessionEnd": [{"hooks": [old("car hook session-end", 2)]}]
        }
    });
    project.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&settings).unwrap(),
    );
    project.write(
        ".codex/hooks.json",
        &json!({"hooks": {"Stop": [{"hooks": [old("car hook stop", 360)]}]}}).to_string(),
    );
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("do not name their agent"),
        "{}",
        status.stdout
    );
    for agent in ["claude", "codex"] {
        let run = project.run(&["install", "--non-interactive", "--agent", agent]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let claude = project.read_json(".claude/settings.json");
    assert_eq!(claude["model"], "opus");
    assert_eq!(
        claude["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "my-audit"
    );
    assert_eq!(
        car_commands(&claude),
        [
            ("PostToolUse", "car hook post-tool-use --agent claude"),
            ("Stop", "car hook stop --agent claude"),
            ("SubagentStop", "car hook stop --agent claude"),
            ("SessionEnd", "car hook session-end --agent claude"),
            ("PreToolUse", "car hook pre-tool-use --agent claude"),
            ("SessionStart", "car hook session-start --agent claude"),
        ]
        .map(|(event, command)| (event.to_string(), command.to_string()))
    );
    let codex = car_commands(&project.read_json(".codex/hooks.json"));
    assert_eq!(codex.len(), 5, "{codex:?}");
    assert!(
        codex
            .iter()
            .all(|(_, command)| command.ends_with(" --agent codex"))
    );
    let status = project.run(&["status"]);
    assert!(
        !status.stdout.contains("do not name their agent"),
        "{}",
        status.stdout
    );
}
