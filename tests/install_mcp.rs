//! `car install` registers car's MCP server (`car mcp`) in each agent's own MCP configuration,
//! beside the user's servers; `car uninstall` takes only car's entry away; `car status` shows it.

use serde_json::json;

use crate::support::TestProject;

/// The user's own MCP configuration in every file car registers its server in.
const USER_FILES: [(&str, &str); 4] = [
    (
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\", \"args\": [\"stdio\"]}\n  }\n}\n",
    ),
    (
        ".codex/config.toml",
        "# my Codex settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # local docs\n",
    ),
    (
        ".gemini/settings.json",
        "{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}\n}\n",
    ),
    (
        ".claude/settings.local.json",
        "{\n  \"enabledMcpjsonServers\": [\"github\"],\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n",
    ),
];

#[test]
fn install_registers_the_server_beside_the_users_and_uninstall_restores_every_byte() {
    let project = TestProject::new();
    for (file, text) in USER_FILES {
        project.write(file, text);
    }
    let first = project.run(&["install", "--agent", "all", "--non-interactive"]);
    assert_eq!(first.code, 0, "{first:?}");
    for file in [".mcp.json", ".codex/config.toml", ".gemini/settings.json"] {
        assert!(
            first.stderr.contains("registered car's MCP server for "),
            "{first:?}"
        );
        assert!(first.stderr.contains(file), "{file}: {first:?}");
    }

    let claude = project.read_json(".mcp.json");
    assert_eq!(
        claude["mcpServers"],
        json!({"github": {"command": "gh-mcp", "args": ["stdio"]}, "car": {"command": "car", "args": ["mcp"]}})
    );
    let gemini = crate::support::read_jsonc(&project.read(".gemini/settings.json"));
    assert_eq!(gemini["theme"], "dark");
    assert_eq!(
        gemini["mcpServers"],
        json!({"docs": {"command": "docs-mcp"}, "car": {"command": "car", "args": ["mcp"]}})
    );
    assert!(gemini["hooks"]["AfterTool"].is_array(), "{gemini}");
    let codex = project.read(".codex/config.toml");
    assert!(
        codex.starts_with(USER_FILES[1].1),
        "the user's lines stay as they were: {codex}"
    );
    assert!(
        codex.contains("[mcp_servers.car]\ncommand = \"car\"\nargs = [\"mcp\"]\n"),
        "{codex}"
    );
    // Claude Code's approval, as its own dialog records it: car's server alone.
    let local = project.read_json(".claude/settings.local.json");
    assert_eq!(local["enabledMcpjsonServers"], json!(["github", "car"]));
    assert_eq!(local["permissions"], json!({"allow": ["Bash(ls)"]}));
    assert!(local.get("enableAllProjectMcpServers").is_none(), "{local}");

    let snapshot: Vec<String> = USER_FILES
        .iter()
        .map(|(file, _)| project.read(file))
        .collect();
    let second = project.run(&["install", "--agent", "all", "--non-interactive"]);
    assert_eq!(second.code, 0, "{second:?}");
    assert!(
        second
            .stderr
            .contains("car's MCP server was already registered in .mcp.json; nothing changed"),
        "{second:?}"
    );
    let again: Vec<String> = USER_FILES
        .iter()
        .map(|(file, _)| project.read(file))
        .collect();
    assert_eq!(snapshot, again, "a second install changes nothing");

    let status = project.run(&["status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(
        status["mcp"],
        json!([
            {"agent": "claude", "file": ".mcp.json", "state": "registered", "command": "car", "approval": "approved"},
            {"agent": "codex", "file": ".codex/config.toml", "state": "registered", "command": "car"},
            {"agent": "gemini", "file": ".gemini/settings.json", "state": "registered", "command": "car"},
        ])
    );
    let text = project.run(&["status"]).stdout;
    assert!(
        text.contains("mcp server (car mcp)\n  Claude Code (.mcp.json): registered (`car mcp`)"),
        "{text}"
    );

    let removed = project.run(&["uninstall", "--agent", "all"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(
        removed
            .stderr
            .contains("removed car's MCP server from .codex/config.toml"),
        "{removed:?}"
    );
    for (file, text) in USER_FILES {
        assert_eq!(project.read(file), text, "{file} is as the user left it");
    }
}

/// A person's rejection of car's server in Claude Code stands; `--no-mcp` wires the hooks only
/// and takes away a registration an earlier install made.
#[test]
fn a_rejection_stands_and_no_mcp_leaves_the_server_out() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.local.json",
        "{\"disabledMcpjsonServers\": [\"car\"]}\n",
    );
    let install = project.run(&["install", "--non-interactive"]);
    assert_eq!(install.code, 0, "{install:?}");
    assert!(
        install
            .stderr
            .contains("note: car's MCP server is rejected in Claude Code"),
        "{install:?}"
    );
    assert_eq!(
        project.read(".claude/settings.local.json"),
        "{\"disabledMcpjsonServers\": [\"car\"]}\n"
    );
    let status = project.run(&["status", "--json"]).stdout;
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["mcp"][0]["approval"], "rejected", "{status}");

    let hooks_only = project.run(&["install", "--non-interactive", "--no-mcp"]);
    assert_eq!(hooks_only.code, 0, "{hooks_only:?}");
    assert!(
        hooks_only
            .stderr
            .contains("removed car's MCP server from .mcp.json"),
        "{hooks_only:?}"
    );
    assert!(
        !project.exists(".mcp.json"),
        "car created it, car removes it"
    );
    assert!(
        project.exists(".claude/settings.json"),
        "the hooks stay wired"
    );

    let fresh = TestProject::new();
    let hooks_only = fresh.run(&[
        "install",
        "--agent",
        "gemini",
        "--non-interactive",
        "--no-mcp",
    ]);
    assert_eq!(hooks_only.code, 0, "{hooks_only:?}");
    let gemini = fresh.read_json(".gemini/settings.json");
    assert!(gemini.get("mcpServers").is_none(), "{gemini}");
}

