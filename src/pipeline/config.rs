//! The self-test of car's own configuration: when an edit (or `car check`) touches a project's
//! `lessons.json`, `lesson_candidates.json`, `validators/*.json` or `replay-tests/*.json`, the file
//! is validated (JSON with file:line:col, schema, every regex compiles, every glob parses) and the
//! edited lessons' own examples run; every failure becomes an error naming the lesson, and the
//! hook blocks.
//!
//! Invariants: in process, cheap and without side effects: the text checked is the edited text
//! (never another file), and no scenario runs here (the whole suite is `car lessons test`'s and
//! CI's job), so checking a configuration edit can never re-enter the pipeline. A file that does
//! not validate is reported alone (its examples would only repeat the same failure).

use std::path::Path;

use serde_json::Value;

use crate::lessons::examples::example_cases;
use crate::lessons::model::{Candidate, Entry, RawCandidateFile};
use crate::lessons::store::LessonFile;
use crate::lessons::trigger::Trigger;
use crate::project::STATE_DIR;
use crate::scope::Scope;
use crate::state::names;
use crate::text::JsonError;
use crate::validate::{Diagnostic, Severity};

/// The validator name on the self-test's diagnostics.
pub(crate) const VALIDATOR: &str = "car-self-test";

/// Which piece of car's configuration a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigFile {
    Lessons,
    Candidates,
    Validator,
    Scenario,
}

impl ConfigFile {
    /// Classifies a project-relative path; `None` for every other file.
    pub(crate) fn of(relative_path: &str) -> Option<ConfigFile> {
        let is_json = relative_path.ends_with(".json");
        if let Some(state_file) = relative_path
            .strip_prefix(STATE_DIR)
            .and_then(|rest| rest.strip_prefix('/'))
        {
            return match state_file {
                names::LESSONS => Some(ConfigFile::Lessons),
                names::CANDIDATES => Some(ConfigFile::Candidates),
                name if is_json && is_validator_file(name) => Some(ConfigFile::Validator),
                _ => None,
            };
        }
        let scenario = relative_path.strip_prefix("replay-tests/")?;
        (is_json && is_plain_name(scenario)).then_some(ConfigFile::Scenario)
    }
}

/// A file directly in its folder (the suite does not read subfolders).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('/')
}

/// A rule file directly in the state folder's validators folder (`name` relative to the state
/// folder).
fn is_validator_file(name: &str) -> bool {
    name.strip_prefix(names::VALIDATORS_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(is_plain_name)
}

/// Errors to block with when the edit broke car's configuration; empty otherwise.
pub(crate) fn check_config_edit(relative_path: &str, content: &str) -> Vec<Diagnostic> {
    let Some(kind) = ConfigFile::of(relative_path) else {
        return Vec::new();
    };
    let problems = validate(kind, relative_path, content);
    if !problems.is_empty() || kind != ConfigFile::Lessons {
        return problems;
    }
    run_examples(relative_path, content)
}

/// Checks one configuration file's text: JSON, shape, regexes, globs.
pub(crate) fn validate(kind: ConfigFile, relative_path: &str, text: &str) -> Vec<Diagnostic> {
    let document = match parse_json(relative_path, text) {
        Ok(document) => document,
        Err(diagnostic) => return vec![*diagnostic],
    };
    let report = |line: usize, message: String| error(relative_path, line, message);
    match kind {
        ConfigFile::Lessons => lessons_problems(relative_path, text),
        ConfigFile::Candidates => candidate_problems(&document, text)
            .into_iter()
            .map(|(line, message)| report(line, message))
            .collect(),
        ConfigFile::Validator => validator_problems(relative_path, text)
            .into_iter()
            .map(|(line, message)| report(line, message))
            .collect(),
        ConfigFile::Scenario => match crate::scenario::Scenario::parse(relative_path, text) {
            Ok(_) => Vec::new(),
            Err(problem) => vec![report(1, problem.to_string())],
        },
    }
}

fn parse_json(relative_path: &str, text: &str) -> Result<Value, Box<Diagnostic>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|problem| {
        let located = JsonError::locate(text, &problem);
        Box::new(Diagnostic {
            column: located.column,
            ..error(
                relative_path,
                located.line,
                format!("invalid JSON: {}", located.message),
            )
        })
    })
}

