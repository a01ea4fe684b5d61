//! Per-lesson examples: `"examples": {"match": [...], "no_match": [...]}` in a lesson. Each
//! example is one case: a `match` example that does not fire fails, and so does a `no_match`
//! example that does.
//!
//! Invariant: this is the only place that decides whether a lesson fires on an example, for
//! `car lessons add`, `car lessons test` and the self-test of an edited lessons file alike. An
//! example is matched the way an edit is: its lines become the added lines of a file in the
//! lesson's scope, run through the lesson engine's own compiled index, so an example proves what
//! the hook will do (a regex that gives up, or does not compile, fails the case with the reason).

use std::time::Duration;

use crate::edit::AddedLine;
use crate::lessons::matcher::LessonIndex;
use crate::lessons::model::Lesson;
use crate::lessons::placement::Placement;
use crate::text::shorten;

/// Regex time one example may take. An example checks what a lesson matches, not how fast: the
/// hook's per-edit budget would turn a slow, loaded machine (or a debug build compiling the
/// regex) into a false failure. A backtracking regex still has its step limit.
const EXAMPLE_BUDGET: Duration = Duration::from_secs(5);

/// One example of one lesson.
#[derive(Debug, Clone)]
pub(crate) struct ExampleCase {
    /// Where the lesson comes from when it is not the project's file (`car:lessons/rust.json`).
    pub(crate) source: Option<String>,
    pub(crate) lesson: Box<Lesson>,
    pub(crate) should_match: bool,
    /// 0-based position in its list.
    pub(crate) index: usize,
    pub(crate) text: String,
}

impl ExampleCase {
    /// `lesson 3fa2c01b9e example match[0] "text"`, after the source when it is not the
    /// project's file.
    pub(crate) fn name(&self) -> String {
        let kind = if self.should_match {
            "match"
        } else {
            "no_match"
        };
        let source = self
            .source
            .as_ref()
            .map_or_else(String::new, |source| format!("{source} "));
        format!(
            "{source}lesson {} example {kind}[{}] {:?}",
            self.lesson.id,
            self.index,
            shorten(&self.text, 60)
        )
    }

    /// Runs the example; the failure names the case.
    pub(crate) fn run(&self) -> Result<(), ExampleFailure> {
        let failed = |problem: ExampleProblem| ExampleFailure {
            case: self.name(),
            lesson_id: self.lesson.id.clone(),
            problem,
        };
        let fired = fires(&self.lesson, &self.text).map_err(failed)?;
        let triggers = || self.lesson.trigger_texts();
        match (self.should_match, fired) {
            (true, false) => Err(failed(ExampleProblem::DidNotFire {
                triggers: triggers(),
            })),
            (false, true) => Err(failed(ExampleProblem::Fired {
                triggers: triggers(),
            })),
            _ => Ok(()),
        }
    }
}

/// An example that does not hold, named by its case (`lesson L example match[0] "…"`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{case}: {problem}")]
pub(crate) struct ExampleFailure {
    pub(crate) case: String,
    pub(crate) lesson_id: String,
    pub(crate) problem: ExampleProblem,
}

/// Why an example does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExampleProblem {
    #[error("expected the lesson to fire, it did not (triggers {triggers:?})")]
    DidNotFire { triggers: Vec<String> },
    #[error("expected the lesson not to fire, it fired (triggers {triggers:?})")]
    Fired { triggers: Vec<String> },
    /// A trigger does not compile.
    #[error("{0}")]
    Trigger(String),
    #[error("cannot name a file in scope {0:?} to try the example on")]
    NoFileInScope(String),
    /// The matcher gave up (a regex over its budget).
    #[error("{0}")]
    Matcher(String),
}

/// Whether the lesson fires on `text` as added lines of a file in its scope.
pub(crate) fn fires(lesson: &Lesson, text: &str) -> Result<bool, ExampleProblem> {
    for trigger in &lesson.triggers {
        trigger
            .engine()
            .map_err(|error| ExampleProblem::Trigger(error.to_string()))?;
    }
    let added = AddedLine::every_line(text);
    let path = path_in_scope(lesson.scope.as_str())
        .filter(|path| lesson.scope.matches(path))
        .ok_or_else(|| ExampleProblem::NoFileInScope(lesson.scope.as_str().to_string()))?;
    let index = LessonIndex::new(&[lesson]);
    let outcome = index.find(&path, &added, EXAMPLE_BUDGET);
    if let Some(problem) = outcome.problems.first() {
        return Err(ExampleProblem::Matcher(problem.clone()));
    }
    // The example is the whole file: placement and `unless` see it as in the hook.
    let placement = Placement::new(std::path::Path::new(&path), text, None, &added);
    Ok(outcome
        .hits
        .iter()
        .filter_map(|hit| placement.confirm(lesson, *hit))
        .any(|hit| !lesson.is_silenced(text, hit.line)))
}

