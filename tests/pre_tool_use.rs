//! `car hook pre-tool-use`: before an edit tool runs, car checks the file as the tool would leave
//! it and stops the write when a checker of the content alone rejects it (where the file is clean
//! now) or when it repeats a heavy lesson. Everything else goes through silently. Payloads are the
//! ones the real CLIs sent (tests/fixtures/hook-payloads/captured/*/before-tool/).

use serde_json::{Value, json};

use crate::support::{HookAnswer, TestProject};

pub(crate) const CLAUDE: &str = "captured/claude-code-2.1.332/before-tool/01-PreToolUse-Write.json";
pub(crate) const CODEX: &str = "captured/codex-0.171.0/before-tool/01-PreToolUse-apply_patch.json";
const GEMINI: &str = "captured/gemini-cli-0.61.0/before-tool/01-BeforeTool-write_file.json";

/// The captured payload `base` with the tool and its input replaced.
pub(crate) fn before_tool(project: &TestProject, base: &str, tool: &str, input: Value) -> String {
    let mut payload = project.fixture_json(base);
    payload["tool_name"] = Value::from(tool);
    payload["tool_input"] = input;
    payload.to_string()
}

pub(crate) fn claude(project: &TestProject, tool: &str, input: Value) -> HookAnswer {
    project.hook_as(
        "claude",
        "pre-tool-use",
        &before_tool(project, CLAUDE, tool, input),
    )
}

pub(crate) fn write(project: &TestProject, file: &str, content: &str) -> HookAnswer {
    claude(
        project,
        "Write",
        json!({"file_path": project.path().join(file), "content": content}),
    )
}

fn edit(project: &TestProject, file: &str, old: &str, new: &str) -> HookAnswer {
    claude(
        project,
        "Edit",
        json!({"file_path": project.path().join(file), "old_string": old, "new_string": new, "replace_all": false}),
    )
}

