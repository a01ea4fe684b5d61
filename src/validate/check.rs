//! `car check [--json] [--no-learn] PATH...`: the hook's validators and lessons, for people, CI
//! and pre-commit. Every line of each file counts as added (so import checks and lesson triggers
//! see the whole file), and errors feed learning unless `--no-learn`.
//!
//! Output: `path:line:col: message [validator]` lines with the offending line, then a summary, on
//! stdout; notes (skipped files, missing tools) on stderr. `--json` prints one JSON array: the
//! diagnostics, followed by lesson warnings as entries with `"validator": "lesson"` and severity
//! `warning` (so a consumer filters one list). Exit 1 when any error, 0 otherwise, 2 when a path
//! does not exist or is a directory outside git (nothing is checked then). A directory inside git
//! is walked the way git lists it (see [`walk`]).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::app::Outcome;
use crate::cli::CheckArgs;
use crate::clock::Clock;
use crate::error::Error;
use crate::hook::{AddedLine, Edit};
use crate::lessons::{self, LessonScope, Warning};
use crate::output;
use crate::project::Project;
use crate::setup::settings::Settings;
use crate::validate::{Diagnostic, Source, Validators, walk};

/// One path from the command line, ready to check.
struct Target {
    /// As the user wrote it (used in output, so it is clickable from where they ran car).
    shown: String,
    absolute: PathBuf,
}

/// What checking all files produced.
#[derive(Default)]
struct Findings {
    diagnostics: Vec<Diagnostic>,
    warnings: Vec<Warning>,
    notes: Vec<String>,
    checked: usize,
}

