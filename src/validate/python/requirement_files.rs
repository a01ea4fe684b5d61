//! Where a Python project keeps its requirement lists: `*requirements*.txt` / `*.in` files
//! (`requirements-dev.txt`, `test-requirements.txt`) and every `.txt` / `.in` in a folder named
//! `requirements`, at the root or a few folders below it (django's `tests/requirements/py3.txt`,
//! ansible's `test/lib/ansible_test/_data/requirements/`).
//!
//! Invariants: bounded (at most [`MAX_DEPTH`] folders deep and [`MAX_FOLDERS`] folders read), in
//! name order (the same answer on every machine), never through a symbolic link, and never into
//! hidden folders, environments (a folder with `pyvenv.cfg`) or dependency and build caches.

use std::path::{Path, PathBuf};

/// How deep below the root a requirement list is looked for.
const MAX_DEPTH: usize = 5;

/// At most this many folders are read.
const MAX_FOLDERS: usize = 2_000;

/// Folders that hold no project requirement lists of their own.
const SKIPPED: &[&str] = &[
    "node_modules",
    "__pycache__",
    "site-packages",
    "build",
    "dist",
    "target",
];

/// The requirement lists of the project at `project_root`, in name order.
pub(crate) fn requirement_files(project_root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut queue = vec![(project_root.to_path_buf(), 0)];
    let mut read = 0;
    while let Some((folder, depth)) = queue.pop() {
        read += 1;
        if read > MAX_FOLDERS {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<(String, std::fs::FileType, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let kind = entry.file_type().ok()?;
                Some((
                    entry.file_name().to_string_lossy().into_owned(),
                    kind,
                    entry.path(),
                ))
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let in_requirements = folder
            .file_name()
            .is_some_and(|name| name == "requirements");
        let mut below = Vec::new();
        for (name, kind, path) in entries {
            if kind.is_file()
                && is_list(&name)
                && (in_requirements || name.contains("requirements"))
            {
                files.push(path);
            } else if kind.is_dir() && depth < MAX_DEPTH && is_searched(&name, &path) {
                below.push((path, depth + 1));
            }
        }
        // Popped from the end: push in reverse so folders are read in name order.
        queue.extend(below.into_iter().rev());
    }
    files.sort();
    files
}

fn is_list(name: &str) -> bool {
    name.ends_with(".txt") || name.ends_with(".in")
}

fn is_searched(name: &str, path: &Path) -> bool {
    !name.starts_with('.') && !SKIPPED.contains(&name) && !path.join("pyvenv.cfg").exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_at_the_root_and_in_requirements_folders_below_it() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        for (file, _) in [
            ("requirements.txt", ""),
            ("test-requirements.txt", ""),
            ("tests/requirements/py3.txt", ""),
            ("test/lib/tool/_data/requirements/sanity.in", ""),
            ("docs/notes.txt", ""),
            (".venv/requirements.txt", ""),
            ("env/pyvenv.cfg", ""),
            ("env/requirements.txt", ""),
            ("node_modules/x/requirements.txt", ""),
            ("a/b/c/d/e/f/requirements.txt", ""),
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found: Vec<String> = requirement_files(root)
            .iter()
            .map(|path| path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "requirements.txt",
                "test/lib/tool/_data/requirements/sanity.in",
                "test-requirements.txt",
                "tests/requirements/py3.txt",
            ]
        );
    }
}
