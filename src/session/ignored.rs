//! Files the session changed that git ignores (build output, `.env`): no commit will carry them,
//! so they are not reviewed, and their content never goes into a reviewer's prompt — as the rules
//! stood at the session's baseline. A rule added during the session (a new nested `.gitignore`, a
//! line in `.git/info/exclude`) never hides a file the session changed: such a file is reviewed,
//! and the prompt names the rule. "Added during the session" is read from the file holding the
//! deciding rule: written after the worktree baseline was taken. Without a known baseline time
//! (an older log) every rule counts as old.
//!
//! Decided in process with git's own rules (the `ignore` crate's `.gitignore` matcher): each
//! `.gitignore` from the file's folder up to the checkout, deepest first, then
//! `.git/info/exclude`; the first that says ignore or re-include (`!pattern`) decides. Only the
//! changed files `git status` did not list are asked about: git never lists an ignored file, and
//! a file it lists (modified, untracked) is not ignored. A global excludes file is not read
//! (such a file stays in review: a miss, never a hidden change).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::project::Project;
use crate::session::event::Versions;

/// What git's ignore rules decide about the session's changed files.
#[derive(Debug, Default)]
pub(crate) struct Ignored {
    /// Ignored by a rule that stood at the baseline: never reviewed.
    pub(crate) hidden: BTreeSet<String>,
    /// Ignored only by a rule added during the session → the file holding it: reviewed anyway.
    pub(crate) unhidden: BTreeMap<String, String>,
}

/// Which of `changed` (project-relative) git ignores; `dirty` is `git status` at this stop
/// (`None`: not git, or git failed — then nothing is known to be ignored); `baseline_at` is when
/// the session's baseline was taken.
pub(crate) fn ignored_files(
    project: &Project,
    changed: &Versions,
    dirty: Option<&Versions>,
    baseline_at: Option<SystemTime>,
) -> Ignored {
    let mut ignored = Ignored::default();
    let Some(dirty) = dirty else {
        return ignored;
    };
    let checkout = project.checkout();
    let mut matchers: HashMap<PathBuf, Gitignore> = HashMap::new();
    for file in changed.keys().filter(|file| !dirty.contains_key(*file)) {
        let Some(rule_file) = deciding_rule(checkout, &checkout.join(file), &mut matchers) else {
            continue;
        };
        let is_new_rule = match (&rule_file, baseline_at) {
            (Some(rule_file), Some(baseline_at)) => std::fs::metadata(rule_file)
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| modified > baseline_at),
            _ => false,
        };
        match rule_file.filter(|_| is_new_rule) {
            Some(rule_file) => {
                let shown = project
                    .relative(&rule_file)
                    .unwrap_or_else(|| rule_file.display().to_string());
                ignored.unhidden.insert(file.clone(), shown);
            }
            None => {
                ignored.hidden.insert(file.clone());
            }
        }
    }
    ignored
}

/// `Some(the file holding the rule)` when git ignores `path` (`Some(None)`: the rule's file is not
/// known), `None` when it does not.
fn deciding_rule(
    checkout: &Path,
    path: &Path,
    matchers: &mut HashMap<PathBuf, Gitignore>,
) -> Option<Option<PathBuf>> {
    for folder in path
        .ancestors()
        .skip(1)
        .take_while(|folder| folder.starts_with(checkout))
    {
        let matcher = matchers
            .entry(folder.to_path_buf())
            .or_insert_with(|| load(checkout, folder));
        match matcher.matched_path_or_any_parents(path, false) {
            Match::Ignore(glob) => return Some(glob.from().map(Path::to_path_buf)),
            Match::Whitelist(_) => return None,
            Match::None => {}
        }
    }
    None
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

/// The real time of a baseline taken at `millis` since the Unix epoch.
pub(crate) fn baseline_time(millis: Option<u64>) -> Option<SystemTime> {
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(millis?))
}
