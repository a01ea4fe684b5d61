//! Scenario steps that replay a session beyond the agent's edits, so learning from reviews and
//! from the person's corrections can be replayed: someone else changing a file (`person`), the
//! agent's shell command changing one (`bash`), and the agent stopping (`stop`, with the
//! reviewer's answer scripted in `review`); any step may name its `session`.

use serde::Deserialize;
use serde_json::Value;

use crate::scenario::problem::StepProblem;
use crate::scenario::{Action, RawEdit, RawStep, check_relative};

/// The session replayed payloads carry unless a step names another.
pub(crate) const DEFAULT_SESSION: &str = "car-replay";

/// What the agent says when it stops, unless the step says otherwise.
const DEFAULT_STOP_MESSAGE: &str = "I made the change. All done.";

/// `"stop": {"review": {...findings JSON...}, "message": "…"}`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStop {
    /// The reviewer's answer (the findings JSON a `command` reviewer prints); without it the
    /// project's reviewer settings apply (`manual` by default: the stop asks for a review).
    #[serde(default)]
    pub(crate) review: Option<Value>,
    /// The agent's last message.
    #[serde(default)]
    pub(crate) message: Option<String>,
}

/// The step's `person`, `bash` and `stop` actions, if any.
pub(crate) fn actions(raw: &RawStep) -> Result<Vec<Action>, StepProblem> {
    let mut actions = Vec::new();
    if let Some(edit) = &raw.person {
        let (file, before, after) = replacement(Replacer::Person, edit)?;
        actions.push(Action::Person {
            file,
            before,
            after,
        });
    }
    if let Some(edit) = &raw.bash {
        let (file, before, after) = replacement(Replacer::Bash, edit)?;
        actions.push(Action::Bash {
            file,
            before,
            after,
        });
    }
    if let Some(stop) = &raw.stop {
        if let Some(review) = &stop.review
            && review.get("findings").is_none_or(|list| !list.is_array())
        {
            return Err(StepProblem::ReviewNotFindings);
        }
        actions.push(Action::Stop {
            review: stop.review.clone(),
            message: stop
                .message
                .clone()
                .unwrap_or_else(|| DEFAULT_STOP_MESSAGE.to_string()),
        });
    }
    if raw
        .session
        .as_deref()
        .is_some_and(|id| id.trim().is_empty())
    {
        return Err(StepProblem::EmptySession);
    }
    Ok(actions)
}

/// Who changes a file outside the edit tools.
#[derive(Clone, Copy)]
enum Replacer {
    Person,
    Bash,
}

fn replacement(
    replacer: Replacer,
    edit: &RawEdit,
) -> Result<(String, String, String), StepProblem> {
    let (key, file_field) = match replacer {
        Replacer::Person => ("person", "person.file"),
        Replacer::Bash => ("bash", "bash.file"),
    };
    check_relative(file_field, &edit.file)?;
    if edit.before.is_empty() {
        return Err(StepProblem::EmptyBefore { key });
    }
    Ok((edit.file.clone(), edit.before.clone(), edit.after.clone()))
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Action, Scenario};

    #[test]
    fn session_steps_parse_and_refuse_mistakes() {
        let scenario = Scenario::parse(
            "t.json",
            r#"{"steps": [
                {"session": "s2", "person": {"file": "a.py", "before": "x", "after": "y"}},
                {"bash": {"file": "a.py", "before": "y", "after": "z"}},
                {"stop": {"review": {"findings": []}}}
            ]}"#,
        )
        .unwrap();
        assert_eq!(scenario.steps[0].session, "s2");
        assert_eq!(scenario.steps[1].session, "car-replay");
        assert!(matches!(scenario.steps[0].action, Action::Person { .. }));
        assert!(matches!(scenario.steps[1].action, Action::Bash { .. }));
        assert!(matches!(
            &scenario.steps[2].action,
            Action::Stop {
                review: Some(_),
                ..
            }
        ));
        let bad = Scenario::parse("t.json", r#"{"steps": [{"stop": {"review": {"x": 1}}}]}"#);
        assert!(bad.unwrap_err().to_string().contains("findings JSON"));
        let two = Scenario::parse("t.json", r#"{"steps": [{"stop": {}, "maintain": true}]}"#);
        assert!(
            two.unwrap_err()
                .to_string()
                .contains("a step does one thing")
        );
        let empty = Scenario::parse(
            "t.json",
            r#"{"steps": [{"person": {"file": "a", "after": "b"}}]}"#,
        );
        assert!(empty.unwrap_err().to_string().contains("person.before"));
    }
}
