//! The maintenance log (`lessons-maintenance.jsonl` in the state folder): one line per
//! maintenance run that changed something — the lessons it decayed, removed (weight 0) and merged,
//! and the candidates it let expire ([`crate::lessons::maintain::LoggedRun`]) — so what car let go
//! of can still be seen (`car report`) after the lessons file forgot it. This file knows the
//! log's place and lines; `maintain` knows what a line holds.
//!
//! Invariants: append-only, one whole line per run under the file's lock; a reader skips a line
//! it cannot read (torn, or written by a newer car) instead of failing. Writing it is best effort:
//! a maintenance run never fails because its log could not be written.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::files::{self, FileError, HOOK_LOCK_WAIT};
use crate::project::Project;
use crate::state::names::LESSONS_MAINTENANCE_LOG;

/// A log larger than this is not read (a run a day keeps it far below).
const READ_LIMIT: u64 = 16 * 1024 * 1024;

/// Appends one run's line.
pub(crate) fn append(project: &Project, run: &impl Serialize) -> Result<(), FileError> {
    let line = serde_json::to_string(run).unwrap_or_default();
    let path = project.state_dir().join(LESSONS_MAINTENANCE_LOG);
    files::append_line(&path, &line, HOOK_LOCK_WAIT)
}

/// Every line car can read, oldest first; none when there is no log.
pub(crate) fn read<T: DeserializeOwned>(project: &Project) -> Result<Vec<T>, FileError> {
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
    use serde_json::{Value, json};

    #[test]
    fn whole_lines_are_read_back_and_a_torn_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.state_dir()).unwrap();
        assert!(read::<Value>(&project).unwrap().is_empty(), "no log");
        append(
            &project,
            &json!({"at": 2, "expired": [{"scope": "*.py", "trigger": "x"}]}),
        )
        .unwrap();
        let path = project.state_dir().join(LESSONS_MAINTENANCE_LOG);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text + "{\"at\":3,\"torn").unwrap();
        let runs: Vec<Value> = read(&project).unwrap();
        assert_eq!(
            runs,
            vec![json!({"at": 2, "expired": [{"scope": "*.py", "trigger": "x"}]})]
        );
    }
}
