//! A `tsconfig.json` (or `jsconfig.json`) as module resolution reads it: `baseUrl` and `paths`,
//! with what the configurations it `extends` set, each relative to the file that set it (as
//! TypeScript does: `paths` resolve against `baseUrl`, or without one against the folder of the
//! configuration that holds `paths`).
//!
//! Invariants: JSON with comments and trailing commas is read through the one JSONC reader; an
//! `extends` car cannot find (a package not installed, a chain deeper than [`MAX_EXTENDS`]) marks
//! the result [`Tsconfig::is_partial`], so no import is blocked on what it might have mapped; a
//! configuration that does not parse is [`Unreadable`].

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::validate::imports::package_json::Unreadable;

const MAX_FILE: u64 = 1 << 20;
/// Deeper `extends` chains than this are not followed (and a loop ends here).
const MAX_EXTENDS: usize = 8;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTsconfig {
    extends: Option<Value>,
    compiler_options: Option<RawCompilerOptions>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCompilerOptions {
    base_url: Option<String>,
    paths: Option<serde_json::Map<String, Value>>,
}

/// The module mapping a configuration (with its `extends`) sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tsconfig {
    pub(crate) path: PathBuf,
    /// `baseUrl`, absolute.
    pub(crate) base_url: Option<PathBuf>,
    /// `paths` patterns with their targets, and the folder the targets are relative to.
    pub(crate) paths: Vec<(String, Vec<String>)>,
    pub(crate) paths_base: PathBuf,
    /// Something it extends could not be read: what it maps is not fully known.
    pub(crate) is_partial: bool,
}

impl Tsconfig {
    /// The configuration at `path` with everything it extends.
    pub(crate) fn read(path: &Path) -> Result<Tsconfig, Unreadable> {
        let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut config = Tsconfig {
            path: path.to_path_buf(),
            paths_base: folder,
            ..Tsconfig::default()
        };
        config.apply(path, 0)?;
        Ok(config)
    }

    /// Applies the file at `path` under what was already set (a file read later in the chain is
    /// a base: it sets only what the ones extending it left unset).
    fn apply(&mut self, path: &Path, depth: usize) -> Result<(), Unreadable> {
        let text = crate::files::read_bounded(path, MAX_FILE)
            .map_err(|error| Unreadable::new(path, error))
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| Unreadable::new(path, "not UTF-8"))
            })?;
        let raw: RawTsconfig = serde_json::from_str(&crate::json_edit::jsonc::to_strict(&text))
            .map_err(|error| Unreadable::new(path, format!("not valid JSON ({error})")))?;
        let folder = path.parent().unwrap_or(Path::new(""));
        let options = raw.compiler_options.unwrap_or_default();
        if self.base_url.is_none() {
            self.base_url = options.base_url.map(|base| lexical(&folder.join(base)));
        }
        if self.paths.is_empty()
            && let Some(paths) = options.paths
        {
            self.paths = paths
                .into_iter()
                .map(|(pattern, targets)| {
                    let targets = match targets {
                        Value::Array(list) => list
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                        _ => Vec::new(),
                    };
                    (pattern, targets)
                })
                .collect();
            self.paths_base = folder.to_path_buf();
        }
        let bases = match raw.extends {
            Some(Value::String(one)) => vec![one],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        // Later entries of an `extends` list override earlier ones: apply the last first.
        for base in bases.iter().rev() {
            match find_base(folder, base).filter(|_| depth < MAX_EXTENDS) {
                Some(base_path) => {
                    if self.apply(&base_path, depth + 1).is_err() {
                        self.is_partial = true;
                    }
                }
                None => self.is_partial = true,
            }
        }
        Ok(())
    }

    /// The files `specifier` maps to through `paths` (every matching pattern's targets, `*`
    /// replaced), `None` when no pattern matches.
    pub(crate) fn mapped(&self, specifier: &str) -> Option<Vec<PathBuf>> {
        let base = self.base_url.as_deref().unwrap_or(&self.paths_base);
        let mut found = None;
        for (pattern, targets) in &self.paths {
            let star = match pattern.split_once('*') {
                None if pattern == specifier => "",
                None => continue,
                Some((prefix, suffix))
                    if specifier.len() >= prefix.len() + suffix.len()
                        && specifier.starts_with(prefix)
                        && specifier.ends_with(suffix) =>
                {
                    &specifier[prefix.len()..specifier.len() - suffix.len()]
                }
                Some(_) => continue,
            };
            let list: &mut Vec<PathBuf> = found.get_or_insert_with(Vec::new);
            list.extend(
                targets
                    .iter()
                    .map(|target| lexical(&base.join(target.replacen('*', star, 1)))),
            );
        }
        found
    }
}

/// `path` with its `.` and `..` parts resolved as text (as TypeScript joins paths).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            part => out.push(part),
        }
    }
    out
}

/// The file an `extends` entry names: a relative or absolute path (`.json` added when missing),
/// else a package's file in a node_modules up the tree.
fn find_base(folder: &Path, base: &str) -> Option<PathBuf> {
    let with_json = |path: PathBuf| {
        if path.is_file() {
            Some(path)
        } else {
            let mut name = path.into_os_string();
            name.push(".json");
            let path = PathBuf::from(name);
            path.is_file().then_some(path)
        }
    };
    if base.starts_with('.') || Path::new(base).is_absolute() {
        return with_json(folder.join(base));
    }
    folder.ancestors().find_map(|dir| {
        let package = dir.join("node_modules").join(base);
        if package.is_dir() {
            let main = package.join("tsconfig.json");
            main.is_file().then_some(main)
        } else {
            with_json(package)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_extends_and_comments() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("tsconfig.base.json"),
            "{\n  // shared\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@app/*\": [\"libs/app/src/*\"], \"exact\": [\"x/y.ts\"],},},\n}\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("apps/web")).unwrap();
        std::fs::write(
            root.join("apps/web/tsconfig.json"),
            r#"{"extends": "../../tsconfig.base"}"#,
        )
        .unwrap();
        let config = Tsconfig::read(&root.join("apps/web/tsconfig.json")).unwrap();
        assert!(!config.is_partial);
        assert_eq!(
            config.mapped("@app/util"),
            Some(vec![root.join("libs/app/src/util")])
        );
        assert_eq!(config.mapped("exact"), Some(vec![root.join("x/y.ts")]));
        assert_eq!(config.mapped("other"), None);
    }

    #[test]
    fn an_extends_not_found_makes_it_partial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tsconfig.json");
        std::fs::write(&path, r#"{"extends": "@tsconfig/missing/tsconfig.json"}"#).unwrap();
        assert!(Tsconfig::read(&path).unwrap().is_partial);
        std::fs::write(&path, "{").unwrap();
        assert!(Tsconfig::read(&path).is_err());
    }
}
