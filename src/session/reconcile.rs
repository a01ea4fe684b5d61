//! Reconciliation with `git status` at stop time: files the session changed outside the edit tools
//! (Bash `rm`, `mv`, `sed -i`, redirects) become `reconciled` events, so they are reviewed too.
//!
//! Invariants: a file counts as changed by the session only when it differs from what the session
//! last knew of it: its tracked content hash, else its stamp (size and modification time) in the
//! worktree baseline taken when the session first recorded something. Stamps keep the baseline
//! and each stop cheap (no file is read unless it changed); a change another session of the
//! project made with its tools (the disk holds the version that session knows) is that
//! session's; car's own state folder is never reported, nor a file that holds the version car's
//! own commands left ([`crate::session::own_writes`]). When git fails, only the files the session
//! changed are compared (a file reverted or fixed by another tool still counts). Outside git, the
//! baseline is the real time the session began, and a stop also looks at the files modified since
//! (a bounded walk of the project: modification times only).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::git;
use crate::project::{Project, STATE_DIR};
use crate::session::baseline::{Baselines, HASH_LIMIT, disk_version};
use crate::session::event::Version;
use crate::session::event::{Event, Versions};
use crate::session::log::EventLog;
use crate::session::own_writes::OwnWrites;
use crate::session::snapshot::Snapshot;
use crate::settings::Settings;

/// Every dirty path (modified, added, deleted, untracked) → its stamp now (`None`: missing);
/// `None` outside git, when git fails, or past a hook's wait for git (reconciliation is skipped).
pub(crate) fn dirty_versions(project: &Project, settings: &Settings) -> Option<Versions> {
    if !git::is_checkout(project.checkout()) {
        return None;
    }
    dirty_versions_within(project, settings, git::Wait::Hook).ok()
}

/// [`dirty_versions`] of a git checkout within `wait`, or why git gave none.
pub(crate) fn dirty_versions_within(
    project: &Project,
    settings: &Settings,
    wait: git::Wait,
) -> Result<Versions, git::GitError> {
    let output = git::run_checked(
        project.checkout(),
        &[
            // A background status must not take index.lock nor rewrite the index: that write
            // waits on the disk and races the agent's own git commands.
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
        ],
        wait,
    )?;
    let versions = parse_porcelain(&output.stdout)
        .into_iter()
        .filter(|path| is_reviewable(path, settings))
        .map(|path| {
            let stamp = stamp_of(project, &project.checkout().join(&path));
            (path, stamp)
        })
        .collect();
    Ok(versions)
}

/// The version of `path` (project-relative) on disk now, as reconciliation compares it: the
/// content hash, for a huge file or anything but a regular file its stamp.
pub(crate) fn version_on_disk(project: &Project, path: &str) -> Version {
    Containment::new(project).version_of(&project.checkout().join(path))
}

/// Runs car's own command `work` (`install`, `config`, …) and records every file it changed as
/// car's own write ([`crate::session::own_writes`]): by `git status` before and after, or outside
/// git the files modified while it ran.
pub(crate) fn recording_own_writes<T>(project: &Project, work: impl FnOnce() -> T) -> T {
    let settings = Settings::load(project).unwrap_or_default();
    // Outside git: the files' stamps before and after, compared (a time window would take a file
    // the agent wrote just before the command for car's: file times are coarser than clocks).
    let plain = !git::is_checkout(project.checkout());
    let stamps_before = plain.then(|| plain_stamps(project, &settings));
    let before = dirty_versions(project, &settings);
    let result = work();
    let changed: Vec<String> = match (before, dirty_versions(project, &settings)) {
        (Some(before), Some(after)) => after
            .iter()
            .filter(|(path, stamp)| before.get(*path) != Some(stamp))
            .map(|(path, _)| path)
            .chain(before.keys().filter(|path| !after.contains_key(*path)))
            .cloned()
            .collect(),
        _ => match stamps_before {
            Some(before) => {
                let after = plain_stamps(project, &settings);
                after
                    .iter()
                    .filter(|(path, stamp)| before.get(*path) != Some(stamp))
                    .map(|(path, _)| path.clone())
                    .collect()
            }
            None => Vec::new(),
        },
    };
    if !changed.is_empty() {
        let mut disk = Containment::new(project);
        let versions = changed
            .into_iter()
            .map(|path| {
                let version = disk.version_of(&project.checkout().join(&path));
                (path, version)
            })
            .collect();
        crate::session::own_writes::remember(project, versions);
    }
    result
}

/// Most files a stop outside git looks at, and how deep: the walk is bounded, in name order, so
/// the same files are looked at every time.
const MAX_PLAIN_FILES: usize = 5_000;
const MAX_PLAIN_DEPTH: usize = 12;

/// Outside git: the files (project-relative) modified after `since`, found by a bounded walk of
/// the project that skips hidden folders (car's state, `.venv`) and what a `.gitignore` there
/// names. Only modification times are read.
/// Outside git: every reviewable file of the bounded walk with its modification time and size.
fn plain_stamps(
    project: &Project,
    settings: &Settings,
) -> HashMap<String, (Option<SystemTime>, u64)> {
    plain_walk(project)
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            let path = project.relative(entry.path())?;
            Some((path, (meta.modified().ok(), meta.len())))
        })
        .filter(|(path, _)| is_reviewable(path, settings))
        .collect()
}

