//! Validators: is the file an edit left still well-formed? One file per checker; [`Validators`]
//! picks the checkers for a file by its language and runs them.
//!
//! Policy: the authoritative checker decides (the real Python interpreter, `bash -n`, serde_json,
//! libyaml);
//! tree-sitter is the fast in-process pass for everything else ([`grammar`]), judged by the real
//! tool where one is installed and trusted only as far as [`trust`] says. Custom validators are
//! data files. Every error is a [`Diagnostic`] naming
//! `file:line:col`, the validator and the message.

pub(crate) mod brackets;
pub(crate) mod custom;
pub(crate) mod dockerfile;
pub(crate) mod grammar;
pub(crate) mod imports;
pub mod json;
pub(crate) mod language;
pub(crate) mod languages;
pub(crate) mod prose;
pub(crate) mod python;
pub(crate) mod rewrite;
pub(crate) mod rules;
pub(crate) mod shell;
pub(crate) mod template;
pub(crate) mod tool_inventory;
pub(crate) mod tools;
pub(crate) mod treesitter;
pub(crate) mod trust;
pub(crate) mod walk;
pub(crate) mod yaml;

use std::path::{Path, PathBuf};

pub use crate::diagnostic::Diagnostic;
pub(crate) use crate::diagnostic::{Origin, Severity};
use crate::edit::AddedLine;
use crate::project::Project;
use crate::settings::Settings;
use crate::validate::language::Language;
use crate::validate::languages::spec::{Checker, TemplateErrors};

/// Whether checking `source` may need the file before the edit: only a grammar trusted just for
/// what an edit introduces compares with it. Callers look the before up (a `git show`, a few
/// milliseconds) only then.
pub(crate) fn needs_before(source: &Source<'_>) -> bool {
    Language::detect(source.path, source.content, source.language)
        .is_some_and(|language| trust::trust(language, source.content) == trust::Trust::Introduced)
}

/// Whether `diagnostic`, found in `source`, is an error car is certain of without the edit to
/// compare with: a checker of the content alone ([`Origin::judges_content`]), or a grammar trusted
/// to block ([`trust::Trust::Blocks`]). Only such an error may stop a write before it lands.
pub(crate) fn is_certain(diagnostic: &Diagnostic, source: &Source<'_>) -> bool {
    diagnostic.is_error()
        && match diagnostic.origin {
            Origin::TreeSitter => Language::detect(source.path, source.content, source.language)
                .is_some_and(|language| {
                    trust::trust(language, source.content) == trust::Trust::Blocks
                }),
            origin => origin.judges_content(),
        }
}

/// A grammar's finding car tells rather than blocks on, in a file nothing came before (a new
/// file): the grammar is trusted only for what an edit introduced, and the bracket balance did not
/// agree. With why it did not block, in words for the agent.
pub(crate) fn told_not_blocked(diagnostic: &Diagnostic, source: &Source<'_>) -> Option<String> {
    if diagnostic.origin != Origin::TreeSitter || diagnostic.is_error() {
        return None;
    }
    let language = Language::detect(source.path, source.content, source.language)?;
    if trust::trust(language, source.content) != trust::Trust::Introduced {
        return None;
    }
    let brackets = match brackets::balance(source.content, language) {
        brackets::Balance::Balanced => "the file's brackets balance",
        _ => "car cannot count the file's brackets for certain",
    };
    Some(format!(
        "car's {} grammar misreads some valid code, and {brackets}",
        language.name()
    ))
}

/// What a validator gets to look at.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a Path,
    /// Project-relative path, used in diagnostics.
    pub display_path: &'a str,
    pub content: &'a str,
    /// Overrides the language the file name implies (a notebook cell's language).
    pub language: Option<&'a str>,
    /// What the edit added (import checks look only at added imports); empty for `car check`.
    pub added: &'a [AddedLine],
}

