//! How this `car` was installed: by the Python wheel (`pip install car-hooks`), by the npm package
//! (`npm i car-hooks`, whose per-platform package holds the binary), by `cargo install`, or built
//! from source. `car --version` names it, and the hooks `car install` writes name a packaged car
//! by its path.
//!
//! Invariants: the answer is read from the files the installer laid down next to the binary and
//! nothing else (no marker written by car, no environment variable), so it holds whoever starts
//! the binary: the npm launcher, a hook, a shell. A wheel is recognised by its `.dist-info` in the
//! same prefix whose `RECORD` lists this very binary; an npm package by the `package.json` of the
//! per-platform package the binary sits in; `cargo install` by cargo's `.crates2.json` in the root
//! above `bin/`.
//!
//! Why a path in the hooks: a package puts `car` where PATH may not look (a virtual environment,
//! `node_modules`, npx's cache) or behind another `car` (the Python claude-auto-review tool installs
//! one too); the hooks must run the car that was installed, whatever PATH says when the agent
//! starts. A cargo-installed or self-built car keeps `car hook …` on PATH, as before.

use std::path::{Path, PathBuf};

/// The distribution name on PyPI and npm (docs/install.md says why this name).
pub(crate) const DISTRIBUTION: &str = "car-hooks";

/// The npm scope of the per-platform packages (`@car-hooks/linux-x64`).
const NPM_SCOPE: &str = "@car-hooks/";

/// How the running binary was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Installation {
    /// The Python wheel: `pip`, `uv`, `pipx` … (`installer`, from the wheel's `INSTALLER` file).
    Wheel {
        binary: PathBuf,
        version: String,
        installer: Option<String>,
    },
    /// The npm per-platform package (`package`, e.g. `@car-hooks/linux-x64`).
    Npm {
        binary: PathBuf,
        package: String,
        version: String,
    },
    /// `cargo install`.
    Cargo { binary: PathBuf },
    /// Anything else: a build run from its folder, a copy.
    Source { binary: PathBuf },
}

impl Installation {
    /// Looks at the running binary.
    pub(crate) fn detect() -> Installation {
        match std::env::current_exe().and_then(|path| path.canonicalize()) {
            Ok(binary) => Installation::of(binary),
            Err(_) => Installation::Source {
                binary: PathBuf::from("car"),
            },
        }
    }

    /// How the binary at `binary` (a canonical path) was installed.
    pub(crate) fn of(binary: PathBuf) -> Installation {
        let Some(bin_dir) = binary.parent() else {
            return Installation::Source { binary };
        };
        if let Some((package, version)) = npm_package(bin_dir) {
            return Installation::Npm {
                binary,
                package,
                version,
            };
        }
        if let Some((version, installer)) = wheel(&binary, bin_dir) {
            return Installation::Wheel {
                binary,
                version,
                installer,
            };
        }
        if bin_dir
            .parent()
            .is_some_and(|root| cargo_installed(&root.join(".crates2.json")))
        {
            return Installation::Cargo { binary };
        }
        Installation::Source { binary }
    }

    pub(crate) fn binary(&self) -> &Path {
        match self {
            Installation::Wheel { binary, .. }
            | Installation::Npm { binary, .. }
            | Installation::Cargo { binary }
            | Installation::Source { binary } => binary,
        }
    }

    /// Whether a package manager put this binary where it is (its hooks name it by path).
    pub(crate) fn is_package(&self) -> bool {
        matches!(self, Installation::Wheel { .. } | Installation::Npm { .. })
    }

    /// Whether the binary sits in npx's cache (`npx car-hooks …` without installing), which npm
    /// may clear at any time.
    pub(crate) fn is_npx_cache(&self) -> bool {
        matches!(self, Installation::Npm { binary, .. }
            if binary.components().any(|part| part.as_os_str() == "_npx"))
    }

    /// What `car --version` prints: the version, then how and where it was installed.
    pub(crate) fn version_line(&self) -> String {
        format!(
            "car {} ({}: {})",
            env!("CARGO_PKG_VERSION"),
            self.source(),
            self.binary().display()
        )
    }

    /// How the binary came here, in words: `Python wheel car-hooks 0.1.0, installed by pip`.
    pub(crate) fn source(&self) -> String {
        match self {
            Installation::Wheel {
                version, installer, ..
            } => format!(
                "Python wheel {DISTRIBUTION} {version}, installed by {}",
                installer.as_deref().unwrap_or("an unknown installer")
            ),
            Installation::Npm {
                package, version, ..
            } => {
                let place = if self.is_npx_cache() {
                    ", in npx's cache"
                } else {
                    ""
                };
                format!("npm package {package} {version}{place}")
            }
            Installation::Cargo { .. } => "cargo install".to_string(),
            Installation::Source { .. } => "built from source".to_string(),
        }
    }

    /// The program the hook commands start with: this binary's path for a packaged car (quoted
    /// for a shell when it needs it), else `car`, found on the agent's PATH.
    pub(crate) fn hook_program(&self) -> String {
        if !self.is_package() {
            return "car".to_string();
        }
        crate::text::shell_word(&self.binary().to_string_lossy())
    }

    /// The program an agent starts for car's MCP server: the same car the hooks run, as a
    /// program name rather than a shell word (the agents start MCP servers without a shell).
    pub(crate) fn mcp_program(&self) -> String {
        if !self.is_package() {
            return "car".to_string();
        }
        self.binary().to_string_lossy().into_owned()
    }
}

