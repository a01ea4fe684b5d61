//! The validators as the PostToolUse hook runs them, driven with the Claude payload fixtures.

use serde_json::{Value, json};

use crate::support::TestProject;

/// Writes the file a fixture's Write payload says was written.
fn write_fixture_content(project: &TestProject, fixture: &str, relative: &str) {
    let payload = project.fixture_json(fixture);
    let content = payload["tool_input"]["content"].as_str().unwrap();
    project.write(relative, content);
}

#[test]
fn json_with_trailing_comma_blocks_with_position_and_validator() {
    let project = TestProject::new();
    write_fixture_content(
        &project,
        "claude-post-write-create.json",
        "config/settings.json",
    );
    let answer = project.post_fixture("claude-post-write-create.json");
    assert_eq!(answer.code, 0);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains("config/settings.json:4:1: trailing comma [json]"),
        "{reason}"
    );
    assert!(
        reason.contains("\n    }"),
        "the offending line is shown: {reason}"
    );
    assert_eq!(project.read("config/settings.json").matches(',').count(), 2);
}

#[test]
fn notebook_python_cell_with_unclosed_paren_blocks() {
    let project = TestProject::new();
    let answer = project.post_fixture("claude-post-notebookedit.json");
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains(
            "analysis.ipynb:1:10: in cell c3: SyntaxError: '(' was never closed [python]"
        ),
        "{reason}"
    );
    assert!(reason.contains("df = load('data.csv'"), "{reason}");
    assert!(
        !project.exists("analysis.ipynb"),
        "a cell edit writes no file"
    );
}

#[test]
fn markdown_cell_is_not_validated() {
    let project = TestProject::new();
    let mut payload = project.fixture_json("claude-post-notebookedit.json");
    payload["tool_input"]["cell_type"] = json!("markdown");
    payload["tool_input"]["new_source"] = json!("# Results (draft");
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

#[test]
fn valid_shell_write_answers_nothing() {
    let project = TestProject::new();
    write_fixture_content(
        &project,
        "claude-post-write-update.json",
        "scripts/deploy.sh",
    );
    let answer = project.post_fixture("claude-post-write-update.json");
    assert_eq!(answer.json, json!({}), "{answer:?}");
    assert_eq!(answer.code, 0);
}

#[test]
fn broken_shell_write_blocks_with_bash_line() {
    let project = TestProject::new();
    let payload = project.write_payload(
        "scripts/deploy.sh",
        "#!/usr/bin/env bash\nfor h in \"$@\"; do\n  echo \"$h\"\ndone done\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer
            .reason()
            .contains("scripts/deploy.sh:4:1: syntax error near unexpected token"),
        "{}",
        answer.reason()
    );
    assert!(answer.reason().contains("[bash]"));
}

#[test]
fn heredoc_that_fools_tree_sitter_never_blocks() {
    let project = TestProject::new();
    let payload = project.write_payload(
        "run.sh",
        "#!/bin/bash\ncat <<'EOF' 2>&1 | tail -5; echo done\nweird ( text $(\nEOF\necho after\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

/// The fixture's `originalFile` with its edit applied, i.e. the file as Claude left it.
fn apply_edit_fixture(project: &TestProject) -> Value {
    let payload = project.fixture_json("claude-post-edit.json");
    let original = payload["tool_response"]["originalFile"].as_str().unwrap();
    let old = payload["tool_input"]["old_string"].as_str().unwrap();
    let new = payload["tool_input"]["new_string"].as_str().unwrap();
    assert!(original.contains(old));
    project.write("src/app.py", &original.replacen(old, new, 1));
    payload
}

#[test]
fn python_edit_with_existing_import_passes_and_leaves_no_pycache() {
    let project = TestProject::new();
    apply_edit_fixture(&project);
    let answer = project.post_fixture("claude-post-edit.json");
    assert_eq!(answer.json, json!({}), "{answer:?}");
    assert!(!project.exists("src/__pycache__"));
    assert!(!project.exists("__pycache__"));
    let cache = project.cache_dir().join("python-interpreters.json");
    let cached: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let interpreter = cached.as_object().unwrap().values().next().unwrap();
    assert!(
        !interpreter.as_str().unwrap().contains("/shims/"),
        "the real interpreter is cached, not a shim: {interpreter}"
    );
}

#[test]
fn python_edit_adding_a_missing_module_blocks() {
    let project = TestProject::new();
    let mut payload = apply_edit_fixture(&project);
    let original = payload["tool_response"]["originalFile"]
        .as_str()
        .unwrap()
        .to_string();
    let old = "def load(path):\n";
    let new = "import yamlish_no_such_module\n\n\ndef load(path):\n";
    project.write("src/app.py", &original.replacen(old, new, 1));
    payload["tool_input"]["old_string"] = json!(old);
    payload["tool_input"]["new_string"] = json!(new);
    payload["tool_response"]
        .as_object_mut()
        .unwrap()
        .remove("structuredPatch");
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains(
            "src/app.py:4:1: ModuleNotFoundError: No module named 'yamlish_no_such_module' [python]"
        ),
        "{}",
        answer.reason()
    );
}

#[test]
fn old_missing_import_is_not_blamed_on_a_later_edit() {
    let project = TestProject::new();
    project.write("tool.py", "import yamlish_no_such_module\n\nX = 1\n");
    let payload = project.edit_payload("tool.py", "X = 0", "X = 1");
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

#[test]
fn python_compiler_only_error_blocks() {
    let project = TestProject::new();
    let payload = project.write_payload("job.py", "import json\n\nreturn json\n", None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(
        answer
            .reason()
            .contains("job.py:3:1: SyntaxError: 'return' outside function [python]"),
        "{answer:?}"
    );
}

#[test]
fn typescript_error_blocks_with_snippet() {
    let project = TestProject::new();
    let payload = project.write_payload(
        "web/app.ts",
        "export function add(a: number, b: number): number {\n  return a + ;\n}\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains("web/app.ts:2:"),
        "{}",
        answer.reason()
    );
    assert!(answer.reason().contains("[tree-sitter-typescript]"));
    assert!(answer.reason().contains("return a + ;"));
}

#[test]
fn custom_reference_rule_blocks_on_invented_property() {
    let project = TestProject::new();
    project.write(
        "App/DankeTheme.swift",
        "enum DankeTheme {\n    static let textSecondary = Color.gray\n}\n",
    );
    project.write(
        ".claude/claude-auto-review/validators/theme.json",
        r#"{"rules": [{"id": "danke-theme", "scope": "*.swift",
            "reference": {"pattern": "\\bDankeTheme\\.([A-Za-z_]\\w*)",
                          "defined_in": "App/DankeTheme.swift",
                          "definition": "(?:let|var|func)\\s+([A-Za-z_]\\w*)"}}]}"#,
    );
    let payload = project.write_payload(
        "App/Home.swift",
        "let a = DankeTheme.textSecondary\nlet b = DankeTheme.secondaryText\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains(
            "App/Home.swift:2:9: `DankeTheme.secondaryText` is not defined in App/DankeTheme.swift [danke-theme]"
        ),
        "{}",
        answer.reason()
    );
}