/// Claude Code's and Codex's deny: `permissionDecision: deny` and its reason.
pub(crate) fn denied(answer: &HookAnswer) -> String {
    let output = &answer.json["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse", "{}", answer.stdout);
    assert_eq!(output["permissionDecision"], "deny", "{}", answer.stdout);
    output["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Let through without a word to the agent.
pub(crate) fn assert_silent(answer: &HookAnswer) {
    assert_eq!(answer.code, 0);
    assert!(
        answer.json.get("hookSpecificOutput").is_none() && answer.json.get("decision").is_none(),
        "the write must go through silently: {}",
        answer.stdout
    );
}

/// Let through: no deny, whatever context comes with it (the lessons of the file).
pub(crate) fn assert_let_through(answer: &HookAnswer) {
    assert_eq!(answer.code, 0);
    assert!(
        answer.json["hookSpecificOutput"]["permissionDecision"].is_null()
            && answer.json.get("decision").is_none(),
        "the write must go through: {}",
        answer.stdout
    );
}

pub(crate) fn committed(files: &[(&str, &str)]) -> TestProject {
    let project = TestProject::new();
    for (file, content) in files {
        project.write(file, content);
    }
    project.commit_all();
    project
}

/// The file would have a syntax error: the write is stopped, in the words the PostToolUse block
/// uses for the same error, and car touched nothing (the tool writes the file, not car).
#[test]
fn a_write_a_trusted_checker_rejects_is_stopped_in_the_words_of_the_block_after_it() {
    let project = committed(&[("app.py", "def load(path):\n    return 1\n")]);
    let broken = "def load(path:\n    return 1\n";
    let reason = denied(&write(&project, "app.py", broken));
    assert!(
        reason.starts_with("car: this edit was not made: the file would have errors"),
        "{reason}"
    );
    assert_eq!(project.read("app.py"), "def load(path):\n    return 1\n");
    // The same content written for real: PostToolUse blocks with the same error lines.
    let after = project.hook_as(
        "claude",
        "post-tool-use",
        &project.write_payload("app.py", broken, Some("def load(path):\n    return 1\n")),
    );
    let error_lines = |text: &str| text.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
    assert!(after.is_block(), "{}", after.stdout);
    assert_eq!(error_lines(&reason), error_lines(&after.reason()));
    assert!(reason.contains("app.py:1:9: SyntaxError"), "{reason}");
}

/// Each checker of the content alone stops a write: JSON, YAML, shell, and a grammar trusted to
/// block (Rust, TOML); a new file has nothing to compare with and is clean before.
#[test]
fn every_checker_of_the_content_alone_stops_a_broken_write() {
    let project = committed(&[("README.md", "x\n")]);
    for (file, content, expected) in [
        ("config.json", "{\"a\": 1,}\n", "config.json:1:"),
        ("deploy.yaml", "a: [1, 2\n", "deploy.yaml:"),
        ("run.sh", "if true; then\n  echo hi\n", "run.sh:"),
        ("src/lib.rs", "fn main() {\n    let x = 1;\n", "src/lib.rs:"),
        ("Cargo.toml", "[package\nname = \"x\"\n", "Cargo.toml:"),
    ] {
        let reason = denied(&write(&project, file, content));
        assert!(reason.contains(expected), "{file}: {reason}");
        assert!(!project.exists(file), "car never writes the file itself");
    }
}

/// Edit and MultiEdit are applied to the file on disk as the tool would: MultiEdit's edits in
/// order, each on the result of the one before.
#[test]
fn edit_and_multiedit_are_applied_to_the_file_as_the_tool_would() {
    let project = committed(&[("app.py", "def load(path):\n    return 1\n")]);
    let reason = denied(&edit(&project, "app.py", "return 1", "return (1"));
    assert!(reason.contains("app.py:2:"), "{reason}");
    assert_silent(&edit(&project, "app.py", "return 1", "return 2"));
    let multi = |edits: Value| {
        claude(
            &project,
            "MultiEdit",
            json!({"file_path": project.path().join("app.py"), "edits": edits}),
        )
    };
    // The second edit's old_string exists only after the first: applied in order, it breaks the
    // file; the pair that repairs its own break goes through.
    let reason = denied(&multi(json!([
        {"old_string": "return 1", "new_string": "return 2"},
        {"old_string": "return 2", "new_string": "return [2"}
    ])));
    assert!(reason.contains("app.py:2:"), "{reason}");
    assert_silent(&multi(json!([
        {"old_string": "return 1", "new_string": "return [2"},
        {"old_string": "[2", "new_string": "[2][0]"}
    ])));
}

/// A non-unique old_string is the tool's own error (it refuses the edit), and an old_string not
/// in the file may be repaired by the tool its own way: car says nothing, even when the new text
/// would break the file.
#[test]
fn an_edit_the_tool_itself_refuses_gets_no_verdict() {
    let project = committed(&[("app.py", "x = 1\ny = 1\n")]);
    assert_silent(&edit(&project, "app.py", "= 1", "= (1"));
    assert_silent(&edit(&project, "app.py", "z = 1", "z = (1"));
    // replace_all makes it the tool's edit: every occurrence, then the check.
    let reason = denied(&claude(
        &project,
        "Edit",
        json!({"file_path": project.path().join("app.py"), "old_string": "= 1", "new_string": "= (1", "replace_all": true}),
    ));
    assert!(reason.contains("app.py:"), "{reason}");
}

/// A file already broken is not clean: the agent may be fixing it a piece at a time, so a write
/// that leaves an error is let through (the PostToolUse hook still reports it).
#[test]
fn a_file_broken_already_is_not_stopped() {
    let project = committed(&[("app.py", "def a(:\n    pass\ndef b():\n    pass\n")]);
    assert_silent(&edit(&project, "app.py", "def b():", "def b(:"));
}

/// Grammars car trusts only for what an edit introduced (Swift, Kotlin, C, C++, CSS) misread
/// valid code: their errors never stop a write, and neither does an import car cannot find (the
/// environment decides) or a validator that only warns.
#[test]
fn a_misreading_grammar_or_a_missing_import_never_stops_a_write() {
    let project = committed(&[("README.md", "x\n")]);
    for (file, content) in [
        ("App.swift", "func f() {\n    let x = 1\n"),
        ("Main.kt", "fun main() {\n    println(1)\n"),
        ("lib.c", "int f(void) {\n    return 1;\n"),
        ("site.css", "a { color: red;\n"),
        ("page.html", "<div><span></div>\n"),
        (
            "app.py",
            "import fetch_retryx_not_installed\n\nfetch_retryx_not_installed.go()\n",
        ),
    ] {
        assert_silent(&write(&project, file, content));
    }
}

/// A lesson of weight at least `preventWeight` (6 unless set) stops the write that repeats it,
/// with the lesson; a lighter one says nothing here (the PostToolUse hook warns once the write
/// lands; the lessons of the file that come with the write leave it out); the setting moves the
/// line.
#[test]
fn a_heavy_lesson_stops_the_write_and_a_light_one_waits_for_the_edit() {
    let project = committed(&[("README.md", "x\n")]);
    project.add_weighted_lesson(
        "**/*.py",
        "yaml.load(",
        "Use yaml.safe_load: yaml.load runs arbitrary constructors.",
        6,
    );
    project.add_weighted_lesson(
        "**/*.py",
        "pickle.loads(",
        "Never unpickle data from the network.",
        3,
    );
    let lessons_before = project.read(".claude/claude-auto-review/lessons.json");
    let reason = denied(&write(
        &project,
        "load.py",
        "import yaml\n\ndata = yaml.load(text)\n",
    ));
    // Both lessons were added by a person: the deny does not claim car learned them.
    assert!(
        reason.contains("repeats what a lesson of this project warns about"),
        "{reason}"
    );
    assert!(
        reason.contains("lesson (weight 6): Use yaml.safe_load"),
        "{reason}"
    );
    assert!(reason.contains("load.py:3"), "{reason}");
    let light = write(
        &project,
        "net.py",
        "import pickle\n\ndata = pickle.loads(blob)\n",
    );
    assert_let_through(&light);
    assert!(!light.stdout.contains("unpickle"), "{}", light.stdout);
    assert_let_through(&write(
        &project,
        "safe.py",
        "import yaml\n\ndata = yaml.safe_load(text)\n",
    ));
    // Stopping a write counts nothing: the library is as it was.
    assert_eq!(
        project.read(".claude/claude-auto-review/lessons.json"),
        lessons_before
    );
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"preventWeight": 3}}"#,
    );
    let reason = denied(&write(
        &project,
        "net2.py",
        "import pickle\n\ndata = pickle.loads(blob)\n",
    ));
    assert!(reason.contains("weight 3"), "{reason}");
}

