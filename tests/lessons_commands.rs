//! `car lessons list | show | add | rm | import | export | candidates` through the binary.

use serde_json::{Value, json};

use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const CANDIDATES: &str = ".claude/claude-auto-review/lesson_candidates.json";
const T0: i64 = 1_780_000_000;

fn list(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str::<Value>(&run.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn add_show_rm_round_trip() {
    let mut project = TestProject::new();
    project.at(T0);
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.swift",
        "--trigger",
        "DankeTheme.secondaryText",
        "--trigger",
        "regex:(?<!_)DankeTheme\\.primaryText",
        "--lesson",
        "It is textSecondary",
        "--example-match",
        "DankeTheme.secondaryText",
        "--example-no-match",
        "DankeTheme.textSecondary",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.stdout.trim().to_string();
    let listed = list(&project);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["weight"], 2);
    assert_eq!(listed[0]["created"], "2026-05-28");
    let shown = project.run(&["lessons", "show", &id, "--json"]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(
        shown["examples"]["no_match"],
        json!(["DankeTheme.textSecondary"])
    );

    let duplicate = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.swift",
        "--trigger",
        "regex:(?<!_)DankeTheme\\.primaryText",
        "--trigger",
        "DankeTheme.secondaryText",
        "--lesson",
        "again",
    ]);
    assert_eq!(duplicate.code, 2);
    assert!(duplicate.stderr.contains("already exists"), "{duplicate:?}");

    // Text by default; a unique prefix of the id is enough.
    let text = project.run(&["lessons", "show", &id[..4]]);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(
        text.stdout
            .starts_with(&format!("lesson {id} (project)\n  scope     *.swift")),
        "{}",
        text.stdout
    );
    assert!(
        serde_json::from_str::<Value>(&text.stdout).is_err(),
        "not JSON without --json"
    );
    let overlap = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.swift",
        "--trigger",
        "DankeTheme.secondaryText",
        "--trigger",
        "regex:(?<!_)DankeTheme\\.primaryText",
        "--trigger",
        "DankeTheme.accent",
        "--lesson",
        "use the theme's real names",
    ]);
    assert_eq!(overlap.code, 0, "{overlap:?}");
    assert!(
        overlap.stderr.contains(&format!("overlaps lesson {id}")),
        "the merge to come is named: {}",
        overlap.stderr
    );
    let other = overlap.stdout.trim().to_string();
    assert_eq!(project.run(&["lessons", "rm", &other]).code, 0);

    assert_eq!(project.run(&["lessons", "rm", &id[..6]]).code, 0);
    assert!(list(&project).is_empty());
    let missing = project.run(&["lessons", "rm", &id]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains(&id), "{missing:?}");
}

#[test]
fn add_refuses_bad_regex_with_pattern_and_compiler_message() {
    let project = TestProject::new();
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "regex:(?<!_re\\.compile",
        "--lesson",
        "x",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("regex:(?<!_re\\.compile"), "{run:?}");
    assert!(run.stderr.contains("does not compile"), "{run:?}");
    let wrong_example = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "os.path",
        "--lesson",
        "x",
        "--example-no-match",
        "import os.path",
    ]);
    assert_eq!(wrong_example.code, 2);
    assert!(
        wrong_example
            .stderr
            .contains("expected the lesson not to fire, it fired"),
        "{wrong_example:?}"
    );
    assert!(!project.exists(LESSONS));
}

