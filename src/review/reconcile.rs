//! Reconciliation with `git status` at stop time: files the session changed outside the edit tools
//! (Bash `rm`, `mv`, `sed -i`, redirects) become `reconciled` events, so they are reviewed too.
//!
//! Invariants: a file counts as changed by the session only when it differs from what the session
//! last knew of it: its tracked content hash, else its stamp (size and modification time) in the
//! worktree baseline taken when the session first recorded something. Stamps keep the baseline
//! and each stop cheap (no file is read unless it changed); a file another session of the project
//! edited with its tools is that session's (also when it was already dirty at this session's
//! baseline and changed since); car's own state folder is never reported.
//! Outside git, or when git fails, nothing is reconciled (the gate still works on tracked edits).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::run_with_timeout;
use crate::project::{Project, STATE_DIR};
use crate::review::baseline::{Baselines, HASH_LIMIT, disk_version};
use crate::review::event::Version;
use crate::review::event::{Event, Versions};
use crate::review::snapshot::Snapshot;
use crate::settings::Settings;

/// How long `git status` may take before reconciliation is skipped.
const GIT_TIMEOUT: Duration = Duration::from_secs(3);

/// Every dirty path (modified, added, deleted, untracked) → its stamp now (`None`: missing).
pub(crate) fn dirty_versions(project: &Project, settings: &Settings) -> Option<Versions> {
    if !project.checkout().join(".git").exists() {
        return None;
    }
    let root = project.checkout().to_string_lossy().into_owned();
    let output = run_with_timeout(
        "git",
        &[
            // A background status must not take index.lock nor rewrite the index: that write
            // waits on the disk and races the agent's own git commands.
            "--no-optional-locks",
            "-C",
            &root,
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
        ],
        None,
        GIT_TIMEOUT,
    )
    .ok()?;
    if !output.success() {
        return None;
    }
    let versions = parse_porcelain(&output.stdout)
        .into_iter()
        .filter(|path| is_reviewable(path, settings))
        .map(|path| {
            let stamp = stamp_of(project, &project.checkout().join(&path));
            (path, stamp)
        })
        .collect();
    Some(versions)
}

/// Paths of `git status --porcelain=v1 -z --no-renames`: `XY path\0` entries. A path ending in
/// `/` is a nested repository or worktree, not a file of this project.
pub(crate) fn parse_porcelain(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|entry| entry.len() > 3 && !entry.ends_with('/'))
        .map(|entry| entry[3..].to_string())
        .collect()
}

/// The version of a file that resolves outside the project: it is never read, so only "there".
const OUTSIDE: &str = "outside-the-project";

/// Where the checked files resolve, each folder resolved once (a stop looks at every file the
/// session knows: resolving each path anew would cost a system call per path component).
struct Containment<'a> {
    project: &'a Project,
    folders: HashMap<PathBuf, bool>,
}

impl<'a> Containment<'a> {
    fn new(project: &'a Project) -> Containment<'a> {
        Containment {
            project,
            folders: HashMap::new(),
        }
    }

    /// Whether `path` resolves inside the project: its folder does, and it is no link leading out.
    fn is_inside(&mut self, path: &Path) -> bool {
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink());
        if is_link {
            return self.project.relative(path).is_some();
        }
        let Some(folder) = path.parent() else {
            return false;
        };
        let project = self.project;
        *self
            .folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| folder == project.checkout() || project.relative(folder).is_some())
    }

    /// The content hash, or for a huge file or anything that is not a regular file (a FIFO is
    /// never opened) its stamp; a file that resolves outside the project is never read.
    fn version_of(&mut self, path: &Path) -> Version {
        if !self.is_inside(path) {
            return Some(OUTSIDE.into());
        }
        let meta = std::fs::metadata(path).ok()?;
        if meta.is_file() && meta.len() <= HASH_LIMIT {
            return disk_version(path);
        }
        stamp_of(self.project, path)
    }
}