/// The same write sent again unchanged goes through (the agent insists: a stop is advice with
/// teeth, not a wall), with a line for the person; a different write is stopped anew.
#[test]
fn the_same_write_sent_again_unchanged_goes_through() {
    let project = committed(&[("README.md", "x\n")]);
    let broken = "def f(:\n    pass\n";
    denied(&write(&project, "a.py", broken));
    let again = write(&project, "a.py", broken);
    assert_silent(&again);
    assert!(
        again
            .system_message()
            .contains("let the write of a.py through"),
        "{}",
        again.stdout
    );
    denied(&write(&project, "a.py", broken));
    denied(&write(&project, "a.py", "def f(:\n    return 2\n"));
}

/// Codex's apply_patch, applied as Codex applies it (an added file, an update located by its
/// context), and Gemini CLI's write_file and replace, each denied in its agent's shape.
#[test]
fn codex_patches_and_gemini_tools_are_checked_and_denied_in_their_shapes() {
    let project = committed(&[("app.py", "def load(path):\n    return 1\n")]);
    let codex = |patch: &str| {
        project.hook_as(
            "codex",
            "pre-tool-use",
            &before_tool(&project, CODEX, "apply_patch", json!({"command": patch})),
        )
    };
    let reason = denied(&codex(
        "*** Begin Patch\n*** Update File: app.py\n@@ def load(path):\n-    return 1\n+    return (1\n*** End Patch\n",
    ));
    assert!(reason.contains("app.py:2:"), "{reason}");
    let reason = denied(&codex(
        "*** Begin Patch\n*** Add File: data.json\n+{\"a\": [1, 2}\n*** End Patch\n",
    ));
    assert!(reason.contains("data.json:1:"), "{reason}");
    assert_silent(&codex(
        "*** Begin Patch\n*** Update File: app.py\n@@\n-    return 1\n+    return 2\n*** End Patch\n",
    ));
    // A patch whose context is not in the file: Codex refuses it, car says nothing.
    assert_silent(&codex(
        "*** Begin Patch\n*** Update File: app.py\n@@\n-    return 9\n+    return (9\n*** End Patch\n",
    ));

    let gemini = |tool: &str, input: Value| {
        project.hook_as(
            "gemini",
            "pre-tool-use",
            &before_tool(&project, GEMINI, tool, input),
        )
    };
    let answer = gemini(
        "write_file",
        json!({"file_path": project.path().join("new.py"), "content": "def g(:\n"}),
    );
    assert_eq!(answer.json["decision"], "deny", "{}", answer.stdout);
    assert!(answer.reason().contains("new.py:1:"), "{}", answer.stdout);
    assert!(answer.json.get("hookSpecificOutput").is_none());
    let answer = gemini(
        "replace",
        json!({"file_path": project.path().join("app.py"), "old_string": "return 1", "new_string": "return (1", "instruction": "x"}),
    );
    assert_eq!(answer.json["decision"], "deny", "{}", answer.stdout);
    assert_silent(&gemini(
        "replace",
        json!({"file_path": project.path().join("app.py"), "old_string": "return 1", "new_string": "return 2", "instruction": "x"}),
    ));
}

