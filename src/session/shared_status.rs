//! One look at the worktree shared by the session starts of a project: `git status` (the
//! baseline) and, for the lessons briefing, `git ls-files` (which scopes apply). A burst of
//! session starts (100 agents started by a script) used to run both once each: on a 50,000-file
//! repository and 2 cores they starved one another past their budget and none held a baseline.
//! Now one start at a time looks, under the lock of `worktree-status.json` in the state folder,
//! and writes what it found there; the starts that waited take that answer when it was begun
//! after they began.
//!
//! Invariants:
//! - a status is reused only by a start that began at or before the moment it was begun
//!   (`started_ms`), with the same tracked-extension settings: it shows the worktree at a moment
//!   after that session began and before it did anything (its SessionStart had not answered), so
//!   it is that session's baseline as much as one of its own would be;
//! - a start waits for the lock at most what is left of its budget, then says so;
//! - the file is a cache: unreadable, stale or written by other settings is the same as absent,
//!   and failing to write it costs the next start one more `git status`, nothing else.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError, FileLock};
use crate::git::{GitError, Wait};
use crate::project::Project;
use crate::session::event::Versions;
use crate::session::reconcile::dirty_versions_within;
use crate::settings::Settings;
use crate::state::names;

/// The most files `git ls-files` is read for (lesson scopes are matched against them).
const MAX_FILES: usize = 50_000;

/// What one look at the worktree found.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Worktree {
    /// Every dirty path git shows (modified, added, deleted, untracked) that car tracks, with its
    /// stamp ([`dirty_versions_within`]).
    pub(crate) dirty: Versions,
    /// Every file git lists (tracked, and untracked not ignored), project-relative, when asked
    /// for and git answered.
    pub(crate) files: Option<Vec<String>>,
}

/// The look last taken, and what it is valid for.
#[derive(Debug, Serialize, Deserialize)]
struct Shared {
    /// When its `git status` was begun (Unix milliseconds).
    started_ms: u64,
    /// The tracked-extension settings it was filtered with.
    filter: String,
    #[serde(flatten)]
    worktree: Worktree,
}

/// Why no status could be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StatusError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("another session start's `git status` was still running after {waited_ms} ms")]
    Waited { waited_ms: u128 },
    #[error(transparent)]
    File(FileError),
}

/// The worktree as a look begun at or after `since` saw it: the one another start took, or one
/// taken now within `wait` (`with_files`: `git ls-files` too, beside `git status`).
pub(crate) fn look_since(
    project: &Project,
    settings: &Settings,
    since: SystemTime,
    wait: Wait,
    with_files: bool,
) -> Result<Worktree, StatusError> {
    let path = project.state_dir().join(names::WORKTREE_STATUS);
    let _lock = FileLock::acquire(&path, wait.limit()).map_err(|error| match error {
        FileError::LockTimeout { waited_ms, .. } => StatusError::Waited { waited_ms },
        error => StatusError::File(error),
    })?;
    let filter = filter_of(settings);
    let shared: Option<Shared> = files::read_text_or_none(&path, files::MAX_STATE_BYTES)
        .and_then(|text| serde_json::from_str(&text).ok());
    if let Some(shared) = shared
        && shared.started_ms >= millis(since)
        && shared.filter == filter
        && (shared.worktree.files.is_some() || !with_files)
    {
        return Ok(shared.worktree);
    }
    let started_ms = millis(SystemTime::now());
    let (dirty, files) = std::thread::scope(|scope| {
        let files = scope.spawn(|| with_files.then(|| project_files(project, wait)).flatten());
        let dirty = dirty_versions_within(project, settings, wait);
        (dirty, files.join().ok().flatten())
    });
    let fresh = Shared {
        started_ms,
        filter,
        worktree: Worktree {
            dirty: dirty?,
            files,
        },
    };
    if let Ok(text) = serde_json::to_string(&fresh) {
        let _ = files::write_atomic_unsynced(&path, text.as_bytes());
    }
    Ok(fresh.worktree)
}

/// The project's files as git lists them (tracked and untracked, not ignored), relative to the
/// project (git lists the folder it runs in); `None` when git fails.
fn project_files(project: &Project, wait: Wait) -> Option<Vec<String>> {
    let args = [
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
    ];
    let output = crate::git::run_checked(project.root(), &args, wait).ok()?;
    Some(
        output
            .stdout
            .split('\0')
            .filter(|file| !file.is_empty())
            .take(MAX_FILES)
            .map(str::to_string)
            .collect(),
    )
}

fn filter_of(settings: &Settings) -> String {
    serde_json::json!([settings.include_extensions, settings.skip_extensions]).to_string()
}

fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_begun_after_a_start_serves_it_and_an_older_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        crate::git::git_in(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let wait = Wait::Hook;
        let look = |settings: &Settings, since: SystemTime, with_files: bool| {
            look_since(&project, settings, since, wait, with_files).unwrap()
        };
        let before = SystemTime::now() - Duration::from_secs(60);
        let first = look(&settings, before, false);
        assert!(first.dirty.contains_key("a.py"), "{first:?}");
        assert_eq!(first.files, None, "not asked for");
        // A file that appears now: a start that began before the shared look takes it as it
        // was; one that began after it, or needs what it lacks, gets a look of its own.
        std::fs::write(dir.path().join("b.py"), "y = 1\n").unwrap();
        assert!(!look(&settings, before, false).dirty.contains_key("b.py"));
        let files = look(&settings, before, true).files.unwrap();
        assert!(files.contains(&"b.py".to_string()), "{files:?}");
        let later = SystemTime::now() + Duration::from_secs(1);
        std::fs::write(dir.path().join("c.py"), "z = 1\n").unwrap();
        assert!(look(&settings, later, false).dirty.contains_key("c.py"));
        let other_settings = Settings {
            skip_extensions: vec!["py".into()],
            ..Settings::default()
        };
        let filtered = look(&other_settings, before, false);
        assert!(
            filtered.dirty.is_empty(),
            "other settings, another look: {filtered:?}"
        );
    }
}
