//! Custom validator rules as data: the project's `.claude/claude-auto-review/validators/*.json`
//! (car's own `validators/*.json` are examples to copy there, all disabled). Raw serde types
//! mirror the files; [`Rule`] is the validated form with compiled globs and regexes.
//!
//! Invariants: a broken file or rule never stops the others — it becomes a [`RuleError`] naming
//! the file and the rule id; a later file's rule replaces an earlier one with the same id;
//! disabled rules are validated but never run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde::Deserialize;

use crate::diagnostic::Severity;
use crate::scope::Scope;

/// The example rule files in car's `validators/` folder, all disabled: a project turns one on by
/// copying it into its own rule folder. The tests keep them valid.
#[cfg(test)]
const SHIPPED: &[(&str, &str)] = &[
    (
        "validators/reference-must-exist.example.json",
        include_str!("../../validators/reference-must-exist.example.json"),
    ),
    (
        "validators/ruff.example.json",
        include_str!("../../validators/ruff.example.json"),
    ),
    (
        "validators/shellcheck.example.json",
        include_str!("../../validators/shellcheck.example.json"),
    ),
];

/// Where a project keeps its rule files, relative to its root.
pub(crate) const PROJECT_RULES_DIR: &str = crate::state::names::PROJECT_VALIDATORS;

pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(120);

/// A rule file or rule that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", rule.as_ref().map(|id| format!(": rule `{id}`")).unwrap_or_default())]
pub(crate) struct RuleError {
    pub(crate) file: String,
    pub(crate) rule: Option<String>,
    /// 1-based line for a JSON error (0 when not about a position).
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleFile {
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    rules: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    severity: Option<String>,
    scope: String,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    reference: Option<RawReference>,
    #[serde(default)]
    command: Option<RawCommand>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReference {
    pattern: String,
    defined_in: OneOrMany,
    #[serde(default)]
    definition: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommand {
    argv: Vec<String>,
    #[serde(default)]
    timeout_seconds: Option<f64>,
    #[serde(default)]
    stdin: bool,
}

/// One usable rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub(crate) id: String,
    /// The file the rule came from, relative to the project.
    pub(crate) file: String,
    pub(crate) enabled: bool,
    pub(crate) severity: Severity,
    scope: Scope,
    ignore: Vec<Scope>,
    pub(crate) kind: RuleKind,
}

#[derive(Debug, Clone)]
pub(crate) enum RuleKind {
    Reference(ReferenceRule),
    Command(CommandRule),
}

/// Every match of `pattern` (group 1 = the name) must be defined in one of `defined_in`.
#[derive(Debug, Clone)]
pub(crate) struct ReferenceRule {
    pub(crate) pattern: Regex,
    /// Project-relative paths.
    pub(crate) defined_in: Vec<String>,
    /// Group 1 of each match is a defined name; `None`: any word in the files counts.
    pub(crate) definition: Option<Regex>,
    /// Template with `{name}`, `{match}` and `{defined_in}`.
    pub(crate) message: String,
}

/// An external program run on the file; its `path:line:col: message` lines become diagnostics.
#[derive(Debug, Clone)]
pub(crate) struct CommandRule {
    /// With `{file}` (absolute path), `{relative}` (project-relative) and `{root}` placeholders.
    pub(crate) argv: Vec<String>,
    pub(crate) timeout: Duration,
    /// Send the content on stdin as well.
    pub(crate) stdin: bool,
}

impl Rule {
    /// Whether the rule applies to a project-relative path.
    pub(crate) fn applies_to(&self, relative_path: &str) -> bool {
        self.scope.matches(relative_path)
            && !self.ignore.iter().any(|scope| scope.matches(relative_path))
    }
}

/// All rules of a project, and what was wrong with the files that failed.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleSet {
    pub(crate) rules: Vec<Rule>,
    pub(crate) errors: Vec<RuleError>,
}

/// Loads the project's rule files (a later file's rule replaces an earlier one with the same id).
pub(crate) fn load(project_root: &Path) -> RuleSet {
    let mut by_id: BTreeMap<String, Rule> = BTreeMap::new();
    let mut errors = Vec::new();
    // car's example files are not read: all disabled (a test pins it), they could add nothing,
    // and parsing them cost every hook a JSON parse.
    for (name, text) in project_files(project_root, &mut errors) {
        match parse_rules(&name, &text, false) {
            Ok((parsed, disabled)) => {
                errors.extend(parsed.errors);
                for id in disabled {
                    by_id.remove(&id);
                }
                for rule in parsed.rules {
                    by_id.insert(rule.id.clone(), rule);
                }
            }
            Err(error) => errors.push(error),
        }
    }
    RuleSet {
        rules: by_id.into_values().collect(),
        errors,
    }
}

/// The project's rule files, sorted by name, as (project-relative name, text).
fn project_files(project_root: &Path, errors: &mut Vec<RuleError>) -> Vec<(String, String)> {
    let dir = project_root.join(PROJECT_RULES_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = format!(
                "{PROJECT_RULES_DIR}/{}",
                path.file_name()?.to_string_lossy()
            );
            match crate::files::read_bounded(&path, 1024 * 1024) {
                Ok(bytes) => Some((name, String::from_utf8_lossy(&bytes).into_owned())),
                Err(error) => {
                    errors.push(file_error(&name, error.to_string()));
                    None
                }
            }
        })
        .collect()
}

