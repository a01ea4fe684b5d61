//! The project a hook or command works on, and where its state lives.
//!
//! The project root is the git top level of the working directory; in a linked worktree it is the
//! main worktree (so every worktree shares one lesson library and one review state); outside git it
//! is the directory itself. The root is found by reading `.git` files directly, without starting
//! `git`, because this runs on every edit.
//!
//! Two folders, one invariant: car's *state* (lessons, settings, sessions) lives under the root;
//! the *files* an agent edits live in the checkout it works in — the root itself, or a linked
//! worktree anywhere on disk. Paths recorded for files are relative to that checkout.
//!
//! Containment: a file belongs to the project only by where it *resolves* (every symbolic link
//! followed). A path whose resolved target is outside the checkout is never read, quoted, learned
//! from or sent to a reviewer — a link `src/pw.json → /etc/passwd` is outside, however it is
//! named.

use std::path::{Component, Path, PathBuf};

use crate::git;
use crate::state::names;

pub(crate) use crate::files::STATE_DIR;

#[derive(Debug, Clone)]
pub struct Project {
    root: PathBuf,
    /// The top level of the checkout the work happens in (differs from `root` in a linked
    /// worktree).
    checkout: PathBuf,
    /// The checkout with every link resolved, found once (containment checks compare with it).
    canonical_checkout: std::sync::OnceLock<PathBuf>,
}

/// Two projects are the same when they have the same root and checkout (the cached canonical
/// checkout is derived from them).
impl PartialEq for Project {
    fn eq(&self, other: &Project) -> bool {
        self.root == other.root && self.checkout == other.checkout
    }
}

impl Eq for Project {}

impl Project {
    /// The project that contains `cwd` (see the module docs for the rules).
    pub(crate) fn discover(cwd: &Path) -> Project {
        let start = absolute(cwd);
        let start = start.canonicalize().unwrap_or(start);
        for dir in start.ancestors() {
            let dot_git = dir.join(".git");
            if dot_git.is_dir() {
                return Project::at(dir);
            }
            if dot_git.is_file() {
                let root = main_worktree_of(&dot_git).unwrap_or_else(|| dir.to_path_buf());
                return Project {
                    root,
                    checkout: dir.to_path_buf(),
                    canonical_checkout: std::sync::OnceLock::new(),
                };
            }
        }
        Project::at(&start)
    }

