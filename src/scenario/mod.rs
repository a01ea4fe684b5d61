//! One replay scenario: the starting state of a throwaway project (settings, lessons, candidates,
//! files) and a sequence of steps (an edit, a payload fixture, a `check`, a `maintain`, a
//! `session_end`), each at its own `CAR_NOW`, each with expectations.
//!
//! The file is JSON ([`RawScenario`], unknown keys refused so a typo like `"expcet"` cannot
//! silently make a scenario pass) converted once into [`Scenario`]: times resolved to Unix
//! seconds, every path checked to stay inside the temporary project, exactly one action per step.

pub(crate) mod expect;
pub(crate) mod fixtures;
pub(crate) mod observation;
pub(crate) mod problem;
pub(crate) mod session_steps;

use std::path::{Component, Path};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::clock::{Clock, DAY};
use crate::scenario::expect::{Expect, RawExpect};
use crate::scenario::problem::{NowProblem, OutsidePath, ScenarioProblem, StepProblem};

/// A scenario file or folder that cannot be used, named with the line where known.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReplayError {
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {problem}")]
    Invalid {
        file: String,
        problem: Box<ScenarioProblem>,
    },
    #[error("{path}: {message}")]
    Folder { path: String, message: String },
}

/// The time a scenario starts at when its first step names none (2026-05-20T18:40:00Z).
pub(crate) const DEFAULT_NOW: i64 = 1_779_300_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    /// For people reading the file; accepted here so `deny_unknown_fields` does not refuse it.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "documentation inside the scenario file, never acted on"
    )]
    pub(crate) description: Option<String>,
    /// car's settings (the `"claude-auto-review"` key of `.claude/settings.json`).
    #[serde(default)]
    pub(crate) settings: Option<Map<String, Value>>,
    /// `lessons.json` as JSON (written out), or …
    #[serde(default)]
    pub(crate) lessons: Option<Value>,
    /// … `lessons.json` verbatim (to replay a hand-broken file).
    #[serde(default)]
    pub(crate) lessons_text: Option<String>,
    #[serde(default)]
    pub(crate) candidates: Option<Value>,
    #[serde(default)]
    pub(crate) candidates_text: Option<String>,
    /// Start from the project's own `lessons.json` (for a project's suite guarding its lessons).
    #[serde(default)]
    pub(crate) project_lessons: bool,
    /// Start with the project's own custom validators (`validators/*.json` in car's state folder),
    /// so learning from their errors can be replayed.
    #[serde(default)]
    pub(crate) project_validators: bool,
    /// Files written before the first step (project-relative path → content).
    #[serde(default)]
    pub(crate) files: Map<String, Value>,
    pub(crate) steps: Vec<RawStep>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStep {
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// Unix seconds, RFC 3339, or `+Nd` / `+Nh` / `+Nm` / `+Ns` after the previous step.
    #[serde(default)]
    pub(crate) now: Option<Value>,
    #[serde(default)]
    pub(crate) edit: Option<RawEdit>,
    #[serde(default)]
    pub(crate) write: Option<RawWrite>,
    #[serde(default)]
    pub(crate) fixture: Option<String>,
    /// The content of the fixture's file after the tool ran (default: derived from the fixture).
    #[serde(default)]
    pub(crate) file_content: Option<String>,
    #[serde(default)]
    pub(crate) check: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) maintain: Option<bool>,
    /// Someone else (the person) changes a file: no hook runs.
    #[serde(default)]
    pub(crate) person: Option<RawEdit>,
    /// The agent's shell command changes a file (the PostToolUse hook on Bash runs).
    #[serde(default)]
    pub(crate) bash: Option<RawEdit>,
    /// The agent stops (the Stop hook runs; `review` scripts the reviewer's answer).
    #[serde(default)]
    pub(crate) stop: Option<session_steps::RawStop>,
    /// The session the step's payloads carry (default `car-replay`).
    #[serde(default)]
    pub(crate) session: Option<String>,
    /// What the end of the session does to the lessons (`car hook session-end`).
    #[serde(default)]
    pub(crate) session_end: Option<bool>,
    #[serde(default)]
    pub(crate) expect: Option<RawExpect>,
}