fn file_error(file: &str, message: String) -> RuleError {
    RuleError {
        file: file.to_string(),
        rule: None,
        line: 0,
        column: 0,
        message,
    }
}

/// Parses and validates one rule file. `Err`: the file as a whole is unusable (not JSON, wrong
/// shape); otherwise each broken rule is an error of its own and the good rules are kept.
pub(crate) fn parse_file(name: &str, text: &str) -> Result<RuleSet, RuleError> {
    parse_rules(name, text, true).map(|(set, _)| set)
}

/// Parses a rule file; with `compile_disabled` false, disabled rules are only named (their ids
/// returned) and not compiled: the hook loads every rule file on every edit.
fn parse_rules(
    name: &str,
    text: &str,
    compile_disabled: bool,
) -> Result<(RuleSet, Vec<String>), RuleError> {
    let raw: RawRuleFile = serde_json::from_str(text).map_err(|error| {
        let located = crate::text::JsonError::locate(text, &error);
        RuleError {
            file: name.to_string(),
            rule: None,
            line: located.line,
            column: located.column,
            message: format!("not a valid rule file: {}", located.message),
        }
    })?;
    let mut set = RuleSet::default();
    let mut disabled = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for raw_rule in raw.rules {
        let id = raw_rule.id.clone();
        if !raw_rule.enabled && !compile_disabled {
            disabled.push(id);
            continue;
        }
        if !seen.insert(id.clone()) {
            set.errors.push(rule_error(
                name,
                &id,
                "the id is used twice in this file".into(),
            ));
            continue;
        }
        match validate_rule(name, raw_rule) {
            Ok(rule) => set.rules.push(rule),
            Err(message) => set.errors.push(rule_error(name, &id, message)),
        }
    }
    Ok((set, disabled))
}

fn rule_error(file: &str, id: &str, message: String) -> RuleError {
    RuleError {
        file: file.to_string(),
        rule: Some(id.to_string()),
        line: 0,
        column: 0,
        message,
    }
}

fn validate_rule(file: &str, raw: RawRule) -> Result<Rule, String> {
    if raw.id.trim().is_empty() {
        return Err("the id is empty".into());
    }
    let severity = match raw.severity.as_deref().unwrap_or("error") {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        other => {
            return Err(format!(
                "severity must be \"error\" or \"warning\", not {other:?}"
            ));
        }
    };
    let scope = Scope::parse(&raw.scope).map_err(|error| format!("scope: {error}"))?;
    let ignore = raw
        .ignore
        .iter()
        .map(|pattern| Scope::parse(pattern).map_err(|error| format!("ignore: {error}")))
        .collect::<Result<Vec<_>, _>>()?;
    let kind = match (raw.reference, raw.command) {
        (Some(reference), None) => RuleKind::Reference(validate_reference(reference)?),
        (None, Some(command)) => RuleKind::Command(validate_command(command)?),
        _ => return Err("give exactly one of \"reference\" or \"command\"".into()),
    };
    Ok(Rule {
        id: raw.id,
        file: file.to_string(),
        enabled: raw.enabled,
        severity,
        scope,
        ignore,
        kind,
    })
}

fn validate_reference(raw: RawReference) -> Result<ReferenceRule, String> {
    let pattern = Regex::new(&raw.pattern).map_err(|error| format!("pattern: {error}"))?;
    if pattern.captures_len() < 2 {
        return Err("pattern: needs a capture group (group 1 is the referenced name)".into());
    }
    let definition = raw
        .definition
        .map(|text| Regex::new(&text).map_err(|error| format!("definition: {error}")))
        .transpose()?;
    if definition
        .as_ref()
        .is_some_and(|regex| regex.captures_len() < 2)
    {
        return Err("definition: needs a capture group (group 1 is the defined name)".into());
    }
    let defined_in = match raw.defined_in {
        OneOrMany::One(path) => vec![path],
        OneOrMany::Many(paths) => paths,
    };
    if defined_in.is_empty() || defined_in.iter().any(|path| path.trim().is_empty()) {
        return Err("defined_in: give one or more project-relative paths".into());
    }
    if let Some(bad) = defined_in
        .iter()
        .find(|path| Path::new(path).is_absolute() || path.split('/').any(|part| part == ".."))
    {
        return Err(format!(
            "defined_in: {bad:?} must be relative to the project root, inside it"
        ));
    }
    Ok(ReferenceRule {
        pattern,
        defined_in,
        definition,
        message: raw
            .message
            .unwrap_or_else(|| "`{match}` is not defined in {defined_in}".to_string()),
    })
}