/// `preventEdits: false` turns the hook off; a tool that is no edit, a file outside the project
/// and a broken payload go through (the last with a line for the person, failing open).
#[test]
fn off_not_an_edit_outside_and_bad_input_go_through() {
    let project = committed(&[("README.md", "x\n")]);
    let outside = tempfile::tempdir().unwrap();
    assert_silent(&claude(
        &project,
        "Write",
        json!({"file_path": outside.path().join("a.py"), "content": "def f(:\n"}),
    ));
    assert_silent(&claude(
        &project,
        "Bash",
        json!({"command": "rm -rf build"}),
    ));
    let broken = project.hook_as("claude", "pre-tool-use", "{\"cwd\": ");
    assert_silent(&broken);
    assert!(
        broken.system_message().contains("not valid JSON"),
        "{}",
        broken.stdout
    );
    project.write(
        ".claude/settings.json",
        r#"{"claude-auto-review": {"preventEdits": false}}"#,
    );
    assert_silent(&write(&project, "a.py", "def f(:\n"));
}

/// Installed for every agent that has the event, removed by uninstall, shown by status.
#[test]
fn install_wires_the_hook_for_each_agent_and_status_shows_it() {
    let project = committed(&[("README.md", "x\n")]);
    let run = project.run(&["install", "--non-interactive", "--agent", "all"]);
    assert_eq!(run.code, 0, "{run:?}");
    let claude = project.read_json(".claude/settings.json");
    assert_eq!(
        claude["hooks"]["PreToolUse"][0],
        json!({"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "car hook pre-tool-use --agent claude", "timeout": 15}]})
    );
    let codex = project.read_json(".codex/hooks.json");
    assert_eq!(
        codex["hooks"]["PreToolUse"][0]["matcher"],
        "apply_patch|Edit|Write"
    );
    let gemini = crate::support::read_jsonc(&project.read(".gemini/settings.json"));
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
        "car hook pre-tool-use --agent gemini"
    );
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("PreToolUse: yes (timeout 15 s)"),
        "{}",
        status.stdout
    );
    assert!(
        status.stdout.contains("before the edit: on"),
        "{}",
        status.stdout
    );
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        plugin["hooks"]["PreToolUse"][0]["matcher"],
        "Write|Edit|MultiEdit"
    );
    let run = project.run(&["uninstall", "--agent", "all"]);
    assert_eq!(run.code, 0, "{run:?}");
    for file in [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
    ] {
        if project.exists(file) {
            assert!(!project.read(file).contains("pre-tool-use"), "{file}");
        }
    }
}

/// A write stopped by a lesson counts for the lesson once the agent heeds it: its next write of
/// the file leaves the line out, and the lesson gains its hit (weight 7, heeded 1), as a warning
/// heeded after an edit does. Stopping alone counts nothing.
#[test]
fn a_stopped_lesson_counts_when_the_next_write_heeds_it() {
    let project = committed(&[("README.md", "x\n")]);
    project.add_weighted_lesson(
        "**/*.py",
        "yaml.load(",
        "Use yaml.safe_load: yaml.load runs arbitrary constructors.",
        6,
    );
    let lesson = |project: &TestProject| {
        let list = project.run(&["lessons", "list", "--json"]);
        let lessons: Value = serde_json::from_str(&list.stdout).unwrap();
        lessons
            .as_array()
            .or_else(|| lessons["lessons"].as_array())
            .unwrap()[0]
            .clone()
    };
    denied(&write(
        &project,
        "load.py",
        "import yaml\n\ndata = yaml.load(text)\n",
    ));
    assert_eq!(lesson(&project)["weight"], 6, "stopping counts nothing");
    let session = project.fixture_json(CLAUDE)["session_id"].clone();
    let mut heeding: Value = serde_json::from_str(&project.write_payload(
        "load.py",
        "import yaml\n\ndata = yaml.safe_load(text)\n",
        None,
    ))
    .unwrap();
    heeding["session_id"] = session;
    let after = project.hook_as("claude", "post-tool-use", &heeding.to_string());
    assert!(!after.is_block(), "{}", after.stdout);
    let lesson = lesson(&project);
    assert_eq!(lesson["heeded"], 1, "{lesson}");
    assert_eq!(lesson["weight"], 7, "{lesson}");
}

/// An import that resolves nowhere blocks after the edit (what is installed decides), never
/// before it: the agent may be about to install it.
#[test]
fn an_import_that_resolves_nowhere_is_not_stopped_before_the_edit() {
    let project = committed(&[
        (
            "package.json",
            "{\"name\": \"app\", \"version\": \"1.0.0\", \"dependencies\": {}}\n",
        ),
        ("node_modules/.package-lock.json", "{}\n"),
    ]);
    let content = "import { retry } from \"fetch-retryx\";\n\nexport const run = () => retry(1);\n";
    assert_silent(&write(&project, "src/app.ts", content));
    let after = project.hook_as(
        "claude",
        "post-tool-use",
        &project.write_payload("src/app.ts", content, None),
    );
    assert!(
        after.is_block(),
        "the check after the edit blocks it: {}",
        after.stdout
    );
}
