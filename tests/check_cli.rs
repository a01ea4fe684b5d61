//! `car check`: human and JSON output, exit codes, skipped files, custom rules.

use serde_json::Value;

use crate::support::{self, TestProject};

fn good_files(project: &TestProject) {
    project.write("a.py", "import json\n\nprint(json.dumps({}))\n");
    project.write("b.json", "{\"a\": [1, 2]}\n");
    project.write(
        "tsconfig.json",
        "{\n  // comment\n  \"compilerOptions\": {\"strict\": true,},\n}\n",
    );
    project.write("c.sh", "#!/bin/sh\necho ok\n");
    project.write("d.rs", "fn main() {}\n");
    project.write("notes.md", "# not validated (\n");
}

#[test]
fn clean_files_exit_zero_with_summary() {
    let project = TestProject::new();
    good_files(&project);
    let run = project.run(&[
        "check",
        "a.py",
        "b.json",
        "tsconfig.json",
        "c.sh",
        "d.rs",
        "notes.md",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "car check: 0 errors in 6 files, 0 warnings\n");
}

#[test]
fn errors_exit_one_with_locations_and_snippets() {
    let project = TestProject::new();
    good_files(&project);
    project.write("bad.json", "{\n  \"a\": 1,\n}\n");
    project.write("bad.py", "def f():\n  x = 1\n    y = 2\n");
    project.write("bad.go", "package main\n\nfunc main() {\n\tx := \n}\n");
    let run = project.run(&["check", "a.py", "bad.json", "bad.py", "bad.go"]);
    assert_eq!(run.code, 1, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "bad.json:3:1: trailing comma [json]");
    assert_eq!(lines[1], "    }");
    // The column is the interpreter's own and differs between Python versions.
    assert!(lines[2].starts_with("bad.py:3:"), "{}", run.stdout);
    assert!(
        lines[2].ends_with(": IndentationError: unexpected indent [python]"),
        "{}",
        run.stdout
    );
    assert_eq!(lines[3], "    y = 2");
    // gofmt judges what tree-sitter-go flags, where it is installed.
    if support::is_installed("gofmt") {
        assert_eq!(lines[4], "bad.go:5:1: expected operand, found '}' [gofmt]");
    } else {
        assert!(lines[4].starts_with("bad.go:4:"), "{}", run.stdout);
        assert!(lines[4].ends_with("[tree-sitter-go]"), "{}", run.stdout);
    }
    assert_eq!(
        lines.last().unwrap(),
        &"car check: 3 errors in 4 files, 0 warnings"
    );
}

#[test]
fn json_output_is_an_array_of_diagnostics() {
    let project = TestProject::new();
    project.write("bad.json", "[1 2]");
    project.write("lib.py", "import os\nimport car_missing_dependency\n");
    let run = project.run(&["check", "--json", "bad.json", "lib.py"]);
    assert_eq!(run.code, 1, "{run:?}");
    let answer: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        answer,
        serde_json::json!([
            {"file": "bad.json", "line": 1, "column": 4, "severity": "error",
             "validator": "json", "message": "expected `,` or `]`", "snippet": "[1 2]"},
            {"file": "lib.py", "line": 2, "column": 1, "severity": "error",
             "validator": "python", "message": "ModuleNotFoundError: No module named 'car_missing_dependency'",
             "snippet": "import car_missing_dependency", "subject": "car_missing_dependency"}
        ])
    );
    let clean = project.run(&["check", "--json", "--no-learn", "lib.py", "bad.json"]);
    assert_eq!(clean.code, 1);
    project.write("ok.json", "{}");
    let clean = project.run(&["check", "--json", "ok.json"]);
    assert_eq!((clean.code, clean.stdout.trim()), (0, "[]"), "{clean:?}");
}

