//! Which Python checks the project's Python files: the project's own, found in this order: the
//! `pythonInterpreter` setting (a path relative to the project root, or a program on PATH), the
//! Python of the project's environments ([`environments`]: `$VIRTUAL_ENV`, `.venv`/`venv`/any root
//! folder with a `pyvenv.cfg`, poetry, pipenv, `$CONDA_PREFIX`), then `python3` (or `python`) on
//! PATH. Whichever runs, the site-packages of every environment found count for imports.
//!
//! Security invariant: a program whose real path (symlinks resolved) lies inside the project is
//! never run, whatever names it: a checkout under review could plant `.venv/bin/python`. A venv
//! made by `python -m venv`, uv, poetry or virtualenv links to an interpreter outside the project,
//! so it is used; one with a copied binary is passed over with a note (its packages still count).
//!
//! A program found on PATH may be a pyenv/asdf shim: a shell script that costs ~150 ms per call,
//! while the binary it resolves to starts in ~10 ms. Resolution runs
//! `python3 -c 'import sys; print(sys.executable)'` once, in the project folder (pyenv picks the
//! version from `.python-version` there), and caches the answer in
//! `$XDG_CACHE_HOME/car/python-interpreters.json` (else `~/.cache/car/…`), keyed by everything the
//! answer depends on: the shim's path, `PATH`, `VIRTUAL_ENV`, `PYENV_VERSION`, `CONDA_PREFIX`, the
//! nearest `.python-version` / `.tool-versions` above the project and pyenv's global `version`
//! file. Projects that pin nothing share one entry. A cached binary that no longer exists is
//! resolved again. The cache is only a cache: losing a concurrent write, or having no cache
//! folder, costs one extra resolution, nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::process::{find_on_path, run_command};
use crate::validate::python::environments::{self, Environment};

/// A shim may compile or download on first use; give it time once.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(15);

/// Entries kept in the cache file; older ones are dropped (any, it is a cache).
const MAX_ENTRIES: usize = 64;

const CACHE_FILE: &str = crate::state::names::PYTHON_INTERPRETERS;

/// The Python that checks the project's files, and the environments whose packages count.
#[derive(Debug, Clone)]
pub(crate) struct ProjectPython {
    /// The program to run, or why there is none.
    pub(crate) program: Result<PathBuf, String>,
    /// Every environment of the project (their site-packages are searched for imports, whichever
    /// Python runs).
    pub(crate) environments: Vec<Environment>,
    /// Interpreters passed over, and why (one inside the project is never run).
    pub(crate) notes: Vec<String>,
}

/// Finds the project's Python: the `pythonInterpreter` setting, then the environments
/// ([`environments::environments`]) of the Python project at `python_root` (a monorepo's
/// `backend/`) and then of the checkout at `project_root`, then `python3`/`python` on PATH. A
/// program whose real path is inside the checkout is never run (a checkout could plant one): it
/// is passed over with a note.
pub(crate) fn find(
    explicit: Option<&str>,
    project_root: &Path,
    python_root: &Path,
) -> ProjectPython {
    let mut environments = environments::environments(python_root);
    if python_root != project_root {
        for environment in environments::environments(project_root) {
            if !environments
                .iter()
                .any(|known| known.dir == environment.dir)
            {
                environments.push(environment);
            }
        }
    }
    let mut notes = Vec::new();
    let mut program = None;
    if let Some(explicit) = explicit {
        match configured(explicit, project_root).and_then(|path| outside(&path, project_root)) {
            Ok(path) => program = Some(Ok(path)),
            Err(why) => notes.push(why),
        }
    }
    for environment in &environments {
        if program.is_some() {
            break;
        }
        let Some(python) = environment.python() else {
            continue;
        };
        match outside(&python, project_root) {
            Ok(path) => program = Some(Ok(path)),
            Err(why) => notes.push(format!("{} ({why})", environment.origin.describe())),
        }
    }
    let program = program.unwrap_or_else(|| resolve(None, project_root));
    ProjectPython {
        program,
        environments,
        notes,
    }
}

/// The configured interpreter: a path (relative to the project root) or a program on PATH.
fn configured(explicit: &str, project_root: &Path) -> Result<PathBuf, String> {
    if explicit.contains('/') || explicit.contains('\\') {
        let path = project_root.join(explicit);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "the configured pythonInterpreter `{explicit}` was not found"
            ))
        };
    }
    resolve(Some(explicit), project_root)
}

/// `program` when its real path is outside the project; car never runs the project's own files.
fn outside(program: &Path, project_root: &Path) -> Result<PathBuf, String> {
    let real = program
        .canonicalize()
        .unwrap_or_else(|_| program.to_path_buf());
    let root = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    if real.starts_with(&root) {
        return Err(format!(
            "`{}` is a program inside the project; car never runs the project's files, so it was not used",
            program.display()
        ));
    }
    Ok(program.to_path_buf())
}

/// A program on PATH: `explicit` as given (it may be a venv's python on purpose), else `python3`
/// (or `python`) resolved past shims and cached.
pub(crate) fn resolve(explicit: Option<&str>, project_root: &Path) -> Result<PathBuf, String> {
    let candidate = match explicit {
        Some(name) => find_on_path(name)
            .ok_or_else(|| format!("the configured pythonInterpreter `{name}` was not found"))?,
        None => ["python3", "python"]
            .iter()
            .find_map(|name| find_on_path(name))
            .ok_or_else(|| "no Python interpreter (python3 or python) on PATH".to_string())?,
    };
    let candidate = outside(&candidate, project_root)?;
    if explicit.is_some() {
        return Ok(candidate);
    }
    let key = cache_key(&candidate, project_root);
    let cache = cache_path();
    if let Some(cached) = cache.as_deref().and_then(|path| lookup(path, &key)) {
        return Ok(cached);
    }
    let real = ask_executable(&candidate, project_root)?;
    let real = outside(&real, project_root)?;
    if let Some(cache) = cache {
        store(&cache, &key, &real);
    }
    Ok(real)
}

