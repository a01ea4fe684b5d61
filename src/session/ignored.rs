//! Files the session changed that git ignores (build output, `.env`): no commit will carry them,
//! so they are not reviewed, and their content never goes into a reviewer's prompt.
//!
//! Decided in process with git's own rules (the `ignore` crate's `.gitignore` matcher): each
//! `.gitignore` from the file's folder up to the checkout, deepest first, then
//! `.git/info/exclude`; the first that says ignore or re-include (`!pattern`) decides. Only the
//! changed files `git status` did not list are asked about: git never lists an ignored file, and
//! a file it lists (modified, untracked) is not ignored. A global excludes file is not read
//! (such a file stays in review: a miss, never a hidden change).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::project::Project;
use crate::session::event::Versions;

/// Which of `changed` (project-relative) git ignores; `dirty` is `git status` at this stop
/// (`None`: not git, or git failed — then nothing is known to be ignored).
pub(crate) fn ignored_files(
    project: &Project,
    changed: &Versions,
    dirty: Option<&Versions>,
) -> BTreeSet<String> {
    let Some(dirty) = dirty else {
        return BTreeSet::new();
    };
    let checkout = project.checkout();
    let mut matchers: HashMap<PathBuf, Gitignore> = HashMap::new();
    changed
        .keys()
        .filter(|file| !dirty.contains_key(*file))
        .filter(|file| is_ignored(checkout, &checkout.join(file), &mut matchers))
        .cloned()
        .collect()
}

fn is_ignored(checkout: &Path, path: &Path, matchers: &mut HashMap<PathBuf, Gitignore>) -> bool {
    for folder in path
        .ancestors()
        .skip(1)
        .take_while(|folder| folder.starts_with(checkout))
    {
        let matcher = matchers
            .entry(folder.to_path_buf())
            .or_insert_with(|| load(checkout, folder));
        match matcher.matched_path_or_any_parents(path, false) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}

/// The rules of `folder`'s `.gitignore` (and at the checkout, `.git/info/exclude` after it).
fn load(checkout: &Path, folder: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(folder);
    let mut files = vec![folder.join(".gitignore")];
    if folder == checkout {
        files.push(checkout.join(".git/info/exclude"));
    }
    for file in files.iter().filter(|file| file.is_file()) {
        // A line git cannot read either is skipped; the others still count.
        let _ = builder.add(file);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}