    /// A project rooted exactly at `root`, worked on in place.
    pub fn at(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
            checkout: root.to_path_buf(),
            canonical_checkout: std::sync::OnceLock::new(),
        }
    }

    /// Where car's state lives (the main checkout).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Where the edited files live: the root, or the linked worktree the agent works in.
    pub(crate) fn checkout(&self) -> &Path {
        &self.checkout
    }

    /// `.claude/claude-auto-review/`.
    pub(crate) fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    /// `.claude/settings.json`.
    pub(crate) fn settings_file(&self) -> PathBuf {
        self.root.join(".claude").join("settings.json")
    }

    pub(crate) fn lessons_file(&self) -> PathBuf {
        self.state_dir().join(names::LESSONS)
    }

    pub(crate) fn candidates_file(&self) -> PathBuf {
        self.state_dir().join(names::CANDIDATES)
    }

    /// The project lifecycle log.
    pub(crate) fn state_log(&self) -> PathBuf {
        self.state_dir().join(names::PROJECT_LOG)
    }

    /// The project's own custom validator rules.
    pub(crate) fn validators_dir(&self) -> PathBuf {
        self.state_dir().join(names::VALIDATORS_DIR)
    }

    /// The folder holding one folder per agent session.
    pub(crate) fn clients_dir(&self) -> PathBuf {
        self.state_dir().join(names::CLIENTS_DIR)
    }

    /// The folder of one session ([`folder_name_of`]: never outside `clients/`, never
    /// shared by two ids).
    pub(crate) fn client_dir(&self, session_id: &str) -> PathBuf {
        self.clients_dir().join(folder_name_of(session_id))
    }

    /// The session folders under `clients/` (name, path), sorted by name: the one listing every
    /// caller uses. Links are not session folders, and a linked `clients/` lists nothing.
    pub(crate) fn session_folders(&self) -> Vec<(String, PathBuf)> {
        if crate::files::check_state_links(&self.clients_dir()).is_err() {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(self.clients_dir()) else {
            return Vec::new();
        };
        let mut folders: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .map(|entry| {
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                )
            })
            .collect();
        folders.sort();
        folders
    }

    /// The project's replay scenarios.
    pub(crate) fn replay_dir(&self) -> PathBuf {
        self.root.join("replay-tests")
    }

    /// `path` relative to the checkout with `/` separators, or `None` when it resolves outside
    /// it (see the module docs). Relative paths are taken relative to the checkout.
    pub(crate) fn relative(&self, path: &Path) -> Option<String> {
        self.inside(path).map(|inside| inside.relative)
    }

    /// Where `path` resolves, when that is inside the checkout (`None` otherwise).
    pub(crate) fn inside(&self, path: &Path) -> Option<Inside> {
        let resolved = resolve_existing_prefix(&self.absolute_in_checkout(path));
        let relative = resolved.strip_prefix(self.canonical_checkout()).ok()?;
        let parts: Vec<String> = relative
            .components()
            .map(|component| component.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            return None;
        }
        Some(Inside {
            relative: parts.join("/"),
            resolved,
        })
    }

    /// The text of the checkout's file `relative` (project-relative, `/`-separated), at most
    /// `limit` bytes: only where it resolves inside the checkout, a regular UTF-8 file. A link
    /// leading out of the project, a FIFO or device, a larger or binary file: `None`, nothing read.
    pub(crate) fn read_inside(&self, relative: &str, limit: u64) -> Option<String> {
        let inside = self.inside(&self.checkout.join(relative))?;
        let bytes = crate::files::read_resolved(&inside.resolved, limit).ok()?;
        String::from_utf8(bytes).ok()
    }

    /// Refuses a write to `path` (a file of the project car is about to create or change) when it
    /// resolves outside the checkout: a committed link (`CLAUDE.md`, `.claude/settings.json`, a
    /// linked `.claude/review-contexts/`) must not make car write elsewhere.
    pub(crate) fn check_write_inside(&self, path: &Path) -> Result<(), crate::files::FileError> {
        match self.inside(path) {
            Some(_) => Ok(()),
            None => Err(crate::files::FileError::OutsideProject {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Whether `path` is *named* inside the checkout, links not followed: with [`Project::inside`]
    /// `None`, such a path is a link leading out of the project.
    pub(crate) fn is_named_inside(&self, path: &Path) -> bool {
        let named = self.absolute_in_checkout(path);
        named != self.checkout
            && (named.starts_with(&self.checkout) || named.starts_with(self.canonical_checkout()))
    }

    fn absolute_in_checkout(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            normalize(path)
        } else {
            normalize(&self.checkout.join(path))
        }
    }

    fn canonical_checkout(&self) -> &Path {
        self.canonical_checkout.get_or_init(|| {
            self.checkout
                .canonicalize()
                .unwrap_or_else(|_| self.checkout.clone())
        })
    }

    /// The committed (git HEAD) content of a checkout-relative file; `None` outside git, for a
    /// file HEAD does not have, or when git does not answer in a hook's time ([`git::Wait::Hook`]).
    pub(crate) fn head_version(&self, relative_path: &str) -> Option<String> {
        if !git::is_checkout(&self.checkout) {
            return None;
        }
        let spec = format!("HEAD:{relative_path}");
        let output = git::run(&self.checkout, &["show", &spec], git::Wait::Hook).ok()?;
        output.success().then_some(output.stdout)
    }

    /// Whether git ignores the checkout-relative file (`git check-ignore`); `false` outside git or
    /// when git does not answer in a hook's time.
    pub(crate) fn is_ignored(&self, relative_path: &str) -> bool {
        if !git::is_checkout(&self.checkout) {
            return false;
        }
        let args = ["check-ignore", "-q", "--", relative_path];
        git::run(&self.checkout, &args, git::Wait::Hook)
            .is_ok_and(|output| output.code == Some(0) && !output.timed_out)
    }

    /// Turns a path from a payload (absolute, or relative to `cwd`) into an absolute path.
    pub(crate) fn resolve(&self, cwd: &Path, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() {
            normalize(path)
        } else {
            normalize(&cwd.join(path))
        }
    }
}

/// A path that resolves inside the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inside {
    /// Relative to the checkout, `/`-separated: where the path resolves, not how it was named.
    pub(crate) relative: String,
    /// The resolved absolute path (no link left in its existing part).
    pub(crate) resolved: PathBuf,
}

/// Where `path` (absolute, or relative to `base`) resolves, when that is inside `base`: for files
/// named by settings and rules relative to the project root.
fn resolve_inside(base: &Path, path: &Path) -> Option<PathBuf> {
    let joined = normalize(&base.join(path));
    let base = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    let resolved = resolve_existing_prefix(&joined);
    resolved.starts_with(base).then_some(resolved)
}

/// The bytes of a file named by settings or rules (absolute, or relative to `base`, the project
/// root), at most `limit`: read as [`Project::read_inside`] reads, only where it resolves inside
/// `base` and a regular file; a link that appears in its last component meanwhile is refused.
/// `None` when it is missing, outside, too large or not a regular file.
pub(crate) fn read_inside_of(base: &Path, path: &Path, limit: u64) -> Option<Vec<u8>> {
    crate::files::read_resolved(&resolve_inside(base, path)?, limit).ok()
}

/// Reads `gitdir:` from a `.git` file and follows `commondir` to the main repository; the main
/// worktree is the parent of that repository's `.git` folder. Submodules (no `commondir`) are
/// their own root.
fn main_worktree_of(dot_git_file: &Path) -> Option<PathBuf> {
    let text = read_small(dot_git_file)?;
    let git_dir = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))?
        .trim();
    let base = dot_git_file.parent()?;
    let git_dir = normalize(&base.join(git_dir));
    let common = read_small(&git_dir.join("commondir"))?;
    let common_dir = normalize(&git_dir.join(common.trim()));
    if common_dir.file_name()? == ".git" {
        return common_dir.parent().map(Path::to_path_buf);
    }
    None
}

