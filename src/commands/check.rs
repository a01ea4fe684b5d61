//! `car check [--format text|json|sarif] [--no-learn] PATH...`: the hook's validators and
//! lessons, for people, CI and pre-commit. Every line of each file counts as added (so import
//! checks and lesson triggers see the whole file). Read-only: it never learns, never counts a hit
//! and creates no state (no state folder, no lessons index), in git or not; `--no-learn` is
//! accepted and changes nothing.
//!
//! Output: `path:line:col: message [validator]` lines with the offending line, then a summary, on
//! stdout; notes (skipped files, missing tools) on stderr. `--format sarif` prints a SARIF 2.1.0
//! log for code scanning ([`crate::commands::check_sarif`]). `--format json` (or `--json`) prints
//! one JSON array: the
//! diagnostics, followed by lesson warnings as entries with `"validator": "lesson"` and severity
//! `warning` (so a consumer filters one list). Exit 1 when any error, 0 otherwise, 2 when a path
//! does not exist or is a directory outside git (nothing is checked then). A directory inside git
//! is walked the way git lists it (see [`walk`]).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::cli::{CheckArgs, CheckFormat};
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::edit::{AddedLine, Edit, NotChecked};
use crate::error::Error;
use crate::lesson_warning::Warning;
use crate::output;
use crate::pipeline::{Checker, LessonUse};
use crate::project::Project;
use crate::settings::Settings;
use crate::text::plural;
use crate::validate::{Diagnostic, Validators, walk};

/// One path from the command line, ready to check.
struct Target {
    /// As the user wrote it (used in output, so it is clickable from where they ran car).
    shown: String,
    /// As named (links not followed), to tell a link leading out of the project.
    named: PathBuf,
    absolute: PathBuf,
}

/// What checking all files produced.
#[derive(Default)]
struct Findings {
    diagnostics: Vec<Diagnostic>,
    warnings: Vec<Warning>,
    notes: Vec<String>,
    checked: usize,
    /// Each file as shown → its path relative to the project (for SARIF).
    uris: std::collections::HashMap<String, String>,
}

/// Whether car runs in CI: the `CI` variable every common CI service sets (GitHub Actions, GitLab,
/// CircleCI, Travis, Buildkite, Azure Pipelines, Bitbucket), not empty and not `false`.
fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

pub(crate) fn run(working_dir: &Path, args: &CheckArgs) -> Result<Outcome, Error> {
    let project = Project::discover(working_dir);
    let settings = Settings::load(&project)?;
    let clock = Clock::from_env()?;
    // Read-only, `--no-learn` or not: learning and hits come from the agent's edits only.
    let lessons = LessonUse {
        record: false,
        user_layer: true,
    };
    let mut checker = Checker::new(&project, &settings, clock, lessons);
    let mut findings = Findings::default();
    if args.no_project_commands || (is_ci() && !args.trust_project_commands) {
        let skipped = checker.skip_project_commands();
        if skipped > 0 {
            findings.notes.push(format!(
                "skipped {} the project's validator files define (in CI a pull request could add \
                 one; `--trust-project-commands` runs them)",
                crate::text::plural(skipped, "command rule")
            ));
        }
    }
    let targets = targets(working_dir, &args.paths, checker.validators())?;
    for target in &targets {
        check_file(target, &project, &checker, &mut findings);
    }
    let mut seen = std::collections::HashSet::new();
    findings.notes.retain(|note| seen.insert(note.clone()));
    for note in &findings.notes {
        output::print_message(&format!("note: {note}"));
    }
    let format = if args.json {
        CheckFormat::Json
    } else {
        args.format
    };
    match format {
        CheckFormat::Text => output::print_data(&human_answer(&findings)),
        CheckFormat::Json => output::print_json(&json_answer(&findings)),
        CheckFormat::Sarif => output::print_json(&crate::commands::check_sarif::log(
            &findings.diagnostics,
            &findings.warnings,
            &findings.uris,
        )),
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
            targets.extend(files.into_iter().map(|(shown, named)| Target {
                shown,
                absolute: named.canonicalize().unwrap_or_else(|_| named.clone()),
                named,
            }));
            continue;
        }
        if !joined.exists() {
            return Err(Error::Usage(format!("{shown}: no such file or directory")));
        }
        let absolute = joined.canonicalize().unwrap_or_else(|_| joined.clone());
        targets.push(Target {
            shown,
            named: joined,
            absolute,
        });
    }
    // A file named twice (or inside a directory also given) is checked, and learned from, once.
    let mut seen = std::collections::HashSet::new();
    targets.retain(|target| seen.insert(target.absolute.clone()));
    Ok(targets)
}