/// The per-platform npm package the binary's folder belongs to: `<package>/bin/car` with the
/// package's `package.json` naming a package of car's scope.
fn npm_package(bin_dir: &Path) -> Option<(String, String)> {
    let manifest = bin_dir.parent()?.join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let name = value.get("name")?.as_str()?;
    let version = value.get("version")?.as_str()?;
    name.starts_with(NPM_SCOPE)
        .then(|| (name.to_string(), version.to_string()))
}

/// The wheel that installed `binary`: a `car_hooks-VERSION.dist-info` in a `site-packages` (or
/// Debian's `dist-packages`) of the same prefix whose `RECORD` lists the binary. Returns the
/// version and the installer.
fn wheel(binary: &Path, bin_dir: &Path) -> Option<(String, Option<String>)> {
    let prefix = bin_dir.parent()?;
    let prefix_name = DISTRIBUTION.replace('-', "_");
    for site_packages in site_packages_dirs(prefix) {
        let Ok(entries) = std::fs::read_dir(&site_packages) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(version) = name
                .strip_prefix(&format!("{prefix_name}-"))
                .and_then(|rest| rest.strip_suffix(".dist-info"))
            else {
                continue;
            };
            let dist_info = entry.path();
            if record_lists(&dist_info.join("RECORD"), &site_packages, binary) {
                let installer = std::fs::read_to_string(dist_info.join("INSTALLER"))
                    .ok()
                    .map(|text| text.trim().to_string())
                    .filter(|text| !text.is_empty());
                return Some((version.to_string(), installer));
            }
        }
    }
    None
}

/// Where a prefix keeps its packages: `lib/pythonX.Y/site-packages` (a virtual environment,
/// `--user`, `/usr/local`), `…/dist-packages` (Debian), `Lib/site-packages` (Windows).
fn site_packages_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut found = vec![prefix.join("Lib").join("site-packages")];
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("python") {
                for packages in ["site-packages", "dist-packages"] {
                    found.push(entry.path().join(packages));
                }
            }
        }
    }
    found
}

/// Whether a wheel's `RECORD` (paths relative to `site_packages`, then hash and size) lists
/// `binary`.
fn record_lists(record: &Path, site_packages: &Path, binary: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(record) else {
        return false;
    };
    text.lines()
        .filter_map(|line| line.split(',').next())
        .filter(|path| {
            Path::new(path)
                .file_stem()
                .is_some_and(|stem| stem == "car")
        })
        .any(|path| {
            site_packages
                .join(path)
                .canonicalize()
                .is_ok_and(|listed| listed == binary)
        })
}

/// Whether cargo's install record lists this crate.
fn cargo_installed(crates: &Path) -> bool {
    std::fs::read_to_string(crates)
        .is_ok_and(|text| text.contains(&format!("\"{} ", env!("CARGO_PKG_NAME"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_wheel_is_recognised_by_the_record_that_lists_the_binary() {
        let prefix = tempfile::tempdir().unwrap();
        let prefix = prefix.path().canonicalize().unwrap();
        let binary = prefix.join("bin/car");
        write(&binary, "");
        let dist_info = prefix.join("lib/python3.12/site-packages/car_hooks-0.3.1.dist-info");
        write(&dist_info.join("INSTALLER"), "uv\n");
        write(
            &dist_info.join("RECORD"),
            "car_hooks-0.3.1.dist-info/METADATA,sha256=x,10\n../../../bin/car,sha256=y,20\n",
        );
        let found = Installation::of(binary.clone());
        assert_eq!(
            found,
            Installation::Wheel {
                binary: binary.clone(),
                version: "0.3.1".into(),
                installer: Some("uv".into())
            }
        );
        assert!(
            found
                .version_line()
                .contains("Python wheel car-hooks 0.3.1, installed by uv: ")
        );
        assert_eq!(found.hook_program(), binary.to_string_lossy());

        // Another car in the same prefix (the Python tool's script) is not the wheel's.
        let other = prefix.join("bin/car-other");
        write(&other, "");
        assert!(matches!(
            Installation::of(other),
            Installation::Source { .. }
        ));
    }

    #[test]
    fn an_npm_platform_package_is_recognised_by_its_manifest() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let package = root.join("node_modules/@car-hooks/linux-x64");
        write(
            &package.join("package.json"),
            r#"{"name": "@car-hooks/linux-x64", "version": "0.1.0"}"#,
        );
        let binary = package.join("bin/car");
        write(&binary, "");
        let found = Installation::of(binary.clone());
        assert!(found.is_package());
        assert!(!found.is_npx_cache());
        assert!(
            found
                .version_line()
                .contains("npm package @car-hooks/linux-x64 0.1.0: ")
        );

        let foreign = root.join("node_modules/car/bin/car");
        write(
            &root.join("node_modules/car/package.json"),
            r#"{"name": "car", "version": "9.0.0"}"#,
        );
        write(&foreign, "");
        assert!(!Installation::of(foreign).is_package());
    }

    #[test]
    fn hooks_name_a_packaged_car_by_its_path_and_any_other_by_path_lookup() {
        let npx = Installation::Npm {
            binary: PathBuf::from(
                "/home/a b/.npm/_npx/1f/node_modules/@car-hooks/linux-x64/bin/car",
            ),
            package: "@car-hooks/linux-x64".into(),
            version: "0.1.0".into(),
        };
        assert!(npx.is_npx_cache());
        assert_eq!(
            npx.hook_program(),
            "'/home/a b/.npm/_npx/1f/node_modules/@car-hooks/linux-x64/bin/car'"
        );
        let cargo = Installation::Cargo {
            binary: PathBuf::from("/home/a/.cargo/bin/car"),
        };
        assert_eq!(cargo.hook_program(), "car");
    }
}
