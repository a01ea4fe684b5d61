//! `car mcp` through the binary: the MCP protocol over stdio (initialize, tools/list, each tool,
//! bad arguments as tool errors, malformed messages as JSON-RPC errors, never a crash), on a
//! project with a lesson.

use serde_json::{Value, json};

use crate::support::TestProject;

/// Sends `messages` (one per line) to `car mcp` and returns its answers, one per line.
fn session(project: &TestProject, messages: &[Value]) -> Vec<Value> {
    let mut input: String = messages
        .iter()
        .map(|message| format!("{message}\n"))
        .collect();
    input.push_str("not json at all\n");
    let output = project
        .car()
        .arg("mcp")
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut answers: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stdout line is one JSON message"))
        .collect();
    let last = answers.pop().unwrap();
    assert_eq!(
        last["error"]["code"], -32700,
        "a line that is not JSON: {last}"
    );
    answers
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn project_with_a_lesson() -> TestProject {
    let project = TestProject::new();
    project.write(
        "app/load.py",
        "import yaml\n\n\ndef load(text):\n    return yaml.safe_load(text)\n",
    );
    project.commit_all();
    project.add_weighted_lesson(
        "*.py",
        "yaml.load(",
        "Use yaml.safe_load: yaml.load runs arbitrary constructors.",
        3,
    );
    project
}

#[test]
fn the_handshake_and_the_tool_list() {
    let project = project_with_a_lesson();
    let answers = session(
        &project,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}),
        ],
    );
    // The notification is not answered.
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "car");
    assert!(answers[0]["result"]["capabilities"]["tools"].is_object());
    assert_eq!(answers[1]["result"], json!({}));
    let names: Vec<&str> = answers[2]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lessons_for", "check", "explain", "propose_lesson"]);
    for tool in answers[2]["result"]["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    assert_eq!(answers[3]["error"]["code"], -32601, "{}", answers[3]);
}

#[test]
fn lessons_for_check_and_explain_answer_about_the_project() {
    let project = project_with_a_lesson();
    let lessons_before = project.read(".claude/claude-auto-review/lessons.json");
    let answers = session(
        &project,
        &[
            call(
                1,
                "lessons_for",
                json!({"path": "app/new.py", "content": "import yaml\ncfg = yaml.load(raw)\n"}),
            ),
            call(2, "lessons_for", json!({"path": "web/app.ts"})),
            call(
                3,
                "check",
                json!({"path": "app/new.py", "content": "def broken(:\n    pass\n"}),
            ),
            call(
                4,
                "check",
                json!({"path": "app/new.py", "content": "import yaml\ncfg = yaml.load(raw)\n"}),
            ),
            call(
                5,
                "check",
                json!({"path": "app/new.py", "content": "import yaml\ncfg = yaml.safe_load(raw)\n"}),
            ),
        ],
    );
    let first = &answers[0]["result"];
    assert_eq!(first["isError"], false, "{first}");
    assert_eq!(first["structuredContent"]["total"], 1);
    let lesson = &first["structuredContent"]["lessons"][0];
    assert_eq!(lesson["triggers"], json!(["yaml.load("]));
    assert_eq!(
        lesson["fires_on"],
        json!([{"line": 2, "text": "cfg = yaml.load(raw)"}])
    );
    assert!(
        text_of(&answers[0]).contains("FIRES on line 2"),
        "{}",
        text_of(&answers[0])
    );
    assert_eq!(answers[1]["result"]["structuredContent"]["total"], 0);
    assert!(text_of(&answers[1]).contains("No lesson"), "{}", answers[1]);
    let broken = &answers[2]["result"]["structuredContent"];
    assert_eq!(broken["blocks"], true, "{broken}");
    assert!(text_of(&answers[2]).starts_with("car would block this write"));
    let warned = &answers[3]["result"]["structuredContent"];
    assert_eq!(warned["blocks"], false, "{warned}");
    assert_eq!(warned["warnings"][0]["line"], 2, "{warned}");
    assert_eq!(
        text_of(&answers[4]),
        "car would let this write through without a word (app/new.py)."
    );
    // Nothing was written: no file, no hit counted.
    assert!(!project.exists("app/new.py"));
    assert_eq!(
        project.read(".claude/claude-auto-review/lessons.json"),
        lessons_before
    );
    let id = lesson["id"].as_str().unwrap();
    let explained = session(&project, &[call(6, "explain", json!({"id": id}))]);
    let text = text_of(&explained[0]);
    assert!(
        text.contains("Use yaml.safe_load") && text.contains("source added"),
        "{text}"
    );
    assert_eq!(explained[0]["result"]["structuredContent"]["id"], id);
}