#[test]
fn broken_rule_file_is_a_note_and_editing_it_blocks() {
    let project = TestProject::new();
    let rule_file = ".claude/claude-auto-review/validators/bad.json";
    project.write(
        rule_file,
        r#"{"rules": [{"id": "bad-regex", "scope": "*.py", "reference": {"pattern": "(", "defined_in": "x.py"}}]}"#,
    );
    let payload = project.write_payload("ok.json", "{}\n", None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains(&format!("{rule_file}: rule `bad-regex`: pattern:")),
        "{answer:?}"
    );
    let content = project.read(rule_file);
    let payload = project.write_payload(rule_file, &content, None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains("rule `bad-regex`: pattern:"),
        "{answer:?}"
    );
    assert!(answer.reason().contains("[car-validators]"));
}

#[test]
fn external_command_rule_missing_tool_is_a_note() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/validators/lint.json",
        r#"{"rules": [{"id": "ruff", "scope": "*.py", "command": {"argv": ["car-test-no-such-ruff", "check", "{file}"]}}]}"#,
    );
    let payload = project.write_payload("a.py", "x = 1\n", None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains("`car-test-no-such-ruff` was not found on PATH"),
        "{answer:?}"
    );
}

#[cfg(feature = "extra-grammars")]
#[test]
fn c_error_blocks_only_on_the_lines_the_edit_added() {
    let project = TestProject::new();
    // `LIST_HEAD(…)` is a macro tree-sitter-c cannot see through: not the edit's fault.
    project.write(
        "src/list.c",
        "LIST_HEAD(listhead, entry) head;\n\nint size(void) {\n  return 1\n}\n",
    );
    let payload = project.edit_payload("src/list.c", "  return 0;", "  return 1");
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(reason.contains("src/list.c:4:"), "{reason}");
    assert!(reason.contains("[tree-sitter-c]"), "{reason}");
    assert!(
        !reason.contains("src/list.c:1:"),
        "the macro line is not blamed: {reason}"
    );
    project.write(
        "src/list.c",
        "LIST_HEAD(listhead, entry) head;\n\nint size(void) {\n  return 1;\n}\n",
    );
    let payload = project.edit_payload("src/list.c", "  return 1", "  return 1;");
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

/// A cookiecutter or copier project template (a `{{cookiecutter.project_slug}}` folder), or a
/// file with Jinja block tags, is not Python or JSON until rendered: its syntax errors do not
/// block (a note says why). The same text in an ordinary file blocks.
#[test]
fn templates_are_not_blocked_for_their_syntax() {
    let project = TestProject::new();
    let broken_python = "import os\nNAME = (\n";
    let tagged =
        "import os\n{% if cookiecutter.use_docker == \"y\" %}\nDOCKER = True\n{% endif %}\n";
    for (file, content) in [
        (
            "{{cookiecutter.project_slug}}/src/settings.py",
            broken_python,
        ),
        (
            "{{cookiecutter.project_slug}}/package.json",
            "{\n  \"name\": {{ name }},\n}\n",
        ),
        ("tools/generate.py", tagged),
    ] {
        let answer = project.hook("post-tool-use", &project.write_payload(file, content, None));
        assert!(!answer.is_block(), "{file}: {answer:?}");
        assert!(
            answer
                .system_message()
                .contains("syntax errors are not reported"),
            "{file}: {answer:?}"
        );
    }
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("src/settings.py", broken_python, None),
    );
    assert!(answer.is_block(), "{answer:?}");
    // A template engine's test: tags inside a string, and the program's own slip still blocks.
    let engine_test = "TEMPLATE = '''\n{% for x in xs %}\n{{ x }}\n{% endfor %}\n'''\n\n\
                       def test_render()\n    assert render(TEMPLATE)\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("tests/test_render.py", engine_test, None),
    );
    assert!(answer.is_block(), "{answer:?}");
}
