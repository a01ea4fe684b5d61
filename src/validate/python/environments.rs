//! The project's Python environments: the virtual environments (and conda environment) whose
//! packages the project's code imports. "The project" is a Python project's folder: the checkout,
//! or in a monorepo the nearest folder above the file with its own project files (see
//! `PythonProjects` in the Python validator). Found without running anything, by file-system look-ups
//! only, in this order:
//!
//! 1. `$VIRTUAL_ENV` (an activated environment);
//! 2. the project's own: `.venv`, `venv`, then every other folder at the root holding a
//!    `pyvenv.cfg` (uv, `python -m venv`, virtualenv, poetry/pipenv set to in-project), by name;
//! 3. poetry's environment for this folder (`<virtualenvs>/<name>-<hash>-py<X.Y>`, the hash being
//!    the first 8 characters of the URL-safe base64 of SHA-256 over the project's real path);
//! 4. pipenv's (`<WORKON_HOME>/<name>-<hash>`, hashed over the `Pipfile`'s path), when there is a
//!    `Pipfile`;
//! 5. `$CONDA_PREFIX` (an activated conda environment).
//!
//! Invariant: every environment listed exists (a folder); none is run here. Which one's Python
//! runs the check, and whether it may, is [`super::interpreter`]'s decision.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Where an environment was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    VirtualEnv,
    Project,
    Poetry,
    Pipenv,
    Conda,
}

impl Origin {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Origin::VirtualEnv => "$VIRTUAL_ENV",
            Origin::Project => "the project's virtual environment",
            Origin::Poetry => "poetry's environment",
            Origin::Pipenv => "pipenv's environment",
            Origin::Conda => "$CONDA_PREFIX",
        }
    }
}

/// One environment: its folder and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Environment {
    pub(crate) dir: PathBuf,
    pub(crate) origin: Origin,
}

impl Environment {
    /// Its Python program, if it has one.
    pub(crate) fn python(&self) -> Option<PathBuf> {
        [
            "bin/python3",
            "bin/python",
            "Scripts/python.exe",
            "python.exe",
        ]
        .iter()
        .map(|name| self.dir.join(name))
        .find(|path| path.is_file())
    }

    /// Whether the environment sees only its own packages: a virtual environment whose
    /// `pyvenv.cfg` says `include-system-site-packages = false` (the default of `python -m venv`,
    /// uv and virtualenv). Its base interpreter's site-packages and the user's are not importable
    /// when the project runs in it. An unreadable `pyvenv.cfg`, or one that does not say, is not
    /// isolated (rather miss than false-alarm).
    pub(crate) fn is_isolated(&self) -> bool {
        let Some(config) = crate::files::read_text_or_none(&self.dir.join("pyvenv.cfg"), 64 * 1024)
        else {
            return false;
        };
        config.lines().any(|line| {
            line.split_once('=').is_some_and(|(key, value)| {
                key.trim()
                    .eq_ignore_ascii_case("include-system-site-packages")
                    && value.trim().eq_ignore_ascii_case("false")
            })
        })
    }

    /// Its site-packages folders: `lib/python3.X/site-packages` (and `lib64`), or Windows'
    /// `Lib/site-packages`.
    pub(crate) fn site_packages(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(lib)) else {
                continue;
            };
            let mut versions: Vec<PathBuf> = entries
                .flatten()
                .filter(|entry| entry.file_name().to_string_lossy().starts_with("python"))
                .map(|entry| entry.path().join("site-packages"))
                .filter(|path| path.is_dir())
                .collect();
            versions.sort();
            found.extend(versions);
        }
        let windows = self.dir.join("Lib").join("site-packages");
        if windows.is_dir() {
            found.push(windows);
        }
        found
    }
}

