//! Which Python environment checks which files, for `car status` (issue 40, item 8): a
//! monorepo's `tools/.venv` beside `tools/*.py` is used for those files
//! ([`super::python_root`]), so status names it, with the files it serves, beside the checkout's
//! own.
//!
//! Invariant: read-only: one `git ls-files` for the Python files (tracked, and untracked ones
//! not ignored), then file-system look-ups; nothing is run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{interpreter, python_root};

/// The most Python projects listed; a larger monorepo is summed up in one more line.
const LISTED: usize = 12;

/// One line per Python project below the checkout that has files of its own (a folder with its
/// own project files or environment): its folder, how many Python files it holds, the
/// interpreter that checks them and the environments whose packages count for them. Empty
/// outside git, or when every Python file belongs to the checkout itself.
pub(crate) fn sub_projects(checkout: &Path, explicit: Option<&str>) -> Vec<String> {
    let mut by_root = files_by_project(checkout);
    by_root.remove(checkout);
    let mut lines: Vec<String> = by_root
        .iter()
        .take(LISTED)
        .map(|(root, count)| describe(checkout, root, *count, explicit))
        .collect();
    if by_root.len() > LISTED {
        lines.push(format!(
            "… and {} more Python projects",
            by_root.len() - LISTED
        ));
    }
    lines
}

/// How many Python files each project folder holds, the checkout first.
fn files_by_project(checkout: &Path) -> BTreeMap<PathBuf, usize> {
    let mut by_root = BTreeMap::new();
    let Ok(output) =
        crate::validate::walk::git_listed(checkout, &["*.py", "*.pyi"], crate::git::Wait::Command)
    else {
        return by_root;
    };
    if !output.success() {
        return by_root;
    }
    let mut root_of_folder: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    for name in output.stdout.split('\0').filter(|name| !name.is_empty()) {
        let file = checkout.join(name);
        let folder = file.parent().unwrap_or(checkout).to_path_buf();
        let root = root_of_folder
            .entry(folder)
            .or_insert_with(|| python_root(checkout, &file))
            .clone();
        *by_root.entry(root).or_insert(0) += 1;
    }
    by_root
}

/// `tools/**/*.py (4 files): /usr/bin/python3.12; packages: tools/.venv (the project's virtual
/// environment)`.
fn describe(checkout: &Path, root: &Path, count: usize, explicit: Option<&str>) -> String {
    let folder = root.strip_prefix(checkout).map_or_else(
        |_| root.display().to_string(),
        |relative| relative.display().to_string(),
    );
    let files = crate::text::plural(count, "file");
    let python = interpreter::find(explicit, checkout, root);
    let program = match &python.program {
        Ok(program) => program.display().to_string(),
        Err(why) => format!("no interpreter ({why}); tree-sitter only"),
    };
    let real_checkout = checkout.canonicalize().unwrap_or_else(|_| checkout.into());
    let packages = if python.environments.is_empty() {
        "the interpreter's own (no environment found)".to_string()
    } else {
        python
            .environments
            .iter()
            .map(|environment| {
                let shown = environment
                    .dir
                    .strip_prefix(&real_checkout)
                    .map_or_else(|_| environment.dir.clone(), Path::to_path_buf);
                format!("{} ({})", shown.display(), environment.origin.describe())
            })
            .collect::<Vec<_>>()
            .join(", then ")
    };
    format!("{folder}/**/*.py ({files}): {program}; packages: {packages}")
}