/// A registration naming a car that is gone (a removed npm or wheel install) cannot start: status
/// warns and names the command; install points it at this car.
#[test]
fn status_warns_on_a_stale_command_and_install_updates_it() {
    let project = TestProject::new();
    project.write(
        ".gemini/settings.json",
        "{\"mcpServers\": {\"car\": {\"command\": \"/gone/node_modules/@car-hooks/linux-x64/bin/car\", \"args\": [\"mcp\"], \"trust\": false}}}\n",
    );
    let status = project.run(&["status"]).stdout;
    assert!(
        status.contains("Gemini CLI (.gemini/settings.json): warning: registered as `/gone/node_modules/@car-hooks/linux-x64/bin/car mcp`, which does not exist"),
        "{status}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&project.run(&["status", "--json"]).stdout).unwrap();
    assert_eq!(json["mcp"][2]["state"], "stale", "{json}");

    let install = project.run(&["install", "--agent", "gemini", "--non-interactive"]);
    assert_eq!(install.code, 0, "{install:?}");
    let gemini = project.read_json(".gemini/settings.json");
    assert_eq!(
        gemini["mcpServers"]["car"],
        json!({"command": "car", "args": ["mcp"], "trust": false}),
        "the person's own keys stay"
    );
}

/// A configuration file car cannot read is named and left untouched.
#[test]
fn a_broken_codex_config_is_named_and_left_untouched() {
    let project = TestProject::new();
    let broken = "model = \"o3\"\n[mcp_servers\n";
    project.write(".codex/config.toml", broken);
    let install = project.run(&["install", "--agent", "codex", "--non-interactive"]);
    assert_eq!(install.code, 2, "{install:?}");
    assert!(
        install
            .stderr
            .contains(".codex/config.toml is not valid TOML"),
        "{install:?}"
    );
    assert_eq!(project.read(".codex/config.toml"), broken);
    let status = project.run(&["status"]).stdout;
    assert!(
        status.contains("Codex CLI (.codex/config.toml): cannot read:"),
        "{status}"
    );
}

/// `--hooks mcp` (Claude Code): the events of a session's middle call the running server's
/// `hook` tool, SessionStart and SessionEnd stay commands; status says so; a plain install keeps
/// it, `car config` refreshes it in place, `--hooks command` puts the commands back, uninstall
/// removes both kinds; other agents and `--no-mcp` are refused.
#[test]
fn hooks_through_the_server_for_claude_code() {
    let project = TestProject::new();
    let install = project.run(&["install", "--non-interactive", "--hooks", "mcp"]);
    assert_eq!(install.code, 0, "{install:?}");
    let settings = project.read_json(".claude/settings.json");
    let handler = |event: &str| settings["hooks"][event][0]["hooks"][0].clone();
    for event in ["PreToolUse", "PostToolUse", "Stop", "SubagentStop"] {
        assert_eq!(handler(event)["type"], "mcp_tool", "{event}");
        assert_eq!(handler(event)["server"], "car", "{event}");
        assert_eq!(handler(event)["tool"], "hook", "{event}");
    }
    assert_eq!(
        handler("PreToolUse")["input"]["payload"]["tool_input"],
        "${tool_input}"
    );
    for event in ["SessionStart", "SessionEnd"] {
        assert_eq!(handler(event)["type"], "command", "{event}");
    }
    let status = project.run(&["status", "--json"]).stdout;
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["agents"][0]["through_mcp"], true, "{status}");
    assert!(
        status["agents"][0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|event| event["wired"] == true),
        "{status}"
    );

    let text = project.read(".claude/settings.json");
    let again = project.run(&["install", "--non-interactive"]);
    assert!(again.stderr.contains("nothing changed"), "{again:?}");
    assert_eq!(project.read(".claude/settings.json"), text);
    let config = project.run(&["config", "--non-interactive", "--timeout", "100"]);
    assert_eq!(config.code, 0, "{config:?}");
    let settings = project.read_json(".claude/settings.json");
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["type"], "mcp_tool");
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 160);

    let back = project.run(&["install", "--non-interactive", "--hooks", "command"]);
    assert_eq!(back.code, 0, "{back:?}");
    assert!(!project.read(".claude/settings.json").contains("mcp_tool"));
    project.run(&["install", "--non-interactive", "--hooks", "mcp"]);
    let removed = project.run(&["uninstall"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(
        !project.exists(".claude/settings.json")
            || !project.read(".claude/settings.json").contains("\"hooks\"")
    );

    for refused in [
        &[
            "install",
            "--agent",
            "codex",
            "--hooks",
            "mcp",
            "--non-interactive",
        ][..],
        &["install", "--hooks", "mcp", "--no-mcp", "--non-interactive"][..],
    ] {
        let run = project.run(refused);
        assert_eq!(run.code, 2, "{refused:?}: {run:?}");
        assert!(run.stderr.contains("--hooks mcp"), "{run:?}");
    }
}
