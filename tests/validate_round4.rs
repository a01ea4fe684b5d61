//! Validators, round 4 (issue 40): misreads of published code (each read right now, a slip in the
//! same construct still blocking), imports of build output, three detection gaps, the first
//! error naming the likeliest cause, and `car status` naming the tools and environments car uses.

use crate::support::{HookAnswer, TestProject, is_installed};

/// A PATH with git but without rustfmt, rustc or cargo: a machine whose Rust toolchain car cannot
/// run.
const PATH_WITHOUT_RUST: &str = "/usr/local/bin:/usr/bin:/bin";

fn write(project: &TestProject, file: &str, content: &str, original: Option<&str>) -> HookAnswer {
    project.hook_as(
        "claude",
        "post-tool-use",
        &project.write_payload(file, content, original),
    )
}

fn write_without_rust(project: &TestProject, file: &str, content: &str) -> HookAnswer {
    project.hook_with_env(
        "post-tool-use",
        &project.write_payload(file, content, None),
        &[("PATH", PATH_WITHOUT_RUST)],
    )
}

const HEAD_TSX: &str = "export function Head() {\n  return (\n    <link href=\"https://fonts.googleapis.com/css2?family=Inter&display=swap\" rel=\"stylesheet\" />\n  );\n}\n";

const QUERY_TSX: &str = "export interface UseQuery {\n  name: string\n  /** The query's data. */\n  <TData = unknown>(options: Options<TData>): Result<TData> &\n    Extra;\n}\n";

#[test]
fn tsx_ampersands_in_attributes_and_commented_call_signatures_pass_and_slips_block() {
    let project = TestProject::new();
    for (file, content) in [("src/Head.tsx", HEAD_TSX), ("src/query.tsx", QUERY_TSX)] {
        let answer = write(&project, file, content, None);
        assert!(!answer.is_block(), "{file}: {}", answer.stdout);
    }
    let slip = HEAD_TSX.replace("rel=\"stylesheet\" />", "rel=\"stylesheet />");
    assert!(write(&project, "src/Head.tsx", &slip, Some(HEAD_TSX)).is_block());
    let slip = QUERY_TSX.replace("Options<TData>)", "Options<TData>");
    assert!(write(&project, "src/query.tsx", &slip, Some(QUERY_TSX)).is_block());
}

const SWIFT_BEFORE: &str = "struct Span: ~Copyable {\n    var count: Int\n    func total(value: consuming Kind) -> Int {\n        count\n    }\n}\n";

#[test]
fn swift_edits_with_lifetimes_and_consume_pass_and_agree_with_car_check() {
    let project = TestProject::new();
    let after = "struct Span: ~Copyable {\n    var count: Int\n    @_lifetime(borrow self)\n    func view() -> Int { count }\n    func total(value: consuming Kind) -> Int {\n        switch consume value {\n        case .one: return 1\n        default: return count\n        }\n    }\n}\n";
    let answer = write(&project, "Sources/Span.swift", after, Some(SWIFT_BEFORE));
    assert!(!answer.is_block(), "{}", answer.stdout);
    let check = project.run(&["check", "Sources/Span.swift"]);
    assert!(
        check.stdout.contains("0 errors in 1 file, 0 warnings"),
        "{}",
        check.stdout
    );
    let slip = after.replace("case .one: return 1", "case .one return 1");
    let answer = write(&project, "Sources/Span.swift", &slip, Some(SWIFT_BEFORE));
    assert!(answer.is_block(), "{}", answer.stdout);
}

#[test]
fn rust_without_rustfmt_reads_str_macros_and_catches_a_macro_without_semicolon() {
    let project = TestProject::new();
    let snapshots = "#[test]\nfn help() {\n    let expected = str![[r#\"\nUsage: app [OPTIONS]\n\"#]];\n    let short = str![\"a\"];\n    assert_eq!(expected, short);\n}\n";
    let answer = write_without_rust(&project, "tests/help.rs", snapshots);
    assert!(!answer.is_block(), "{}", answer.stdout);
    let slip = "fn main() {\n    println!(\"hello\")\n    let x = 1;\n    drop(x);\n}\n";
    let answer = write_without_rust(&project, "src/main.rs", slip);
    assert!(answer.is_block(), "{}", answer.stdout);
    assert!(
        answer
            .reason()
            .contains("src/main.rs:2:22: syntax error: missing `;` after the `println!` call"),
        "{}",
        answer.reason()
    );
}

/// The ledger of the issue: a `}` missing inside a function, which the grammar reports at 1:1 and
/// as `let` outside a function.
const LEDGER: &str = "use serde::Serialize;\n\npub struct Ledger {\n    entries: Vec<u32>,\n}\n\npub fn total(l: &Ledger) -> u32 {\n    let mut sum = 0;\n    match l.entries.len() {\n        0 => return 0,\n        _ => {\n            sum += 1;\n    }\n    sum\n}\n\nconst LIMIT: u32 = 10;\n\npub fn other() -> u32 {\n    let x = LIMIT;\n    x\n}\n";