#[test]
fn missing_path_or_directory_is_a_usage_error() {
    let project = TestProject::new();
    project.write("ok.json", "{}");
    let run = project.run(&["check", "ok.json", "missing/file.py"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("missing/file.py: no such file"),
        "{run:?}"
    );
    assert!(run.stdout.is_empty(), "nothing is checked: {run:?}");
    let run = project.run(&["check"]);
    assert_eq!(run.code, 2, "a path is required: {run:?}");
    let outside_git = TestProject::plain();
    outside_git.write("src/a.py", "x = (\n");
    let run = outside_git.run(&["check", "src"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("src: is a directory outside a git repository"),
        "{run:?}"
    );
}

#[test]
fn a_directory_in_git_is_walked_respecting_gitignore() {
    let project = TestProject::new();
    project.write(".gitignore", "/generated/\n");
    project.write("src/ok.py", "x = 1\n");
    project.write("src/bad.json", "{\"a\": }\n");
    project.write("src/logo.png", "not checked, no note");
    project.write("src/generated/broken.py", "def (\n");
    project.write("generated/broken.py", "def (\n");
    project.commit_all();
    project.write("src/new.ts", "let = ;\n");
    let run = project.run(&["check", "src"]);
    assert_eq!(run.code, 1, "{run:?}");
    let errors: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| !line.starts_with("    "))
        .collect();
    assert!(errors[0].starts_with("src/bad.json:1:7: "), "{run:?}");
    assert!(
        errors[1].starts_with("src/generated/broken.py:1:"),
        "{run:?}"
    );
    assert!(
        errors[2].starts_with("src/new.ts:1:"),
        "untracked files count: {run:?}"
    );
    assert_eq!(errors[3], "car check: 3 errors in 4 files, 0 warnings");
    assert!(
        run.stderr.lines().all(|line| line.starts_with("note: ")),
        "only notes go to stderr: {run:?}"
    );
    let run = project.run(&["check", ".", "src/bad.json", "./src/bad.json"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout.matches("bad.json:1:7").count(),
        1,
        "checked once: {run:?}"
    );
    assert!(
        run.stdout.contains("\nsrc/generated/broken.py:1:"),
        "{run:?}"
    );
    assert!(
        !run.stdout
            .lines()
            .any(|line| line.starts_with("generated/")),
        "ignored files are not checked: {run:?}"
    );
}

#[test]
fn binary_non_utf8_and_huge_files_are_skipped_with_a_note() {
    let project = TestProject::new();
    std::fs::write(project.path().join("blob.json"), b"{\"a\": \0}").unwrap();
    std::fs::write(project.path().join("latin1.json"), b"[\"caf\xe9\"]").unwrap();
    let huge = format!("[{}0]", "0,".repeat(1_100_000));
    project.write("huge.json", &huge);
    let run = project.run(&["check", "blob.json", "latin1.json", "huge.json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("note: blob.json: binary file; not checked"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .contains("note: latin1.json: not UTF-8 text; not checked"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .contains("note: huge.json: larger than 2 MiB; not checked"),
        "{run:?}"
    );
    assert_eq!(run.stdout, "car check: 0 errors in 0 files, 0 warnings\n");
}

#[test]
fn custom_rules_run_from_check() {
    let project = TestProject::new();
    project.write(
        "Theme.swift",
        "enum Theme {\n    static let accent = 1\n}\n",
    );
    project.write(
        ".claude/claude-auto-review/validators/theme.json",
        r#"{"rules": [{"id": "theme-refs", "scope": "*.swift", "ignore": ["Theme.swift"],
            "reference": {"pattern": "\\bTheme\\.(\\w+)", "defined_in": "Theme.swift",
                          "definition": "let\\s+(\\w+)",
                          "message": "{match}: no such property in {defined_in}"}}]}"#,
    );
    project.write(
        "View.swift",
        "let a = Theme.accent\nlet b = Theme.accentColor\n",
    );
    let run = project.run(&["check", "--json", "View.swift", "Theme.swift"]);
    assert_eq!(run.code, 1, "{run:?}");
    let answer: Value = serde_json::from_str(&run.stdout).unwrap();
    let entries = answer.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{answer}");
    assert_eq!(entries[0]["validator"], "theme-refs");
    assert_eq!(entries[0]["subject"], "Theme.accentColor");
    assert_eq!(
        entries[0]["message"],
        "Theme.accentColor: no such property in Theme.swift"
    );
    assert_eq!(
        (entries[0]["line"].as_u64(), entries[0]["column"].as_u64()),
        (Some(2), Some(9))
    );
}

