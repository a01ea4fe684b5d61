//! The JSONTestSuite corpus (tests/corpora/json-test-suite): the JSON validator must accept every
//! `y_` case, reject every `n_` case and answer every `i_` case (either way) without crashing or
//! hanging. Checked over every file through the library, and over a sample through `car check`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use car::validate::json;
use serde_json::Value;

use crate::support::{TestProject, corpus_dir};

fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir("json-test-suite"))
        .expect("the corpus is in the repository")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn name_of(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_case_agrees() {
    let files = corpus_files();
    assert!(
        files.len() > 300,
        "corpus incomplete: {} files",
        files.len()
    );
    let mut disagreements = Vec::new();
    for path in &files {
        let name = name_of(path);
        let bytes = std::fs::read(path).unwrap();
        let started = Instant::now();
        let verdict = json::check_bytes(&bytes);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{name} took {:?}",
            started.elapsed()
        );
        let agrees = match &name[..2] {
            "y_" => verdict.is_ok(),
            "n_" => verdict.is_err(),
            _ => true,
        };
        if !agrees {
            disagreements.push(format!("{name}: {verdict:?}"));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn errors_carry_a_position() {
    for path in corpus_files() {
        if name_of(&path).starts_with("n_")
            && let Err(error) = json::check_bytes(&std::fs::read(&path).unwrap())
        {
            assert!(error.line >= 1 && error.column >= 1, "{path:?}: {error:?}");
            assert!(!error.message.is_empty());
        }
    }
}

/// Cases `car check` sees as text (binary and non-UTF-8 files are skipped with a note, as the hook
/// skips them): every 7th `y_`/`n_` case, the deep-nesting cases, and every `i_` case.
#[test]
fn sample_through_car_check() {
    let project = TestProject::new();
    let mut sample: Vec<(String, Option<bool>)> = Vec::new();
    for (index, path) in corpus_files().iter().enumerate() {
        let name = name_of(path);
        let bytes = std::fs::read(path).unwrap();
        let is_text = !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok();
        let interesting = name.contains("nested") || name.contains("100000");
        let is_either = name.starts_with("i_");
        if !is_text || !(index % 7 == 0 || interesting || is_either) {
            continue;
        }
        std::fs::write(project.path().join(&name), &bytes).unwrap();
        let expected = (!is_either).then(|| name.starts_with("y_"));
        sample.push((name.clone(), expected));
    }
    assert!(sample.len() > 40, "sample too small: {}", sample.len());
    for (name, expected) in &sample {
        let run = project.run(&["check", "--json", "--no-learn", name]);
        let answer: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|error| panic!("{name}: not JSON ({error}): {run:?}"));
        let diagnostics = answer.as_array().expect("an array of diagnostics");
        let Some(valid) = expected else {
            assert!(run.code == 0 || run.code == 1, "{name}: {run:?}");
            assert_eq!(run.code == 0, diagnostics.is_empty(), "{name}: {run:?}");
            continue;
        };
        if *valid {
            assert_eq!(run.code, 0, "{name}: {run:?}");
            assert!(diagnostics.is_empty(), "{name}: {answer}");
        } else {
            assert_eq!(run.code, 1, "{name}: {run:?}");
            assert_eq!(diagnostics[0]["validator"], "json", "{name}: {answer}");
            assert_eq!(diagnostics[0]["file"], name.as_str());
        }
    }
}
