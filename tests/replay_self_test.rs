//! The self-test on configuration edits, through `car hook post-tool-use`: each kind of bad edit
//! of car's configuration is blocked with the offending item named; a good edit is not; the
//! scenario suite is `car lessons test`'s (the hook never runs it).

use crate::support::{HookAnswer, TestProject};

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

const GOOD_LESSONS: &str = r#"{"lessons": [
  {"id": "logger", "scope": "*.ts", "triggers": ["console.log("], "lesson": "Use the logger",
   "weight": 3, "examples": {"match": ["console.log(1)"], "no_match": ["logger.info(1)"]}}
]}
"#;

/// The agent writes `content` over `relative` (which held `original`).
fn agent_writes(project: &TestProject, relative: &str, content: &str) -> HookAnswer {
    let original = project.exists(relative).then(|| project.read(relative));
    let payload = project.write_payload(relative, content, original.as_deref());
    project.hook("post-tool-use", &payload)
}

fn assert_blocked(answer: &HookAnswer, needles: &[&str]) {
    assert_eq!(answer.code, 0);
    assert!(answer.is_block(), "expected a block: {answer:?}");
    let reason = answer.reason();
    for needle in needles {
        assert!(
            reason.contains(needle),
            "{needle:?} not in the reason:\n{reason}"
        );
    }
}

#[test]
fn a_good_lessons_edit_is_not_blocked() {
    let project = TestProject::new();
    let answer = agent_writes(&project, LESSONS, GOOD_LESSONS);
    assert!(!answer.is_block(), "{answer:?}");
    assert_eq!(project.read(LESSONS), GOOD_LESSONS);
}

#[test]
fn truncated_lessons_json_is_blocked_with_file_and_line() {
    let project = TestProject::new();
    let truncated = "{\"lessons\": [\n  {\"id\": \"logger\", \"scope\": \"*.ts\",\n";
    let answer = agent_writes(&project, LESSONS, truncated);
    assert_blocked(&answer, &[&format!("{LESSONS}:3:")]);
    assert_eq!(
        project.read(LESSONS),
        truncated,
        "the file is the agent's; car leaves it"
    );
}

#[test]
fn a_regex_that_does_not_compile_is_blocked_naming_lesson_and_trigger() {
    let project = TestProject::new();
    let broken = GOOD_LESSONS.replace("\"console.log(\"]", "\"console.log(\", \"regex:print(\"]");
    let answer = agent_writes(&project, LESSONS, &broken);
    assert_blocked(
        &answer,
        &[
            &format!("{LESSONS}:2:"),
            "lesson logger",
            "regex:print(",
            "does not compile",
        ],
    );
}

#[test]
fn a_bad_glob_is_blocked_naming_the_lesson() {
    let project = TestProject::new();
    let broken = GOOD_LESSONS.replace("\"*.ts\"", "\"src/[a.ts\"");
    let answer = agent_writes(&project, LESSONS, &broken);
    assert_blocked(&answer, &["lesson logger", "scope \"src/[a.ts\""]);
}

#[test]
fn a_failing_example_is_blocked_naming_the_lesson() {
    let project = TestProject::new();
    let broken = GOOD_LESSONS.replace("\"logger.info(1)\"", "\"console.log(2)\"");
    let answer = agent_writes(&project, LESSONS, &broken);
    assert_blocked(
        &answer,
        &[
            "lesson logger example no_match[0] \"console.log(2)\"",
            "expected the lesson not to fire, it fired",
        ],
    );
}

#[test]
fn a_bad_candidate_regex_is_blocked() {
    let project = TestProject::new();
    let answer = agent_writes(
        &project,
        ".claude/claude-auto-review/lesson_candidates.json",
        "{\"candidates\": [\n  {\"scope\": \"*.py\", \"trigger\": \"regex:(unclosed\", \"lesson\": \"x\", \"hits\": 1}\n]}\n",
    );
    assert_blocked(
        &answer,
        &[
            ".claude/claude-auto-review/lesson_candidates.json:2:",
            "candidate #1",
            "regex:(unclosed",
        ],
    );
}

#[test]
fn an_invalid_validator_file_is_blocked_with_file_and_line() {
    let project = TestProject::new();
    let answer = agent_writes(
        &project,
        ".claude/claude-auto-review/validators/theme.json",
        "{\n  \"id\": \"theme\",\n  \"pattern\": \n",
    );
    assert_blocked(
        &answer,
        &[".claude/claude-auto-review/validators/theme.json:4:"],
    );
}

const FAILING_SCENARIO: &str = r#"{"lessons": {"lessons": [
  {"id": "logger", "scope": "*.ts", "triggers": ["console.log("], "lesson": "Use the logger"}]},
 "steps": [{"write": {"file": "src/a.ts", "content": "console.info(1);\n"},
            "expect": {"warned": ["Use the logger"]}}]}
