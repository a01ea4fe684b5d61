//! A hook as a process against a hook through car's MCP server, per event: what Claude Code's
//! `"type": "command"` hook costs (`car hook EVENT` started, the payload piped,
//! the answer read) against its `"type": "mcp_tool"` hook (one `tools/call` of the `hook` tool
//! to a `car mcp` that is already running), on the same Claude Code payloads, in a project with
//! 1,000 lessons. The two run interleaved, one call of each per round, so the shared machine's
//! drift moves them alike; each prints its median and the paired ratio. The first answer of each
//! pair is compared: both ways must say the same.
//!
//! This is car's side only: the client's own cost of starting a process or of a JSON-RPC call
//! comes on top and is not in these figures.
//!
//! Run: `cargo bench --bench mcp_hook` (prints medians; no pass/fail).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use common::{MISS_LINE, NOW, edit_payload, median, paired_ratio, project, report, spawn_hook};

const RUNS: usize = 40;
const LESSONS: usize = 1_000;

/// One event: its name for `car hook`, and its payload as Claude Code sends it.
struct Event {
    name: &'static str,
    payload: Value,
    command_times: Vec<Duration>,
    mcp_times: Vec<Duration>,
}

fn main() {
    let car = env!("CARGO_BIN_EXE_car");
    let temp = tempfile::tempdir().expect("temp dir");
    let root = project(&temp.path().join("project"), LESSONS);
    let mut events = events(&root);
    let mut server = Server::start(car, &root);

    for event in &events {
        let by_command: Value = serde_json::from_str(&command_hook(car, &root, event).1)
            .expect("the command hook answers JSON");
        let by_server: Value =
            serde_json::from_str(&server.hook(event).1).expect("the hook tool answers JSON");
        let same = if by_command == by_server {
            "the same answer"
        } else {
            "DIFFERENT answers"
        };
        println!("{:<14} command and MCP: {same}", event.name);
    }
    for _ in 0..RUNS {
        for event in &mut events {
            let (elapsed, _) = command_hook(car, &root, event);
            event.command_times.push(elapsed);
            let (elapsed, _) = server.hook(event);
            event.mcp_times.push(elapsed);
        }
    }
    println!(
        "\n{LESSONS} lessons, {RUNS} rounds (car's side: process start + hook, or one tools/call)"
    );
    for event in &events {
        report(
            &format!("{} as a process", event.name),
            &event.command_times,
        );
        report(&format!("{} through car mcp", event.name), &event.mcp_times);
        println!(
            "{:<46} process / MCP median {:.1}x (paired {:.1}x)\n",
            "",
            median(&event.command_times).as_secs_f64() / median(&event.mcp_times).as_secs_f64(),
            paired_ratio(&event.command_times, &event.mcp_times)
        );
    }
}

/// The five events car wires in Claude Code, with payloads that do real work: an edit of a
/// 100-line TypeScript file that fires no lesson, a session start with the briefing, a stop
/// without changes (allowed) and a session end.
fn events(root: &Path) -> Vec<Event> {
    let file = root.join("small.ts");
    let content = std::fs::read_to_string(&file).expect("the project's file");
    let post: Value =
        serde_json::from_str(&edit_payload(root, "bench-edit", "small.ts", MISS_LINE))
            .expect("payload");
    let payloads = [
        (
            "session-start",
            json!({"session_id": "bench-start", "cwd": root, "hook_event_name": "SessionStart", "source": "startup"}),
        ),
        (
            "pre-tool-use",
            json!({"session_id": "bench-edit", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Write",
                   "tool_input": {"file_path": file, "content": content}}),
        ),
        ("post-tool-use", post),
        (
            "stop",
            json!({"session_id": "bench-stop", "cwd": root, "hook_event_name": "Stop", "stop_hook_active": false}),
        ),
        (
            "session-end",
            json!({"session_id": "bench-end", "cwd": root, "hook_event_name": "SessionEnd", "reason": "other"}),
        ),
    ];
    payloads
        .into_iter()
        .map(|(name, payload)| Event {
            name,
            payload,
            command_times: Vec::new(),
            mcp_times: Vec::new(),
        })
        .collect()
}

/// `car hook EVENT` with the payload on stdin (car recognises Claude Code's payload, as with
/// `--agent claude`): (elapsed, answer).
fn command_hook(car: &str, root: &Path, event: &Event) -> (Duration, String) {
    let started = Instant::now();
    let output = spawn_hook(car, root, event.name, &event.payload.to_string(), NOW)
        .wait_with_output()
        .expect("car finishes");
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{output:?}");
    (
        elapsed,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A running `car mcp`, initialised.
struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(car: &str, root: &Path) -> Server {
        let mut child = Command::new(car)
            .arg("mcp")
            .current_dir(root)
            .env("CAR_NOW", NOW.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("car mcp runs");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            input,
            output,
            next_id: 1,
        };
        server.request("initialize", json!({"protocolVersion": "2025-06-18"}));
        server
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.input, "{message}").expect("request written");
        self.input.flush().expect("request sent");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("answer read");
        serde_json::from_str(&line).expect("a JSON-RPC answer")
    }

    /// One `tools/call` of `hook`, its payload interpolated as Claude Code does: (elapsed, answer).
    fn hook(&mut self, event: &Event) -> (Duration, String) {
        let arguments = json!({"event": event.name, "agent": "claude", "payload": interpolated(&event.payload)});
        let started = Instant::now();
        let answer = self.request(
            "tools/call",
            json!({"name": "hook", "arguments": arguments}),
        );
        let elapsed = started.elapsed();
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .expect("the hook's answer")
            .to_string();
        (elapsed, text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The payload's fields as Claude Code's `${field}` interpolation gives them: text as it is,
/// an object as its JSON text, a boolean as `"true"` / `"false"`.
fn interpolated(payload: &Value) -> Value {
    let fields: Map<String, Value> = payload
        .as_object()
        .expect("an object")
        .iter()
        .map(|(key, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (key.clone(), json!(text))
        })
        .collect();
    Value::Object(fields)
}
