//! Why a scenario file cannot be used: what [`crate::scenario::Scenario::from_raw`] refuses,
//! each problem naming the key, step, path or value involved. [`super::ReplayError::Invalid`]
//! adds the file's name.

use serde_json::Value;

use crate::clock::ClockError;

/// A scenario that parses as JSON but does not make sense.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ScenarioProblem {
    /// `"lessons"` and `"lessons_text"` (or `"project_lessons"`) together.
    #[error(
        "give at most one of \"{key}\", \"{key}_text\"{}",
        if *key == "lessons" { " and \"project_lessons\"" } else { "" }
    )]
    StartGivenTwice { key: &'static str },
    /// A starting file's path.
    #[error(transparent)]
    FilePath(OutsidePath),
    #[error("files.{path:?}: the content must be a string")]
    FileContentNotText { path: String },
    #[error("\"steps\" is empty: a scenario needs at least one")]
    NoSteps,
    #[error("step {number}: {problem}")]
    Step { number: usize, problem: StepProblem },
}

/// What is wrong with one step.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum StepProblem {
    #[error(transparent)]
    Now(#[from] NowProblem),
    #[error(transparent)]
    Path(#[from] OutsidePath),
    #[error(
        "a step does one thing: edit, write, fixture, check, maintain, person, bash, stop or \
session_end; split it"
    )]
    SeveralActions,
    #[error("edit.after is empty; use \"write\" to empty a file")]
    EmptyEditAfter,
    #[error("\"file_content\" belongs to a \"fixture\" step")]
    FileContentWithoutFixture,
    #[error(
        "fixture {name:?} is not one of {}",
        crate::scenario::fixtures::names().join(", ")
    )]
    UnknownFixture { name: String },
    #[error("stop.review must be findings JSON: {{\"findings\": [...]}}")]
    ReviewNotFindings,
    #[error("\"session\" is empty")]
    EmptySession,
    /// A `person` or `bash` change that does not say what it replaces.
    #[error("{key}.before is empty: say what the change replaces")]
    EmptyBefore { key: &'static str },
    /// One of `expect.lessons` / `expect.candidates`.
    #[error("expect.{key}[{index}]: {problem}")]
    Expect {
        key: &'static str,
        index: usize,
        problem: RecordProblem,
    },
}

/// A path a scenario names that would leave its temporary project.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {path:?} must be a relative path inside the project (no leading /, no ..)")]
pub(crate) struct OutsidePath {
    /// Where the scenario names it: `files`, `check`, `edit.file`, `person.file`, …
    pub(crate) field: &'static str,
    pub(crate) path: String,
}

/// A step's `now` that is not a time.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum NowProblem {
    #[error("now {number} is not whole Unix seconds")]
    NotWholeSeconds { number: serde_json::Number },
    #[error("now {text:?}: write +31d, +12h, +5m or +90s")]
    BadOffset { text: String },
    #[error("now: {0}")]
    NotATime(#[from] ClockError),
    #[error("now {value} must be a number or a string")]
    NotNumberOrText { value: Value },
}

/// An expected lesson or candidate that cannot be looked for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum RecordProblem {
    #[error("pick it with id, trigger, trigger_contains or lesson_contains")]
    NoSelector,
    #[error("{value} is not \"now\", \"absent\", \"set\" or a time")]
    NotATime { value: Value },
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    /// Every refusal, as `car lessons test` shows it: the file, the place, what to do.
    #[test]
    fn each_problem_names_the_file_the_place_and_the_fix() {
        let outside = "must be a relative path inside the project (no leading /, no ..)";
        let cases = [
            (
                r#"{"lessons": {}, "lessons_text": "", "steps": [{}]}"#,
                r#"give at most one of "lessons", "lessons_text" and "project_lessons""#.to_string(),
            ),
            (
                r#"{"candidates": {}, "candidates_text": "", "steps": [{}]}"#,
                r#"give at most one of "candidates", "candidates_text""#.into(),
            ),
            (
                r#"{"files": {"../x": ""}, "steps": [{}]}"#,
                format!(r#"files: "../x" {outside}"#),
            ),
            (
                r#"{"files": {"x": 1}, "steps": [{}]}"#,
                r#"files."x": the content must be a string"#.into(),
            ),
            (
                r#"{"steps": []}"#,
                r#""steps" is empty: a scenario needs at least one"#.into(),
            ),
            (
                r#"{"steps": [{}, {"now": 1.5}]}"#,
                "step 2: now 1.5 is not whole Unix seconds".into(),
            ),
            (
                r#"{"steps": [{"now": "+3w"}]}"#,
                r#"step 1: now "+3w": write +31d, +12h, +5m or +90s"#.into(),
            ),
            (
                r#"{"steps": [{"now": "soon"}]}"#,
                r#"step 1: now: CAR_NOW="soon" is neither Unix seconds nor an RFC 3339 time (e.g. 2026-11-30T12:00:00Z)"#.into(),
            ),
            (
                r#"{"steps": [{"now": true}]}"#,
                "step 1: now true must be a number or a string".into(),
            ),
            (
                r#"{"steps": [{"check": ["/etc/x"]}]}"#,
                format!(r#"step 1: check: "/etc/x" {outside}"#),
            ),
            (
                r#"{"steps": [{"person": {"file": "../a", "before": "x", "after": "y"}}]}"#,
                format!(r#"step 1: person.file: "../a" {outside}"#),
            ),
            (
                r#"{"steps": [{"edit": {"file": "a", "after": ""}}]}"#,
                r#"step 1: edit.after is empty; use "write" to empty a file"#.into(),
            ),
            (
                r#"{"steps": [{"file_content": "x"}]}"#,
                r#"step 1: "file_content" belongs to a "fixture" step"#.into(),
            ),
            (
                r#"{"steps": [{"stop": {"review": {"x": 1}}}]}"#,
                r#"step 1: stop.review must be findings JSON: {"findings": [...]}"#.into(),
            ),
            (
                r#"{"steps": [{"session": " "}]}"#,
                r#"step 1: "session" is empty"#.into(),
            ),
            (
                r#"{"steps": [{"bash": {"file": "a", "after": "b"}}]}"#,
                "step 1: bash.before is empty: say what the change replaces".into(),
            ),
            (
                r#"{"steps": [{"check": [], "maintain": true}]}"#,
                "step 1: a step does one thing: edit, write, fixture, check, maintain, person, \
bash, stop or session_end; split it"
                    .into(),
            ),
            (
                r#"{"steps": [{"expect": {"lessons": [{}]}}]}"#,
                "step 1: expect.lessons[0]: pick it with id, trigger, trigger_contains or \
lesson_contains"
                    .into(),
            ),
            (
                r#"{"steps": [{"expect": {"candidates": [{"id": "x", "last_hit": "soon"}]}}]}"#,
                r#"step 1: expect.candidates[0]: "soon" is not "now", "absent", "set" or a time"#
                    .into(),
            ),
        ];
        for (text, expected) in cases {
            let error = Scenario::parse("t.json", text).unwrap_err();
            assert_eq!(error.to_string(), format!("t.json: {expected}"), "{text}");
        }
        let fixture = Scenario::parse("t.json", r#"{"steps": [{"fixture": "nope.json"}]}"#);
        assert!(fixture.unwrap_err().to_string().starts_with(
            r#"t.json: step 1: fixture "nope.json" is not one of claude-post-edit.json, "#
        ));
    }
}
