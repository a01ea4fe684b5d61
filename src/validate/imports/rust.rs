//! Rust crate names, checked only where certain and only as a warning: `use name::…` or
//! `extern crate name` at the top of a file, where `name` is no dependency of the nearest
//! Cargo.toml with a `[package]` (every dependency table, target-specific ones, renamed and
//! workspace-inherited ones), not the crate itself, not `std`, `core`, `alloc`, `proc_macro` or
//! `test`, and nothing of the crate may be called so: no other mention of the name in the file,
//! no `mod name` in the crate's root files, no `name.rs` or `name/` beside the file or in `src/`.
//! Macros and build scripts can still make such a name (an `include!` of generated code), so
//! this never blocks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::validate::imports::memo::Memo;
use crate::validate::imports::package_json::Unreadable;
use crate::validate::imports::verdict::{NotHere, Unsure, Verdict};

const MAX_FILE: u64 = 1 << 20;

/// Names every crate can use without a dependency.
const BUILT_IN: &[&str] = &[
    "std",
    "core",
    "alloc",
    "proc_macro",
    "test",
    "self",
    "crate",
    "super",
];

/// The crate names a package's Cargo.toml makes available (in their `_` spelling).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CrateNames {
    pub(crate) manifest: PathBuf,
    pub(crate) names: BTreeSet<String>,
}

impl CrateNames {
    /// Reads a Cargo.toml: `None` when it has no `[package]` (a virtual workspace manifest).
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Option<CrateNames>, Unreadable> {
        let document = toml_edit::Document::parse(text).map_err(|error| {
            Unreadable::new(path, format!("not valid TOML ({})", error.message()))
        })?;
        let table = document.as_table();
        let Some(package) = table.get("package").and_then(|item| item.as_table_like()) else {
            return Ok(None);
        };
        let mut names = BTreeSet::new();
        let mut add = |name: &str| {
            names.insert(name.replace('-', "_"));
        };
        if let Some(name) = package.get("name").and_then(|item| item.as_str()) {
            add(name);
        }
        if let Some(name) = table
            .get("lib")
            .and_then(|lib| lib.get("name"))
            .and_then(|item| item.as_str())
        {
            add(name);
        }
        let mut tables = vec![table];
        if let Some(targets) = table.get("target").and_then(|item| item.as_table()) {
            tables.extend(targets.iter().filter_map(|(_, target)| target.as_table()));
        }
        for table in tables {
            for kind in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(list) = table.get(kind).and_then(|item| item.as_table_like()) {
                    for (name, _) in list.iter() {
                        add(name);
                    }
                }
            }
        }
        Ok(Some(CrateNames {
            manifest: path.to_path_buf(),
            names,
        }))
    }
}

/// A Cargo.toml as read: its crate names, no `[package]` (`None`), or why it was not read.
pub(crate) type Manifest = Result<Option<CrateNames>, Unreadable>;

/// Rust resolution for one process: the manifests it read, kept.
#[derive(Debug, Default)]
pub(crate) struct RustCrates {
    manifests: Memo<Manifest>,
}

impl RustCrates {
    /// The package `file` belongs to: the nearest Cargo.toml with a `[package]` up to `top`, and
    /// its folder.
    pub(crate) fn package(
        &self,
        file: &Path,
        top: &Path,
    ) -> Option<(PathBuf, std::sync::Arc<Manifest>)> {
        let folder = file.parent()?;
        for dir in folder.ancestors().take_while(|dir| dir.starts_with(top)) {
            let path = dir.join("Cargo.toml");
            if !path.is_file() {
                continue;
            }
            let read = self.manifests.get(&path, || {
                let text = crate::files::read_text_or_none(&path, MAX_FILE)
                    .ok_or_else(|| Unreadable::new(&path, "not readable as UTF-8 text"))?;
                CrateNames::parse(&path, &text)
            });
            if matches!(read.as_ref(), Ok(None)) {
                continue;
            }
            return Some((dir.to_path_buf(), read));
        }
        None
    }
}

/// The verdict on the crate name `name` (of an `extern crate` or a `use`), used in `file` (whose
/// text is `content`) of the package at `root` with `names`.
pub(crate) fn resolve(
    name: &str,
    is_extern_crate: bool,
    file: &Path,
    content: &str,
    root: &Path,
    names: &Manifest,
) -> Verdict {
    // `rustc_*`: the compiler's own crates, linked from the sysroot under `rustc_private`.
    if BUILT_IN.contains(&name) || name.starts_with("rustc_") {
        return Verdict::Resolves;
    }
    let names = match names {
        Ok(Some(names)) => names,
        Ok(None) => return Verdict::Unsure(Unsure::NotAProject),
        Err(_) => return Verdict::Unsure(Unsure::Unreadable),
    };
    if names.names.contains(name)
        || may_be_the_crates_own(name, is_extern_crate, file, content, root)
    {
        return Verdict::Resolves;
    }
    // A published crate (`cargo publish` keeps the original as Cargo.toml.orig) lost its
    // path-only dev-dependencies: its tests, benches and examples may use them.
    let outside_src = file
        .strip_prefix(root)
        .is_ok_and(|path| !path.starts_with("src"));
    if outside_src && root.join("Cargo.toml.orig").is_file() {
        return Verdict::Unsure(Unsure::NotAProject);
    }
    Verdict::NotHere(NotHere::RustNotADependency {
        manifest: names.manifest.clone(),
    })
}