#[test]
fn a_missing_brace_is_named_first() {
    let project = TestProject::new();
    let answer = write_without_rust(&project, "src/ledger.rs", LEDGER);
    assert!(answer.is_block(), "{}", answer.stdout);
    let reason = answer.reason();
    let first = reason
        .lines()
        .find(|line| line.starts_with("src/ledger.rs:"))
        .unwrap_or_default();
    assert!(
        first.contains("src/ledger.rs:11:14: unclosed `{`: the `}` on line 13 that closes it is indented like an outer block"),
        "{reason}"
    );
    // With rustfmt, its suspected delimiter leads too.
    if crate::support::is_installed("rustfmt") {
        let answer = write(&project, "src/ledger.rs", LEDGER, None);
        let reason = answer.reason();
        assert!(
            reason.contains(
                "src/ledger.rs:11:14: unclosed delimiter: the one that closes it on line 13"
            ),
            "{reason}"
        );
    }
}

#[test]
fn an_import_of_build_output_gets_no_verdict_and_a_note() {
    let project = TestProject::new();
    project.write("package.json", r#"{"name": "docs", "type": "module"}"#);
    project.write(".gitignore", "dist/\n*.output\n");
    let content = "import ky from '../../dist/source/index.js';\nimport data from './Companies.script.output';\nimport missing from './nope.js';\nexport default [ky, data, missing];\n";
    let answer = write(&project, "docs/examples/use.ts", content, None);
    let reason = answer.reason();
    assert!(
        reason.contains("Cannot find module './nope.js'"),
        "{reason}"
    );
    assert!(!reason.contains("dist/source"), "{reason}");
    assert!(!reason.contains("script.output"), "{reason}");
    let told = answer.stdout.clone();
    assert!(
        told.contains("import '../../dist/source/index.js' not checked: git ignores its target"),
        "{told}"
    );
}

#[test]
fn a_go_package_inside_the_module_must_exist() {
    let project = TestProject::new();
    project.write("go.mod", "module example.com/svc\n\ngo 1.22\n");
    project.write("internal/store/store.go", "package store\n");
    let content = "package main\n\nimport (\n\t\"example.com/svc/internal/store\"\n\t\"example.com/svc/internal/nosuchpkg\"\n)\n\nfunc main() {\n\tstore.Open()\n\tnosuchpkg.Run()\n}\n";
    let answer = write(&project, "cmd/main.go", content, None);
    let reason = answer.reason();
    assert!(
        reason.contains("cmd/main.go:5:3: package example.com/svc/internal/nosuchpkg is not in the module: no folder internal/nosuchpkg beside go.mod"),
        "{reason}"
    );
    assert!(!reason.contains("internal/store is not"), "{reason}");
}

#[test]
fn a_dockerfile_exec_form_must_be_a_json_array() {
    let project = TestProject::new();
    let broken = "FROM alpine\nENTRYPOINT [\"app\", \"sync\"\n";
    let answer = write(&project, "Dockerfile", broken, None);
    assert!(
        answer
            .reason()
            .contains("Dockerfile:2:12: ENTRYPOINT exec form is not a JSON array"),
        "{}",
        answer.stdout
    );
    let valid = "FROM alpine\nRUN [ -f /etc/os-release ] && echo ok\nENTRYPOINT [\"app\", \"sync\"]\nCMD run --now\n";
    assert!(!write(&project, "Dockerfile", valid, Some(broken)).is_block());
}

#[test]
fn status_names_the_tools_and_each_python_environment() {
    let project = TestProject::new();
    project.write(
        "tools/.venv/pyvenv.cfg",
        "home = /usr/bin\ninclude-system-site-packages = false\n",
    );
    project.write("tools/report.py", "import json\n");
    project.write("tools/sync.py", "import os\n");
    project.write("main.py", "print(1)\n");
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("syntax checkers"),
        "{}",
        status.stdout
    );
    assert!(status.stdout.contains("Go: "), "{}", status.stdout);
    if is_installed("gofmt") {
        // gofmt has no --version: car must not take it for broken.
        assert!(status.stdout.contains("Go: gofmt ("), "{}", status.stdout);
        assert!(
            !status
                .stdout
                .lines()
                .any(|line| line.contains("Go: gofmt") && line.contains("does not run")),
            "{}",
            status.stdout
        );
    }
    assert!(status.stdout.contains("Rust: "), "{}", status.stdout);
    assert!(
        status.stdout.contains("tools/**/*.py (2 files): ")
            && status
                .stdout
                .contains("packages: tools/.venv (the project's virtual environment)"),
        "{}",
        status.stdout
    );
    let without = project
        .car()
        .args(["status"])
        .env("PATH", PATH_WITHOUT_RUST)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&without.stdout);
    assert!(
        text.contains("Rust: no rustfmt on PATH; tree-sitter's findings stand"),
        "{text}"
    );
}

/// `car check` and the hook trust a Swift grammar finding alike: a slip the change since the last
/// commit introduced is an error in both; a misread already committed is a warning in both.
#[test]
fn car_check_blocks_what_the_change_since_head_introduced_like_the_hook() {
    let project = TestProject::new();
    let misread = "func f() -> [Int] {\n    return [~Int.self]\n}\n";
    let committed = format!("{SWIFT_BEFORE}{misread}");
    project.write("Sources/Span.swift", &committed);
    project.commit_all();
    let check = project.run(&["check", "Sources/Span.swift"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let slip = committed.replace("    var count: Int\n", "    var count: = 1\n");
    let answer = write(&project, "Sources/Span.swift", &slip, Some(&committed));
    assert!(answer.is_block(), "{}", answer.stdout);
    let check = project.run(&["check", "Sources/Span.swift"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains("Sources/Span.swift:2:"),
        "{}",
        check.stdout
    );
}