impl<'a> Source<'a> {
    /// What a validator looks at for `edit`: its file as the edit left it, with the lines it added.
    pub(crate) fn of_edit(edit: &'a crate::edit::Edit) -> Source<'a> {
        Source {
            path: &edit.path,
            display_path: &edit.relative_path,
            content: &edit.content,
            language: edit.language.as_deref(),
            added: &edit.added,
        }
    }
}

impl Source<'_> {
    /// Whether the added lines are the whole file, in order (a new file, a notebook cell,
    /// `car check`).
    pub(crate) fn added_everything(&self) -> bool {
        !self.added.is_empty()
            && self.added.len() >= self.content.lines().count()
            && self
                .added
                .iter()
                .enumerate()
                .all(|(index, added)| added.line == index + 1)
    }
}

/// The findings of all validators on one file.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// Things the user should know that are not errors ("no Python interpreter; used tree-sitter").
    pub(crate) notes: Vec<String>,
    /// The verdict looked beyond the content and the programs that checked it: an import was
    /// resolved (what is installed, the project's other files), or a project file's setting was
    /// read (a crate's edition, the Python a project requires). Such a verdict holds for the
    /// moment it was made only, and is never reused for the same content later.
    pub(crate) read_other_files: bool,
}

/// The validators for one project, loaded once per process.
pub struct Validators {
    project_root: std::path::PathBuf,
    /// Python checking: the interpreter and environments, found on first use.
    python: python::PythonProjects,
    /// The imports JavaScript, TypeScript, Go and Rust edits add: what the project files say,
    /// read on first use.
    imports: imports::Imports,
    rules: Vec<rules::Rule>,
    /// Broken rule files and rules, reported with every file checked.
    rule_errors: Vec<rules::RuleError>,
    custom: custom::CustomRunner,
    /// The real tools that judge what a grammar flags, each looked up on first use.
    tools: tools::Tools,
}

impl Validators {
    /// Cheap: reads the rule files (a folder listing and a few small JSON files); nothing is run
    /// or resolved until a file needs it.
    pub fn load(project: &Project, settings: &Settings) -> Validators {
        let rule_set = rules::load(project.root());
        Validators {
            project_root: project.checkout().to_path_buf(),
            python: python::PythonProjects::new(
                project.checkout(),
                settings.python_interpreter.clone(),
            ),
            imports: imports::Imports::new(project.checkout()),
            rules: rule_set.rules,
            rule_errors: rule_set.errors,
            custom: custom::CustomRunner::default(),
            tools: tools::Tools::default(),
        }
    }

    /// Drops the command rules the project's own validator files define; how many enabled ones it
    /// dropped. For `car check` on code car should not trust to choose what runs (a pull request
    /// can add a rule file).
    pub(crate) fn skip_project_commands(&mut self) -> usize {
        let before = self.rules.iter().filter(|rule| rule.enabled).count();
        self.rules.retain(|rule| {
            !(matches!(rule.kind, rules::RuleKind::Command(_))
                && rule.file.starts_with(rules::PROJECT_RULES_DIR))
        });
        before - self.rules.iter().filter(|rule| rule.enabled).count()
    }

    /// Broken rule files and rules, as one line each (naming the file and the rule id).
    pub(crate) fn rule_notes(&self) -> Vec<String> {
        self.rule_errors
            .iter()
            .map(|error| format!("custom validator not loaded: {error}"))
            .collect()
    }

    /// Runs every validator that applies to the source: the syntax check of its language, then
    /// the custom rules whose scope matches (only on a file that parses: a broken file would
    /// mostly make linters repeat the syntax error). `before` is the file before the edit, when
    /// known: what "introduced by this edit" is measured against (`None`: a new file, `car check`).
    pub fn check(&self, source: &Source<'_>, before: Option<&str>) -> Report {
        let mut report = self.check_content(source, before);
        self.check_around(source, &mut report);
        report
    }

    /// The first half of [`Validators::check`]: the checks of the file's language (its syntax,
    /// and the imports the edit added), with templates' syntax errors dropped. A verdict on the
    /// content that did not [read other files](Report::read_other_files) depends only on the
    /// content, the edit's added lines and `before`, and the [programs](Validators::checker_programs)
    /// that checked it.
    pub(crate) fn check_content(&self, source: &Source<'_>, before: Option<&str>) -> Report {
        let mut report = Report::default();
        if let Some(language) = Language::detect(source.path, source.content, source.language) {
            self.check_syntax(source, before, language, &mut report);
            drop_template_errors(&self.relative_path(source), source, language, &mut report);
        }
        report
    }