/// A file name the scope glob covers: `*.swift` → `example.swift`, `src/**/*.ts` →
/// `src/example.ts`, `*.{ts,tsx}` → `example.ts`, `[Mm]akefile` → `Makefile`. `None` for what
/// cannot be filled in without guessing (a negated class, nested alternatives).
fn path_in_scope(scope: &str) -> Option<String> {
    let scope = scope.trim().trim_start_matches('/');
    if matches!(scope, "" | "*" | "**" | "**/*") {
        return Some("example.txt".into());
    }
    let scope = scope.replace("**/", "").replace("/**", "/example");
    let mut path = String::new();
    let mut chars = scope.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' => path.push_str("example"),
            '?' => path.push('x'),
            '\\' => path.push(chars.next()?),
            '[' => {
                let class: String = chars.by_ref().take_while(|c| *c != ']').collect();
                let first = class.chars().next()?;
                if first == '!' || first == '^' {
                    return None;
                }
                path.push(first);
            }
            '{' => {
                let group: String = chars.by_ref().take_while(|c| *c != '}').collect();
                if group.contains('{') {
                    return None;
                }
                path.push_str(group.split(',').next()?);
            }
            other => path.push(other),
        }
    }
    Some(path)
}

/// The cases of one lesson's examples; `source` names where the lesson comes from when it is not
/// the project's file.
pub(crate) fn example_cases(lesson: &Lesson, source: Option<&str>) -> Vec<ExampleCase> {
    let Some(examples) = &lesson.examples else {
        return Vec::new();
    };
    let case = |should_match: bool, index: usize, text: &String| ExampleCase {
        source: source.map(String::from),
        lesson: Box::new(lesson.clone()),
        should_match,
        index,
        text: text.clone(),
    };
    let matching = examples
        .should_match
        .iter()
        .enumerate()
        .map(|(index, text)| case(true, index, text));
    let not_matching = examples
        .should_not_match
        .iter()
        .enumerate()
        .map(|(index, text)| case(false, index, text));
    matching.chain(not_matching).collect()
}

/// A lesson's own examples must hold: every `match` fires, no `no_match` does. The first case
/// that fails, with the reason.
pub(crate) fn check_examples(lesson: &Lesson) -> Result<(), ExampleFailure> {
    example_cases(lesson, None)
        .iter()
        .try_for_each(ExampleCase::run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lesson(value: serde_json::Value) -> Lesson {
        Lesson::from_value(&value).unwrap()
    }

    #[test]
    fn examples_use_the_engine_and_the_scope() {
        let swift = lesson(json!({"id": "theme", "scope": "Sources/**/*.swift",
            "triggers": ["DankeTheme.secondaryText", "regex:(?<!_)re\\.compile"], "lesson": "L",
            "examples": {"match": ["x = DankeTheme.secondaryText", "a\nre.compile(p)"],
                         "no_match": ["x = DankeTheme.textSecondary", "_re.compile(p)"]}}));
        let cases = example_cases(&swift, None);
        assert_eq!(cases.len(), 4);
        for case in &cases {
            assert_eq!(case.run(), Ok(()), "{}", case.name());
        }
    }

    #[test]
    fn a_wrong_example_fails_with_the_lesson_named() {
        let wrong = lesson(
            json!({"id": "logger", "scope": "*.ts", "triggers": ["console.log("],
            "lesson": "L", "examples": {"match": ["console.info(1)"], "no_match": ["console.log(2)"]}}),
        );
        let failures: Vec<String> = example_cases(&wrong, None)
            .iter()
            .filter_map(|case| case.run().err())
            .map(|failure| failure.to_string())
            .collect();
        assert_eq!(
            failures,
            vec![
                "lesson logger example match[0] \"console.info(1)\": expected the lesson to fire, it did not (triggers [\"console.log(\"])",
                "lesson logger example no_match[0] \"console.log(2)\": expected the lesson not to fire, it fired (triggers [\"console.log(\"])",
            ]
        );
    }

    #[test]
    fn a_regex_that_does_not_compile_fails_the_example() {
        let broken = lesson(
            json!({"id": "b", "scope": "*", "triggers": ["regex:print("],
            "lesson": "L", "examples": {"no_match": ["x"]}}),
        );
        let failure = example_cases(&broken, None)[0].run().unwrap_err();
        assert!(
            matches!(&failure.problem, ExampleProblem::Trigger(message) if message.contains("does not compile")),
            "{failure}"
        );
    }

    #[test]
    fn paths_are_found_for_common_scopes() {
        assert_eq!(path_in_scope("*.swift").as_deref(), Some("example.swift"));
        assert_eq!(
            path_in_scope("src/**/*.ts").as_deref(),
            Some("src/example.ts")
        );
        assert_eq!(path_in_scope("").as_deref(), Some("example.txt"));
        assert_eq!(path_in_scope("Makefile").as_deref(), Some("Makefile"));
        assert_eq!(path_in_scope("*.{ts,tsx}").as_deref(), Some("example.ts"));
        assert_eq!(path_in_scope("[Mm]akefile").as_deref(), Some("Makefile"));
        assert_eq!(path_in_scope("[!a]*.py"), None);
    }
}
