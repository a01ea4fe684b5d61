//! Which `car` the installed hooks will run. A car a package installed (the wheel, the npm
//! package) names itself by its path in the hooks; any other writes `car hook …`, found on the
//! agent's PATH, which is not always the `car` that ran `car install`: none at all (a build run
//! from its folder), an older one, or the Python tool of the same name. `car install` warns and
//! `car status` shows it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::installation::{DISTRIBUTION, Installation};

/// The `car` on PATH compared with the running binary.
#[derive(Debug)]
pub(crate) enum HookBinary {
    /// The hooks name this packaged car by its path; `on_path` is what `car` typed in a shell
    /// runs, when that is another program.
    ByPath {
        installation: Installation,
        on_path: Option<PathBuf>,
    },
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
        let installation = Installation::detect();
        let this = installation.binary().to_path_buf();
        let on_path = crate::process::find_on_path("car");
        if installation.is_package() {
            let on_path = on_path
                .filter(|found| !same_file(found, &this) && !is_npm_launcher_of(found, &this));
            return HookBinary::ByPath {
                installation,
                on_path,
            };
        }
        match on_path {
            None => HookBinary::Missing { this },
            Some(found) if super::migrate::is_python_script(&found) => HookBinary::Python(found),
            Some(found) if same_file(&found, &this) => HookBinary::ThisOne(found),
            Some(found) => HookBinary::Another { found, this },
        }
    }

    /// The line `car status` shows.
    pub(crate) fn describe(&self) -> String {
        match self {
            HookBinary::ByPath { installation, .. } => format!(
                "hooks run: {} (this car, named by its path; {})",
                installation.binary().display(),
                installation.source()
            ),
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
            HookBinary::ByPath {
                installation,
                on_path,
            } => by_path_warning(installation, on_path.as_deref()),
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
            HookBinary::ByPath { installation, .. } => {
                return json!({"path": installation.binary(), "which": "this", "named_by_path": true});
            }
            HookBinary::ThisOne(found) => (Some(found), "this"),
            HookBinary::Another { found, .. } => (Some(found), "another"),
            HookBinary::Python(found) => (Some(found), "python"),
            HookBinary::Missing { .. } => (None, "missing"),
        };
        json!({"path": path, "which": which})
    }
}

/// What to say when the hooks name a packaged car by its path: that npx's cache may vanish, or
/// that `car` typed in a shell runs another program than the hooks do.
fn by_path_warning(installation: &Installation, on_path: Option<&Path>) -> Option<String> {
    if installation.is_npx_cache() {
        return Some(format!(
            "warning: this car runs from npx's cache ({}), which npm may clear, and the hooks name it there; `npm i -D {DISTRIBUTION}` (or `-g`) installs car to stay, then run `car install` again",
            installation.binary().display()
        ));
    }
    let found = on_path?;
    Some(if super::migrate::is_python_script(found) {
        format!(
            "note: the hooks name this car by its path; the `car` on PATH ({}) is the Python claude-auto-review tool, so `car …` typed in a shell runs that one (`pip uninstall claude-auto-review`)",
            found.display()
        )
    } else {
        format!(
            "note: the hooks name this car by its path ({}); `car …` typed in a shell runs another one ({})",
            installation.binary().display(),
            found.display()
        )
    })
}

/// Whether `found` is the npm package's launcher (`node_modules/car-hooks/bin/car.js`, linked as
/// `node_modules/.bin/car`) of the same `node_modules` as `binary`
/// (`node_modules/@car-hooks/PLATFORM/bin/car`): it starts this very binary.
fn is_npm_launcher_of(found: &Path, binary: &Path) -> bool {
    let Ok(launcher) = found.canonicalize() else {
        return false;
    };
    let launcher_modules = launcher.ancestors().nth(3);
    let binary_modules = binary.ancestors().nth(4);
    launcher.file_name().is_some_and(|name| name == "car.js")
        && launcher_modules
            .is_some_and(|modules| modules.join(DISTRIBUTION).join("bin/car.js") == launcher)
        && launcher_modules == binary_modules
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
