//! `car lessons test [DIR]` through the binary: car's own suite passes, and a deliberately broken
//! scenario or example fails with exit 1 and a line saying what was expected and what happened.

use std::path::Path;

use crate::support::TestProject;

/// The `N passed, N failed` line, which must be the last one.
fn summary(stdout: &str) -> (usize, usize) {
    let last = stdout.trim_end().lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    match words.as_slice() {
        [passed, "passed,", failed, "failed"] => (passed.parse().unwrap(), failed.parse().unwrap()),
        _ => panic!("the last line is not `N passed, N failed`: {stdout:?}"),
    }
}

fn shipped_scenarios() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("replay-tests"))
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|ext| ext == "json")
        })
        .count()
}

/// Examples of the starter lessons car ships (`lessons/*.json`), also part of car's own suite.
fn starter_examples() -> usize {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut count = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        for lesson in file["lessons"].as_array().unwrap() {
            for kind in ["match", "no_match"] {
                count += lesson["examples"][kind].as_array().map_or(0, Vec::len);
            }
        }
    }
    count
}

/// Every case of car's own suite.
fn builtin_cases() -> usize {
    shipped_scenarios() + starter_examples()
}

#[test]
fn the_shipped_suite_passes() {
    let project = TestProject::new();
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
    let (passed, failed) = summary(&run.stdout);
    assert_eq!(failed, 0);
    assert!(
        shipped_scenarios() >= 12,
        "car's own suite has at least 12 scenarios"
    );
    assert_eq!(
        passed,
        builtin_cases(),
        "every shipped scenario and example runs"
    );
}

#[test]
fn the_shipped_folder_passes_as_a_dir() {
    let project = TestProject::new();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("replay-tests");
    let run = project.run(&["lessons", "test", folder.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    // The folder's copies plus the embedded ones.
    assert_eq!(
        summary(&run.stdout),
        (shipped_scenarios() + builtin_cases(), 0)
    );
}

const LOGGER_LESSONS: &str = r#"{"lessons": [
  {"id": "logger", "scope": "*.ts", "triggers": ["console.log("], "lesson": "Use the logger",
   "weight": 3, "hits": 0}
]}"#;

#[test]
fn a_broken_scenario_fails_with_exit_1_naming_file_and_step() {
    let project = TestProject::new();
    project.write(
        "replay-tests/wrong_weight.json",
        &format!(
            r#"{{"lessons": {LOGGER_LESSONS}, "steps": [
  {{"name": "hit", "write": {{"file": "src/a.ts", "content": "console.log(1);\n"}},
   "expect": {{"warned": ["Use the logger"], "lessons": [{{"id": "logger", "weight": 9}}]}}}}
]}}"#
        ),
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    let failures: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert_eq!(
        failures,
        vec![
            "FAIL replay-tests/wrong_weight.json step 1 (hit): lesson with id \"logger\": expected weight 9, got 3"
        ]
    );
    assert_eq!(summary(&run.stdout), (builtin_cases(), 1));
}

#[test]
fn a_scenario_that_does_not_load_fails_with_its_line() {
    let project = TestProject::new();
    project.write(
        "replay-tests/truncated.json",
        "{\"steps\": [\n  {\"now\": 1,\n",
    );
    project.write("replay-tests/typo.json", "{\"steps\": [{\"expcet\": {}}]}");
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.contains("FAIL replay-tests/truncated.json:3:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("FAIL replay-tests/typo.json:1:") && run.stdout.contains("expcet"),
        "{}",
        run.stdout
    );
    assert_eq!(summary(&run.stdout).1, 2);
}

#[test]
fn a_broken_example_fails_with_exit_1_naming_the_lesson() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/lessons.json",
        r#"{"lessons": [
  {"id": "logger", "scope": "*.ts", "triggers": ["console.log("], "lesson": "Use the logger",
   "examples": {"match": ["console.log(1)", "console.info(2)"], "no_match": ["logger.info(3)"]}}
]}"#,
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    let failures: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert_eq!(
        failures,
        vec![
            "FAIL lesson logger example match[1] \"console.info(2)\": expected the lesson to fire, it did not (triggers [\"console.log(\"])"
        ]
    );
    // Two good examples pass alongside the shipped suite.
    assert_eq!(summary(&run.stdout), (builtin_cases() + 2, 1));
}