/// `stamp:<size>:<mtime ns>`, read from the file's metadata only (for a link leading out of the
/// project, the link's own). Only a link costs a containment check: this runs for every dirty
/// file at every stop.
fn stamp_of(project: &Project, path: &Path) -> Version {
    let own = std::fs::symlink_metadata(path).ok()?;
    let meta = if own.file_type().is_symlink() && project.relative(path).is_some() {
        std::fs::metadata(path).ok()?
    } else {
        own
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |age| age.as_nanos());
    Some(format!("stamp:{}:{modified}", meta.len()))
}

/// Not car's own state, not the lock sidecars car leaves beside `.claude/settings.json`.
fn is_reviewable(path: &str, settings: &Settings) -> bool {
    let is_car_lock = path.starts_with(".claude/") && path.ends_with(".lock");
    !path.starts_with(&format!("{STATE_DIR}/"))
        && !is_car_lock
        && settings.is_tracked_extension(path)
}

/// The `reconciled` events for changes `git status` shows that the snapshot does not know yet.
/// `dirty_now` is [`dirty_versions`] taken at this stop (`None`: not git, or git failed).
pub(crate) fn reconcile(
    project: &Project,
    settings: &Settings,
    snapshot: &Snapshot,
    dirty_now: Option<Versions>,
) -> Vec<Event> {
    let Some(dirty_now) = dirty_now else {
        return Vec::new();
    };
    let empty = Versions::new();
    let baseline = snapshot.worktree_baseline.as_ref().unwrap_or(&empty);
    let candidates: BTreeSet<&String> = dirty_now
        .keys()
        .chain(baseline.keys())
        .chain(snapshot.files.keys())
        .collect();
    let others = other_sessions(project, &snapshot.session);
    let mut disk = Containment::new(project);
    let mut events = Vec::new();
    for path in candidates {
        if !is_reviewable(path, settings) {
            continue;
        }
        let full_path = project.checkout().join(path);
        let changed = match snapshot.files.get(path) {
            Some(known) => {
                let now = disk.version_of(&full_path);
                (now != *known).then_some(now)
            }
            None => {
                let stamp = match dirty_now.get(path) {
                    Some(stamp) => stamp.clone(),
                    None => stamp_of(project, &full_path),
                };
                let differs = match baseline.get(path) {
                    Some(before) => *before != stamp,
                    None => dirty_now.contains_key(path),
                };
                // Another session's tool edit, before or after this session's baseline, is that
                // session's change: it is reviewed there, never here too.
                let is_others = || others.iter().any(|other| other.is_captured(path));
                (differs && !is_others()).then(|| disk.version_of(&full_path))
            }
        };
        if let Some(hash) = changed {
            events.push(Event::Reconciled {
                file: path.clone(),
                hash,
            });
        }
    }
    events
}

/// The baselines of the project's other sessions: a file one of them edited with its tools is
/// that session's change, not a Bash change of this one.
fn other_sessions(project: &Project, session: &str) -> Vec<Baselines> {
    let own = crate::project::session_folder_name(session);
    project
        .session_folders()
        .into_iter()
        .filter(|(name, _)| *name != own)
        .map(|(_, folder)| Baselines::in_folder(&folder))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_paths() {
        let text = " D src/legacy_loader.py\0?? new file.txt\0M  a.py\0?? linked-wt/\0";
        assert_eq!(
            parse_porcelain(text),
            ["src/legacy_loader.py", "new file.txt", "a.py"]
        );
    }

    #[test]
    fn state_folder_is_never_reviewable() {
        let settings = Settings::default();
        assert!(!is_reviewable(
            ".claude/claude-auto-review/clients/s/events.jsonl",
            &settings
        ));
        assert!(!is_reviewable(".claude/settings.json.lock", &settings));
        assert!(is_reviewable("src/a.py", &settings));
    }
}
