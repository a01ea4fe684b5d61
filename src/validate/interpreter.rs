//! Which Python binary checks Python files: the real interpreter, not a pyenv/asdf shim. A shim is
//! a shell script that costs ~150 ms per call; the binary it resolves to starts in ~10 ms.
//!
//! Resolution runs `python3 -c 'import sys; print(sys.executable)'` once, in the project folder
//! (pyenv picks the version from `.python-version` there), and caches the answer in
//! `$XDG_CACHE_HOME/car/python-interpreters.json` (else `~/.cache/car/…`), keyed by everything the
//! answer depends on: the shim's path, `PATH`, `VIRTUAL_ENV`, `PYENV_VERSION`, `CONDA_PREFIX`, the
//! nearest `.python-version` / `.tool-versions` above the project and pyenv's global `version`
//! file. Projects that pin nothing share one entry. A cached binary that no longer exists is
//! resolved again. The cache is only a cache: losing
//! a concurrent write, or having no cache folder, costs one extra resolution, nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::process::{find_on_path, run_command};

/// A shim may compile or download on first use; give it time once.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(15);

/// Entries kept in the cache file; older ones are dropped (any, it is a cache).
const MAX_ENTRIES: usize = 64;

const CACHE_FILE: &str = "python-interpreters.json";

/// The Python to run, or why there is none.
pub(crate) fn resolve(explicit: Option<&str>, project_root: &Path) -> Result<PathBuf, String> {
    if let Some(explicit) = explicit {
        // An explicit choice is trusted as given (it may be a venv's python on purpose).
        return find_on_path(explicit)
            .ok_or_else(|| format!("the configured pythonInterpreter `{explicit}` was not found"));
    }
    let candidate = ["python3", "python"]
        .iter()
        .find_map(|name| find_on_path(name))
        .ok_or_else(|| "no Python interpreter (python3 or python) on PATH".to_string())?;
    let key = cache_key(&candidate, project_root);
    let cache = cache_path();
    if let Some(cached) = cache.as_deref().and_then(|path| lookup(path, &key)) {
        return Ok(cached);
    }
    let real = ask_executable(&candidate, project_root)?;
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
        hasher.update(std::fs::read(&pin).unwrap_or_default());
    }
    hasher
        .finalize()
        .iter()
        .take(12)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

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
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
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
    std::fs::read_to_string(path)
        .ok()
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
