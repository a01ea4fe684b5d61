//! The change a deep review looks at: every file that differs between a base commit and the
//! working tree — committed since the base, staged, unstaged, and untracked files git does not
//! ignore — limited to `--paths`.
//!
//! The base is `--base REF`, else the merge base of `HEAD` with the default branch
//! (`origin/HEAD`, else `init.defaultBranch`, `main` or `master` when such a branch exists), else
//! `HEAD`; a repository without commits is compared with the empty tree.
//!
//! car's own files are left out and named ([`ChangeSet::left_out`]): the state folder always, the
//! agents' hook files car wires, `.claude/review-contexts/` (the context goes to the reviewer as
//! context) and `CLAUDE.md` unless `--paths` names them (a path or folder, not a glob).
//!
//! Invariants: an invalid ref or a failing git is an error, never an empty change; car's own state
//! folder is never part of the change; the fingerprint ([`ChangeSet::hash`]) covers every file's
//! path and both contents, so any edit inside the limited paths changes it.

use std::path::Path;

use crate::agents::Agent;
use crate::git;
use crate::project::STATE_DIR;
use crate::review::deep::context::CONTEXT_DIR;
use crate::scope::Scope;
use crate::session::event::content_hash;

/// The tree of an empty repository (the same in every git repository).
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/// Files larger than this are named, not diffed.
const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub(crate) enum DiffError {
    #[error("{dir}: not a git repository; a deep review diffs against a git base")]
    NotGit { dir: String },
    #[error("invalid ref {reference:?} for --base: {message}")]
    InvalidRef { reference: String, message: String },
    #[error("`git {args}` failed: {message}")]
    Git { args: String, message: String },
    #[error("--paths {pattern:?}: {source}")]
    Glob {
        pattern: String,
        #[source]
        source: globset::Error,
    },
}

/// The commit the change is measured from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Base {
    /// The full commit (or the empty tree).
    pub(crate) commit: String,
    /// How people read it: `merge base with main (1a2b3c4)`.
    pub(crate) label: String,
}

/// One changed file; `None` content means absent on that side. A binary or oversized side is
/// `Some("")` with `unreadable` naming why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    /// Relative to the checkout, `/`-separated.
    pub(crate) path: String,
    pub(crate) before: Option<String>,
    pub(crate) after: Option<String>,
    pub(crate) unreadable: Option<&'static str>,
}

impl FileChange {
    /// " (new)", " (deleted)" or "".
    pub(crate) fn state(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => " (new)",
            (Some(_), None) => " (deleted)",
            _ => "",
        }
    }
}

/// The whole change.
#[derive(Debug, Clone)]
pub(crate) struct ChangeSet {
    pub(crate) base: Base,
    pub(crate) files: Vec<FileChange>,
    /// What `--paths` limited it to (empty: everything).
    pub(crate) paths: Vec<String>,
    /// car's own changed files that were left out (relative paths; the state folder's are not
    /// listed one by one).
    pub(crate) left_out: Vec<String>,
}

impl ChangeSet {
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Fingerprint of the change: equal exactly when every path and content is.
    pub(crate) fn hash(&self) -> String {
        let mut bytes = Vec::new();
        for file in &self.files {
            for part in [
                Some(file.path.as_str()),
                file.before.as_deref(),
                file.after.as_deref(),
            ] {
                bytes.extend_from_slice(part.unwrap_or("\u{0}absent").as_bytes());
                bytes.push(0);
            }
        }
        content_hash(&bytes)
    }

    /// `against <base>` plus the paths it was limited to, for messages.
    pub(crate) fn scope_label(&self) -> String {
        if self.paths.is_empty() {
            format!("against {}", self.base.label)
        } else {
            format!(
                "against {}, limited to {}",
                self.base.label,
                self.paths.join(" ")
            )
        }
    }
}

/// Which files `--paths` lets in: the lesson-scope glob rules (`*.py` matches the file name in
/// any folder, a pattern with `/` the checkout-relative path); a pattern naming a folder means
/// everything under it.
#[derive(Debug, Default)]
pub(crate) struct PathFilter {
    patterns: Vec<String>,
    scopes: Vec<Scope>,
}

impl PathFilter {
    pub(crate) fn new(checkout: &Path, patterns: &[String]) -> Result<PathFilter, DiffError> {
        let mut scopes = Vec::new();
        for pattern in patterns {
            let trimmed = pattern.trim().trim_start_matches("./");
            let is_folder = trimmed.ends_with('/') || checkout.join(trimmed).is_dir();
            let glob = if is_folder && !trimmed.is_empty() {
                format!("{}/**", trimmed.trim_end_matches('/'))
            } else {
                trimmed.to_string()
            };
            let scope = Scope::parse(&glob).map_err(|source| DiffError::Glob {
                pattern: pattern.clone(),
                source,
            })?;
            scopes.push(scope);
        }
        Ok(PathFilter {
            patterns: patterns.to_vec(),
            scopes,
        })
    }