    /// The second half of [`Validators::check`], on the verdict of the first: an edited rule
    /// file's own check, and the custom rules (only on a file without errors), which read other
    /// files and run project commands, so they always run.
    pub(crate) fn check_around(&self, source: &Source<'_>, report: &mut Report) {
        let relative_path = self.relative_path(source);
        if is_rule_file(&relative_path) {
            report.diagnostics.extend(check_rule_file(source));
        }
        if !report.diagnostics.iter().any(Diagnostic::is_error) {
            self.custom.run(
                &self.rules,
                source,
                &relative_path,
                &self.project_root,
                report,
            );
        }
        report.notes.extend(self.rule_notes());
    }

    /// The programs that check `source`'s content (the project's Python, `bash`, the language's
    /// real tool), as found now, each with why it is missing when it is: a verdict made with other
    /// programs is another verdict. Nothing is run; the Python is resolved as its check would.
    pub(crate) fn checker_programs(&self, source: &Source<'_>) -> Vec<Result<PathBuf, String>> {
        let Some(language) = Language::detect(source.path, source.content, source.language) else {
            return Vec::new();
        };
        match language.spec().checker {
            Checker::Python => vec![self.python.program(source.path)],
            Checker::Shell => vec![shell::program().ok_or_else(|| "no bash".to_string())],
            _ => self
                .tools
                .programs(language)
                .into_iter()
                .map(|(name, found)| found.ok_or_else(|| format!("no {name}")))
                .collect(),
        }
    }

    /// Whether a file's name alone says there is something to check: a language car validates
    /// or an enabled custom rule's scope (what a directory walk keeps).
    pub(crate) fn wants(&self, path: &Path) -> bool {
        if walk::has_known_language(path) {
            return true;
        }
        let relative = self.relative_to_root(path, "");
        self.rules
            .iter()
            .any(|rule| rule.enabled && rule.applies_to(&relative))
    }

    /// The project-relative path rule scopes match against.
    fn relative_path(&self, source: &Source<'_>) -> String {
        self.relative_to_root(source.path, source.display_path)
    }

    fn relative_to_root(&self, path: &Path, otherwise: &str) -> String {
        match path.strip_prefix(&self.project_root) {
            Ok(relative) => relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => otherwise.to_string(),
        }
    }

    fn check_syntax(
        &self,
        source: &Source<'_>,
        before: Option<&str>,
        language: Language,
        report: &mut Report,
    ) {
        match language.spec().checker {
            Checker::Json { comments } => report.diagnostics.extend(json::check(
                source.display_path,
                source.content,
                comments,
            )),
            Checker::JsonLines => report
                .diagnostics
                .extend(json::check_lines(source.display_path, source.content)),
            Checker::Shell => shell::check(source.display_path, source.content, report),
            Checker::Dockerfile => report
                .diagnostics
                .extend(dockerfile::check(source.display_path, source.content)),
            Checker::Yaml => yaml::check(source.display_path, source.content, report),
            Checker::Python => self.python.check(source, report),
            Checker::Grammar => {
                let tree = grammar::check(&self.tools, source, before, language, report);
                if language.spec().imports.is_some() {
                    self.imports.check(source, language, tree.as_ref(), report);
                }
            }
        }
    }
}

/// A template's syntax errors are the template's, not the file's ([`template`]): dropped, with a
/// note saying why, unless the language has a rule of its own (its spec's `template_errors`).
fn drop_template_errors(
    relative_path: &str,
    source: &Source<'_>,
    language: Language,
    report: &mut Report,
) {
    if language.spec().template_errors == TemplateErrors::OwnRule
        || !report.diagnostics.iter().any(Diagnostic::is_error)
    {
        return;
    }
    let error_lines: Vec<usize> = report
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .map(|diagnostic| diagnostic.line)
        .collect();
    let Some(reason) = template::template_reason(relative_path, source.content, &error_lines)
    else {
        return;
    };
    report
        .diagnostics
        .retain(|diagnostic| !diagnostic.is_error());
    report.notes.push(format!(
        "{}: its {} syntax errors are not reported: {reason}, so it is not {} until rendered",
        source.display_path,
        language.name(),
        language.name()
    ));
}