#[test]
fn a_corrupt_lessons_file_is_a_failing_case() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/lessons.json",
        "{\"lessons\": [\n",
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("FAIL .claude/claude-auto-review/lessons.json:2:1: not valid JSON (EOF while parsing a list)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_dir_is_a_usage_error() {
    let project = TestProject::new();
    let run = project.run(&["lessons", "test", "no-such-folder"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no-such-folder"), "{}", run.stderr);
}

#[test]
fn scenarios_never_touch_the_project() {
    let project = TestProject::new();
    project.write(".claude/claude-auto-review/lessons.json", LOGGER_LESSONS);
    project.write(
        "replay-tests/from_project.json",
        r#"{"project_lessons": true, "steps": [
  {"write": {"file": "src/a.ts", "content": "console.log(1);\n"},
   "expect": {"warned": ["Use the logger"], "lessons": [{"id": "logger", "hits": 0}]}},
  {"write": {"file": "src/a.ts", "content": "logger.info(1);\n"},
   "expect": {"lessons": [{"id": "logger", "hits": 1, "heeded": 1}]}}
]}"#,
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!project.exists("src/a.ts"));
    assert_eq!(
        project.read_json(".claude/claude-auto-review/lessons.json"),
        serde_json::from_str::<serde_json::Value>(LOGGER_LESSONS).unwrap()
    );
}

#[test]
fn the_users_own_lessons_do_not_leak_into_scenarios() {
    let project = TestProject::new();
    // A user-wide lesson that would fire on the scenario's edit if replays read it.
    let user_lessons = project.home().join(".config/car/lessons.json");
    std::fs::create_dir_all(user_lessons.parent().unwrap()).unwrap();
    std::fs::write(&user_lessons, LOGGER_LESSONS).unwrap();
    project.write(
        "replay-tests/no_lessons.json",
        r#"{"steps": [
  {"write": {"file": "src/a.ts", "content": "console.log(1);\n"},
   "expect": {"warnings": 0, "lesson_count": 0}}]}"#,
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(summary(&run.stdout), (builtin_cases() + 1, 0));
    // The user layer itself is intact and still used by the real hook.
    let payload = project.write_payload("src/b.ts", "console.log(2);\n", None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.context().contains("Use the logger"), "{answer:?}");
}

#[test]
fn a_project_suite_can_replay_learning_from_its_own_validators() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/validators/theme.json",
        r#"{"rules": [{"id": "theme", "scope": "*.swift", "ignore": ["Theme.swift"],
  "reference": {"pattern": "\\bTheme\\.([A-Za-z_]+)", "defined_in": "Theme.swift",
                "definition": "\\blet\\s+([A-Za-z_]+)"}}]}"#,
    );
    let scenario = |flag: bool| {
        format!(
            r#"{{"project_validators": {flag},
  "files": {{"Theme.swift": "enum Theme {{\n    static let textPrimary = 1\n}}\n"}},
  "steps": [
    {{"write": {{"file": "A.swift", "content": "let a = Theme.primaryText\n"}},
     "expect": {{"block": true, "candidate_count": 1}}}},
    {{"write": {{"file": "A.swift", "content": "let a = Theme.textPrimary\n"}},
     "expect": {{"block": false, "candidate_count": 1}}}},
    {{"now": "+1d", "write": {{"file": "B.swift", "content": "let b = Theme.primaryText\n"}},
     "expect": {{"lessons": [{{"trigger": "Theme.primaryText", "weight": 2}}]}}}}]}}"#
        )
    };
    project.write("replay-tests/learns.json", &scenario(true));
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    // Without the project's validators nothing is wrong with the edit, so nothing is learned.
    project.write("replay-tests/learns.json", &scenario(false));
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("FAIL replay-tests/learns.json step 1: expected a block, got not blocked"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_documented_example_scenario_passes() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/replay.md"))
            .unwrap();
    let format = &docs[docs.find("## Scenario format").unwrap()..];
    let example = format
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    let project = TestProject::new();
    project.write("replay-tests/documented.json", example);
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(summary(&run.stdout), (builtin_cases() + 1, 0));
}

/// Regression: replay's `check` step had its own copy of "check one file" that passed no added
/// lines, so the Python import check never ran in it (and it read files without the size and
/// binary guard). It now goes through the one edit pipeline `car check` uses.
#[test]
fn a_check_step_runs_the_same_checks_as_car_check() {
    let project = TestProject::new();
    project.write(
        "replay-tests/check_imports.json",
        r#"{"files": {"job.py": "import yamlish_not_installed_anywhere\n",
                      "blob.py": "x = 1\u0000\n"},
 "steps": [
  {"check": ["job.py"],
   "expect": {"block": true, "reason_contains": ["job.py:1", "yamlish_not_installed_anywhere"]}},
  {"check": ["blob.py"],
   "expect": {"block": false, "message_contains": ["blob.py: binary file; not checked"]}}]}"#,
    );
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
    project.write("job.py", "import yamlish_not_installed_anywhere\n");
    let direct = project.run(&["check", "--no-learn", "job.py"]);
    assert_eq!(direct.code, 1, "{direct:?}");
}