/// An Edit tool call: `before` (created as the file when it does not exist yet) is replaced by
/// `after`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEdit {
    pub(crate) file: String,
    #[serde(default)]
    pub(crate) before: String,
    pub(crate) after: String,
}

/// A Write tool call: the whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWrite {
    pub(crate) file: String,
    pub(crate) content: String,
}

/// What a scenario file starts from, for `lessons.json` or `lesson_candidates.json`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Initial {
    Missing,
    Json(Value),
    Text(String),
    FromProject,
}

#[derive(Debug, Clone)]
pub(crate) struct Scenario {
    /// Where it came from (`replay-tests/x.json`, `car:hit.json`), for messages.
    pub(crate) name: String,
    pub(crate) settings: Option<Map<String, Value>>,
    pub(crate) lessons: Initial,
    pub(crate) candidates: Initial,
    pub(crate) project_validators: bool,
    pub(crate) files: Vec<(String, String)>,
    pub(crate) steps: Vec<Step>,
}

#[derive(Debug, Clone)]
pub(crate) struct Step {
    /// 1-based position in the scenario.
    pub(crate) number: usize,
    pub(crate) name: Option<String>,
    pub(crate) now: i64,
    /// The session id of the step's payloads.
    pub(crate) session: String,
    pub(crate) action: Action,
    pub(crate) expect: Expect,
}

impl Step {
    /// `step 3` or `step 3 (second hit)`.
    pub(crate) fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("step {} ({name})", self.number),
            None => format!("step {}", self.number),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// Only expectations (on the starting state or after the previous step).
    Nothing,
    Edit {
        file: String,
        before: String,
        after: String,
    },
    Write {
        file: String,
        content: String,
    },
    Fixture {
        name: String,
        file_content: Option<String>,
    },
    Check(Vec<String>),
    Maintain,
    /// Someone else replaces `before` by `after` in the file.
    Person {
        file: String,
        before: String,
        after: String,
    },
    /// The agent's shell command replaces `before` by `after` in the file.
    Bash {
        file: String,
        before: String,
        after: String,
    },
    /// The agent stops; with `review`, a reviewer answers with exactly that findings JSON.
    Stop {
        review: Option<Value>,
        message: String,
    },
    SessionEnd,
}

impl Scenario {
    /// Parses and validates a scenario file's text; errors name `name` and the line.
    pub(crate) fn parse(name: &str, text: &str) -> Result<Scenario, ReplayError> {
        let raw: RawScenario = serde_json::from_str(text).map_err(|error| {
            let located = crate::text::JsonError::locate(text, &error);
            ReplayError::Parse {
                file: name.to_string(),
                line: located.line,
                column: located.column,
                message: located.message,
            }
        })?;
        Scenario::from_raw(name, raw)
    }

    pub(crate) fn from_raw(name: &str, raw: RawScenario) -> Result<Scenario, ReplayError> {
        let invalid = |problem: ScenarioProblem| ReplayError::Invalid {
            file: name.to_string(),
            problem: Box::new(problem),
        };
        let lessons = initial(
            raw.lessons,
            raw.lessons_text,
            raw.project_lessons,
            "lessons",
        )
        .map_err(invalid)?;
        let candidates =
            initial(raw.candidates, raw.candidates_text, false, "candidates").map_err(invalid)?;
        let files = files(raw.files).map_err(invalid)?;
        if raw.steps.is_empty() {
            return Err(invalid(ScenarioProblem::NoSteps));
        }
        let steps = steps(raw.steps).map_err(invalid)?;
        Ok(Scenario {
            name: name.to_string(),
            settings: raw.settings,
            lessons,
            candidates,
            project_validators: raw.project_validators,
            files,
            steps,
        })
    }
}

impl Step {
    fn from_raw(number: usize, raw: RawStep, previous_now: i64) -> Result<Step, StepProblem> {
        let now = match &raw.now {
            Some(value) => resolve_now(value, previous_now)?,
            None => previous_now,
        };
        let action = action(&raw)?;
        let expect = match raw.expect {
            Some(expect) => Expect::from_raw(expect)?,
            None => Expect::default(),
        };
        Ok(Step {
            number,
            name: raw.name,
            now,
            session: raw
                .session
                .unwrap_or_else(|| session_steps::DEFAULT_SESSION.to_string()),
            action,
            expect,
        })
    }
}