pub fn run(working_dir: &Path, args: &CheckArgs) -> Result<Outcome, Error> {
    let project = Project::discover(working_dir);
    let settings = Settings::load(&project)?;
    let clock = Clock::from_env()?;
    let validators = Validators::load(&project, &settings);
    let targets = targets(working_dir, &args.paths, &validators)?;
    let scope = LessonScope {
        project: &project,
        settings: &settings,
        clock,
        learn: !args.no_learn && settings.learning_enabled,
    };
    let mut findings = Findings::default();
    for target in &targets {
        check_file(target, &validators, scope, &mut findings);
    }
    let mut seen = std::collections::HashSet::new();
    findings.notes.retain(|note| seen.insert(note.clone()));
    for note in &findings.notes {
        output::print_message(&format!("note: {note}"));
    }
    if args.json {
        output::print_json(&json_answer(&findings));
    } else {
        output::print_data(&human_answer(&findings));
    }
    Ok(if findings.diagnostics.iter().any(Diagnostic::is_error) {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

/// Resolves every path first, so a typo fails the run before anything is printed or learned. A
/// directory means the checkable files git shows in it ([`walk`]).
fn targets(
    working_dir: &Path,
    paths: &[PathBuf],
    validators: &Validators,
) -> Result<Vec<Target>, Error> {
    let mut targets = Vec::new();
    for path in paths {
        let joined = working_dir.join(path);
        let shown = path.to_string_lossy().into_owned();
        if joined.is_dir() {
            let files = walk::files_under(&joined, &shown, &|file| validators.wants(file))
                .map_err(Error::Usage)?;
            targets.extend(files.into_iter().map(|(shown, absolute)| Target {
                shown,
                absolute: absolute.canonicalize().unwrap_or(absolute),
            }));
            continue;
        }
        if !joined.exists() {
            return Err(Error::Usage(format!("{shown}: no such file or directory")));
        }
        let absolute = joined.canonicalize().unwrap_or(joined);
        targets.push(Target { shown, absolute });
    }
    // A file named twice (or inside a directory also given) is checked, and learned from, once.
    let mut seen = std::collections::HashSet::new();
    targets.retain(|target| seen.insert(target.absolute.clone()));
    Ok(targets)
}

fn check_file(
    target: &Target,
    validators: &Validators,
    scope: LessonScope<'_>,
    findings: &mut Findings,
) {
    let content = match crate::hook::edit::read_text(&target.absolute, &target.shown) {
        Ok(content) => content,
        Err(note) => return findings.notes.push(note),
    };
    let added = AddedLine::every_line(&content);
    let source = Source {
        path: &target.absolute,
        display_path: &target.shown,
        content: &content,
        language: None,
        added: &added,
    };
    let report = validators.check(&source);
    findings.checked += 1;
    findings.notes.extend(report.notes);
    run_lessons(target, content, added, &report.diagnostics, scope, findings);
    findings.diagnostics.extend(report.diagnostics);
}

/// Lesson warnings and learning for one checked file. They are about the project's files: a file
/// elsewhere is only validated.
fn run_lessons(
    target: &Target,
    content: String,
    added: Vec<AddedLine>,
    diagnostics: &[Diagnostic],
    scope: LessonScope<'_>,
    findings: &mut Findings,
) {
    let Some(relative_path) = scope.project.relative(&target.absolute) else {
        return;
    };
    // The lesson engine keys on project-relative paths, whatever path the user typed.
    let diagnostics: Vec<Diagnostic> = diagnostics
        .iter()
        .map(|diagnostic| Diagnostic {
            file: relative_path.clone(),
            ..diagnostic.clone()
        })
        .collect();
    let edit = Edit {
        path: target.absolute.clone(),
        relative_path,
        tool: "check".to_string(),
        content,
        before: None,
        added,
        language: None,
    };
    let lessons = lessons::on_edit(scope, &edit, &diagnostics);
    findings.notes.extend(lessons.notes);
    findings.notes.extend(lessons.refusals);
    findings
        .warnings
        .extend(lessons.warnings.into_iter().map(|warning| Warning {
            file: target.shown.clone(),
            ..warning
        }));
}

fn json_answer(findings: &Findings) -> Value {
    let mut entries: Vec<Value> = findings
        .diagnostics
        .iter()
        .map(|diagnostic| serde_json::to_value(diagnostic).unwrap_or(Value::Null))
        .collect();
    entries.extend(findings.warnings.iter().map(|warning| {
        json!({
            "file": warning.file,
            "line": warning.line,
            "column": 1,
            "severity": "warning",
            "validator": "lesson",
            "message": format!("lesson (weight {}): {}", warning.weight, warning.lesson),
            "lesson_id": warning.lesson_id,
            "trigger": warning.trigger,
            "weight": warning.weight,
        })
    }));
    Value::Array(entries)
}

fn human_answer(findings: &Findings) -> String {
    let mut text = String::new();
    for diagnostic in &findings.diagnostics {
        text.push_str(&diagnostic.render());
        text.push('\n');
    }
    for warning in &findings.warnings {
        text.push_str(&warning.render());
        text.push('\n');
    }
    let errors = findings
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .count();
    let warnings = findings.diagnostics.len() - errors + findings.warnings.len();
    text.push_str(&format!(
        "car check: {} in {}, {}",
        plural(errors, "error"),
        plural(findings.checked, "file"),
        plural(warnings, "warning")
    ));
    text
}

fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        format!("1 {word}")
    } else {
        format!("{count} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Severity;

    fn findings() -> Findings {
        Findings {
            diagnostics: vec![
                Diagnostic {
                    file: "a.py".into(),
                    line: 2,
                    column: 1,
                    severity: Severity::Error,
                    validator: "python".into(),
                    message: "ModuleNotFoundError: No module named 'requets'".into(),
                    snippet: Some("import requets".into()),
                    subject: Some("requets".into()),
                },
                Diagnostic {
                    file: "b.sh".into(),
                    line: 1,
                    column: 1,
                    severity: Severity::Warning,
                    validator: "shellcheck".into(),
                    message: "quote this".into(),
                    snippet: None,
                    subject: None,
                },
            ],
            warnings: vec![Warning {
                lesson_id: "L7".into(),
                weight: 3,
                lesson: "requests, not requets".into(),
                trigger: "requets".into(),
                file: "a.py".into(),
                line: 2,
            }],
            notes: Vec::new(),
            checked: 2,
        }
    }

    #[test]
    fn human_output_lists_diagnostics_warnings_and_a_summary() {
        assert_eq!(
            human_answer(&findings()),
            "a.py:2:1: ModuleNotFoundError: No module named 'requets' [python]\n    import requets\n\
             b.sh:1:1: quote this [shellcheck]\n\
             ⚠️ lesson (weight 3): requests, not requets (a.py:2, trigger `requets`)\n\
             car check: 1 error in 2 files, 2 warnings"
        );
    }

    #[test]
    fn json_output_is_one_array_with_lessons_last() {
        let answer = json_answer(&findings());
        assert_eq!(
            answer,
            json!([
                {"file": "a.py", "line": 2, "column": 1, "severity": "error", "validator": "python",
                 "message": "ModuleNotFoundError: No module named 'requets'",
                 "snippet": "import requets", "subject": "requets"},
                {"file": "b.sh", "line": 1, "column": 1, "severity": "warning",
                 "validator": "shellcheck", "message": "quote this"},
                {"file": "a.py", "line": 2, "column": 1, "severity": "warning", "validator": "lesson",
                 "message": "lesson (weight 3): requests, not requets", "lesson_id": "L7",
                 "trigger": "requets", "weight": 3}
            ])
        );
    }

    #[test]
    fn every_line_counts_as_added() {
        let added = AddedLine::every_line("a\n\nb");
        assert_eq!(added.len(), 3);
        assert_eq!((added[2].line, added[2].text.as_str()), (3, "b"));
    }
}
