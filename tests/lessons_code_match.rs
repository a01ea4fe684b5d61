//! Learned lessons match code as a person reads it (issue: lessons that warned on correct code):
//! whole identifiers, never comments or string literals; `car lessons add` does the same unless
//! asked (`--substring`, `--in-comments`); a seed-format lesson keeps its plain substring.

use serde_json::json;

use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

/// A lesson as learning writes it.
fn learned(scope: &str, trigger: &str, lesson: &str) -> serde_json::Value {
    json!({"scope": scope, "triggers": [trigger], "lesson": lesson, "weight": 2, "hits": 0,
        "source": "review", "whole_identifiers": true, "code_only": true})
}

/// Writes `content` as a new file through the hook and returns the lesson warnings it drew.
fn warnings_for(project: &TestProject, relative: &str, content: &str) -> String {
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(relative, content, None),
    );
    assert_eq!(answer.code, 0, "{answer:?}");
    let mut text = answer.context();
    if answer.is_block() {
        text.push_str(&answer.reason());
    }
    text
}

#[test]
fn a_learned_lesson_fires_on_the_mistake_not_on_look_alikes() {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [
            learned("*.py", "shell=True", "pass an argument list; never shell=True"),
            learned("*.swift", "DankeTheme.secondaryText", "the property is textSecondary"),
        ]})
        .to_string(),
    );
    // Inside a longer identifier, in a docstring, a comment, a log message: silent.
    for (file, content) in [
        ("a.py", "def run(cmd, use_shell=True):\n    return cmd\n"),
        (
            "b.py",
            "def f():\n    \"\"\"Never call with shell=True.\"\"\"\n    return 1\n",
        ),
        ("c.py", "# shell=True was removed here\nx = 1\n"),
        (
            "d.py",
            "import logging\nlogging.warning('refusing shell=True')\n",
        ),
        ("e.swift", "let c = DankeTheme.secondaryTextMuted\n"),
        (
            "f.swift",
            "// DankeTheme.secondaryText is gone\nlet c = 1\n",
        ),
    ] {
        let warned = warnings_for(&project, file, content);
        assert!(!warned.contains("lesson"), "{file}: {warned}");
    }
    // The mistake itself, in code: warned.
    let warned = warnings_for(
        &project,
        "g.py",
        "import subprocess\nsubprocess.run(cmd, shell=True)\n",
    );
    assert!(warned.contains("never shell=True (g.py:2"), "{warned}");
    let warned = warnings_for(&project, "h.swift", "let c = DankeTheme.secondaryText\n");
    assert!(warned.contains("textSecondary (h.swift:1"), "{warned}");
}

#[test]
fn a_seed_lesson_keeps_its_plain_substring() {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [{"scope": "*.py", "triggers": ["shell=True"],
            "lesson": "seed lesson", "weight": 3}]})
        .to_string(),
    );
    let warned = warnings_for(&project, "a.py", "# use_shell=True\n");
    assert!(warned.contains("seed lesson"), "{warned}");
}

#[test]
fn lessons_add_matches_code_unless_asked_otherwise() {
    let project = TestProject::new();
    let added = project.add_lesson("*.py", "yaml.load(", "use yaml.safe_load");
    assert_eq!(added.code, 0, "{added:?}");
    let stored = project.read_json(LESSONS);
    assert_eq!(stored["lessons"][0]["code_only"], json!(true));
    assert_eq!(stored["lessons"][0]["whole_identifiers"], json!(true));
    assert!(!warnings_for(&project, "a.py", "# yaml.load( is unsafe\n").contains("safe_load"));
    assert!(warnings_for(&project, "b.py", "x = yaml.load(fh)\n").contains("safe_load"));

    let added = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.ts",
        "--trigger",
        "TODO(car)",
        "--lesson",
        "finish the TODO before stopping",
        "--in-comments",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    assert!(
        warnings_for(&project, "a.ts", "// TODO(car) later\nconst x = 1;\n")
            .contains("finish the TODO")
    );
}

#[test]
fn lessons_add_substring_says_it_fires_inside_longer_names() {
    let project = TestProject::new();
    let added = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "legacy_api",
        "--lesson",
        "legacy_api is gone; use api_v2",
        "--substring",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    assert!(
        added
            .stderr
            .contains("also fires inside longer identifiers such as `my_legacy_api`"),
        "{added:?}"
    );
    assert!(warnings_for(&project, "a.py", "x = my_legacy_api_v1()\n").contains("use api_v2"));
    // Without --substring nothing needs saying.
    let plain = project.add_lesson("*.rs", "old_crate::", "old_crate was renamed");
    assert!(!plain.stderr.contains("longer identifiers"), "{plain:?}");
}

/// YAML has no grammar in car (libyaml checks it), so no comment was known and a lesson fired on
/// `# memory: 512m …`: a `#` at a line's start or after a space, outside a quoted value, starts a
/// comment there too.
#[test]
fn a_learned_lesson_is_silent_in_a_yaml_comment() {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [
            learned("*.yaml", "memory: 512m", "memory takes Mi: 512m is half a byte"),
        ]})
        .to_string(),
    );
    for content in [
        "limits:\n  # memory: 512m would be half a byte; 512Mi is meant\n  memory: 512Mi\n",
        "limits:\n  memory: 512Mi # not memory: 512m\n",
    ] {
        let said = warnings_for(&project, "k8s/quiet.yaml", content);
        assert!(!said.contains("half a byte"), "{content:?}: {said}");
    }
    let said = warnings_for(&project, "k8s/app.yaml", "limits:\n  memory: 512m\n");
    assert!(said.contains("half a byte"), "{said}");
}