#[test]
fn command_rule_with_warning_severity_does_not_fail_the_check() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/validators/lint.json",
        r#"{"rules": [{"id": "style", "severity": "warning", "scope": "*.sh",
            "command": {"argv": ["sh", "-c", "echo \"$1:2:3: prefer printf\"; exit 1", "sh", "{relative}"]}}]}"#,
    );
    project.write("tool.sh", "#!/bin/sh\necho hi\n");
    let run = project.run(&["check", "tool.sh"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .starts_with("tool.sh:2:3: prefer printf [style]\n    echo hi\n"),
        "{run:?}"
    );
    assert!(
        run.stdout
            .ends_with("car check: 0 errors in 1 file, 1 warning\n"),
        "{run:?}"
    );
}

#[test]
fn shipped_rules_are_disabled_examples() {
    let project = TestProject::new();
    project.write("a.py", "import os\n");
    project.write("b.sh", "echo $1\n");
    let run = project.run(&["check", "a.py", "b.sh"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.is_empty(), "{run:?}");
}

#[test]
fn check_from_a_subfolder_uses_the_given_paths() {
    let project = TestProject::new();
    project.write("pkg/mod.py", "def f(:\n");
    let run = project
        .car()
        .current_dir(project.path().join("pkg"))
        .args(["check", "mod.py"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1));
    assert!(stdout.starts_with("mod.py:1:7: SyntaxError"), "{stdout}");
}

#[cfg(feature = "extra-grammars")]
#[test]
fn macro_heavy_c_is_a_warning_not_a_failure() {
    let project = TestProject::new();
    project.write(
        "vec.h",
        "#define VEC(T) struct { T *items; }\ntypedef Array(void) Array;\n",
    );
    let run = project.run(&["check", "vec.h"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("vec.h:2:"), "{run:?}");
    assert!(
        run.stdout
            .ends_with("car check: 0 errors in 1 file, 1 warning\n"),
        "{run:?}"
    );
}

#[test]
fn lesson_warnings_are_entries_of_the_json_list() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/lessons.json",
        r#"{"lessons": [{"scope": "*.py", "triggers": ["requets.get"],
            "lesson": "The package is requests", "weight": 3, "hits": 1,
            "created": "2026-05-21"}]}"#,
    );
    project.write(
        "fetch.py",
        "import json\n\ndef f(requets):\n    return requets.get('x')\n",
    );
    let run = project.run(&["check", "--json", "--no-learn", "fetch.py"]);
    assert_eq!(run.code, 0, "a lesson warning is not an error: {run:?}");
    let answer: Value = serde_json::from_str(&run.stdout).unwrap();
    let entries = answer.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{answer}");
    let warning = &entries[0];
    assert_eq!(warning["validator"], "lesson");
    assert_eq!(warning["severity"], "warning");
    assert_eq!(warning["file"], "fetch.py");
    assert_eq!(warning["line"], 4);
    assert_eq!(warning["trigger"], "requets.get");
    assert!(
        warning["message"]
            .as_str()
            .unwrap()
            .ends_with("The package is requests"),
        "{answer}"
    );
    let human = project.run(&["check", "--no-learn", "fetch.py"]);
    assert!(
        human.stdout.contains("⚠️ lesson (weight ")
            && human.stdout.contains("(fetch.py:4, trigger `"),
        "{human:?}"
    );
    assert!(
        human
            .stdout
            .ends_with("car check: 0 errors in 1 file, 1 warning\n"),
        "{human:?}"
    );
}

#[test]
fn check_never_learns_with_or_without_no_learn() {
    let project = TestProject::new();
    project.write("job.py", "import yamlish_not_installed\n");
    for args in [
        ["check", "--no-learn", "job.py"],
        ["check", "job.py", "job.py"],
    ] {
        let run = project.run(&args);
        assert_eq!(run.code, 1, "{run:?}");
        assert!(!run.stderr.contains("candidate"), "{run:?}");
    }
    assert!(!project.exists(".claude"), "car check wrote state");
}