/// Every environment of the project, in the order above, without duplicates.
pub(crate) fn environments(project_root: &Path) -> Vec<Environment> {
    let mut found: Vec<Environment> = Vec::new();
    let mut add = |dir: PathBuf, origin: Origin| {
        let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if dir.is_dir() && !found.iter().any(|env| env.dir == real) {
            found.push(Environment { dir: real, origin });
        }
    };
    if let Some(dir) = env_dir("VIRTUAL_ENV") {
        add(dir, Origin::VirtualEnv);
    }
    for dir in project_venvs(project_root) {
        add(dir, Origin::Project);
    }
    for dir in poetry_envs(project_root) {
        add(dir, Origin::Poetry);
    }
    for dir in pipenv_envs(project_root) {
        add(dir, Origin::Pipenv);
    }
    if let Some(dir) = env_dir("CONDA_PREFIX") {
        add(dir, Origin::Conda);
    }
    found
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// `.venv`, `venv`, then any other root folder with a `pyvenv.cfg`, by name.
fn project_venvs(project_root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = [".venv", "venv"]
        .iter()
        .map(|name| project_root.join(name))
        .filter(|dir| dir.join("pyvenv.cfg").is_file())
        .collect();
    let Ok(entries) = std::fs::read_dir(project_root) else {
        return dirs;
    };
    let mut others: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .filter(|dir| !dirs.contains(dir) && dir.join("pyvenv.cfg").is_file())
        .collect();
    others.sort();
    dirs.extend(others);
    dirs
}

/// The first 8 characters of the URL-safe base64 of `bytes` (6 bytes are exactly 8 characters):
/// how poetry and pipenv name an environment after a path.
fn short_hash(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(8);
    for chunk in digest[..6].chunks(3) {
        let value = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        for shift in [18, 12, 6, 0] {
            out.push(ALPHABET[((value >> shift) & 63) as usize] as char);
        }
    }
    out
}

/// Folders in `parent` whose name contains `needle`, by name.
fn named_in(parent: &Path, matches: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| matches(&entry.file_name().to_string_lossy()))
        .map(|entry| entry.path())
        .collect();
    dirs.sort();
    dirs
}

fn poetry_envs(project_root: &Path) -> Vec<PathBuf> {
    let folder = env_dir("POETRY_VIRTUALENVS_PATH").or_else(|| {
        let cache = env_dir("POETRY_CACHE_DIR")
            .or_else(|| crate::paths::cache_home().map(|cache| cache.join("pypoetry")))?;
        Some(cache.join("virtualenvs"))
    });
    let Some(folder) = folder.filter(|folder| folder.is_dir()) else {
        return Vec::new();
    };
    let real = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    let needle = format!("-{}-py", short_hash(&real.to_string_lossy()));
    named_in(&folder, |name| name.contains(&needle))
}

fn pipenv_envs(project_root: &Path) -> Vec<PathBuf> {
    let pipfile = project_root.join("Pipfile");
    if !pipfile.is_file() {
        return Vec::new();
    }
    let folder = env_dir("WORKON_HOME")
        .or_else(|| crate::paths::data_home().map(|data| data.join("virtualenvs")));
    let Some(folder) = folder.filter(|folder| folder.is_dir()) else {
        return Vec::new();
    };
    let needle = format!("-{}", short_hash(&pipfile.to_string_lossy()));
    named_in(&folder, |name| {
        name.ends_with(&needle) || name.contains(&format!("{needle}-"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_is_poetry_and_pipenv_naming() {
        // base64.urlsafe_b64encode(hashlib.sha256(b"/home/user/proj").digest()).decode()[:8]
        assert_eq!(
            short_hash("/home/user/proj"),
            python_short_hash("/home/user/proj")
        );
        assert_eq!(short_hash("").len(), 8);
    }

    /// The same hash computed by Python, when there is one (the reference implementation).
    fn python_short_hash(text: &str) -> String {
        let script = "import base64,hashlib,sys;print(base64.urlsafe_b64encode(hashlib.sha256(sys.argv[1].encode()).digest()).decode()[:8])";
        match std::process::Command::new("python3")
            .args(["-c", script, text])
            .output()
        {
            Ok(output) if output.status.success() => {
                String::from_utf8_lossy(&output.stdout).trim().to_string()
            }
            _ => short_hash(text),
        }
    }

    #[test]
    fn project_venvs_in_order() {
        let root = tempfile::tempdir().unwrap();
        for name in ["zenv", "venv", ".venv", "aenv", "notenv"] {
            std::fs::create_dir_all(root.path().join(name)).unwrap();
            if name != "notenv" {
                std::fs::write(root.path().join(name).join("pyvenv.cfg"), "home = /usr\n").unwrap();
            }
        }
        let names: Vec<String> = project_venvs(root.path())
            .iter()
            .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [".venv", "venv", "aenv", "zenv"]);
    }

    #[test]
    fn site_packages_of_posix_and_windows_layouts() {
        let root = tempfile::tempdir().unwrap();
        let posix = root.path().join("lib/python3.12/site-packages");
        std::fs::create_dir_all(&posix).unwrap();
        std::fs::create_dir_all(root.path().join("lib/not-python")).unwrap();
        let env = Environment {
            dir: root.path().to_path_buf(),
            origin: Origin::Project,
        };
        assert_eq!(env.site_packages(), [posix]);
    }
}
