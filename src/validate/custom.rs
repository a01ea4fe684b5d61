//! Running custom rules (see [`crate::validate::rules`] for their format) on one file.
//!
//! Reference rules read their definition files once per process (a `car check` of 500 Swift files
//! reads `DankeTheme.swift` once). Command rules run the program with argv and a timeout in the
//! project root; a missing program or a timeout is a note, never an error of the file. A notebook
//! cell has no file of its own to hand to a program, so command rules skip cells.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use regex::Regex;

use crate::process::{ProcessError, run_command};
use crate::validate::language::Language;
use crate::validate::prose::Prose;
use crate::validate::rules::{CommandRule, ReferenceRule, Rule, RuleKind};
use crate::validate::{Diagnostic, Origin, Report, Source, snippet_at};

/// Diagnostics one rule may report per file.
const MAX_PER_RULE: usize = 20;

/// Runs rules, remembering the definitions each reference rule read.
#[derive(Default)]
pub(crate) struct CustomRunner {
    /// Rule id → the names defined in its files (`None`: none of the files exists).
    definitions: Mutex<HashMap<String, Option<HashSet<String>>>>,
}

impl CustomRunner {
    /// Runs every enabled rule that applies to `relative_path`.
    pub(crate) fn run(
        &self,
        rules: &[Rule],
        source: &Source<'_>,
        relative_path: &str,
        project_root: &Path,
        report: &mut Report,
    ) {
        for rule in rules
            .iter()
            .filter(|rule| rule.enabled && rule.applies_to(relative_path))
        {
            match &rule.kind {
                RuleKind::Reference(reference) => self.check_references(
                    rule,
                    reference,
                    source,
                    relative_path,
                    project_root,
                    report,
                ),
                RuleKind::Command(command) if source.language.is_none() => {
                    run_command_rule(rule, command, source, relative_path, project_root, report)
                }
                RuleKind::Command(_) => {}
            }
        }
    }

    fn check_references(
        &self,
        rule: &Rule,
        reference: &ReferenceRule,
        source: &Source<'_>,
        relative_path: &str,
        project_root: &Path,
        report: &mut Report,
    ) {
        let is_definitions_file = |entry: &String| {
            entry == relative_path
                || (entry.contains(['*', '?', '['])
                    && crate::scope::Scope::parse(entry)
                        .is_ok_and(|glob| glob.matches(relative_path)))
        };
        let defined = if reference.defined_in.iter().any(is_definitions_file) {
            // The definitions file itself is being edited: its new content is the truth.
            Some(defined_names(reference.definition.as_ref(), source.content))
        } else {
            let mut cache = self
                .definitions
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            cache
                .entry(rule.id.clone())
                .or_insert_with(|| read_definitions(reference, project_root))
                .clone()
        };
        let Some(defined) = defined else {
            report.notes.push(format!(
                "rule `{}` ({}): {} not found in the project; rule skipped",
                rule.id,
                rule.file,
                shown_files(&reference.defined_in)
            ));
            return;
        };
        report
            .diagnostics
            .extend(missing_references(rule, reference, &defined, source));
    }
}

/// Every match of the rule's pattern whose name is not defined. A match in a comment or a
/// string's text is no reference (`// DankeTheme.secondaryText was renamed`): the file is parsed
/// for that only when such a match is found.
pub(crate) fn missing_references(
    rule: &Rule,
    reference: &ReferenceRule,
    defined: &HashSet<String>,
    source: &Source<'_>,
) -> Vec<Diagnostic> {
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let prose = std::cell::OnceCell::new();
    let is_prose = |range: std::ops::Range<usize>| {
        prose
            .get_or_init(|| {
                let language = Language::detect(source.path, source.content, source.language);
                Prose::of(language, source.content)
            })
            .contains(range)
    };
    for captures in reference.pattern.captures_iter(source.content) {
        let (Some(whole), Some(name)) = (captures.get(0), captures.get(1)) else {
            continue;
        };
        if defined.contains(name.as_str()) || is_prose(whole.range()) {
            continue;
        }
        let (line, column) = crate::files::line_col(source.content, whole.start());
        if !seen.insert((whole.as_str(), line)) {
            continue;
        }
        let message = reference
            .message
            .replace("{name}", name.as_str())
            .replace("{match}", whole.as_str())
            .replace("{defined_in}", &shown_files(&reference.defined_in));
        found.push(Diagnostic {
            file: source.display_path.to_string(),
            line,
            column,
            severity: rule.severity,
            validator: rule.id.clone(),
            origin: Origin::CustomRule,
            message,
            snippet: snippet_at(source.content, line, column),
            subject: Some(whole.as_str().to_string()),
        });
        if found.len() >= MAX_PER_RULE {
            break;
        }
    }
    found
}