/// The bounded walk of a project outside git: files only, in name order, ignore files honoured.
fn plain_walk(project: &Project) -> impl Iterator<Item = ignore::DirEntry> {
    ignore::WalkBuilder::new(project.checkout())
        .require_git(false)
        .max_depth(Some(MAX_PLAIN_DEPTH))
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .take(MAX_PLAIN_FILES)
}

fn modified_outside_git(project: &Project, settings: &Settings, since: SystemTime) -> Vec<String> {
    plain_walk(project)
        .filter(|entry| {
            entry
                .metadata()
                .ok()
                .and_then(|meta| meta.modified().ok())
                .is_some_and(|modified| modified > since)
        })
        .filter_map(|entry| project.relative(entry.path()))
        .filter(|path| is_reviewable(path, settings))
        .collect()
}

/// Paths of `git status --porcelain=v1 -z --no-renames`: `XY path\0` entries. A path ending in
/// `/` is a nested repository or worktree, not a file of this project. An entry not in that
/// shape (a git printing something else, bytes that were not UTF-8 where the status letters go)
/// is skipped, never sliced inside a character.
pub(crate) fn parse_porcelain(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|entry| entry.as_bytes().get(2) == Some(&b' '))
        .filter_map(|entry| entry.get(3..))
        .filter(|path| !path.is_empty() && !path.ends_with('/'))
        .map(str::to_string)
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

/// The `reconciled` events for changes the snapshot does not know yet: every file the session
/// changed whose version on disk differs from the one it knows, and (in git) every file
/// `git status` shows that changed since the session's worktree baseline. `dirty_now` is
/// [`dirty_versions`] taken at this stop (`None`: not git, or git failed: only the session's own
/// files are compared).
pub(crate) fn reconcile(
    project: &Project,
    settings: &Settings,
    snapshot: &Snapshot,
    dirty_now: Option<Versions>,
) -> Vec<Event> {
    let is_git = dirty_now.is_some();
    let dirty_now = dirty_now.unwrap_or_default();
    let empty = Versions::new();
    let baseline = snapshot.worktree_baseline.as_ref().unwrap_or(&empty);
    let mut candidates: BTreeSet<&String> = snapshot.files.keys().collect();
    if is_git {
        candidates.extend(dirty_now.keys().chain(baseline.keys()));
    }
    // Outside git, the files modified since the session's baseline was taken.
    let plain_since = crate::session::ignored::baseline_time(snapshot.worktree_baseline_at_ms)
        .filter(|_| !is_git && !git::is_checkout(project.checkout()));
    let modified_since: BTreeSet<String> = plain_since
        .map(|since| modified_outside_git(project, settings, since))
        .unwrap_or_default()
        .into_iter()
        .collect();
    candidates.extend(modified_since.iter());
    let mut others = OtherSessions::of(project, &snapshot.session);
    // Read only when a file changed: most stops never need it.
    let mut own: Option<OwnWrites> = None;
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
                    None => dirty_now.contains_key(path) || modified_since.contains(path),
                };
                differs
                    .then(|| disk.version_of(&full_path))
                    .filter(|now| !others.holds(path, now))
            }
        };
        let changed = changed.filter(|now| {
            !own.get_or_insert_with(|| OwnWrites::load(project))
                .holds(path, now)
        });
        if let Some(hash) = changed {
            events.push(Event::Reconciled {
                file: path.clone(),
                hash,
            });
        }
    }
    events
}

/// The project's other sessions, read only when a change might be theirs.
struct OtherSessions<'a> {
    project: &'a Project,
    /// The other sessions' folders (name, path).
    folders: Vec<(String, PathBuf)>,
    /// Session name → what it knows of its files (`None`: its log could not be read).
    known: BTreeMap<String, Option<Snapshot>>,
}

impl<'a> OtherSessions<'a> {
    fn of(project: &'a Project, session: &str) -> OtherSessions<'a> {
        let own = crate::project::folder_name_of(session);
        let folders = project
            .session_folders()
            .into_iter()
            .filter(|(name, _)| *name != own)
            .collect();
        OtherSessions {
            project,
            folders,
            known: BTreeMap::new(),
        }
    }

    /// Whether another session edited `path` with its tools and the disk still holds the version
    /// it knows: then the change is that session's. A file another session edited that changed
    /// since (a Bash `rm` of a file an earlier session wrote) is this session's change.
    fn holds(&mut self, path: &str, now: &Version) -> bool {
        let project = self.project;
        for (name, folder) in &self.folders {
            if !Baselines::in_folder(folder).is_captured(path) {
                continue;
            }
            let snapshot = self.known.entry(name.clone()).or_insert_with(|| {
                let log = EventLog::in_folder(project, folder, name);
                crate::session::checkpoint::peek_or_read(&log)
            });
            match snapshot
                .as_ref()
                .and_then(|snapshot| snapshot.files.get(path))
            {
                Some(known) if known != now => continue,
                // It knows this version, or car cannot tell: the change stays that session's.
                _ => return true,
            }
        }
        false
    }
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
        // What a git printing bytes that are not UTF-8 leaves after the lossy read: skipped.
        let garbled = "M\u{fffd}\u{fffd}path\0\u{fffd}\0?\u{fffd}x\0 M ok.py\0";
        assert_eq!(parse_porcelain(garbled), ["ok.py"]);
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
