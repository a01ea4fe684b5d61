use std::path::Path;

use super::*;
use crate::clock::{Clock, DAY};
use crate::diagnostic::Severity;
use crate::project::Project;
use crate::settings::Settings;

fn diagnostic(file: &str, line: usize, column: usize, message: &str) -> Diagnostic {
    Diagnostic {
        file: file.into(),
        line,
        column,
        severity: Severity::Error,
        validator: "python".into(),
        origin: crate::diagnostic::Origin::Interpreter,
        message: message.into(),
        snippet: None,
        subject: None,
    }
}

fn edit(root: &Path, relative: &str, content: &str, added: &[(usize, &str)]) -> Edit {
    crate::edit::test_edit(root, relative, "Write", content, None, added)
}

#[test]
fn only_a_specific_subject_teaches() {
    let mut missing = diagnostic("a.py", 1, 1, "No module named 'requestz'");
    assert_eq!(trigger_for(&missing), None, "no subject: a syntax slip");
    missing.subject = Some("requestz.api".into());
    assert_eq!(trigger_for(&missing), Some(Ok("requestz.api".to_string())));
    missing.subject = Some("items".into());
    assert!(matches!(
        trigger_for(&missing),
        Some(Err(precision::Refusal::Keyword(_)))
    ));
    let json_error = diagnostic(
        "c.json",
        2,
        10,
        "expected value at line 2 column 10: 'single'",
    );
    assert_eq!(trigger_for(&json_error), None);
}

#[test]
fn syntax_slips_make_no_signal() {
    let dir = tempfile::tempdir().unwrap();
    let slip = diagnostic("m.py", 1, 18, "SyntaxError: expected ':'");
    let written = edit(
        dir.path(),
        "m.py",
        "for item in items
",
        &[(1, "for item in items")],
    );
    assert_eq!(signals(&written, &[slip]).0, Vec::<Signal>::new());
}

#[test]
fn only_a_checker_of_the_projects_code_makes_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let written = edit(
        dir.path(),
        "a.py",
        "import requestz\n",
        &[(1, "import requestz")],
    );
    let error = |origin| Diagnostic {
        subject: Some("requestz".into()),
        origin,
        ..diagnostic("a.py", 1, 8, "No module named 'requestz'")
    };
    let teaching = signals(&written, &[error(crate::diagnostic::Origin::Interpreter)]).0;
    assert_eq!(teaching.len(), 1, "{teaching:?}");
    // The same error, made by car's own configuration check or read back from the session log,
    // whatever its validator is called.
    for origin in [
        crate::diagnostic::Origin::CarConfig,
        crate::diagnostic::Origin::Recorded,
    ] {
        assert_eq!(signals(&written, &[error(origin)]).0, Vec::<Signal>::new());
    }
}

#[test]
fn scopes_by_kind_of_file() {
    assert_eq!(scope_for("src/app.py"), "*.py");
    assert_eq!(scope_for("Makefile"), "Makefile");
    assert_eq!(scope_for(".env"), ".env");
}

#[test]
fn seen_twice_with_the_fix_known_becomes_a_lesson() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    let settings = Settings::default();
    let mut clock = Clock::fixed(1_780_000_000);
    let scope = |clock| LessonScope {
        user_layer: false,
        project: &project,
        settings: &settings,
        clock,
        record: true,
    };
    let error = Diagnostic {
        subject: Some("requestz".into()),
        ..diagnostic("a.py", 1, 8, "No module named 'requestz'")
    };
    let pool = || CandidateFile::load(&project.candidates_file()).unwrap();
    let learn = |clock, edit: &Edit, errors: &[Diagnostic]| {
        learn_from_edit(&scope(clock), edit, errors, false, &[]);
    };
    let first = edit(
        dir.path(),
        "a.py",
        "import requestz",
        &[(1, "import requestz")],
    );
    learn(clock, &first, std::slice::from_ref(&error));
    assert_eq!(pool().candidates.len(), 1);
    assert_eq!(pool().candidates[0].trigger, "requestz");

    // The same file edited again with the old error still there: not a second occurrence.
    let unrelated = edit(
        dir.path(),
        "a.py",
        "import requestz\nx = 1",
        &[(2, "x = 1")],
    );
    learn(clock, &unrelated, std::slice::from_ref(&error));
    assert_eq!(pool().candidates[0].hits(), 1);

    // Seen again elsewhere, before any fix: the candidate counts it and waits for a fix.
    clock = Clock::fixed(clock.now() + DAY);
    let second = edit(
        dir.path(),
        "b.py",
        "import requestz",
        &[(1, "import requestz")],
    );
    let error_b = Diagnostic {
        file: "b.py".into(),
        ..error.clone()
    };
    learn(clock, &second, &[error_b]);
    assert_eq!(pool().candidates[0].hits(), 2);
    assert!(!project.lessons_file().exists(), "no fix known yet");

    // The fix: the text changed and the error is gone. Now it is a lesson, saying what to write.
    let fixed = edit(
        dir.path(),
        "b.py",
        "import requests",
        &[(1, "import requests")],
    );
    learn(clock, &fixed, &[]);
    let lessons = LessonFile::load(&project.lessons_file()).unwrap();
    let lesson = lessons.lessons().next().unwrap();
    assert_eq!(lesson.weight, 2);
    assert_eq!(lesson.trigger_texts(), vec!["requestz".to_string()]);
    assert_eq!(lesson.error_subject.as_deref(), Some("requestz"));
    assert!(
        lesson.text.ends_with("Write `requests`, not `requestz`."),
        "{}",
        lesson.text
    );
    assert!(pool().candidates.is_empty());
}