#[test]
fn a_proposed_lesson_is_a_candidate_never_a_lesson_by_itself() {
    let project = TestProject::new();
    for name in ["a", "b"] {
        project.write(
            &format!("svc/{name}.py"),
            "import json\n\n\ndef handle(body):\n    return json.loads(body)\n",
        );
    }
    project.commit_all();
    let propose = |id: u64, file: &str| {
        call(
            id,
            "propose_lesson",
            json!({
            "path": file, "bad": "    return pickle.loads(body)",
            "good": "    return json.loads(body)",
            "why": "Untrusted bytes must never be unpickled."}),
        )
    };
    let answers = session(&project, &[propose(1, "svc/a.py"), propose(2, "svc/b.py")]);
    for answer in &answers {
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        assert_eq!(
            answer["result"]["structuredContent"]["recorded"], true,
            "{answer}"
        );
        assert!(text_of(answer).contains("candidate"), "{answer}");
    }
    assert!(!project.exists(".claude/claude-auto-review/lessons.json"));
    let run = project.run(&["lessons", "candidates", "--json"]);
    let candidates: Value = serde_json::from_str(&run.stdout).unwrap();
    let candidate = &candidates.as_array().unwrap()[0];
    assert_eq!(candidate["source"], "agent", "{candidate}");
    assert_eq!(candidate["learned_from"].as_array().unwrap().len(), 2);
    // A proposal that names no specific mistake is refused, and says why.
    let vague = session(
        &project,
        &[call(
            3,
            "propose_lesson",
            json!({"path": "svc/a.py", "bad": "x = 1", "good": "x = 2"}),
        )],
    );
    assert_eq!(vague[0]["result"]["structuredContent"]["recorded"], false);
    assert!(
        text_of(&vague[0]).starts_with("Not recorded:"),
        "{}",
        vague[0]
    );
}

#[test]
fn bad_arguments_are_tool_errors_and_bad_messages_protocol_errors() {
    let project = project_with_a_lesson();
    let outside = std::env::temp_dir().join("elsewhere.py");
    let answers = session(
        &project,
        &[
            call(1, "lessons_for", json!({})),
            call(2, "lessons_for", json!({"path": 5})),
            call(3, "check", json!({"path": outside, "content": "x = 1\n"})),
            call(4, "explain", json!({"id": "nope"})),
            call(
                5,
                "propose_lesson",
                json!({"path": "a.py", "bad": "", "good": "x"}),
            ),
            call(6, "no_such_tool", json!({})),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 8, "method": 42}),
            json!([1, 2]),
        ],
    );
    let errors: Vec<String> = answers[..5]
        .iter()
        .map(|answer| {
            assert_eq!(answer["result"]["isError"], true, "{answer}");
            text_of(answer)
        })
        .collect();
    assert!(
        errors[0].contains("missing argument \"path\""),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("\"path\" must be a string"),
        "{errors:?}"
    );
    assert!(errors[2].contains("elsewhere.py"), "{errors:?}");
    assert!(errors[3].contains("\"nope\""), "{errors:?}");
    assert!(
        errors[4].contains("\"bad\" must not be empty"),
        "{errors:?}"
    );
    assert_eq!(answers[5]["error"]["code"], -32602, "{}", answers[5]);
    assert_eq!(answers[6]["error"]["code"], -32602, "{}", answers[6]);
    assert_eq!(answers[7]["error"]["code"], -32600, "{}", answers[7]);
    assert_eq!(answers[8]["error"]["code"], -32600, "{}", answers[8]);
}

/// The `hook` tool (Claude Code's `"type": "mcp_tool"` hooks) answers a payload exactly as the
/// command hook does, from the fields as Claude Code interpolates them (objects as JSON text,
/// booleans as words); it is not in the tool list, so the model never sees it.
#[test]
fn the_hook_tool_answers_like_the_command_hook() {
    let project = project_with_a_lesson();
    let payload = |session: &str| {
        json!({"session_id": session, "cwd": project.path(), "hook_event_name": "PreToolUse",
               "tool_name": "Write",
               "tool_input": {"file_path": project.path().join("bad.py"), "content": "def f(:\n    return 1\n"}})
    };
    let by_command = project.hook_as("claude", "pre-tool-use", &payload("by-command").to_string());
    assert_eq!(
        by_command.json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{:?}",
        by_command.json
    );
    let interpolated: serde_json::Map<String, Value> = payload("by-server")
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, value)| {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            (key.clone(), json!(text))
        })
        .collect();
    let answers = session(
        &project,
        &[
            call(
                1,
                "hook",
                json!({"event": "pre-tool-use", "agent": "claude", "payload": interpolated}),
            ),
            call(2, "hook", json!({"event": "lunch", "payload": {}})),
        ],
    );
    let by_server: Value = serde_json::from_str(&text_of(&answers[0])).unwrap();
    assert_eq!(by_server, by_command.json);
    assert_eq!(answers[0]["result"]["isError"], false);
    let refused: Value = serde_json::from_str(&text_of(&answers[1])).unwrap();
    assert!(
        refused["systemMessage"]
            .as_str()
            .is_some_and(|message| message.contains("nothing was checked")),
        "an argument it cannot use fails open: {refused}"
    );
}
