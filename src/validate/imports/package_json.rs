//! A `package.json` as the import check needs it: the package's name, the packages it declares
//! (every dependency kind), its workspaces, its `exports`, whether it maps names itself
//! (parcel's `alias`, `_moduleAliases`), and the files its `browser` object maps for bundlers. The raw serde mirror is converted once into
//! [`PackageJson`].
//!
//! Invariants: a file that is missing is `None`; one that cannot be read or parsed is an
//! [`Unreadable`] naming the file, never an empty manifest (an empty one would declare nothing,
//! and turn every import it declares into a false block).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// Manifests larger than this are not read.
const MAX_FILE: u64 = 4 << 20;

/// A project file that exists but could not be read as what it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {why}; imports of the files it covers are not checked")]
pub(crate) struct Unreadable {
    pub(crate) path: PathBuf,
    pub(crate) why: String,
}

impl Unreadable {
    /// The note naming the file (relative to `checkout` when inside it).
    pub(crate) fn note(&self, checkout: &Path) -> String {
        let shown = self.path.strip_prefix(checkout).unwrap_or(&self.path);
        Unreadable::new(shown, &self.why).to_string()
    }

    pub(crate) fn new(path: &Path, why: impl ToString) -> Unreadable {
        Unreadable {
            path: path.to_path_buf(),
            why: why.to_string(),
        }
    }
}

/// The file as written (only the fields the check reads).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPackageJson {
    name: Option<Value>,
    dependencies: Option<Value>,
    dev_dependencies: Option<Value>,
    peer_dependencies: Option<Value>,
    optional_dependencies: Option<Value>,
    bundle_dependencies: Option<Value>,
    bundled_dependencies: Option<Value>,
    workspaces: Option<Value>,
    exports: Option<Value>,
    alias: Option<Value>,
    #[serde(rename = "_moduleAliases")]
    module_aliases: Option<Value>,
    browser: Option<Value>,
}

/// What one package.json says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PackageJson {
    pub(crate) path: PathBuf,
    pub(crate) name: Option<String>,
    /// Every package named in a dependency list.
    pub(crate) declared: BTreeSet<String>,
    /// Workspace globs (`packages/*`), when this is a workspace root.
    pub(crate) workspaces: Vec<String>,
    pub(crate) exports: Option<Value>,
    /// It maps names to other places itself.
    pub(crate) has_aliases: bool,
    /// The package's files its `browser` object replaces for bundlers, as written
    /// (`"./ext.js": "./out/esm.browser.js"`, or `false`): relative keys only.
    pub(crate) browser_files: Vec<String>,
}

impl PackageJson {
    /// The package.json at `path`: `Ok(None)` when there is none.
    pub(crate) fn read(path: &Path) -> Result<Option<PackageJson>, Unreadable> {
        let bytes = match crate::files::read_bounded(path, MAX_FILE) {
            Ok(bytes) => bytes,
            Err(error) if error.is_not_found() => return Ok(None),
            Err(error) => return Err(Unreadable::new(path, error)),
        };
        let raw: RawPackageJson = serde_json::from_slice(&bytes)
            .map_err(|error| Unreadable::new(path, format!("not valid JSON ({error})")))?;
        Ok(Some(PackageJson::from_raw(path, raw)))
    }

