//! The packages of a JavaScript workspace (npm and yarn `workspaces`, pnpm's
//! `pnpm-workspace.yaml`): their names, found once per root by expanding the globs that list
//! them. A workspace package is resolvable by name (the package manager links it) wherever the
//! workspace is.
//!
//! Invariants: the globs are expanded over folders only, never below `node_modules`, at most
//! [`MAX_DEPTH`] folders deep for `**` and at most [`MAX_PACKAGES`] packages; negated globs
//! (`!`) are left out (they only remove packages, and a package too many costs a miss, never a
//! false block); a member whose package.json does not parse is skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::validate::imports::package_json::PackageJson;

const MAX_DEPTH: usize = 4;
const MAX_PACKAGES: usize = 5_000;
const MAX_FILE: u64 = 1 << 20;

/// The names of a workspace's packages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Workspace {
    pub(crate) names: BTreeSet<String>,
}

impl Workspace {
    /// The workspace rooted at `root` whose member globs are `globs` (package.json's
    /// `workspaces`, plus pnpm-workspace.yaml's `packages` when that file is there).
    pub(crate) fn find(root: &Path, globs: &[String]) -> Workspace {
        let mut all: Vec<String> = globs.to_vec();
        all.extend(pnpm_packages(root));
        let mut folders = Vec::new();
        for glob in all.iter().filter(|glob| !glob.starts_with('!')) {
            expand(root, glob.trim_start_matches("./"), &mut folders);
        }
        let names = folders
            .iter()
            .take(MAX_PACKAGES)
            .filter_map(|folder| {
                PackageJson::read(&folder.join("package.json"))
                    .ok()
                    .flatten()
            })
            .filter_map(|manifest| manifest.name)
            .collect();
        Workspace { names }
    }
}

/// pnpm-workspace.yaml's `packages:` list (a block list of plain or quoted strings).
fn pnpm_packages(root: &Path) -> Vec<String> {
    let Some(text) = crate::files::read_text_or_none(&root.join("pnpm-workspace.yaml"), MAX_FILE)
    else {
        return Vec::new();
    };
    let mut in_packages = false;
    let mut globs = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if !line.starts_with([' ', '\t', '-']) && !trimmed.is_empty() {
            in_packages = trimmed.starts_with("packages:");
            continue;
        }
        if let Some(item) = trimmed.strip_prefix('-').filter(|_| in_packages) {
            let item = item.split(" #").next().unwrap_or_default().trim();
            globs.push(item.trim_matches(['"', '\'']).to_string());
        }
    }
    globs
}

/// The folders below `root` that `glob` names (`packages/*`, `apps/**`, `tools/cli`).
fn expand(root: &Path, glob: &str, out: &mut Vec<PathBuf>) {
    let mut folders = vec![root.to_path_buf()];
    for part in glob.split('/').filter(|part| !part.is_empty()) {
        let mut next = Vec::new();
        for folder in &folders {
            match part {
                "**" => descend(folder, MAX_DEPTH, &mut next),
                part if part.contains('*') => {
                    next.extend(subfolders(folder).filter(|sub| matches_star(part, sub)));
                }
                part => {
                    let sub = folder.join(part);
                    if sub.is_dir() {
                        next.push(sub);
                    }
                }
            }
        }
        folders = next;
        if folders.len() > MAX_PACKAGES {
            break;
        }
    }
    out.extend(folders);
}

fn descend(folder: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    out.push(folder.to_path_buf());
    if depth == 0 || out.len() > MAX_PACKAGES {
        return;
    }
    for sub in subfolders(folder).collect::<Vec<_>>() {
        descend(&sub, depth - 1, out);
    }
}

fn subfolders(folder: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter(|entry| {
            let name = entry.file_name();
            name != "node_modules" && !name.to_string_lossy().starts_with('.')
        })
        .map(|entry| entry.path())
}

/// Whether the folder's name matches a one-part glob with `*`s.
fn matches_star(pattern: &str, folder: &Path) -> bool {
    let name = folder
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let mut rest = name.as_ref();
    let parts: Vec<&str> = pattern.split('*').collect();
    for (index, part) in parts.iter().enumerate() {
        if index == 0 {
            let Some(after) = rest.strip_prefix(part) else {
                return false;
            };
            rest = after;
        } else if index == parts.len() - 1 {
            return rest.ends_with(part);
        } else if let Some(at) = rest.find(part) {
            rest = &rest[at + part.len()..];
        } else {
            return false;
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(root: &Path, folder: &str, name: &str) {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("package.json"), format!("{{\"name\":\"{name}\"}}")).unwrap();
    }

    #[test]
    fn npm_and_pnpm_globs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        package(root, "packages/core", "@acme/core");
        package(root, "packages/ui", "@acme/ui");
        package(root, "apps/web/site", "site");
        package(root, "tools/cli", "acme-cli");
        package(root, "packages/node_modules/x", "not-a-member");
        std::fs::write(
            root.join("pnpm-workspace.yaml"),
            "packages:\n  - 'apps/**'\n  - \"tools/cli\" # the cli\n  - '!**/test/**'\ncatalog:\n  - not-a-glob\n",
        )
        .unwrap();
        let workspace = Workspace::find(root, &["packages/*".to_string()]);
        let names: Vec<&str> = workspace.names.iter().map(String::as_str).collect();
        assert_eq!(names, ["@acme/core", "@acme/ui", "acme-cli", "site"]);
    }

    #[test]
    fn star_patterns() {
        assert!(matches_star("pkg-*", Path::new("a/pkg-x")));
        assert!(!matches_star("pkg-*", Path::new("a/lib-x")));
        assert!(matches_star("*", Path::new("a/b")));
    }
}