/// Line `line` (1-based) of `content`, trimmed and shortened, for showing next to an error.
pub(crate) fn snippet_of_line(content: &str, line: usize) -> Option<String> {
    snippet_at(content, line, 1)
}

/// Like [`snippet_of_line`], but a long line (minified JSON or JavaScript) is shown around
/// `column` (1-based, in characters) rather than from its start.
pub(crate) fn snippet_at(content: &str, line: usize, column: usize) -> Option<String> {
    const LIMIT: usize = 160;
    let text = content.split('\n').nth(line.checked_sub(1)?)?;
    let length = text.chars().count();
    if length <= LIMIT || column <= LIMIT / 2 {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        if text.chars().count() <= LIMIT {
            return Some(text.to_string());
        }
        let cut: String = text.chars().take(LIMIT).collect();
        return Some(format!("{cut}…"));
    }
    let start = column
        .saturating_sub(LIMIT / 3)
        .min(length.saturating_sub(LIMIT));
    let window: String = text.chars().skip(start).take(LIMIT).collect();
    let tail = if start + LIMIT < length { "…" } else { "" };
    Some(format!("…{}{tail}", window.trim()))
}

fn is_rule_file(relative_path: &str) -> bool {
    relative_path
        .strip_prefix(rules::PROJECT_RULES_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/') && name.ends_with(".json"))
}

/// An edited rule file is checked as a rule file, so the agent hears about a bad regex now, not
/// as a note on some later edit.
fn check_rule_file(source: &Source<'_>) -> Vec<Diagnostic> {
    let errors = match rules::parse_file(source.display_path, source.content) {
        Ok(set) => set.errors,
        Err(error) if error.line > 0 && json::parse(source.content).is_err() => return Vec::new(),
        Err(error) => vec![error],
    };
    errors
        .into_iter()
        .map(|error| {
            let line = error.line.max(1);
            Diagnostic {
                file: source.display_path.to_string(),
                line,
                column: error.column.max(1),
                severity: Severity::Error,
                validator: "car-validators".to_string(),
                origin: Origin::CarConfig,
                message: match &error.rule {
                    Some(id) => format!("rule `{id}`: {}", error.message),
                    None => error.message.clone(),
                },
                snippet: snippet_of_line(source.content, line),
                subject: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_in(root: &Path, relative: &str, content: &str, language: Option<&str>) -> Report {
        let validators = Validators::load(&Project::at(root), &Settings::default());
        let path = root.join(relative);
        validators.check(
            &Source {
                path: &path,
                display_path: relative,
                content,
                language,
                added: &[],
            },
            None,
        )
    }

    fn check(relative: &str, content: &str, language: Option<&str>) -> Report {
        let root = tempfile::tempdir().unwrap();
        check_in(root.path(), relative, content, language)
    }

    #[test]
    fn picks_the_checker_by_language() {
        assert_eq!(
            check("a.json", "{,}", None).diagnostics[0].validator,
            "json"
        );
        assert!(
            check("tsconfig.json", "{/* c */}", None)
                .diagnostics
                .is_empty()
        );
        assert_eq!(
            check("x.ts", "let = ;", None).diagnostics[0].validator,
            "tree-sitter-typescript"
        );
        assert!(check("README.md", "((", None).diagnostics.is_empty());
    }

    #[test]
    fn cell_language_overrides_the_file_name() {
        let report = check("n.ipynb", "x = (", Some("python"));
        assert_eq!(report.diagnostics[0].validator, "python");
        assert!(
            check("n.ipynb", "x = (", Some("markdown"))
                .diagnostics
                .is_empty()
        );
        assert!(check("n.ipynb", "x = (", Some("R")).diagnostics.is_empty());
    }

    #[test]
    fn yaml_templates_are_not_reported() {
        let helm =
            "spec:\n  {{- if .Values.enabled }}\n  replicas: {{ .Values.n }}\n  {{- end }}\n";
        let report = check("templates/deploy.yaml", helm, None);
        assert!(report.diagnostics.is_empty(), "{report:?}");
        assert!(report.notes[0].contains("template"), "{report:?}");
        assert!(!check("a.yaml", "a: [1\n", None).diagnostics.is_empty());
        let workflow = "on: push\njobs:\n  t:\n    runs-on: ${{ matrix.os }}\n    steps: [\n";
        let report = check(".github/workflows/ci.yml", workflow, None);
        assert!(!report.diagnostics.is_empty(), "{report:?}");
    }

    #[test]
    fn custom_rules_wait_for_a_file_that_parses() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(rules::PROJECT_RULES_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("r.json"),
            r#"{"rules":[{"id":"no-x","scope":"*.py","command":{"argv":["sh","-c","echo a.py:1:1: custom; exit 1"]}}]}"#,
        )
        .unwrap();
        let report = check_in(root.path(), "a.py", "x = 1\n", None);
        assert_eq!(report.diagnostics[0].validator, "no-x", "{report:?}");
        let report = check_in(root.path(), "a.py", "x = (\n", None);
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        assert_eq!(report.diagnostics[0].validator, "python");
    }

    #[cfg(feature = "extra-grammars")]
    #[test]
    fn misreading_grammars_block_only_what_the_edit_introduced() {
        let root = tempfile::tempdir().unwrap();
        let validators = Validators::load(&Project::at(root.path()), &Settings::default());
        let path = root.path().join("a.c");
        let before = "LIST_HEAD(listhead, entry) head;\nint f(void) {\n  return 1;\n}\n";
        let content = "LIST_HEAD(listhead, entry) head;\nint f(void) {\n  return 1\n}\n";
        let line = |line: usize| AddedLine {
            line,
            text: content.lines().nth(line - 1).unwrap().to_string(),
        };
        let run = |added: &[AddedLine], before: Option<&str>| {
            let report = validators.check(
                &Source {
                    path: &path,
                    display_path: "a.c",
                    content,
                    language: None,
                    added,
                },
                before,
            );
            report
                .diagnostics
                .iter()
                .map(|d| (d.line, d.severity))
                .collect::<Vec<_>>()
        };
        let edit = run(&[line(3)], Some(before));
        assert!(edit.contains(&(3, Severity::Error)), "{edit:?}");
        assert!(
            edit.iter().all(|(l, s)| *l == 3 || *s == Severity::Warning),
            "{edit:?}"
        );
        // The macro line re-added by the edit was misread before too: not the edit's fault.
        let macro_line = run(&[line(1), line(3)], Some(before));
        assert!(
            macro_line.contains(&(1, Severity::Warning)),
            "{macro_line:?}"
        );
        // No before (a new file, `car check`): nothing is known to be introduced.
        let whole: Vec<AddedLine> = (1..=4).map(line).collect();
        for (added, before) in [
            (&whole[..], None),
            (&whole[..], Some(before)),
            (&whole[2..3], None),
        ] {
            let all = run(added, before);
            assert!(
                !all.is_empty() && all.iter().all(|(_, s)| *s == Severity::Warning),
                "{all:?}"
            );
        }
    }

    #[test]
    fn snippets_are_trimmed_and_bounded() {
        assert_eq!(snippet_of_line("a\n   b c  \n", 2).as_deref(), Some("b c"));
        assert_eq!(snippet_of_line("a\n", 5), None);
        assert_eq!(snippet_of_line("a\n", 0), None);
        let long = "x".repeat(500);
        assert_eq!(snippet_of_line(&long, 1).unwrap().chars().count(), 161);
        let minified = format!("{}ERROR{}", "a".repeat(1000), "b".repeat(1000));
        let around = snippet_at(&minified, 1, 1001).unwrap();
        assert!(around.starts_with('…') && around.ends_with('…'), "{around}");
        assert!(around.contains("aERRORb"), "{around}");
        assert_eq!(around.chars().count(), 162);
        let at_end = snippet_at(&minified, 1, 2005).unwrap();
        assert!(
            at_end.ends_with("bbb") && at_end.starts_with('…'),
            "{at_end}"
        );
    }

    #[test]
    fn rule_file_paths() {
        assert!(is_rule_file(".claude/claude-auto-review/validators/a.json"));
        assert!(!is_rule_file(
            ".claude/claude-auto-review/validators/sub/a.json"
        ));
        assert!(!is_rule_file("validators/a.json"));
    }
}