fn validate_command(raw: RawCommand) -> Result<CommandRule, String> {
    if raw
        .argv
        .first()
        .is_none_or(|program| program.trim().is_empty())
    {
        return Err("command.argv: give the program and its arguments".into());
    }
    let timeout = match raw.timeout_seconds {
        None => DEFAULT_TIMEOUT,
        Some(seconds) if seconds > 0.0 && seconds <= MAX_TIMEOUT.as_secs_f64() => {
            Duration::from_secs_f64(seconds)
        }
        Some(seconds) => {
            return Err(format!(
                "command.timeout_seconds: {seconds} is not between 0 and {}",
                MAX_TIMEOUT.as_secs()
            ));
        }
    };
    Ok(CommandRule {
        argv: raw.argv,
        timeout,
        stdin: raw.stdin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_files_are_valid_and_disabled() {
        for (name, text) in SHIPPED {
            let set = parse_file(name, text).unwrap_or_else(|error| panic!("{error}"));
            assert!(set.errors.is_empty(), "{:?}", set.errors);
            assert!(!set.rules.is_empty(), "{name} has no rules");
            assert!(
                set.rules.iter().all(|rule| !rule.enabled),
                "{name}: car does not load its example files, so an enabled rule there would never run"
            );
        }
    }

    #[test]
    fn scopes_follow_lesson_globs() {
        let rule = parse_file(
            "r.json",
            r#"{"rules":[{"id":"a","scope":"*.swift","ignore":["Tests/**"],
                "reference":{"pattern":"T\\.(\\w+)","defined_in":"T.swift"}}]}"#,
        )
        .unwrap()
        .rules
        .remove(0);
        assert!(rule.applies_to("App/Views/Home.swift"));
        assert!(rule.applies_to("Home.swift"));
        assert!(!rule.applies_to("Tests/HomeTests.swift"));
        assert!(!rule.applies_to("Home.kt"));
        let rule = parse_file(
            "r.json",
            r#"{"rules":[{"id":"b","scope":"src/*.py","command":{"argv":["x"]}}]}"#,
        )
        .unwrap()
        .rules
        .remove(0);
        assert!(rule.applies_to("src/a.py"));
        assert!(!rule.applies_to("src/sub/a.py"));
    }

    #[test]
    fn broken_rules_name_file_and_id() {
        let text = r#"{"rules":[
            {"id":"bad-regex","scope":"*.swift","reference":{"pattern":"T\\.(\\w+","defined_in":"T.swift"}},
            {"id":"bad-glob","scope":"a[","command":{"argv":["x"]}},
            {"id":"no-group","scope":"*.a","reference":{"pattern":"T","defined_in":"T.swift"}},
            {"id":"both","scope":"*.a"},
            {"id":"slow","scope":"*.a","command":{"argv":["x"],"timeout_seconds":1000}},
            {"id":"fine","scope":"*.a","command":{"argv":["x","{file}"]}}
        ]}"#;
        let set = parse_file("v/rules.json", text).unwrap();
        let ids: Vec<_> = set.errors.iter().map(|e| e.rule.clone().unwrap()).collect();
        assert_eq!(ids, ["bad-regex", "bad-glob", "no-group", "both", "slow"]);
        assert!(
            set.errors[0]
                .to_string()
                .starts_with("v/rules.json: rule `bad-regex`: pattern:")
        );
        assert_eq!(set.rules.len(), 1);
    }

    #[test]
    fn a_file_that_is_not_a_rule_file_is_one_error() {
        let error = parse_file("v/x.json", "{\"rules\": [}").unwrap_err();
        assert_eq!(error.rule, None);
        assert_eq!(error.line, 1);
        assert!(
            error
                .to_string()
                .starts_with("v/x.json: not a valid rule file"),
            "{error}"
        );
        let error = parse_file("v/x.json", "{\"rulez\": []}").unwrap_err();
        assert!(error.message.contains("rulez"), "{error}");
    }

    #[test]
    fn project_rule_overrides_shipped_id_and_broken_files_are_reported() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(PROJECT_RULES_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        let shipped_id = parse_file(SHIPPED[1].0, SHIPPED[1].1).unwrap().rules[0]
            .id
            .clone();
        std::fs::write(
            dir.join("a.json"),
            format!(
                r#"{{"rules":[{{"id":"{shipped_id}","scope":"*.py","command":{{"argv":["true"]}}}}]}}"#
            ),
        )
        .unwrap();
        std::fs::write(dir.join("b.json"), "not json").unwrap();
        let set = load(root.path());
        let rule = set.rules.iter().find(|rule| rule.id == shipped_id).unwrap();
        assert!(rule.enabled);
        assert_eq!(rule.file, format!("{PROJECT_RULES_DIR}/a.json"));
        assert_eq!(set.errors.len(), 1);
        assert_eq!(set.errors[0].file, format!("{PROJECT_RULES_DIR}/b.json"));
    }
}