/// Whether something of the crate may be called `name`: the file mentions it outside the `use`
/// that starts with it, a crate root declares `mod name`, or a module file of that name exists.
fn may_be_the_crates_own(
    name: &str,
    is_extern_crate: bool,
    file: &Path,
    content: &str,
    root: &Path,
) -> bool {
    let mentioned = content
        .lines()
        .filter(|line| !is_use_of(line, name, is_extern_crate))
        .any(|line| has_word(line, name));
    // A glob import (`use libc::*;`) may bring the name in.
    if mentioned || content.contains("::*;") {
        return true;
    }
    let src = root.join("src");
    let folders = [file.parent().map(Path::to_path_buf), Some(src.clone())];
    let module_file = folders
        .iter()
        .flatten()
        .any(|folder| folder.join(format!("{name}.rs")).exists() || folder.join(name).is_dir());
    let declared_in_root = ["lib.rs", "main.rs"].iter().any(|root_file| {
        crate::files::read_text_or_none(&src.join(root_file), MAX_FILE).is_some_and(|text| {
            text.lines().any(|line| {
                let line = line.trim_start();
                // `mod name;`, or `extern crate alloc as name;` (the crate root's alias is in
                // scope everywhere).
                let declares = line.starts_with("mod ")
                    || line.starts_with("pub mod ")
                    || line.contains(" mod ")
                    || line.contains("extern crate ");
                declares && has_word(line, name)
            })
        })
    });
    module_file || declared_in_root
}

/// Whether `line` is a `use` whose path starts with `name`, or (when the import checked is an
/// `extern crate` itself) `extern crate name`: for a `use`, an `extern crate` of the same name
/// is what brings the crate in.
fn is_use_of(line: &str, name: &str, is_extern_crate: bool) -> bool {
    let line = line.trim_start();
    let line = match line.strip_prefix("pub") {
        Some(rest) if rest.starts_with('(') => rest.split_once(')').map_or(rest, |(_, r)| r),
        Some(rest) => rest,
        None => line,
    }
    .trim_start();
    let rest = line
        .strip_prefix("use ")
        .or_else(|| {
            line.strip_prefix("extern crate ")
                .filter(|_| is_extern_crate)
        })
        .map(|rest| rest.trim_start().trim_start_matches("::"));
    rest.and_then(|rest| rest.strip_prefix(name))
        .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// Whether `word` occurs in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        let is_ident = |c: char| c.is_alphanumeric() || c == '_';
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &str = "[package]\nname = \"my-app\"\n\n[lib]\nname = \"applib\"\n\n[dependencies]\nserde = \"1\"\nfast-json = { package = \"simd-json\", version = \"0.1\" }\ntokio.workspace = true\n\n[dev-dependencies]\nproptest = \"1\"\n\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n";

    fn names() -> Manifest {
        CrateNames::parse(Path::new("Cargo.toml"), CARGO)
    }

    #[test]
    fn dependencies_of_every_kind_renamed_and_inherited() {
        let read = names().unwrap().unwrap();
        let all: Vec<&str> = read.names.iter().map(String::as_str).collect();
        assert_eq!(
            all,
            [
                "applib",
                "fast_json",
                "libc",
                "my_app",
                "proptest",
                "serde",
                "tokio"
            ]
        );
        assert_eq!(
            CrateNames::parse(Path::new("Cargo.toml"), "[workspace]\nmembers = []\n"),
            Ok(None)
        );
        assert!(CrateNames::parse(Path::new("Cargo.toml"), "[package\n").is_err());
    }

    #[test]
    fn only_a_name_nothing_provides_warns() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/net")).unwrap();
        std::fs::write(
            root.join("src/lib.rs"),
            "pub mod config;\nmod net;\nextern crate alloc as stdalloc;\n",
        )
        .unwrap();
        let file = root.join("src/net/mod.rs");
        let content = "use serde::Serialize;\nuse reqwestx::Client;\nuse config::Settings;\nuse Kind::A;\nenum Kind { A }\nuse std::io;\n";
        let verdict = |name: &str| resolve(name, false, &file, content, root, &names());
        assert!(!verdict("reqwestx").is_error());
        assert!(matches!(
            verdict("reqwestx"),
            Verdict::NotHere(NotHere::RustNotADependency { .. })
        ));
        for name in [
            "serde",
            "config",
            "Kind",
            "std",
            "my_app",
            "net",
            "rustc_span",
        ] {
            assert_eq!(verdict(name), Verdict::Resolves, "{name}");
        }
        // A glob import may bring any name in.
        let globbed = "use libc::*;\nuse open64 as open;\n";
        assert_eq!(
            resolve("open64", false, &file, globbed, root, &names()),
            Verdict::Resolves
        );
        // An `extern crate` warns once; the `use` it brings in does not.
        let content = "extern crate sysx;\nuse sysx::Thing;\n";
        assert!(!resolve("sysx", false, &file, content, root, &names()).is_error());
        assert_eq!(
            resolve("sysx", false, &file, content, root, &names()),
            Verdict::Resolves
        );
        assert!(matches!(
            resolve("sysx", true, &file, content, root, &names()),
            Verdict::NotHere(NotHere::RustNotADependency { .. })
        ));
    }
}
