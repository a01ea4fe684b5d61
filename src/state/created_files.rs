//! The user's files car created (an agent's settings or hook file that did not exist before
//! `car install` or `car config`), so `car uninstall` deletes one that car's removal leaves empty
//! instead of leaving a `{}` behind; a file the user had, even an empty one, is kept.
//!
//! Invariants: recorded as project-relative paths in the state folder ([`names::CREATED_FILES`]),
//! under its own lock; best effort both ways: a record that cannot be written or read only means a
//! `{}` is kept.

use std::collections::BTreeSet;
use std::path::Path;

use crate::files;
use crate::project::Project;
use crate::state::names;

fn record_path(project: &Project) -> std::path::PathBuf {
    project.state_dir().join(names::CREATED_FILES)
}

fn load(project: &Project) -> BTreeSet<String> {
    files::read_optional(&record_path(project))
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn change(project: &Project, edit: impl FnOnce(&mut BTreeSet<String>) -> bool) {
    let path = record_path(project);
    let Ok(_lock) = files::FileLock::acquire(&path, files::HOOK_LOCK_WAIT) else {
        return;
    };
    let mut created = load(project);
    if edit(&mut created) {
        let text = serde_json::to_string_pretty(&created).unwrap_or_default();
        let _ = files::write_atomic(&path, text.as_bytes());
    }
}

/// Records that car created `path`.
pub(crate) fn remember(project: &Project, path: &Path) {
    if let Some(relative) = project.relative(path) {
        change(project, |created| created.insert(relative));
    }
}

/// Whether car created `path` (and it has not been deleted since).
pub(crate) fn was_created(project: &Project, path: &Path) -> bool {
    project
        .relative(path)
        .is_some_and(|relative| load(project).contains(&relative))
}

/// Forgets `path` once car deleted it.
pub(crate) fn forget(project: &Project, path: &Path) {
    if let Some(relative) = project.relative(path) {
        change(project, |created| created.remove(&relative));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_and_forgets_a_created_file() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = dir.path().join(".gemini/settings.json");
        assert!(!was_created(&project, &settings));
        remember(&project, &settings);
        assert!(was_created(&project, &settings));
        assert!(!was_created(
            &project,
            &dir.path().join(".claude/settings.json")
        ));
        forget(&project, &settings);
        assert!(!was_created(&project, &settings));
    }
}