/// Regression: `lessons add` matched examples against the triggers alone, without the scope,
/// while `lessons test` runs them through the lesson engine as added lines of a file in the
/// scope; `add` accepted a lesson whose examples `test` then failed. Both now use one function.
/// A trigger that will fire on ordinary code is added (the person decides) with a warning that
/// says why; a specific one gets none.
#[test]
fn add_warns_about_a_trigger_that_fires_on_ordinary_code() {
    let project = TestProject::new();
    for (trigger, warning) in [
        (
            "items",
            "warning: trigger `items`: \"items\" is a bare language keyword or a common identifier",
        ),
        (
            "regex:\\w+",
            "warning: trigger `regex:\\w+` matches ordinary lines such as `x` and `a = 1`",
        ),
    ] {
        let run = project.run(&[
            "lessons",
            "add",
            "--scope",
            "*.py",
            "--trigger",
            trigger,
            "--lesson",
            "a lesson",
        ]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stderr.contains(warning), "{trigger}: {}", run.stderr);
    }
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "regex:\\byaml\\.load\\(",
        "--lesson",
        "use safe_load",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn add_judges_examples_exactly_as_lessons_test_does() {
    let project = TestProject::new();
    let add = |scope: &str| {
        project.run(&[
            "lessons",
            "add",
            "--scope",
            scope,
            "--trigger",
            "requests.get(",
            "--lesson",
            "pass a timeout",
            "--example-match",
            "requests.get(url)",
        ])
    };
    let unfillable = add("[!t]*.py");
    assert_eq!(unfillable.code, 2, "{unfillable:?}");
    assert!(
        unfillable.stderr.contains("cannot name a file in scope"),
        "{unfillable:?}"
    );
    assert_eq!(add("src/*.py").code, 0);
    let test = project.run(&["lessons", "test"]);
    assert_eq!(test.code, 0, "{test:?}");
}

#[test]
fn import_merges_seed_files_without_duplicates_and_export_keeps_every_field() {
    let mut project = TestProject::new();
    project.at(T0);
    let seed = json!({"lessons": [
        {"scope": "*.swift", "triggers": ["DankeTheme.secondaryText", "DankeTheme.primaryText"],
         "lesson": "textSecondary/textPrimary", "weight": 3, "hits": 2, "last_hit": 1779300000,
         "created": "2026-05-21", "author": "danke"},
        {"scope": "*.py", "triggers": ["import os.path"], "lesson": "pathlib", "weight": 2, "created": "2026-05-21"}
    ], "version": 1});
    project.write("seed.json", &seed.to_string());
    let run = project.run(&["lessons", "import", "seed.json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("imported 2"), "{run:?}");
    let again = project.run(&["lessons", "import", "seed.json"]);
    assert!(
        again.stderr.contains("imported 0") && again.stderr.contains("2 duplicate"),
        "{again:?}"
    );
    let exported: Value =
        serde_json::from_str(&project.run(&["lessons", "export"]).stdout).unwrap();
    let first = &exported["lessons"][0];
    assert_eq!(first["author"], "danke");
    assert_eq!(first["last_hit"], 1779300000);
    assert_eq!(first["hits"], 2);
    assert!(
        exported["lessons"][1].get("hits").is_none(),
        "absent fields stay absent"
    );

    project.write(
        "bad.json",
        r#"{"lessons": [{"scope": "*.py", "triggers": ["regex:a(b"], "lesson": "x"}]}"#,
    );
    let refused = project.run(&["lessons", "import", "bad.json"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("regex:a(b") && refused.stderr.contains("nothing imported"),
        "{refused:?}"
    );
    project.write("broken.json", "{\"lessons\": [\n,]}");
    let broken = project.run(&["lessons", "import", "broken.json"]);
    assert_eq!(broken.code, 2);
    assert!(broken.stderr.contains("broken.json:2:"), "{broken:?}");
    let missing = project.run(&["lessons", "import", "nowhere.json"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("nowhere.json: no such file"),
        "{missing:?}"
    );
    assert_eq!(list(&project).len(), 2);
}

#[test]
fn candidates_accepts_the_seed_empty_file_and_lists_entries() {
    let project = TestProject::new();
    project.write(CANDIDATES, "{}");
    let run = project.run(&["lessons", "candidates", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).unwrap(),
        json!([])
    );
    project.write(CANDIDATES, &json!({"candidates": [
        {"scope": "*.py", "trigger": "requestz", "lesson": "No module named 'requestz'", "hits": 1, "last_hit": T0, "created": "2026-05-28", "origin": "python-tool"}
    ]}).to_string());
    let run = project.run(&["lessons", "candidates", "--json"]);
    let listed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(listed[0]["trigger"], "requestz");
    assert_eq!(listed[0]["origin"], "python-tool");
    let text = project.run(&["lessons", "candidates"]);
    assert!(text.stdout.contains("`requestz`"), "{text:?}");
}

#[test]
fn install_offers_the_starter_lessons_once() {
    let mut project = TestProject::new();
    project.at(T0);
    let run = project.run(&["install", "--non-interactive", "--starter-lessons"]);
    assert_eq!(run.code, 0, "{run:?}");
    let count = list(&project).len();
    assert!(count >= 12, "{count}");
    project.run(&["install", "--non-interactive", "--starter-lessons"]);
    assert_eq!(list(&project).len(), count);
    // A starter lesson fires through the hook on what an edit adds.
    let payload = project.write_payload(
        "tool.py",
        "def add(item, items=[]):\n    return items\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    assert!(
        answer.context().contains("Mutable default argument"),
        "{answer:?}"
    );
    assert!(answer.context().contains("tool.py:1"), "{answer:?}");
}

/// What people read: the list and the maintenance report, as whole outputs.
#[test]
fn list_and_maintain_output_snapshots() {
    let mut project = TestProject::new();
    project.write(LESSONS, &json!({"lessons": [
        {"scope": "*.swift", "triggers": ["DankeTheme.secondaryText", "DankeTheme.primaryText"],
         "lesson": "The property is textSecondary / textPrimary", "weight": 3, "hits": 2, "last_hit": T0},
        {"scope": "*.swift", "triggers": ["DankeTheme.primaryText", "DankeTheme.secondaryText"],
         "lesson": "grep DankeTheme.swift first", "weight": 1, "hits": 1, "last_hit": T0},
        {"scope": "*.py", "triggers": ["import os.path"], "lesson": "use pathlib", "weight": 1, "last_hit": T0}
    ]}).to_string());
    project.at(T0 + 100 * 86_400);
    insta::assert_snapshot!("lessons_list", project.run(&["lessons", "list"]).stdout);
    let dry = project.run(&["lessons", "maintain", "--dry-run"]);
    insta::assert_snapshot!(
        "lessons_maintain_dry_run",
        format!("{}--- stderr\n{}", dry.stdout, dry.stderr)
    );
}

/// A seed file of `count` distinct lessons, each with two triggers.
fn library_file(count: usize) -> String {
    let lessons: Vec<Value> = (0..count)
        .map(|index| {
            json!({"scope": "*.py", "triggers": [format!("legacy_call_{index}("),
                format!("other_name_{index}")], "lesson": format!("lesson {index}"), "weight": 2})
        })
        .collect();
    json!({ "lessons": lessons }).to_string()
}

/// Moving a team's library over is linear: the duplicate check was a scan of the library per
/// imported lesson (10,000 lessons took 97 times as long as 1,000). A ratio of two runs on the
/// same machine, never a wall-clock bound: 10× the lessons must cost well under the old 97×.
#[test]
fn importing_ten_thousand_lessons_costs_about_ten_times_a_thousand() {
    let timed = |count: usize| {
        let project = TestProject::new();
        project.write("seed.json", &library_file(count));
        let started = std::time::Instant::now();
        let run = project.run(&["lessons", "import", "seed.json"]);
        let took = started.elapsed();
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stderr.contains(&format!("imported {count}")), "{run:?}");
        took
    };
    let small = timed(1_000);
    let large = timed(10_000);
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    println!("import: 1,000 lessons {small:?}, 10,000 lessons {large:?}: {ratio:.1}×");
    assert!(
        ratio < 40.0,
        "10× the lessons cost {ratio:.1}× ({small:?} → {large:?})"
    );
    // Importing the same file again adds nothing (the duplicate check still holds).
    let project = TestProject::new();
    project.write("seed.json", &library_file(2_000));
    assert_eq!(project.run(&["lessons", "import", "seed.json"]).code, 0);
    let again = project.run(&["lessons", "import", "seed.json"]);
    assert!(
        again.stderr.contains("imported 0") && again.stderr.contains("2000 duplicate"),
        "{again:?}"
    );
}