/// A small git bookkeeping file (`.git`, `commondir`): a regular file of a few bytes.
fn read_small(path: &Path) -> Option<String> {
    crate::files::read_text_or_none(path, 64 * 1024)
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Removes `.` and resolves `..` lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Canonicalises the longest existing prefix of `path` (so symlinked roots such as `/tmp` on
/// macOS compare equal) and appends the rest unchanged.
fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(found) = current.canonicalize() {
            let mut out = found;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (
            current.file_name().map(|name| name.to_owned()),
            current.parent(),
        ) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                current = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The longest session id used as a folder name as it is.
const PLAIN_SESSION_BYTES: usize = 64;

/// The folder name of an id (a session id, a deep review context), one to one: a plain id (letters, digits, `-`, `_`, `.`, at
/// most 64 bytes, not only dots — every UUID an agent sends) is its own name, so existing folders
/// keep theirs; any other id becomes its sanitised first 40 characters, `~`, and 16 hex digits of
/// its SHA-256. `~` never occurs in a plain id, so `a/b`, `a_b` and `a\nb` get three folders.
pub(crate) fn folder_name_of(id: &str) -> String {
    let is_plain = !id.is_empty()
        && id.len() <= PLAIN_SESSION_BYTES
        && !id.chars().all(|c| c == '.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if is_plain {
        return id.to_string();
    }
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(id.as_bytes())
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let readable: String = sanitize_component(id).chars().take(40).collect();
    format!("{readable}~{digest}")
}

/// Keeps letters, digits, `-`, `_` and `.`; anything else becomes `_`. Never empty, never `..`.
pub(crate) fn sanitize_component(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.chars().all(|c| c == '.') {
        "unknown".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_inside_and_outside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let project = Project::discover(dir.path());
        let inside = dir.path().join("src/app.py");
        assert_eq!(project.relative(&inside).as_deref(), Some("src/app.py"));
        assert_eq!(project.relative(Path::new("/etc/passwd")), None);
        assert_eq!(project.relative(&dir.path().join("../x")), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_project_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        std::fs::write(dir.path().join("elsewhere/secret"), "s").unwrap();
        std::fs::write(root.join("real.py"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere/secret"), root.join("pw.json"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join("ext")).unwrap();
        std::os::unix::fs::symlink(root.join("real.py"), root.join("alias.py")).unwrap();
        let project = Project::discover(&root);
        assert_eq!(project.relative(&root.join("pw.json")), None);
        assert_eq!(project.relative(&root.join("ext/secret")), None);
        assert_eq!(project.relative(&root.join("ext/new-file")), None);
        assert!(project.is_named_inside(&root.join("pw.json")));
        assert!(!project.is_named_inside(Path::new("/etc/passwd")));
        assert_eq!(
            project.relative(&root.join("alias.py")).as_deref(),
            Some("real.py")
        );
        assert!(resolve_inside(&root, Path::new("pw.json")).is_none());
        assert!(resolve_inside(&root, Path::new("../elsewhere/secret")).is_none());
        assert!(resolve_inside(&root, Path::new("real.py")).is_some());
        assert!(read_inside_of(&root, Path::new("pw.json"), 1024).is_none());
        assert_eq!(
            read_inside_of(&root, Path::new("real.py"), 1024).unwrap(),
            b"x"
        );
    }

    #[test]
    fn session_folders_are_one_to_one() {
        let ids = [
            "a/b",
            "a_b",
            "a\nb",
            "..",
            ".",
            "",
            "unknown",
            "a~b",
            &"x".repeat(65),
        ];
        let names: std::collections::HashSet<String> =
            ids.iter().map(|id| folder_name_of(id)).collect();
        assert_eq!(names.len(), ids.len(), "{names:?}");
        let uuid = "3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60";
        assert_eq!(
            folder_name_of(uuid),
            uuid,
            "existing folders keep their names"
        );
        for name in &names {
            assert!(!name.contains('/') && name != ".." && name != "." && !name.is_empty());
        }
    }

    #[test]
    fn sanitizes_session_ids() {
        assert_eq!(sanitize_component("../../etc"), ".._.._etc");
        assert_eq!(sanitize_component(".."), "unknown");
        assert_eq!(sanitize_component("3f1c-ab_9"), "3f1c-ab_9");
    }
}
