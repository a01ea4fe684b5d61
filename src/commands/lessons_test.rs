//! `car lessons test [DIR]`: the project's scenarios (`replay-tests/`, or DIR), car's own
//! embedded suite and every lesson's examples. Prints one line per failing case on stdout, then
//! exactly `N passed, N failed`; exit 1 on any failure. Progress goes to stderr, and only when
//! the run takes longer than a second.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::replay::suite::{self, Case};
use crate::replay::{ReplayError, examples};

/// Quiet this long; then a progress line at most this often.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

pub(crate) fn run(project: &Project, dir: Option<&Path>) -> Result<Outcome, Error> {
    let cases = collect(project, dir)?;
    let started = Instant::now();
    let last_report: Mutex<Option<Instant>> = Mutex::new(None);
    let progress = |done: usize, total: usize| {
        let now = Instant::now();
        if now.duration_since(started) < PROGRESS_AFTER || done == total {
            return;
        }
        if let Ok(mut last) = last_report.lock()
            && last.is_none_or(|at| now.duration_since(at) >= PROGRESS_AFTER)
        {
            *last = Some(now);
            output::print_message(&format!("car: lessons test: {done}/{total} cases…"));
        }
    };
    let results = suite::run_all(&cases, &progress);
    let mut text = String::new();
    for failure in &results.failures {
        text.push_str("FAIL ");
        text.push_str(failure);
        text.push('\n');
    }
    text.push_str(&results.summary());
    output::print_data(&text);
    Ok(if results.failures.is_empty() {
        Outcome::Success
    } else {
        Outcome::ProblemsFound
    })
}

/// Every case, in the order they are reported: the project's (or DIR's) scenarios, car's own
/// (scenarios and the starter lessons' examples), then the project's lessons' examples.
fn collect(project: &Project, dir: Option<&Path>) -> Result<Vec<Case>, Error> {
    let mut cases = match dir {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(ReplayError::Folder {
                    path: dir.display().to_string(),
                    message: "not a folder of replay scenarios".into(),
                }
                .into());
            }
            let display_root = std::env::current_dir().unwrap_or_default();
            suite::folder_cases(dir, &display_root, Some(project))?
        }
        None => {
            let folder = project.replay_dir();
            if folder.is_dir() {
                suite::folder_cases(&folder, project.root(), Some(project))?
            } else {
                Vec::new()
            }
        }
    };
    cases.extend(suite::builtin_cases());
    cases.extend(examples::starter_cases());
    cases.extend(examples::cases(project));
    Ok(cases)
}