/// Validates the starting files: relative paths, string contents.
fn files(raw: Map<String, Value>) -> Result<Vec<(String, String)>, ScenarioProblem> {
    let mut files = Vec::new();
    for (path, content) in raw {
        check_relative("files", &path).map_err(ScenarioProblem::FilePath)?;
        let Value::String(content) = content else {
            return Err(ScenarioProblem::FileContentNotText { path });
        };
        files.push((path, content));
    }
    Ok(files)
}

/// Numbers the steps and resolves each one's time from the previous one's.
fn steps(raw: Vec<RawStep>) -> Result<Vec<Step>, ScenarioProblem> {
    let mut steps = Vec::new();
    let mut now = DEFAULT_NOW;
    for (index, raw_step) in raw.into_iter().enumerate() {
        let number = index + 1;
        let step = Step::from_raw(number, raw_step, now)
            .map_err(|problem| ScenarioProblem::Step { number, problem })?;
        now = step.now;
        steps.push(step);
    }
    Ok(steps)
}

/// Exactly one action per step (or none: a step of expectations only).
fn action(raw: &RawStep) -> Result<Action, StepProblem> {
    let mut actions = Vec::new();
    actions.extend(edit_action(raw)?);
    actions.extend(fixture_action(raw)?);
    if let Some(paths) = &raw.check {
        for path in paths {
            check_relative("check", path)?;
        }
        actions.push(Action::Check(paths.clone()));
    }
    if raw.maintain == Some(true) {
        actions.push(Action::Maintain);
    }
    actions.extend(session_steps::actions(raw)?);
    if raw.session_end == Some(true) {
        actions.push(Action::SessionEnd);
    }
    if actions.len() > 1 {
        return Err(StepProblem::SeveralActions);
    }
    Ok(actions.pop().unwrap_or(Action::Nothing))
}

/// The step's `edit` and `write`, if any.
fn edit_action(raw: &RawStep) -> Result<Vec<Action>, StepProblem> {
    let mut actions = Vec::new();
    if let Some(edit) = &raw.edit {
        check_relative("edit.file", &edit.file)?;
        if edit.after.is_empty() {
            return Err(StepProblem::EmptyEditAfter);
        }
        actions.push(Action::Edit {
            file: edit.file.clone(),
            before: edit.before.clone(),
            after: edit.after.clone(),
        });
    }
    if let Some(write) = &raw.write {
        check_relative("write.file", &write.file)?;
        actions.push(Action::Write {
            file: write.file.clone(),
            content: write.content.clone(),
        });
    }
    Ok(actions)
}

fn fixture_action(raw: &RawStep) -> Result<Option<Action>, StepProblem> {
    let Some(fixture) = &raw.fixture else {
        return match raw.file_content {
            Some(_) => Err(StepProblem::FileContentWithoutFixture),
            None => Ok(None),
        };
    };
    if crate::scenario::fixtures::get(fixture).is_none() {
        return Err(StepProblem::UnknownFixture {
            name: fixture.clone(),
        });
    }
    Ok(Some(Action::Fixture {
        name: fixture.clone(),
        file_content: raw.file_content.clone(),
    }))
}

fn initial(
    json: Option<Value>,
    text: Option<String>,
    from_project: bool,
    key: &'static str,
) -> Result<Initial, ScenarioProblem> {
    match (json, text, from_project) {
        (None, None, false) => Ok(Initial::Missing),
        (Some(json), None, false) => Ok(Initial::Json(json)),
        (None, Some(text), false) => Ok(Initial::Text(text)),
        (None, None, true) => Ok(Initial::FromProject),
        _ => Err(ScenarioProblem::StartGivenTwice { key }),
    }
}