"#;

/// The hook checks a scenario file's shape in process; it never runs scenarios (that is
/// `car lessons test`'s and CI's job), so a well-formed scenario that fails is reported there.
#[test]
fn a_failing_replay_scenario_is_reported_by_lessons_test_not_the_hook() {
    let project = TestProject::new();
    let answer = agent_writes(&project, "replay-tests/logger.json", FAILING_SCENARIO);
    assert!(!answer.is_block(), "{answer:?}");
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    for needle in [
        "replay-tests/logger.json step 1",
        "expected a warning about \"Use the logger\"",
    ] {
        assert!(run.stdout.contains(needle), "{needle:?}:\n{}", run.stdout);
    }
}

#[test]
fn a_scenario_with_a_typo_is_blocked_with_its_line() {
    let project = TestProject::new();
    let answer = agent_writes(
        &project,
        "replay-tests/typo.json",
        "{\"steps\": [\n  {\"expcet\": {}}\n]}\n",
    );
    assert_blocked(&answer, &["replay-tests/typo.json:2:", "expcet"]);
}

#[test]
fn a_lessons_edit_that_breaks_a_project_scenario_fails_lessons_test() {
    let project = TestProject::new();
    project.write(LESSONS, GOOD_LESSONS);
    project.write(
        "replay-tests/guards_logger.json",
        r#"{"project_lessons": true, "steps": [
  {"write": {"file": "web/app.ts", "content": "console.log(1);\n"},
   "expect": {"warned": ["Use the logger"]}}]}"#,
    );
    assert_eq!(project.run(&["lessons", "test"]).code, 0);
    // Narrowing the scope silently drops the warning the scenario guards: the edit itself is
    // well-formed and its examples hold, so the hook lets it through; the suite catches it.
    let narrowed = GOOD_LESSONS.replace("\"*.ts\"", "\"*.tsx\"").replace(
        "\"examples\": {\"match\": [\"console.log(1)\"], \"no_match\": [\"logger.info(1)\"]}",
        "\"examples\": {}",
    );
    let answer = agent_writes(&project, LESSONS, &narrowed);
    assert!(!answer.is_block(), "{answer:?}");
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("replay-tests/guards_logger.json step 1"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_scenario_that_edits_config_does_not_recurse() {
    let project = TestProject::new();
    // The scenario edits car's config inside its own temporary project; the self-test there
    // validates the file and never starts the suite (which holds this scenario) again.
    let scenario = r#"{"steps": [
  {"write": {"file": "replay-tests/inner.json", "content": "{\"steps\": [{}]}"},
   "expect": {"block": false}},
  {"write": {"file": ".claude/claude-auto-review/lessons.json", "content": "{\"lessons\": ["},
   "expect": {"block": true, "reason_contains": ["lessons.json:1:"]}}]}
"#;
    let answer = agent_writes(&project, "replay-tests/recursive.json", scenario);
    assert!(!answer.is_block(), "{answer:?}");
    let run = project.run(&["lessons", "test"]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn ordinary_files_are_not_self_tested() {
    let project = TestProject::new();
    let answer = agent_writes(
        &project,
        "src/lessons.json",
        "{\"lessons\": [{\"triggers\": [\"regex:(\"]}]}",
    );
    assert!(
        !answer.is_block() || !answer.reason().contains("car-self-test"),
        "{answer:?}"
    );
}

/// A configuration error is car's own check, not a mistake in the project's code: blocked every
/// time, learned never, however often the agent makes it (a learned lesson would turn a lesson's
/// trigger into a new lesson).
#[test]
fn configuration_errors_never_become_candidates() {
    let project = TestProject::new();
    let broken = GOOD_LESSONS.replace("\"console.log(\"]", "\"console.log(\", \"regex:print(\"]");
    let rule_file = ".claude/claude-auto-review/validators/theme.json";
    for round in 0..2 {
        let lessons = broken.replace("Use the logger", &format!("Use the logger ({round})"));
        assert_blocked(
            &agent_writes(&project, LESSONS, &lessons),
            &["car-self-test"],
        );
        let rule = format!("{{\n  \"id\": \"theme{round}\",\n  \"pattern\": \n");
        assert_blocked(&agent_writes(&project, rule_file, &rule), &[rule_file]);
    }
    let candidates = ".claude/claude-auto-review/lesson_candidates.json";
    assert!(
        !project.exists(candidates)
            || project.read_json(candidates)["candidates"] == serde_json::json!([]),
        "{}",
        project.read(candidates)
    );
    let run = project.run(&["lessons", "candidates", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("print("), "{run:?}");
    assert!(
        project.read(LESSONS).contains("regex:print("),
        "the agent's file is left as written"
    );
}