/// A grammar car trusts only for what a change introduced (Swift, Kotlin, C, C++, CSS) gives
/// warnings on a file checked whole, while the hook blocks what an edit introduced. So that both
/// trust the grammar alike (issue 40, item 2), a tracked file that differs from its committed
/// version is also judged as a change of it: a grammar error the change since HEAD introduced is
/// an error here too, as the hook would have said when the change was made. One `git show`, only
/// for a file with such a warning.
fn judge_as_a_change_of_head(
    edit: &Edit,
    project: &Project,
    checker: &Checker<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let grammar_warns = diagnostics
        .iter()
        .any(|found| !found.is_error() && found.origin == crate::diagnostic::Origin::TreeSitter);
    if !grammar_warns {
        return;
    }
    let Some(head) = project
        .head_version(&edit.relative_path)
        .filter(|head| *head != edit.content)
    else {
        return;
    };
    let change = Edit {
        added: crate::edit::diff_added(&head, &edit.content),
        before: Some(head),
        ..edit.clone()
    };
    let introduced: Vec<Diagnostic> = checker
        .check(&change)
        .diagnostics
        .into_iter()
        .filter(|found| found.is_error() && found.origin == crate::diagnostic::Origin::TreeSitter)
        .collect();
    for error in introduced {
        let same = |found: &Diagnostic| {
            (found.line, found.column, &found.message) == (error.line, error.column, &error.message)
        };
        match diagnostics.iter_mut().find(|found| same(found)) {
            Some(warning) => warning.severity = error.severity,
            None => diagnostics.push(error),
        }
    }
}

/// Checks one file as an edit that added every line. A file inside the project is checked under
/// its project-relative path (what lesson scopes and learning key on); a file elsewhere is only
/// validated (the pipeline's rule); a file of the project that resolves outside it (a link) is
/// never read. What is shown uses the path as the user typed it.
fn check_file(target: &Target, project: &Project, checker: &Checker<'_>, findings: &mut Findings) {
    if project.is_named_inside(&target.named) && project.relative(&target.absolute).is_none() {
        let not_read = NotChecked::LinkOutside {
            path: target.shown.clone().into(),
        };
        return findings.notes.push(not_read.to_string());
    }
    let content = match crate::edit::read_text(&target.absolute, &target.shown) {
        Ok(content) => content,
        Err(not_checked) => return findings.notes.push(not_checked.to_string()),
    };
    let edit = Edit {
        path: target.absolute.clone(),
        relative_path: project
            .relative(&target.absolute)
            .unwrap_or_else(|| target.shown.clone()),
        tool: "check".to_string(),
        added: AddedLine::every_line(&content),
        content,
        before: None,
        language: None,
    };
    let mut report = checker.check(&edit);
    judge_as_a_change_of_head(&edit, project, checker, &mut report.diagnostics);
    findings.checked += 1;
    findings
        .uris
        .insert(target.shown.clone(), edit.relative_path.clone());
    findings.notes.extend(report.notes);
    findings.notes.extend(report.lesson_notes);
    let shown = |file: String| {
        if file == edit.relative_path {
            target.shown.clone()
        } else {
            file
        }
    };
    findings
        .diagnostics
        .extend(report.diagnostics.into_iter().map(|diagnostic| Diagnostic {
            file: shown(diagnostic.file.clone()),
            ..diagnostic
        }));
    findings
        .warnings
        .extend(report.warnings.into_iter().map(|warning| Warning {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn findings() -> Findings {
        Findings {
            diagnostics: vec![
                Diagnostic {
                    file: "a.py".into(),
                    line: 2,
                    column: 1,
                    severity: Severity::Error,
                    validator: "python".into(),
                    origin: crate::diagnostic::Origin::Interpreter,
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
                    origin: crate::diagnostic::Origin::CustomRule,
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
                origin: None,
            }],
            notes: Vec::new(),
            checked: 2,
            uris: Default::default(),
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