/// Every lesson must load, every trigger compile, every scope parse.
fn lessons_problems(relative_path: &str, text: &str) -> Vec<Diagnostic> {
    let file = match LessonFile::parse(Path::new(relative_path), text) {
        Ok(file) => file,
        Err(problem) => return vec![error(relative_path, 1, problem.to_string())],
    };
    let mut problems = Vec::new();
    for (index, entry) in file.entries.iter().enumerate() {
        match entry {
            Entry::Invalid { raw, problem } => {
                let name = raw.get("id").and_then(Value::as_str).map_or_else(
                    || format!("lesson #{}", index + 1),
                    |id| format!("lesson {id}"),
                );
                let line = line_of(text, raw.get("triggers").unwrap_or(raw));
                problems.push(error(relative_path, line, format!("{name}: {problem}")));
            }
            Entry::Valid(lesson) => {
                for trigger in lesson.trigger_texts() {
                    if let Err(problem) = Trigger::validate(&trigger) {
                        let line = line_of(text, &Value::String(trigger.clone()));
                        let message = format!("lesson {}: {problem}", lesson.id);
                        problems.push(error(relative_path, line, message));
                    }
                }
            }
        }
    }
    problems
}

/// Every candidate must have the seed shape, a trigger that compiles and a scope that parses.
fn candidate_problems(document: &Value, text: &str) -> Vec<(usize, String)> {
    let raw: RawCandidateFile = match serde_json::from_value(document.clone()) {
        Ok(raw) => raw,
        Err(problem) => {
            return vec![(
                1,
                format!("\"candidates\" must be an array of candidates ({problem})"),
            )];
        }
    };
    let mut problems = Vec::new();
    for (index, value) in raw.candidates.iter().enumerate() {
        let name = format!("candidate #{}", index + 1);
        let line = line_of(text, value.get("trigger").unwrap_or(value));
        let candidate: Candidate = match serde_json::from_value(value.clone()) {
            Ok(candidate) => candidate,
            Err(problem) => {
                problems.push((line, format!("{name}: {problem}")));
                continue;
            }
        };
        if let Err(problem) = Trigger::validate(&candidate.trigger) {
            problems.push((line, format!("{name}: {problem}")));
        }
        if let Err(problem) = Scope::parse(&candidate.scope) {
            problems.push((
                line,
                format!("{name}: scope {:?}: {problem}", candidate.scope),
            ));
        }
    }
    problems
}

/// A custom validator rule file, checked by the validator subsystem's own parser (shape, rule
/// ids, scope globs, reference patterns, command argv): one problem per broken rule.
fn validator_problems(relative_path: &str, text: &str) -> Vec<(usize, String)> {
    let located = |line: usize, message: String| (line.max(1), message);
    match crate::validate::rules::parse_file(relative_path, text) {
        Err(problem) => vec![located(
            problem.line,
            strip_file(&problem.to_string(), relative_path),
        )],
        Ok(set) => set
            .errors
            .iter()
            .map(|problem| {
                let line = problem
                    .rule
                    .as_ref()
                    .map_or(problem.line, |id| line_of(text, &Value::String(id.clone())));
                located(line, strip_file(&problem.to_string(), relative_path))
            })
            .collect(),
    }
}

/// The rule parser names the file; the diagnostic already does.
fn strip_file(message: &str, relative_path: &str) -> String {
    message
        .strip_prefix(relative_path)
        .map(|rest| rest.trim_start_matches(':').trim_start())
        .unwrap_or(message)
        .to_string()
}

/// The edited lessons' own examples: each failure names the lesson, at its line.
fn run_examples(relative_path: &str, text: &str) -> Vec<Diagnostic> {
    let Ok(file) = LessonFile::parse(Path::new(relative_path), text) else {
        return Vec::new();
    };
    file.lessons()
        .flat_map(|lesson| example_cases(lesson, None))
        .filter_map(|case| case.run().err())
        .map(|failure| {
            let line = line_of(text, &Value::String(failure.lesson_id.clone()));
            error(relative_path, line, format!("self-test failed: {failure}"))
        })
        .collect()
}

/// The 1-based line where a JSON value first appears in the text (1 when it cannot be found).
fn line_of(text: &str, value: &Value) -> usize {
    let needle = match value {
        Value::Array(items) => items.first().map(Value::to_string),
        Value::Object(_) => None,
        other => Some(other.to_string()),
    };
    needle
        .and_then(|needle| text.find(&needle))
        .map_or(1, |offset| crate::files::line_col(text, offset).0)
}