    pub(crate) fn admits(&self, relative_path: &str) -> bool {
        self.scopes.is_empty() || self.scopes.iter().any(|scope| scope.matches(relative_path))
    }

    /// Whether a pattern names the path itself or a folder holding it (not a glob that happens
    /// to match it): how car's own files get into a review.
    fn names(&self, relative_path: &str) -> bool {
        self.patterns.iter().any(|pattern| {
            let named = pattern
                .trim()
                .trim_start_matches("./")
                .trim_end_matches('/');
            !named.is_empty()
                && !named.contains(['*', '?', '[', '{'])
                && (relative_path == named
                    || relative_path
                        .strip_prefix(named)
                        .is_some_and(|rest| rest.starts_with('/')))
        })
    }
}

/// Whether a path is one car writes for its own use: an agent's hook file, a review context, or
/// `CLAUDE.md` (where `car deep-review init` lists the contexts).
fn is_cars_own(relative_path: &str) -> bool {
    relative_path == "CLAUDE.md"
        || relative_path
            .strip_prefix(CONTEXT_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
        || Agent::ALL.iter().any(|agent| agent.file() == relative_path)
}

/// The change in `checkout` against `base` (see the module docs for the default).
pub(crate) fn collect(
    checkout: &Path,
    base: Option<&str>,
    filter: &PathFilter,
) -> Result<ChangeSet, DiffError> {
    let git = Git { checkout };
    if git.run(&["rev-parse", "--git-dir"]).is_err() {
        return Err(DiffError::NotGit {
            dir: checkout.display().to_string(),
        });
    }
    let base = match base {
        Some(reference) => explicit_base(&git, reference)?,
        None => default_base(&git)?,
    };
    let mut paths = git.list(&[
        "diff",
        "--name-only",
        "--no-renames",
        "-z",
        &base.commit,
        "--",
    ])?;
    paths.extend(git.list(&["ls-files", "--others", "--exclude-standard", "-z"])?);
    paths.sort();
    paths.dedup();
    let state_prefix = format!("{STATE_DIR}/");
    let mut files = Vec::new();
    let mut left_out = Vec::new();
    for path in paths {
        if path.starts_with(&state_prefix) || !filter.admits(&path) {
            continue;
        }
        let change = file_change(&git, &base.commit, checkout, path);
        if change.before == change.after && change.unreadable.is_none() {
            continue;
        }
        if is_cars_own(&change.path) && !filter.names(&change.path) {
            left_out.push(change.path);
        } else {
            files.push(change);
        }
    }
    Ok(ChangeSet {
        base,
        files,
        paths: filter.patterns.clone(),
        left_out,
    })
}

fn explicit_base(git: &Git<'_>, reference: &str) -> Result<Base, DiffError> {
    let invalid = || DiffError::InvalidRef {
        reference: reference.to_string(),
        message: "git knows no commit by that name".into(),
    };
    if reference.starts_with('-') {
        return Err(invalid());
    }
    let spec = format!("{reference}^{{commit}}");
    let commit = git
        .run(&["rev-parse", "--verify", "--quiet", &spec])
        .map_err(|_| invalid())?;
    Ok(Base {
        label: format!("{reference} ({})", short(&commit)),
        commit,
    })
}

fn default_base(git: &Git<'_>) -> Result<Base, DiffError> {
    let Ok(head) = git.run(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]) else {
        return Ok(Base {
            commit: EMPTY_TREE.into(),
            label: "the empty tree (no commit yet)".into(),
        });
    };
    if let Some(branch) = default_branch(git)
        && let Ok(commit) = git.run(&["merge-base", "HEAD", &branch])
    {
        return Ok(Base {
            label: format!("the merge base with {branch} ({})", short(&commit)),
            commit,
        });
    }
    Ok(Base {
        label: format!("HEAD ({})", short(&head)),
        commit: head,
    })
}

/// `origin/HEAD`'s branch, else the first of `init.defaultBranch`, `main`, `master` that exists.
fn default_branch(git: &Git<'_>) -> Option<String> {
    if let Ok(remote) = git.run(&[
        "symbolic-ref",
        "--quiet",
        "--short",
        "refs/remotes/origin/HEAD",
    ]) {
        return Some(remote);
    }
    let configured = git.run(&["config", "init.defaultBranch"]).ok();
    configured
        .into_iter()
        .chain(["main".to_string(), "master".to_string()])
        .find(|branch| {
            git.run(&[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/heads/{branch}"),
            ])
            .is_ok()
        })
}

fn file_change(git: &Git<'_>, base: &str, checkout: &Path, path: String) -> FileChange {
    let before = git.show(base, &path);
    let (after, refused) = match read_after(checkout, &path) {
        Ok(after) => (after, None),
        Err(why) => (Some(Vec::new()), Some(why)),
    };
    let unreadable = refused.or_else(|| {
        [&before, &after]
            .into_iter()
            .flatten()
            .find_map(|bytes| unreadable(bytes))
    });
    let text = |bytes: Option<Vec<u8>>| match unreadable {
        Some(_) => bytes.map(|_| String::new()),
        None => bytes.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
    };
    FileChange {
        before: text(before),
        after: text(after),
        path,
        unreadable,
    }
}

