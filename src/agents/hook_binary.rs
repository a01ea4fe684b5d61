//! Which `car` the installed hooks will run. Every hook entry is `car hook …`, found on the
//! agent's PATH, which is not always the `car` that ran `car install`: none at all (a build run
//! from its folder), an older one, or the Python tool of the same name. `car install` warns and
//! `car status` shows it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The `car` on PATH compared with the running binary.
#[derive(Debug)]
pub(crate) enum HookBinary {
    /// PATH finds this very binary.
    ThisOne(PathBuf),
    /// PATH finds another car binary.
    Another { found: PathBuf, this: PathBuf },
    /// PATH finds the Python claude-auto-review tool's console script.
    Python(PathBuf),
    /// PATH has no `car`: every hook would fail to start.
    Missing { this: PathBuf },
}

impl HookBinary {
    /// Looks `car` up on this process's PATH.
    pub(crate) fn find() -> HookBinary {
        let this = std::env::current_exe()
            .ok()
            .and_then(|path| path.canonicalize().ok())
            .unwrap_or_else(|| PathBuf::from("car"));
        match crate::process::find_on_path("car") {
            None => HookBinary::Missing { this },
            Some(found) if super::migrate::is_python_script(&found) => HookBinary::Python(found),
            Some(found) if same_file(&found, &this) => HookBinary::ThisOne(found),
            Some(found) => HookBinary::Another { found, this },
        }
    }

    /// The line `car status` shows.
    pub(crate) fn describe(&self) -> String {
        match self {
            HookBinary::ThisOne(found) => {
                format!("hooks run: {} (this car)", found.display())
            }
            HookBinary::Another { found, this } => format!(
                "hooks run: {} (another car than this one, {})",
                found.display(),
                this.display()
            ),
            HookBinary::Python(found) => format!(
                "hooks run: {} (the Python claude-auto-review tool)",
                found.display()
            ),
            HookBinary::Missing { .. } => "hooks run: `car`, which is not on PATH".to_string(),
        }
    }

    /// What to tell the person, when anything.
    pub(crate) fn warning(&self) -> Option<String> {
        match self {
            HookBinary::ThisOne(_) => None,
            HookBinary::Another { found, this } => Some(format!(
                "note: the hooks run the `car` on PATH ({}), not this one ({}); put this one first on PATH (or `cargo install --locked --path .`) if it should answer them",
                found.display(),
                this.display()
            )),
            HookBinary::Python(found) => Some(format!(
                "warning: the `car` on PATH ({}) is the Python claude-auto-review tool, so the hooks' `car hook …` would run it; put this car first on PATH (cargo's bin folder) or `pip uninstall claude-auto-review`",
                found.display()
            )),
            HookBinary::Missing { this } => Some(format!(
                "warning: there is no `car` on PATH, so the agents cannot start the hooks (`car hook …`) and nothing is checked; this car is {}: `cargo install --locked --path .` puts it in cargo's bin folder, or add its folder to PATH",
                this.display()
            )),
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        let (path, which) = match self {
            HookBinary::ThisOne(found) => (Some(found), "this"),
            HookBinary::Another { found, .. } => (Some(found), "another"),
            HookBinary::Python(found) => (Some(found), "python"),
            HookBinary::Missing { .. } => (None, "missing"),
        };
        json!({"path": path, "which": which})
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
