//! The maintenance log (`lessons-maintenance.jsonl` in the state folder): one line per
//! maintenance run that changed something — the lessons it decayed, removed (weight 0) and merged,
//! and the candidates it let expire — so what car let go of can still be seen (`car report`)
//! after the lessons file forgot it.
//!
//! Invariants: append-only, one whole line per run under the file's lock; a reader skips a line
//! it cannot read (torn, or written by a newer car) instead of failing. Writing it is best effort:
//! a maintenance run never fails because its log could not be written.

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError, HOOK_LOCK_WAIT};
use crate::lessons::maintain::Report;
use crate::project::Project;
use crate::state::names::LESSONS_MAINTENANCE_LOG;

/// A log larger than this is not read (a run a day keeps it far below).
const READ_LIMIT: u64 = 16 * 1024 * 1024;

/// One logged run: when, and what it changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LoggedRun {
    pub(crate) at: i64,
    #[serde(flatten)]
    pub(crate) report: Report,
}

/// Appends the run at `at` when it changed something.
pub(crate) fn append(project: &Project, at: i64, report: &Report) -> Result<(), FileError> {
    if report.is_empty() {
        return Ok(());
    }
    let line = serde_json::to_string(&LoggedRun {
        at,
        report: report.clone(),
    })
    .unwrap_or_default();
    let path = project.state_dir().join(LESSONS_MAINTENANCE_LOG);
    files::append_line(&path, &line, HOOK_LOCK_WAIT)
}

/// Every logged run, oldest first; none when there is no log.
pub(crate) fn read(project: &Project) -> Result<Vec<LoggedRun>, FileError> {
    let path = project.state_dir().join(LESSONS_MAINTENANCE_LOG);
    let bytes = match files::read_bounded(&path, READ_LIMIT) {
        Ok(bytes) => bytes,
        Err(error) if error.is_not_found() => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    Ok(bytes
        .split(|byte| *byte == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::maintain::Expired;

    #[test]
    fn runs_that_changed_something_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.state_dir()).unwrap();
        append(&project, 1, &Report::default()).unwrap();
        assert!(
            read(&project).unwrap().is_empty(),
            "an empty run is not logged"
        );
        let mut report = Report::default();
        report.expired.push(Expired {
            scope: "*.py".into(),
            trigger: "import foo".into(),
        });
        append(&project, 2, &report).unwrap();
        let path = project.state_dir().join(LESSONS_MAINTENANCE_LOG);
        std::fs::write(
            &path,
            std::fs::read_to_string(&path).unwrap() + "{\"at\":3,\"torn",
        )
        .unwrap();
        let runs = read(&project).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].at, 2);
        assert_eq!(runs[0].report.expired[0].trigger, "import foo");
    }
}
