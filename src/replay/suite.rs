//! The cases `car lessons test` and the config self-test run: replay scenarios (a project's
//! folder, car's own built-in suite) and per-lesson examples, run in parallel, reported one line
//! per failure in a stable order.
//!
//! Invariant: a file that cannot even be read or parsed is not skipped; it is a failing case
//! named after the file, so a broken scenario can never make a suite look greener.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::lessons::examples::ExampleCase;
use crate::project::Project;
use crate::replay::ReplayError;
use crate::replay::runner;
use crate::scenario::Scenario;

/// Prefix of the names of car's own scenarios.
pub(crate) const BUILTIN_PREFIX: &str = "car:";

/// One thing that passes or fails.
#[derive(Debug)]
pub enum Case {
    Scenario {
        scenario: Box<Scenario>,
        /// The real project, for scenarios that start from its lessons.
        origin: Option<Project>,
    },
    /// A scenario file that does not parse.
    Broken {
        name: String,
        error: String,
    },
    Example(ExampleCase),
}

impl Case {
    pub(crate) fn name(&self) -> String {
        match self {
            Case::Scenario { scenario, .. } => scenario.name.clone(),
            Case::Broken { name, .. } => name.clone(),
            Case::Example(example) => example.name(),
        }
    }

    /// `Ok` when it passes; otherwise one line saying where, what was expected, what happened.
    ///
    /// The `String` is deliberate, not an untyped error: a failing case is a report line that
    /// `car lessons test` and the config self-test print as they are (never matched on or
    /// handled); the typed causes (`ReplayError`, `StepError`, an example's failure) are
    /// rendered into it here, and [`run_all`] keeps it as is.
    pub(crate) fn run(&self) -> Result<(), String> {
        match self {
            Case::Scenario { scenario, origin } => {
                runner::run(scenario, origin.as_ref()).map_err(|failure| {
                    format!(
                        "{} {}: {}",
                        scenario.name,
                        failure.place,
                        failure.messages.join("; ")
                    )
                })
            }
            Case::Broken { error, .. } => Err(error.clone()),
            Case::Example(example) => example.run().map_err(|failure| failure.to_string()),
        }
    }
}

/// The scenario files of a folder: every `*.json` directly in it, by name.
pub(crate) fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, ReplayError> {
    let folder_error = |message: String| ReplayError::Folder {
        path: dir.display().to_string(),
        message,
    };
    let entries = std::fs::read_dir(dir).map_err(|error| folder_error(error.to_string()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|error| folder_error(error.to_string()))?
            .path();
        if path.is_file() && path.extension().is_some_and(|ext| ext == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The cases of a scenario folder; `display_root` shortens the names (`replay-tests/x.json`).
pub(crate) fn folder_cases(
    dir: &Path,
    display_root: &Path,
    origin: Option<&Project>,
) -> Result<Vec<Case>, ReplayError> {
    let mut cases = Vec::new();
    for path in scenario_files(dir)? {
        let name = path
            .strip_prefix(display_root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let case = match crate::files::read_optional(&path) {
            Ok(Some(text)) => scenario_case(&name, &text, origin),
            Ok(None) => continue,
            Err(error) => Case::Broken {
                error: format!("{name}: {error} (the scenario does not load)"),
                name,
            },
        };
        cases.push(case);
    }
    Ok(cases)
}

/// A scenario's text as a case (a failing one when it does not parse).
pub fn scenario_case(name: &str, text: &str, origin: Option<&Project>) -> Case {
    match Scenario::parse(name, text) {
        Ok(scenario) => Case::Scenario {
            scenario: Box::new(scenario),
            origin: origin.cloned(),
        },
        Err(error) => Case::Broken {
            name: name.to_string(),
            error: format!("{error} (the scenario does not load)"),
        },
    }
}

/// car's own scenarios, embedded in the binary.
pub(crate) fn builtin_cases() -> Vec<Case> {
    crate::replay::builtin::SCENARIOS
        .iter()
        .map(|(file, text)| scenario_case(&format!("{BUILTIN_PREFIX}{file}"), text, None))
        .collect()
}

/// What running a list of cases gave, in the cases' order.
#[derive(Debug, Default)]
pub struct Results {
    pub(crate) passed: usize,
    /// One line per failing case.
    pub failures: Vec<String>,
}

impl Results {
    /// `N passed, N failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failures.len())
    }
}

/// Runs the cases on all cores; `progress(done, total)` is called after each case.
pub fn run_all(cases: &[Case], progress: &(dyn Fn(usize, usize) + Sync)) -> Results {
    let outcomes: Mutex<Vec<Option<Result<(), String>>>> =
        Mutex::new((0..cases.len()).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(cases.len())
        .max(1);
    std::thread::scope(|threads| {
        for _ in 0..workers {
            threads.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(index) else { break };
                    let outcome = run_catching(case);
                    if let Ok(mut slots) = outcomes.lock() {
                        slots[index] = Some(outcome);
                    }
                    progress(done.fetch_add(1, Ordering::SeqCst) + 1, cases.len());
                }
            });
        }
    });
    let mut results = Results::default();
    let slots = outcomes
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner());
    for (case, slot) in cases.iter().zip(slots) {
        match slot {
            Some(Ok(())) => results.passed += 1,
            Some(Err(line)) => results.failures.push(line),
            None => results
                .failures
                .push(format!("{}: did not run", case.name())),
        }
    }
    results
}

/// A panic inside the engine fails the case instead of the whole run (its report line: see
/// [`Case::run`]).
fn run_catching(case: &Case) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case.run())).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        Err(format!("{}: internal error: {message}", case.name()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_and_failing_cases_are_counted_in_order() {
        let cases = vec![
            scenario_case(
                "ok.json",
                r#"{"steps": [{"expect": {"lesson_count": 0}}]}"#,
                None,
            ),
            scenario_case("broken.json", "{\"steps\": [", None),
            scenario_case(
                "fails.json",
                r#"{"steps": [{"expect": {"lesson_count": 2}}]}"#,
                None,
            ),
        ];
        let results = run_all(&cases, &|_, _| {});
        assert_eq!(results.summary(), "1 passed, 2 failed");
        assert!(
            results.failures[0].starts_with("broken.json:1:"),
            "{:?}",
            results.failures
        );
        assert!(results.failures[0].ends_with("(the scenario does not load)"));
        assert_eq!(
            results.failures[1],
            "fails.json step 1: expected 2 lessons, found 0"
        );
    }

    #[test]
    fn folders_list_json_files_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.json"), "{}").unwrap();
        std::fs::write(dir.path().join("a.json"), "{}").unwrap();
        std::fs::write(dir.path().join("README.md"), "").unwrap();
        let names: Vec<String> = folder_cases(dir.path(), dir.path(), None)
            .unwrap()
            .iter()
            .map(Case::name)
            .collect();
        assert_eq!(names, vec!["a.json", "b.json"]);
    }
}