fn error(file: &str, line: usize, message: String) -> Diagnostic {
    Diagnostic {
        file: file.to_string(),
        line,
        column: 1,
        severity: Severity::Error,
        validator: VALIDATOR.to_string(),
        origin: crate::diagnostic::Origin::CarConfig,
        message,
        snippet: None,
        subject: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

    #[test]
    fn classifies_config_files() {
        assert_eq!(ConfigFile::of(LESSONS), Some(ConfigFile::Lessons));
        assert_eq!(
            ConfigFile::of(".claude/claude-auto-review/lesson_candidates.json"),
            Some(ConfigFile::Candidates)
        );
        assert_eq!(
            ConfigFile::of(".claude/claude-auto-review/validators/theme.json"),
            Some(ConfigFile::Validator)
        );
        assert_eq!(
            ConfigFile::of("replay-tests/hit.json"),
            Some(ConfigFile::Scenario)
        );
        assert_eq!(ConfigFile::of("replay-tests/README.md"), None);
        assert_eq!(ConfigFile::of("src/lessons.json"), None);
        assert_eq!(
            ConfigFile::of(".claude/claude-auto-review/state.jsonl"),
            None
        );
    }

    #[test]
    fn truncated_json_names_file_and_line() {
        let problems = validate(
            ConfigFile::Lessons,
            LESSONS,
            "{\"lessons\": [\n  {\"scope\": \"*\",\n",
        );
        assert_eq!(problems.len(), 1);
        let rendered = problems[0].render();
        assert!(rendered.starts_with(&format!("{LESSONS}:3:")), "{rendered}");
        assert!(rendered.contains("invalid JSON: EOF"), "{rendered}");
    }

    #[test]
    fn bad_regex_and_bad_glob_name_the_lesson_and_line() {
        let text = "{\"lessons\": [\n  {\"id\": \"ok\", \"scope\": \"*.ts\", \"triggers\": [\"a.b\"]},\n  {\"id\": \"re\", \"scope\": \"*.ts\",\n   \"triggers\": [\"regex:print(\"]},\n  {\"id\": \"glob\", \"scope\": \"src/[a\", \"triggers\": [\"x.y\"]}\n]}\n";
        let problems: Vec<String> = validate(ConfigFile::Lessons, LESSONS, text)
            .iter()
            .map(Diagnostic::render)
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].starts_with(&format!("{LESSONS}:4:1: lesson re: trigger ")),
            "{problems:?}"
        );
        assert!(problems[0].contains("regex:print(") && problems[0].contains("does not compile"));
        assert!(
            problems[1].starts_with(&format!("{LESSONS}:5:1: lesson glob: scope \"src/[a\"")),
            "{problems:?}"
        );
    }

    #[test]
    fn candidates_are_checked() {
        let text = "{\"candidates\": [{\"scope\": \"*.py\", \"trigger\": \"regex:(\", \"lesson\": \"x\"}]}";
        let problems = validate(
            ConfigFile::Candidates,
            ".claude/claude-auto-review/lesson_candidates.json",
            text,
        );
        assert_eq!(problems.len(), 1);
        let message = &problems[0].message;
        assert!(message.starts_with("candidate #1: trigger "), "{message}");
        assert!(message.contains("regex:(") && message.contains("does not compile"));
        let fine = "{\"candidates\": []}";
        assert!(validate(ConfigFile::Candidates, "c.json", fine).is_empty());
    }

    #[test]
    fn validator_rules_are_checked_by_the_rule_parser() {
        let file = ".claude/claude-auto-review/validators/theme.json";
        let text = "{\"rules\": [\n  {\"id\": \"theme\", \"scope\": \"*.swift\",\n   \"reference\": {\"pattern\": \"DankeTheme\\\\.(\", \"defined_in\": \"Theme.swift\"}}\n]}\n";
        let problems = validate(ConfigFile::Validator, file, text);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, 2);
        assert!(
            problems[0].message.starts_with("rule `theme`"),
            "{problems:?}"
        );
        let shape = validate(ConfigFile::Validator, file, "{\"rulez\": []}");
        assert_eq!(shape.len(), 1, "{shape:?}");
        assert!(shape[0].message.contains("rulez"), "{shape:?}");
    }

    #[test]
    fn scenarios_are_parsed() {
        let problems = validate(
            ConfigFile::Scenario,
            "replay-tests/x.json",
            "{\"steps\": [{\"expcet\": {}}]}",
        );
        assert_eq!(problems.len(), 1);
        assert!(problems[0].message.contains("expcet"), "{:?}", problems[0]);
    }
}