/// The names the rule's files define; `None` when none of them exists. An entry that is a glob
/// (`**/DankeTheme.swift`: the file wherever it lies) names the project's files git lists that
/// match it (one `git ls-files`, only for such an entry, once per process).
fn read_definitions(reference: &ReferenceRule, project_root: &Path) -> Option<HashSet<String>> {
    let mut names = HashSet::new();
    let mut any = false;
    let files: Vec<String> = reference
        .defined_in
        .iter()
        .flat_map(|entry| {
            if entry.contains(['*', '?', '[']) {
                files_matching(project_root, entry)
            } else {
                vec![entry.clone()]
            }
        })
        .collect();
    for relative in &files {
        // A definitions file that resolves outside the project is not read.
        let Some(bytes) = crate::project::read_inside_of(
            project_root,
            Path::new(relative),
            crate::edit::MAX_FILE_BYTES,
        ) else {
            continue;
        };
        any = true;
        names.extend(defined_names(
            reference.definition.as_ref(),
            &String::from_utf8_lossy(&bytes),
        ));
    }
    any.then_some(names)
}

/// The definitions files as a person reads them: `**/DankeTheme.swift` is `DankeTheme.swift`.
fn shown_files(entries: &[String]) -> String {
    entries
        .iter()
        .map(|entry| entry.strip_prefix("**/").unwrap_or(entry))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The project's files (tracked, and untracked ones git does not ignore) that match `glob`;
/// none outside git or when git does not answer in a hook's time.
fn files_matching(project_root: &Path, glob: &str) -> Vec<String> {
    let pathspec = format!(":(glob){glob}");
    match crate::validate::walk::git_listed(project_root, &[&pathspec], crate::git::Wait::Hook) {
        Ok(output) if output.success() => output
            .stdout
            .split('\0')
            .filter(|file| !file.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Group 1 of every definition match, or (without a definition pattern) every word.
fn defined_names(definition: Option<&Regex>, text: &str) -> HashSet<String> {
    match definition {
        Some(regex) => regex
            .captures_iter(text)
            .filter_map(|captures| captures.get(1).map(|name| name.as_str().to_string()))
            .collect(),
        None => text
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .filter(|word| !word.is_empty())
            .map(str::to_string)
            .collect(),
    }
}

fn run_command_rule(
    rule: &Rule,
    command_rule: &CommandRule,
    source: &Source<'_>,
    relative_path: &str,
    project_root: &Path,
    report: &mut Report,
) {
    let argv = fill_placeholders(&command_rule.argv, source.path, relative_path, project_root);
    // Loading refuses an empty argv; a rule built some other way simply does nothing.
    let Some((program, arguments)) = argv.split_first() else {
        return;
    };
    let mut command = Command::new(program);
    command.args(arguments).current_dir(project_root);
    let stdin = command_rule.stdin.then_some(source.content.as_bytes());
    let note = |text: String| format!("rule `{}` ({}): {text}", rule.id, rule.file);
    let output = match run_command(command, stdin, command_rule.timeout) {
        Ok(output) => output,
        Err(ProcessError::NotFound { .. }) => {
            return report.notes.push(note(format!(
                "`{program}` was not found on PATH; install it or set \"enabled\": false"
            )));
        }
        Err(error) => return report.notes.push(note(error.to_string())),
    };
    if output.timed_out {
        return report.notes.push(note(format!(
            "`{program}` took over {:.0} s and was stopped; {} not checked by it",
            command_rule.timeout.as_secs_f64(),
            source.display_path
        )));
    }
    if output.success() {
        return;
    }
    let text = format!("{}\n{}", output.stdout, output.stderr);
    let mut found = parse_tool_output(rule, source, &text);
    if found.is_empty() {
        found.push(whole_output_diagnostic(
            rule,
            source,
            program,
            output.code,
            &text,
        ));
    }
    report.diagnostics.extend(found);
}

/// The rule's argv with `{file}`, `{relative}` and `{root}` filled in.
fn fill_placeholders(
    argv: &[String],
    file: &Path,
    relative_path: &str,
    project_root: &Path,
) -> Vec<String> {
    argv.iter()
        .map(|arg| {
            arg.replace("{file}", &file.to_string_lossy())
                .replace("{relative}", relative_path)
                .replace("{root}", &project_root.to_string_lossy())
        })
        .collect()
}

/// `path:line:col: message` (or `path:line: message`) lines about this file.
fn parse_tool_output(rule: &Rule, source: &Source<'_>, text: &str) -> Vec<Diagnostic> {
    let file_name = source
        .path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut found = Vec::new();
    for line_text in text.lines() {
        let Some((path, line, column, message)) = split_location(line_text) else {
            continue;
        };
        let about_this_file = path.rsplit('/').next() == Some(file_name.as_str())
            || matches!(path, "-" | "<stdin>" | "stdin" | "/dev/stdin");
        if !about_this_file {
            continue;
        }
        found.push(Diagnostic {
            file: source.display_path.to_string(),
            line,
            column,
            severity: rule.severity,
            validator: rule.id.clone(),
            origin: Origin::CustomRule,
            message: message.to_string(),
            snippet: snippet_at(source.content, line, column),
            // Only a coded finding (`F821 undefined name 'x'`, `... [SC2164]`) names a subject
            // worth learning; free text from a tool is not a lesson.
            subject: has_checker_code(message)
                .then(|| quoted_token(message))
                .flatten(),
        });
        if found.len() >= MAX_PER_RULE {
            break;
        }
    }
    found
}

/// `path:12:5: message` → (path, 12, 5, message); `path:12: message` → column 1.
fn split_location(text: &str) -> Option<(&str, usize, usize, &str)> {
    let mut parts = text.splitn(4, ':');
    let path = parts.next()?.trim();
    let line: usize = parts.next()?.trim().parse().ok()?;
    let third = parts.next()?;
    let (column, message) = match third.trim().parse::<usize>() {
        Ok(column) => (column, parts.next().unwrap_or("")),
        Err(_) => (1, text.splitn(3, ':').nth(2).unwrap_or("")),
    };
    let message = message.trim();
    (!path.is_empty() && line > 0 && !message.is_empty()).then_some((
        path,
        line,
        column.max(1),
        message,
    ))
}

/// Whether a tool's message carries a rule code: `F401`, `E0602`, `SC2164`, `TS2304`, `W0611`
/// (one to four capitals, then digits), as a word of its own or in brackets.
fn has_checker_code(message: &str) -> bool {
    message
        .split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ':' | ','))
        .any(|word| {
            let letters = word.chars().take_while(char::is_ascii_uppercase).count();
            let digits = &word[letters..];
            (1..=4).contains(&letters)
                && !digits.is_empty()
                && digits.len() <= 5
                && digits.chars().all(|c| c.is_ascii_digit())
        })
}

/// The first `backquoted` or 'quoted' token of three or more characters: what a linter's message
/// is about (`undefined name 'DankeTheme'`).
fn quoted_token(message: &str) -> Option<String> {
    for quote in ['`', '\''] {
        let mut pieces = message.split(quote);
        pieces.next();
        if let Some(token) = pieces.next()
            && pieces.next().is_some()
            && token.chars().count() >= 3
            && !token.contains(char::is_whitespace)
        {
            return Some(token.to_string());
        }
    }
    None
}

fn whole_output_diagnostic(
    rule: &Rule,
    source: &Source<'_>,
    program: &str,
    code: Option<i32>,
    text: &str,
) -> Diagnostic {
    let excerpt: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .take(3)
        .collect();
    let status = code.map_or("was killed".to_string(), |code| {
        format!("exited with {code}")
    });
    let message = if excerpt.is_empty() {
        format!("`{program}` {status}")
    } else {
        format!("`{program}` {status}: {}", excerpt.join(" | "))
    };
    Diagnostic {
        file: source.display_path.to_string(),
        line: 1,
        column: 1,
        severity: rule.severity,
        validator: rule.id.clone(),
        origin: Origin::CustomRule,
        message,
        snippet: None,
        subject: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::rules::parse_file;

    fn rules(text: &str) -> Vec<Rule> {
        let set = parse_file("rules.json", text).unwrap();
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        set.rules
    }

    fn run(rules: &[Rule], root: &Path, relative: &str, content: &str) -> Report {
        let path = root.join(relative);
        let source = Source {
            path: &path,
            display_path: relative,
            content,
            language: None,
            added: &[],
        };
        let mut report = Report::default();
        CustomRunner::default().run(rules, &source, relative, root, &mut report);
        report
    }

    const THEME_RULE: &str = r#"{"rules":[{"id":"theme","scope":"*.swift","ignore":["DankeTheme.swift"],
        "reference":{"pattern":"\\bDankeTheme\\.([A-Za-z_]\\w*)","defined_in":"DankeTheme.swift",
        "definition":"(?:let|var|func)\\s+([A-Za-z_]\\w*)"}}]}"#;

    #[test]
    fn missing_reference_is_named_with_subject() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("DankeTheme.swift"),
            "enum DankeTheme {\n  static let textSecondary = Color.gray\n  static let textPrimary = Color.black\n}\n",
        )
        .unwrap();
        let content = "Text(a)\n  .foregroundColor(DankeTheme.textPrimary)\n  .background(DankeTheme.secondaryText)\n";
        let report = run(&rules(THEME_RULE), root.path(), "App/Home.swift", content);
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        let error = &report.diagnostics[0];
        assert_eq!((error.line, error.column), (3, 15));
        assert_eq!(error.subject.as_deref(), Some("DankeTheme.secondaryText"));
        assert_eq!(error.validator, "theme");
        assert!(
            error.message.contains("DankeTheme.secondaryText"),
            "{error:?}"
        );
        assert!(error.message.contains("DankeTheme.swift"), "{error:?}");
        assert!(error.is_error());
        assert!(
            run(&rules(THEME_RULE), root.path(), "App/Home.kt", content)
                .diagnostics
                .is_empty()
        );
    }

    #[test]
    fn a_reference_in_a_comment_or_string_is_no_reference() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("DankeTheme.swift"),
            "enum DankeTheme {\n  static let textSecondary = 1\n}\n",
        )
        .unwrap();
        let content = "// DankeTheme.secondaryText was renamed\nlet help = \"see DankeTheme.secondaryText\"\nlet c = DankeTheme.textSecondary\n";
        let report = run(&rules(THEME_RULE), root.path(), "App/Home.swift", content);
        assert!(report.diagnostics.is_empty(), "{report:?}");
    }

    #[test]
    fn missing_definitions_file_is_a_note() {
        let root = tempfile::tempdir().unwrap();
        let report = run(&rules(THEME_RULE), root.path(), "A.swift", "DankeTheme.x\n");
        assert!(report.diagnostics.is_empty());
        assert!(
            report.notes[0].contains("DankeTheme.swift not found"),
            "{report:?}"
        );
    }

    #[test]
    fn plain_occurrence_counts_without_definition_pattern() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("keys.txt"), "alpha beta\n").unwrap();
        let rule = rules(
            r#"{"rules":[{"id":"keys","scope":"*.py","reference":{"pattern":"KEY\\(\"(\\w+)\"\\)","defined_in":["keys.txt"]}}]}"#,
        );
        let report = run(
            &rule,
            root.path(),
            "a.py",
            "KEY(\"alpha\")\nKEY(\"gamma\")\n",
        );
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(
            report.diagnostics[0].subject.as_deref(),
            Some("KEY(\"gamma\")")
        );
    }

    #[test]
    fn command_output_lines_become_diagnostics() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.py"), "import os\n").unwrap();
        let rule = rules(
            r#"{"rules":[{"id":"lint","scope":"*.py","command":{"argv":["sh","-c","echo \"$1:1:8: F401 'os.path' imported but unused\"; echo \"other.py:3:1: E1 x\"; exit 1","sh","{file}"]}}]}"#,
        );
        let report = run(&rule, root.path(), "a.py", "import os\n");
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        let error = &report.diagnostics[0];
        assert_eq!((error.line, error.column), (1, 8));
        assert_eq!(error.validator, "lint");
        assert_eq!(error.subject.as_deref(), Some("os.path"));
        assert_eq!(error.snippet.as_deref(), Some("import os"));
    }

    #[test]
    fn only_coded_findings_have_a_subject() {
        assert!(has_checker_code("F401 'os' imported but unused"));
        assert!(has_checker_code("warning: Use 'cd ... || exit' [SC2164]"));
        assert!(has_checker_code(
            "E0602: Undefined variable 'x' (undefined-variable)"
        ));
        assert!(!has_checker_code("could not read 'config.yaml'"));
        assert!(!has_checker_code("HTTP 404 for 'url'"));
    }

    #[test]
    fn unparsed_failure_is_one_diagnostic_and_success_is_silent() {
        let root = tempfile::tempdir().unwrap();
        let failing = rules(
            r#"{"rules":[{"id":"t","scope":"*.py","command":{"argv":["sh","-c","echo broken >&2; exit 3"]}}]}"#,
        );
        let report = run(&failing, root.path(), "a.py", "");
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(report.diagnostics[0].message, "`sh` exited with 3: broken");
        let passing = rules(
            r#"{"rules":[{"id":"t","scope":"*.py","command":{"argv":["sh","-c","echo a.py:1:1: fine"]}}]}"#,
        );
        assert!(
            run(&passing, root.path(), "a.py", "")
                .diagnostics
                .is_empty()
        );
    }

    #[test]
    fn missing_tool_and_timeout_are_notes() {
        let root = tempfile::tempdir().unwrap();
        let missing = rules(
            r#"{"rules":[{"id":"ruff","scope":"*.py","command":{"argv":["car-no-such-ruff","check","{file}"]}}]}"#,
        );
        let report = run(&missing, root.path(), "a.py", "");
        assert!(report.diagnostics.is_empty());
        assert!(
            report.notes[0].contains("`car-no-such-ruff` was not found"),
            "{report:?}"
        );
        let slow = rules(
            r#"{"rules":[{"id":"slow","scope":"*.py","command":{"argv":["sleep","5"],"timeout_seconds":0.2}}]}"#,
        );
        let report = run(&slow, root.path(), "a.py", "");
        assert!(report.diagnostics.is_empty());
        assert!(report.notes[0].contains("was stopped"), "{report:?}");
    }

    #[test]
    fn disabled_rules_do_not_run() {
        let root = tempfile::tempdir().unwrap();
        let rule = rules(
            r#"{"rules":[{"id":"t","enabled":false,"scope":"*.py","command":{"argv":["false"]}}]}"#,
        );
        assert!(run(&rule, root.path(), "a.py", "").diagnostics.is_empty());
    }

    #[test]
    fn locations_parse() {
        assert_eq!(
            split_location("a.py:3:7: E1 bad"),
            Some(("a.py", 3, 7, "E1 bad"))
        );
        assert_eq!(
            split_location("a.sh:3: warning: x"),
            Some(("a.sh", 3, 1, "warning: x"))
        );
        assert_eq!(split_location("All checks passed!"), None);
        assert_eq!(
            quoted_token("undefined name 'DankeTheme'"),
            Some("DankeTheme".into())
        );
        assert_eq!(quoted_token("`os` imported but unused"), None);
    }
}
