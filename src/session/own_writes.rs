//! car's own writes: the files `car install`, `car uninstall`, `car config` and
//! `car deep-review init` change in the project (each agent's hook file, `.claude/settings.json`,
//! CLAUDE.md, a context file, the review rules, `.gitattributes`) are never a session's change,
//! so a session that resumes after them does not review them. Recorded in the state folder as
//! path → the version the command left (`None`: it removed the file).
//!
//! Which files a command changed is read from `git status` before and after it (every path whose
//! stamp changed: [`crate::session::reconcile::recording_own_writes`]), not from a list of writers, so a new writer cannot be forgotten. Outside git no
//! record is needed: there the stop compares only the files the session itself changed.
//!
//! Invariants: a file counts as car's only while the disk holds exactly the version car left: an
//! edit of it after the command (by the agent's tools or its shell) is the session's change; the
//! record is written under a lock and merged, never overwritten by an older copy.

use std::collections::BTreeMap;

use crate::files;
use crate::project::Project;
use crate::session::event::Version;
use crate::state::names;

/// The versions car's own commands left, by project-relative path.
#[derive(Debug, Default)]
pub(crate) struct OwnWrites {
    versions: BTreeMap<String, Version>,
}

impl OwnWrites {
    /// The record (empty when there is none or it cannot be read: then car's writes are reviewed,
    /// a wider review, never a hidden change).
    pub(crate) fn load(project: &Project) -> OwnWrites {
        let versions = files::read_optional(&project.state_dir().join(names::OWN_WRITES))
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        OwnWrites { versions }
    }

    /// Whether `now` is the version of `path` car's own command left.
    pub(crate) fn holds(&self, path: &str, now: &Version) -> bool {
        self.versions.get(path) == Some(now)
    }
}

/// Adds the versions car's own command left (best effort: a record that cannot be written only
/// widens a later review).
pub(crate) fn remember(project: &Project, changed: BTreeMap<String, Version>) {
    // No state folder (`car uninstall --purge` removed it): no session to hide them from.
    if !project.state_dir().is_dir() {
        return;
    }
    let path = project.state_dir().join(names::OWN_WRITES);
    let Ok(_lock) = files::FileLock::acquire(&path, files::HOOK_LOCK_WAIT) else {
        return;
    };
    let mut own = OwnWrites::load(project);
    own.versions.extend(changed);
    let text = serde_json::to_string_pretty(&own.versions).unwrap_or_default();
    let _ = files::write_atomic(&path, text.as_bytes());
}