/// `sys.executable` as the candidate (a shim or the binary itself) reports it.
fn ask_executable(candidate: &Path, project_root: &Path) -> Result<PathBuf, String> {
    let mut command = std::process::Command::new(candidate);
    command
        .args(["-I", "-S", "-c", "import sys; print(sys.executable)"])
        .current_dir(project_root);
    let output = run_command(command, None, RESOLVE_TIMEOUT).map_err(|error| error.to_string())?;
    let printed = PathBuf::from(output.stdout.trim());
    if output.success() && printed.is_absolute() && printed.is_file() {
        Ok(printed)
    } else {
        let why = output.stderr.lines().next().unwrap_or("no answer").trim();
        Err(format!(
            "`{}` did not run ({why})",
            candidate.to_string_lossy()
        ))
    }
}

fn cache_key(candidate: &Path, project_root: &Path) -> String {
    let mut hasher = Sha256::new();
    hasher.update(candidate.as_os_str().as_encoded_bytes());
    for name in ["PATH", "VIRTUAL_ENV", "PYENV_VERSION", "CONDA_PREFIX"] {
        hasher.update([0]);
        hasher.update(
            std::env::var_os(name)
                .unwrap_or_default()
                .as_encoded_bytes(),
        );
    }
    for pin in version_pins(project_root) {
        hasher.update([0]);
        hasher.update(pin.as_os_str().as_encoded_bytes());
        // Bounded and a regular file only: a pin is a line; a giant or a FIFO in its place must
        // not cost the edit anything.
        hasher.update(crate::files::read_bounded(&pin, MAX_PIN_BYTES).unwrap_or_default());
    }
    hasher
        .finalize()
        .iter()
        .take(12)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The largest version pin file read (`.python-version`, `.tool-versions`: a few lines).
const MAX_PIN_BYTES: u64 = 64 * 1024;

/// The files that pin a Python version for this project: the nearest `.python-version` and
/// `.tool-versions` (pyenv, asdf) at or above the root, and pyenv's global `version` file.
fn version_pins(project_root: &Path) -> Vec<PathBuf> {
    let mut pins = Vec::new();
    for name in [".python-version", ".tool-versions"] {
        if let Some(pin) = project_root
            .ancestors()
            .map(|dir| dir.join(name))
            .find(|pin| pin.is_file())
        {
            pins.push(pin);
        }
    }
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| crate::paths::home_dir().map(|home| home.join(".pyenv")));
    if let Some(global) = pyenv_root.map(|root| root.join("version"))
        && global.is_file()
    {
        pins.push(global);
    }
    pins
}

/// The cache file, when there is a place for it (car's cache folder: never under a home that
/// does not exist).
pub(crate) fn cache_path() -> Option<PathBuf> {
    crate::paths::cache_dir().map(|dir| dir.join(CACHE_FILE))
}

fn read_cache(path: &Path) -> BTreeMap<String, String> {
    crate::files::read_optional(path)
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn lookup(path: &Path, key: &str) -> Option<PathBuf> {
    let cached = PathBuf::from(read_cache(path).remove(key)?);
    cached.is_file().then_some(cached)
}

fn store(path: &Path, key: &str, real: &Path) {
    let mut entries = read_cache(path);
    while entries.len() >= MAX_ENTRIES {
        let Some(first) = entries.keys().next().cloned() else {
            break;
        };
        entries.remove(&first);
    }
    entries.insert(key.to_string(), real.to_string_lossy().into_owned());
    if let Ok(text) = serde_json::to_string_pretty(&entries) {
        let _ = crate::files::write_atomic(path, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_version_pins_and_program() {
        let unpinned = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let pinned = tempfile::tempdir().unwrap();
        std::fs::write(pinned.path().join(".python-version"), "3.12.1\n").unwrap();
        let python = Path::new("/usr/bin/python3");
        let a = cache_key(python, unpinned.path());
        assert_eq!(
            a,
            cache_key(python, other.path()),
            "unpinned projects share"
        );
        assert_ne!(a, cache_key(python, pinned.path()));
        assert_ne!(
            a,
            cache_key(Path::new("/usr/local/bin/python3"), unpinned.path())
        );
        let before = cache_key(python, pinned.path());
        std::fs::write(pinned.path().join(".python-version"), "3.11.7\n").unwrap();
        assert_ne!(before, cache_key(python, pinned.path()));
    }

    #[test]
    fn cache_round_trip_and_stale_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("car").join(CACHE_FILE);
        let real = dir.path().join("python3.99");
        std::fs::write(&real, "").unwrap();
        store(&cache, "k", &real);
        assert_eq!(lookup(&cache, "k"), Some(real.clone()));
        assert_eq!(lookup(&cache, "other"), None);
        std::fs::remove_file(&real).unwrap();
        assert_eq!(lookup(&cache, "k"), None, "a vanished binary is not used");
    }

    #[test]
    fn missing_explicit_interpreter_is_named() {
        let error = resolve(Some("car-no-such-python"), Path::new(".")).unwrap_err();
        assert!(error.contains("car-no-such-python"), "{error}");
    }
}
