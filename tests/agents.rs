//! `car install|uninstall --agent …`: each agent's own project hook file is written in its
//! documented format, read back (by `car status`, and by the agent's payloads reaching car), kept
//! idempotent beside the user's entries, and removed again.

use serde_json::{Value, json};

use crate::support::TestProject;

/// The user's own entry in each agent's file, and the file's other settings.
fn user_files(project: &TestProject) {
    project.write(
        ".codex/hooks.json",
        r#"{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit", "timeout": 5}]}]}}"#,
    );
    project.write(
        ".gemini/settings.json",
        "{\n  // the user's Gemini settings\n  \"theme\": \"GitHub\",\n  \"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"my-guard\"}]}]}\n}\n",
    );
    project.write(
        ".cursor/hooks.json",
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [{\"command\": \"./guard.sh\"}]\n  }\n}\n",
    );
}

#[test]
fn every_agents_file_is_written_read_back_and_removed() {
    let project = TestProject::new();
    user_files(&project);
    let before: Vec<String> = [
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".cursor/hooks.json",
    ]
    .iter()
    .map(|file| project.read(file))
    .collect();
    let run = project.run(&["install", "--non-interactive", "--agent", "all"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("trust"),
        "the Codex and Gemini trust steps are named: {}",
        run.stderr
    );

    let codex = project.read_json(".codex/hooks.json");
    assert_eq!(
        codex.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks"],
        "only hooks at the top: {codex}"
    );
    assert_eq!(
        codex["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "my-audit"
    );
    assert_eq!(
        codex["hooks"]["PostToolUse"][1]["matcher"],
        "apply_patch|Edit|Write|Bash"
    );
    assert_eq!(
        codex["hooks"]["Stop"][0]["hooks"][0],
        json!({"type": "command", "command": "car hook stop --agent codex", "timeout": 360})
    );

    let gemini_text = project.read(".gemini/settings.json");
    assert!(
        gemini_text.contains("// the user's Gemini settings"),
        "comments stay: {gemini_text}"
    );
    let gemini = crate::support::read_jsonc(&gemini_text);
    assert_eq!(gemini["theme"], "GitHub");
    assert_eq!(
        gemini["hooks"]["AfterTool"][0]["matcher"],
        "^(write_file|replace|run_shell_command|read_file)$"
    );
    assert_eq!(
        gemini["hooks"]["AfterTool"][0]["hooks"][0]["timeout"], 30_000,
        "milliseconds"
    );
    assert_eq!(
        gemini["hooks"]["AfterAgent"][0]["hooks"][0]["name"],
        "car-stop"
    );

    let cursor = project.read_json(".cursor/hooks.json");
    assert_eq!(cursor["version"], 1);
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0]["command"],
        "./guard.sh"
    );
    assert_eq!(
        cursor["hooks"]["afterFileEdit"],
        json!([{"command": "car hook post-tool-use --agent cursor", "timeout": 30}])
    );
    assert_eq!(
        cursor["hooks"]["stop"][0]["loop_limit"], 10,
        "twice maxStopPasses: car's breaker decides"
    );

    let status = project.run(&["status"]);
    for line in [
        "  Codex CLI (.codex/hooks.json)\n    PreToolUse: yes (timeout 15 s)\n    PostToolUse: yes (timeout 30 s)\n    Stop: yes (timeout 360 s)\n    SessionStart: yes (timeout 5 s)\n    SessionEnd: yes (timeout 2 s)\n",
        "  Gemini CLI (.gemini/settings.json)\n    BeforeTool: yes (timeout 15000 ms)\n    AfterTool: yes (timeout 30000 ms)\n    AfterAgent: yes (timeout 360000 ms)\n    SessionStart: yes (timeout 5000 ms)\n    SessionEnd: yes (timeout 2000 ms)\n",
        "  Cursor (.cursor/hooks.json)\n    afterFileEdit: yes (timeout 30 s)\n    afterShellExecution: yes (timeout 30 s)\n    stop: yes (timeout 360 s)\n    sessionEnd: yes (timeout 2 s)\n",
    ] {
        assert!(status.stdout.contains(line), "{line}\n{}", status.stdout);
    }
    let installed: Vec<String> = [
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".cursor/hooks.json",
    ]
    .iter()
    .map(|file| project.read(file))
    .collect();
    assert_eq!(
        project
            .run(&["install", "--non-interactive", "--agent", "all"])
            .code,
        0
    );
    for (file, text) in [
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".cursor/hooks.json",
    ]
    .iter()
    .zip(&installed)
    {
        assert_eq!(
            &project.read(file),
            text,
            "{file}: a second install changes nothing"
        );
    }

    let run = project.run(&["uninstall", "--agent", "all"]);
    assert_eq!(run.code, 0, "{run:?}");
    for (file, text) in [
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".cursor/hooks.json",
    ]
    .iter()
    .zip(&before)
    {
        assert_eq!(
            &project.read(file),
            text,
            "{file} is byte-identical after install + uninstall"
        );
    }
}

#[test]
fn files_car_created_are_removed_again() {
    let project = TestProject::new();
    assert_eq!(
        project
            .run(&["install", "--non-interactive", "--agent", "codex"])
            .code,
        0
    );
    assert_eq!(
        project
            .run(&["install", "--non-interactive", "--agent", "cursor"])
            .code,
        0
    );
    assert!(project.exists(".codex/hooks.json") && project.exists(".cursor/hooks.json"));
    assert_eq!(project.run(&["uninstall", "--agent", "codex"]).code, 0);
    assert!(
        !project.exists(".codex"),
        "a hooks-only file (and folder) car created goes away"
    );
    assert!(project.exists(".cursor/hooks.json"), "only the agent named");
    assert_eq!(project.run(&["uninstall", "--agent", "cursor"]).code, 0);
    assert!(!project.exists(".cursor"));
    let bad = project.run(&["install", "--agent", "vscode"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--agent"), "{}", bad.stderr);
}

/// The payloads each agent sends reach car through the wiring and get the agent's answer shape.
#[test]
fn each_agents_payloads_are_answered_in_its_own_shape() {
    let project = TestProject::new();
    assert_eq!(
        project
            .run(&["install", "--non-interactive", "--agent", "all"])
            .code,
        0
    );
    // Codex: the patch adds a broken line; its Stop answer holds only fields Codex accepts.
    project.write("src/app.py", "def main():\n    print('hi')\n");
    let codex_edit = project.post_fixture("codex-post-apply-patch.json");
    assert_eq!(codex_edit.code, 0);
    let codex_stop = project.hook("stop", &project.fixture("codex-stop.json"));
    assert!(
        codex_stop.is_block(),
        "the edit is reviewed first: {codex_stop:?}"
    );
    let allowed: [&str; 6] = [
        "continue",
        "stopReason",
        "suppressOutput",
        "systemMessage",
        "decision",
        "reason",
    ];
    for key in codex_stop.json.as_object().unwrap().keys() {
        assert!(
            allowed.contains(&key.as_str()),
            "Codex rejects a Stop answer with {key}: {codex_stop:?}"
        );
    }
    // Cursor: stop answers with a follow-up message or nothing, never Claude's fields.
    let cursor_stop = project.hook("stop", &project.fixture("cursor-stop.json"));
    let keys: Vec<&String> = cursor_stop.json.as_object().unwrap().keys().collect();
    assert!(
        keys.is_empty() || keys == ["followup_message"],
        "{cursor_stop:?}"
    );
    // A Cursor stop the user aborted is never followed up.
    let mut aborted = project.fixture_json("cursor-stop.json");
    aborted["status"] = json!("aborted");
    assert_eq!(project.hook("stop", &aborted.to_string()).json, json!({}));
    // Gemini: an edit's answer uses deny or AfterTool context.
    let gemini = project.post_fixture("gemini-after-tool-replace.json");
    let decision = gemini.json.get("decision").and_then(Value::as_str);
    assert!(decision.is_none() || decision == Some("deny"), "{gemini:?}");
}

/// The plugin's hook runner finds car where the packages put it (the project's npm package, PATH,
/// past the Python tool's `car`), and without one says so in one line at a stop and session start,
/// silently letting edits through: never a failing hook.
#[cfg(unix)]
#[test]
fn the_plugin_runner_finds_a_packaged_car_and_fails_clearly_without_one() {
    let project = TestProject::new();
    let runner = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/car-hook");
    let run = |event: &str, fixture: &str, path: &str| {
        let mut shell = std::process::Command::new("/bin/sh");
        crate::support::isolate(&mut shell, project.home());
        for name in [
            "CARGO_HOME",
            "CAR_BINARY",
            "CLAUDE_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
        ] {
            shell.env_remove(name);
        }
        let output = assert_cmd::Command::from_std(shell)
            .arg(&runner)
            .arg(event)
            .env("PATH", path)
            .current_dir(project.path())
            .write_stdin(project.fixture(fixture))
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    for event in ["stop", "session-start"] {
        let missing = run(event, "claude-stop.json", "/nonexistent");
        let message = missing["systemMessage"].as_str().unwrap();
        assert!(message.contains("car is not installed"), "{missing}");
        assert!(message.contains("pip install car-hooks"), "{missing}");
    }
    assert_eq!(
        run(
            "post-tool-use",
            "claude-post-write-create.json",
            "/nonexistent"
        ),
        json!({}),
        "an edit without car goes on silently"
    );

    // The Python claude-auto-review tool's `car` first on PATH is passed over.
    let car = assert_cmd::cargo::cargo_bin("car");
    let python_bin = project.home().join("python-bin");
    std::fs::create_dir_all(&python_bin).unwrap();
    std::fs::write(
        python_bin.join("car"),
        "#!/usr/bin/python3\nimport sys; sys.exit(2)\n",
    )
    .unwrap();
    std::fs::set_permissions(
        python_bin.join("car"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let bin = project.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&car, bin.join("car")).unwrap();
    let found = run(
        "stop",
        "claude-stop.json",
        &format!("{}:{}:/usr/bin:/bin", python_bin.display(), bin.display()),
    );
    assert_eq!(
        found,
        json!({}),
        "nothing edited: the real car lets the stop through"
    );

    // The project's npm package: its platform binary, with no car on PATH.
    let package = project.path().join("node_modules/@car-hooks/linux-x64/bin");
    std::fs::create_dir_all(&package).unwrap();
    std::os::unix::fs::symlink(&car, package.join("car")).unwrap();
    assert_eq!(run("stop", "claude-stop.json", "/usr/bin:/bin"), json!({}));
}

/// The plugin declares car's MCP server, started through the same runner: `car-hook mcp` is
/// `car mcp` with the car the runner finds (it answers `initialize`), and without a car the
/// server fails to start with one line saying why (the client shows the server as failed).
#[cfg(unix)]
#[test]
fn the_plugin_declares_the_mcp_server_through_its_runner() {
    let manifest: Value =
        serde_json::from_str(include_str!("../.claude-plugin/plugin.json")).unwrap();
    assert_eq!(
        manifest["mcpServers"]["car"],
        json!({"command": "${CLAUDE_PLUGIN_ROOT}/hooks/car-hook", "args": ["mcp"]})
    );
    let project = TestProject::new();
    let runner = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/car-hook");
    let start = |car: Option<&std::path::Path>| {
        let mut shell = std::process::Command::new("/bin/sh");
        crate::support::isolate(&mut shell, project.home());
        shell.env_remove("CARGO_HOME").env("PATH", "/usr/bin:/bin");
        match car {
            Some(car) => shell.env("CAR_BINARY", car),
            None => shell.env_remove("CAR_BINARY"),
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}});
        assert_cmd::Command::from_std(shell)
            .arg(&runner)
            .arg("mcp")
            .current_dir(project.path())
            .write_stdin(format!("{initialize}\n"))
            .output()
            .unwrap()
    };
    let car = assert_cmd::cargo::cargo_bin("car");
    let served = start(Some(&car));
    assert!(served.status.success(), "{served:?}");
    let answer: Value = serde_json::from_slice(
        served
            .stdout
            .split(|byte| *byte == b'\n')
            .next()
            .unwrap_or_default(),
    )
    .unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");

    let missing = start(None);
    assert_eq!(missing.status.code(), Some(1));
    assert!(missing.stdout.is_empty());
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(
        message.contains("car is not installed") && message.contains("pip install car-hooks"),
        "{message}"
    );
}