    fn from_raw(path: &Path, raw: RawPackageJson) -> PackageJson {
        let mut declared = BTreeSet::new();
        for list in [
            &raw.dependencies,
            &raw.dev_dependencies,
            &raw.peer_dependencies,
            &raw.optional_dependencies,
        ] {
            if let Some(Value::Object(map)) = list {
                declared.extend(map.keys().cloned());
            }
        }
        for list in [&raw.bundle_dependencies, &raw.bundled_dependencies] {
            if let Some(Value::Array(names)) = list {
                declared.extend(names.iter().filter_map(Value::as_str).map(str::to_string));
            }
        }
        let workspaces = match &raw.workspaces {
            Some(Value::Array(globs)) => strings(globs),
            Some(Value::Object(map)) => match map.get("packages") {
                Some(Value::Array(globs)) => strings(globs),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        PackageJson {
            path: path.to_path_buf(),
            name: raw
                .name
                .as_ref()
                .and_then(Value::as_str)
                .map(str::to_string),
            declared,
            workspaces,
            exports: raw.exports,
            has_aliases: raw.alias.is_some() || raw.module_aliases.is_some(),
            browser_files: match &raw.browser {
                Some(Value::Object(map)) => map
                    .keys()
                    .filter(|key| key.starts_with("./") || key.starts_with("../"))
                    .cloned()
                    .collect(),
                _ => Vec::new(),
            },
        }
    }

    /// Whether the `browser` object maps `target` (a path, `.` and `..` resolved) for bundlers
    /// (the browser field spec: a key matches with or without its extension or `/index` file,
    /// so `./ext` is replaced by `"./ext.js"`'s target).
    pub(crate) fn maps_for_browsers(&self, target: &Path) -> bool {
        let Some(root) = self.path.parent() else {
            return false;
        };
        let target = module_stem(target);
        self.browser_files
            .iter()
            .any(|key| module_stem(&crate::project::normalize(&root.join(key))) == target)
    }

    /// Whether `subpath` (`./sub`, or `.`) is one this package's `exports` lists: a key, a
    /// `*` pattern, or a folder mapping (`./lib/`). `None`: the package has no `exports` map.
    pub(crate) fn exports_subpath(&self, subpath: &str) -> Option<bool> {
        let exports = self.exports.as_ref()?;
        let Value::Object(map) = exports else {
            // A string or a conditions object without subpaths: only the package itself.
            return Some(subpath == ".");
        };
        if !map.keys().any(|key| key.starts_with('.')) {
            return Some(subpath == ".");
        }
        Some(map.keys().any(|key| {
            key == subpath
                || key.ends_with('/') && subpath.starts_with(key.as_str())
                || key.split_once('*').is_some_and(|(prefix, suffix)| {
                    subpath.len() >= prefix.len() + suffix.len()
                        && subpath.starts_with(prefix)
                        && subpath.ends_with(suffix)
                })
        }))
    }
}

/// `path` without a script extension, then without a trailing `/index`: what the browser field
/// spec compares (`./ext`, `./ext.js`; `./dir`, `./dir/index.js`).
fn module_stem(path: &Path) -> String {
    let text = path.to_string_lossy();
    let text = [
        ".js", ".mjs", ".cjs", ".jsx", ".json", ".ts", ".tsx", ".mts", ".cts",
    ]
    .iter()
    .find_map(|extension| text.strip_suffix(extension))
    .unwrap_or(&text);
    text.strip_suffix("/index").unwrap_or(text).to_string()
}

fn strings(values: &[Value]) -> Vec<String> {
    values
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> PackageJson {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("package.json");
        std::fs::write(&path, text).unwrap();
        PackageJson::read(&path).unwrap().unwrap()
    }

    #[test]
    fn every_dependency_kind_declares() {
        let read = manifest(
            r#"{"name":"app","dependencies":{"a":"1"},"devDependencies":{"b":"1"},"peerDependencies":{"@s/c":"1"},"optionalDependencies":{"d":"1"},"bundleDependencies":["e"]}"#,
        );
        assert_eq!(read.name.as_deref(), Some("app"));
        let declared: Vec<&str> = read.declared.iter().map(String::as_str).collect();
        assert_eq!(declared, ["@s/c", "a", "b", "d", "e"]);
    }

    #[test]
    fn workspaces_as_a_list_or_an_object() {
        assert_eq!(
            manifest(r#"{"workspaces":["packages/*"]}"#).workspaces,
            ["packages/*"]
        );
        assert_eq!(
            manifest(r#"{"workspaces":{"packages":["apps/*"]}}"#).workspaces,
            ["apps/*"]
        );
    }

    #[test]
    fn exports_keys_patterns_and_folders() {
        let read = manifest(
            r#"{"exports":{".":"./i.js","./sub":"./s.js","./feat/*":"./f/*.js","./lib/":"./lib/"}}"#,
        );
        assert_eq!(read.exports_subpath("./sub"), Some(true));
        assert_eq!(read.exports_subpath("./feat/x"), Some(true));
        assert_eq!(read.exports_subpath("./lib/a.js"), Some(true));
        assert_eq!(read.exports_subpath("./other"), Some(false));
        assert_eq!(
            manifest(r#"{"exports":"./i.js"}"#).exports_subpath("./x"),
            Some(false)
        );
        assert_eq!(manifest("{}").exports_subpath("./x"), None);
    }

    #[test]
    fn browser_object_files_with_or_without_extension_or_index() {
        let read = manifest(
            r#"{"browser":{"./ext.js":"./out/b.js","./dir/index.js":false,"./lib/a":"./b.js","jsdom":false}}"#,
        );
        let root = read.path.parent().unwrap().to_path_buf();
        for mapped in [
            "ext",
            "ext.js",
            "dir",
            "dir/index",
            "lib/a.js",
            "lib/../ext",
        ] {
            assert!(
                read.maps_for_browsers(&crate::project::normalize(&root.join(mapped))),
                "{mapped}"
            );
        }
        for other in ["exts", "ext.css", "dir/other", "lib/b", "jsdom"] {
            assert!(!read.maps_for_browsers(&root.join(other)), "{other}");
        }
        // A `browser` string replaces only the package's main file.
        assert!(manifest(r#"{"browser":"./b.js"}"#).browser_files.is_empty());
    }

    #[test]
    fn a_broken_file_is_named_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("package.json");
        assert_eq!(PackageJson::read(&path), Ok(None));
        std::fs::write(&path, "{\"name\": ").unwrap();
        let error = PackageJson::read(&path).unwrap_err();
        assert!(
            error.to_string().contains("package.json: not valid JSON"),
            "{error}"
        );
    }
}