/// Unix seconds, RFC 3339, or `+Nd` / `+Nh` / `+Nm` / `+Ns` after `previous`.
pub(crate) fn resolve_now(value: &Value, previous: i64) -> Result<i64, NowProblem> {
    match value {
        Value::Number(number) => number.as_i64().ok_or_else(|| NowProblem::NotWholeSeconds {
            number: number.clone(),
        }),
        Value::String(text) => {
            if let Some(offset) = text.trim().strip_prefix('+') {
                return relative_offset(offset)
                    .map(|seconds| previous + seconds)
                    .ok_or_else(|| NowProblem::BadOffset { text: text.clone() });
            }
            Ok(Clock::parse(text)?.now())
        }
        other => Err(NowProblem::NotNumberOrText {
            value: other.clone(),
        }),
    }
}

fn relative_offset(text: &str) -> Option<i64> {
    let unit = match text.chars().last()? {
        'd' => DAY,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return None,
    };
    let count: i64 = text[..text.len() - 1].parse().ok()?;
    (count >= 0).then_some(count * unit)
}

/// A scenario path must stay inside the temporary project; `field` says where it was named.
fn check_relative(field: &'static str, path: &str) -> Result<(), OutsidePath> {
    let candidate = Path::new(path);
    let escapes = path.is_empty()
        || candidate.is_absolute()
        || candidate
            .components()
            .any(|component| !matches!(component, Component::Normal(_) | Component::CurDir));
    if escapes {
        return Err(OutsidePath {
            field,
            path: path.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_inherit_and_jump_time() {
        let scenario = Scenario::parse(
            "t.json",
            r#"{"steps": [
                {"now": "2026-05-21T00:00:00Z"},
                {"now": "+31d"},
                {},
                {"now": 1800000000}
            ]}"#,
        )
        .unwrap();
        let times: Vec<i64> = scenario.steps.iter().map(|step| step.now).collect();
        let start = crate::clock::parse_date("2026-05-21").unwrap();
        assert_eq!(
            times,
            vec![start, start + 31 * DAY, start + 31 * DAY, 1_800_000_000]
        );
    }

    #[test]
    fn unknown_keys_and_bad_json_name_the_place() {
        let typo = Scenario::parse("t.json", r#"{"steps": [{"expcet": {}}]}"#).unwrap_err();
        assert!(typo.to_string().contains("t.json:1:"), "{typo}");
        assert!(typo.to_string().contains("expcet"), "{typo}");
        let truncated = Scenario::parse("t.json", "{\"steps\": [\n{").unwrap_err();
        assert!(
            truncated.to_string().starts_with("t.json:2:"),
            "{truncated}"
        );
    }

    #[test]
    fn one_action_per_step_and_paths_stay_inside() {
        let two = Scenario::parse(
            "t.json",
            r#"{"steps": [{"check": ["a.ts"], "maintain": true}]}"#,
        )
        .unwrap_err();
        assert!(
            two.to_string().contains("step 1: a step does one thing"),
            "{two}"
        );
        let escape = Scenario::parse(
            "t.json",
            r#"{"steps": [{"write": {"file": "../x.ts", "content": ""}}]}"#,
        )
        .unwrap_err();
        assert!(
            escape.to_string().contains("inside the project"),
            "{escape}"
        );
        let absolute =
            Scenario::parse("t.json", r#"{"files": {"/etc/x": ""}, "steps": [{}]}"#).unwrap_err();
        assert!(absolute.to_string().contains("files:"), "{absolute}");
    }

    #[test]
    fn lessons_given_one_way_only() {
        let both = Scenario::parse(
            "t.json",
            r#"{"lessons": {"lessons": []}, "lessons_text": "{", "steps": [{}]}"#,
        )
        .unwrap_err();
        assert!(both.to_string().contains("at most one"), "{both}");
        let text = Scenario::parse("t.json", r#"{"lessons_text": "{", "steps": [{}]}"#).unwrap();
        assert_eq!(text.lessons, Initial::Text("{".into()));
    }

    #[test]
    fn bad_relative_times_are_refused() {
        assert!(resolve_now(&Value::from("+3w"), 0).is_err());
        assert!(resolve_now(&Value::from("+-3d"), 0).is_err());
        assert_eq!(resolve_now(&Value::from("+2h"), 10), Ok(7_210));
    }
}