/// The file as it is in the checkout now (`None`: deleted), read like every project file: only
/// where it resolves inside the checkout, a regular file, at most 2 MiB — a link out of the
/// project, a FIFO or device, or a huge (or sparse) file is named in the prompt, never read.
fn read_after(checkout: &Path, path: &str) -> Result<Option<Vec<u8>>, &'static str> {
    let named = checkout.join(path);
    if std::fs::symlink_metadata(&named).is_err() {
        return Ok(None);
    }
    let Some(inside) = crate::project::Project::at(checkout).inside(&named) else {
        return Err("resolves outside the project (a symbolic link): not shown");
    };
    match crate::files::read_resolved(&inside.resolved, MAX_FILE_BYTES as u64) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(crate::files::FileError::TooLarge { .. }) => Err("larger than 2 MiB: not shown"),
        Err(crate::files::FileError::NotRegular { .. }) => {
            Err("not a regular file (a FIFO, device or folder): not shown")
        }
        Err(error) if error.is_not_found() => Ok(None),
        Err(_) => Err("could not be read: not shown"),
    }
}

fn unreadable(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() > MAX_FILE_BYTES {
        Some("larger than 2 MiB: not shown")
    } else if bytes.contains(&0) || std::str::from_utf8(bytes).is_err() {
        Some("binary file: not shown")
    } else {
        None
    }
}

fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// git in the checkout, argv only, with a timeout.
struct Git<'a> {
    checkout: &'a Path,
}

impl Git<'_> {
    /// stdout, trimmed; an error with git's message when it fails.
    fn run(&self, args: &[&str]) -> Result<String, DiffError> {
        self.bytes(args)
            .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
    }

    fn bytes(&self, args: &[&str]) -> Result<Vec<u8>, DiffError> {
        let mut all = vec!["-c", "core.quotepath=off"];
        all.extend_from_slice(args);
        let failed = |message: String| DiffError::Git {
            args: args.join(" "),
            message,
        };
        let output = git::run(self.checkout, &all, git::Wait::Command)
            .map_err(|error| failed(error.to_string()))?;
        if !output.success() {
            return Err(failed(crate::text::shorten(output.stderr.trim(), 300)));
        }
        Ok(output.stdout.into_bytes())
    }

    /// A `-z` list of paths.
    fn list(&self, args: &[&str]) -> Result<Vec<String>, DiffError> {
        let bytes = self.bytes(args)?;
        Ok(bytes
            .split(|byte| *byte == 0)
            .filter(|path| !path.is_empty())
            .map(|path| String::from_utf8_lossy(path).into_owned())
            .collect())
    }

    /// The file's content at `commit`; `None` when it has none there.
    fn show(&self, commit: &str, path: &str) -> Option<Vec<u8>> {
        if commit == EMPTY_TREE {
            return None;
        }
        self.bytes(&["cat-file", "blob", &format!("{commit}:{path}")])
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_globs_filter_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/fx")).unwrap();
        let patterns = ["src/fx".to_string(), "*.R".to_string()];
        let filter = PathFilter::new(dir.path(), &patterns).unwrap();
        assert!(filter.admits("src/fx/rates.py"));
        assert!(filter.admits("analysis/rollup.R"));
        assert!(!filter.admits("src/app.py"));
        assert!(PathFilter::default().admits("anything"));
        assert!(PathFilter::new(dir.path(), &["src/[".to_string()]).is_err());
    }

    #[test]
    fn cars_own_files_come_in_only_when_named() {
        let dir = tempfile::tempdir().unwrap();
        for own in [
            "CLAUDE.md",
            ".claude/settings.json",
            ".claude/review-contexts/fx.md",
        ] {
            assert!(is_cars_own(own), "{own}");
        }
        assert!(!is_cars_own("docs/CLAUDE.md.bak"));
        assert!(!is_cars_own(".claude/commands/review.md"));
        let named = |patterns: &[&str], path: &str| {
            let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
            PathFilter::new(dir.path(), &patterns).unwrap().names(path)
        };
        assert!(named(&["./CLAUDE.md"], "CLAUDE.md"));
        assert!(named(&[".claude/"], ".claude/settings.json"));
        assert!(!named(&["*.md"], "CLAUDE.md"));
        assert!(!named(&[".cl"], ".claude/settings.json"));
        assert!(!named(&[], "CLAUDE.md"));
    }

    #[test]
    fn hash_follows_every_path_and_content() {
        let change = |after: &str| ChangeSet {
            base: Base {
                commit: "c".into(),
                label: "c".into(),
            },
            files: vec![FileChange {
                path: "a.py".into(),
                before: None,
                after: Some(after.into()),
                unreadable: None,
            }],
            paths: Vec::new(),
            left_out: Vec::new(),
        };
        assert_eq!(change("x").hash(), change("x").hash());
        assert_ne!(change("x").hash(), change("y").hash());
    }
}