#[test]
fn an_error_that_vanished_while_the_text_stayed_teaches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    let settings = Settings::default();
    let scope = LessonScope {
        user_layer: false,
        project: &project,
        settings: &settings,
        clock: Clock::fixed(1_780_000_000),
        record: true,
    };
    let error = Diagnostic {
        subject: Some("requestz".into()),
        ..diagnostic("a.py", 1, 8, "No module named 'requestz'")
    };
    let written = edit(
        dir.path(),
        "a.py",
        "import requestz",
        &[(1, "import requestz")],
    );
    learn_from_edit(&scope, &written, &[error], false, &[]);
    // The package got installed: the same text, no error.
    let again = edit(
        dir.path(),
        "a.py",
        "import requestz\nx = 1",
        &[(2, "x = 1")],
    );
    let taught = learn_from_edit(&scope, &again, &[], false, &[]);
    let pool = CandidateFile::load(&project.candidates_file()).unwrap();
    assert!(pool.candidates.is_empty(), "{:?}", pool.candidates);
    assert!(
        taught
            .refusals
            .iter()
            .any(|refused| refused.refusal.kind() == "still-written"
                && refused.subject == "requestz"),
        "{:?}",
        taught.refusals
    );
}

#[test]
fn a_sub_project_scopes_the_lesson() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("backend/app")).unwrap();
    std::fs::write(dir.path().join("backend/pyproject.toml"), "").unwrap();
    assert_eq!(
        promotion::subproject_of(dir.path(), "backend/app/x.py").as_deref(),
        Some("backend")
    );
    assert_eq!(promotion::subproject_of(dir.path(), "tools/y.py"), None);
    assert_eq!(promotion::subproject_of(dir.path(), "z.py"), None);
}

#[test]
fn a_change_after_the_fix_window_is_no_fix() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    let settings = Settings::default();
    let scope = |now| LessonScope {
        user_layer: false,
        project: &project,
        settings: &settings,
        clock: Clock::fixed(now),
        record: true,
    };
    let error = Diagnostic {
        subject: Some("requestz".into()),
        ..diagnostic("a.py", 1, 8, "No module named 'requestz'")
    };
    let written = edit(
        dir.path(),
        "a.py",
        "import requestz",
        &[(1, "import requestz")],
    );
    learn_from_edit(&scope(1_780_000_000), &written, &[error], false, &[]);
    let refactored = edit(
        dir.path(),
        "a.py",
        "import requests",
        &[(1, "import requests")],
    );
    let later = 1_780_000_000 + 31 * 60;
    learn_from_edit(&scope(later), &refactored, &[], false, &[]);
    let pool = CandidateFile::load(&project.candidates_file()).unwrap();
    assert!(pool.candidates.is_empty(), "{:?}", pool.candidates);
}

#[test]
fn only_a_checkers_candidate_is_promoted_here() {
    // A review candidate seen twice and refused stays in the pool; made a checker's lesson it
    // would wait for a checker to report its trigger, which none does.
    let evidence = json!([{"session": "s1", "file": "a.c", "line": 3, "bad": "k_old(&x)",
                           "fixed": "k_new(&x)", "at": 1}]);
    let candidate = |source: Source| {
        let mut extra = serde_json::Map::new();
        extra.insert(SOURCE_FIELD.into(), json!(source.as_str()));
        extra.insert(
            crate::lessons::provenance::EVIDENCE_FIELD.into(),
            evidence.clone(),
        );
        Candidate {
            scope: "*.c".into(),
            trigger: "k_old(&x".into(),
            lesson: "l".into(),
            hits: Some(2),
            last_hit: None,
            created: None,
            extra,
        }
    };
    assert!(is_ready(&candidate(Source::Validator)));
    assert!(!is_ready(&candidate(Source::Review)));
    assert!(!is_ready(&candidate(Source::Reversal)));
}
