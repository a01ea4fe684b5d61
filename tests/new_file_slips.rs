//! A new file in a language whose grammar car trusts only for what an edit introduced (Swift,
//! Kotlin, C, C++, CSS): nothing came before, so nothing is "introduced". A real slip there is
//! blocked when two independent witnesses agree (the grammar reports an error and the file's
//! brackets, counted by a lexer that knows the language's strings, comments and interpolation, do
//! not balance); what the grammar alone reads is told to the agent as context and recorded, never
//! silent.

use serde_json::json;

use crate::support::{HookAnswer, TestProject};

/// Claude Code's Write of a new file.
fn create(project: &TestProject, file: &str, content: &str) -> HookAnswer {
    project.hook_as(
        "claude",
        "post-tool-use",
        &project.write_payload(file, content, None),
    )
}

fn events(project: &TestProject) -> Vec<serde_json::Value> {
    let log = project.read(".claude/claude-auto-review/clients/test-session/events.jsonl");
    log.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[test]
fn an_unclosed_or_stray_bracket_in_a_new_file_blocks_when_both_witnesses_agree() {
    let project = TestProject::new();
    for (file, content, expected) in [
        (
            "Sources/App.swift",
            "func load() {\n    if ready {\n        start()\n}\n",
            "Sources/App.swift:1:13: unclosed `{`",
        ),
        (
            "src/Main.kt",
            "fun main() {\n    val s = \"${items[0]} }\"\n    println(s)\n}\n}\n",
            "src/Main.kt:5:1: stray `}`",
        ),
        (
            "lib/util.c",
            "int twice(int x) {\n    return (x * 2;\n}\n",
            "lib/util.c:3:1: `}` closes a `(`",
        ),
        (
            "site.css",
            "a { color: red;\nb { color: blue; }\n",
            "site.css:1:3: unclosed `{`",
        ),
    ] {
        let answer = create(&project, file, content);
        assert!(answer.is_block(), "{file}: {}", answer.stdout);
        assert!(
            answer.reason().contains(expected),
            "{file}: {}",
            answer.reason()
        );
    }
}

/// Valid files a grammar misreads, and a C file whose `#if` branches each open a brace: the
/// brackets balance (or cannot be counted for certain), so nothing blocks; the grammar's reading
/// is told as context, worded as a possible slip, and the record says it did not block and why.
#[test]
fn what_the_grammar_alone_reads_is_told_and_recorded_never_blocked() {
    let project = TestProject::new();
    // A custom prefix operator on a type (`[~String.self]`: a module library writes it so).
    let swift = "struct Probe {\n  var types: [Any] {\n    [~String.self, ~Int.self]\n  }\n}\n";
    let answer = create(&project, "Ping.swift", swift);
    assert!(!answer.is_block(), "{}", answer.stdout);
    let context = answer.context();
    assert!(
        context.contains("a possible slip in this new file: Ping.swift:3:"),
        "{context}"
    );
    assert!(
        context.contains("Not blocking: car's swift grammar misreads some valid code, and the file's brackets balance"),
        "{context}"
    );
    let recorded: Vec<_> = events(&project)
        .into_iter()
        .filter(|event| event["event"] == "not_blocked")
        .collect();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["file"], "Ping.swift");
    assert_eq!(recorded[0]["finding"]["line"], 3);
    assert!(
        recorded[0]["why"]
            .as_str()
            .unwrap()
            .contains("brackets balance")
    );

    let branches = "#ifdef LEGACY\nint start(void) {\n#else\nint start(int mode) {\n#endif\n    return 0;\n}\n";
    let answer = create(&project, "start.c", branches);
    assert!(!answer.is_block(), "{}", answer.stdout);

    // An edit of an existing file keeps the old rule: nothing told about what was there before.
    project.commit_all();
    project.write("Ping.swift", &swift.replace("Int", "Double"));
    let answer = project.hook_as(
        "claude",
        "post-tool-use",
        &json!({
            "session_id": "test-session",
            "cwd": project.path(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": project.path().join("Ping.swift"), "content": swift.replace("Int", "Double")},
            "tool_response": {"type": "update", "filePath": project.path().join("Ping.swift"), "originalFile": swift}
        })
        .to_string(),
    );
    assert!(
        !answer.context().contains("possible slip"),
        "{}",
        answer.stdout
    );
}

/// Rust: statements at the top level of a file (a `let` outside a function) are accepted by the
/// grammar and rejected by rustc: car blocks them (rustfmt, where installed, words the error).
#[test]
fn a_rust_statement_outside_a_function_blocks() {
    let project = TestProject::new();
    project.write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let answer = create(
        &project,
        "src/lib.rs",
        "pub fn total() -> u32 {\n    1\n}\nlet limit = 10;\n",
    );
    assert!(answer.is_block(), "{}", answer.stdout);
    assert!(
        answer.reason().contains("src/lib.rs:4:1:"),
        "{}",
        answer.reason()
    );
    let fine = create(
        &project,
        "src/util.rs",
        "macro_rules! twice { ($e:expr) => { $e * 2 } }\nthread_local! { static N: u8 = 1; }\npub fn f() -> u8 { let n = 1; twice!(n) }\n",
    );
    assert!(!fine.is_block(), "{}", fine.stdout);
}
