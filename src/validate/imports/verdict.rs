//! What resolving one import decided, and by which rule: an import resolves, or nothing can be
//! said about it (and why), or it is missing only here (a warning), or it is missing (an error).
//!
//! Invariants: every verdict that is not [`Verdict::Resolves`] names the rule that gave it, a
//! variant with its own words; only [`Missing`] blocks, and each of its variants is a case the
//! language's own tool rejects too (TypeScript's `TS2307`, Node's `ERR_MODULE_NOT_FOUND`,
//! `go build`'s "no required module provides package"). Anything uncertain is [`Unsure`]: car
//! would rather miss a hallucinated package than block a valid import.

use std::path::PathBuf;

/// The verdict on one import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Found where the language's tool looks.
    Resolves,
    /// Not found, but something car cannot see may provide it: no verdict.
    Unsure(Unsure),
    /// Missing from this machine, not from the project: a warning.
    NotHere(NotHere),
    /// Missing wherever the language's tool looks: an error.
    Missing(Missing),
}

/// Why car gives no verdict on an import it did not find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unsure {
    /// A URL or a scheme car does not resolve (`https:`, `npm:`, `virtual:`, `bun:`).
    Scheme,
    /// A bundler or test runner configuration that maps names (`resolve.alias`,
    /// `moduleNameMapper`, babel's `module-resolver`).
    BundlerAlias,
    /// Yarn Plug'n'Play resolves from `.pnp.cjs`, not from folders.
    PlugNPlay,
    /// A `paths` entry of a tsconfig matches, but none of its targets was found.
    TsconfigPaths,
    /// A project file that does not parse: named in a note, the check stays silent.
    Unreadable,
    /// A Go workspace (`go.work`) or a `vendor/` folder without `modules.txt`.
    GoLayout,
    /// A package-internal `#name` import (package.json `imports`).
    SubpathImport,
    /// A relative import whose target git ignores: build output, made by a build car does not run.
    BuildOutput,
    /// No project file says how the file's imports resolve (no package.json, go.mod or
    /// Cargo.toml up the tree), or the name may be the crate's own item.
    NotAProject,
}

/// Why an import missing here is only a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotHere {
    /// A package.json declares it, but no node_modules holds it: `npm install` was not run.
    DeclaredNotInstalled { declared_in: PathBuf },
    /// Neither installed nor declared, but nothing is installed at all: no node_modules up the
    /// tree, so car cannot tell a missing package from a project not installed here.
    NothingInstalled,
    /// Missing, but loaded only in some cases (a `require()` in a `try` or a function: an
    /// optional dependency).
    Conditional,
    /// A Go file `go build` never builds (`//go:build ignore`: a generator run with its own
    /// module setup).
    GoBuildIgnored,
    /// Installed, but the package does not export that subpath and no such file exists.
    NotExported { package: String },
    /// A Rust crate name that is no dependency in `Cargo.toml` and no module of the crate (a
    /// macro or a build script may still provide it).
    RustNotADependency { manifest: PathBuf },
}

/// Why an import is missing (an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Missing {
    /// A bare package in no node_modules up the tree and declared in no package.json.
    Package,
    /// A relative import of a file that does not exist (with the extensions and `index` files
    /// TypeScript tries).
    File,
    /// A Go import path outside the standard library and the module, provided by no `require`
    /// or `replace` of `go.mod`.
    GoPackage { go_mod: PathBuf },
    /// A Go import path inside the module whose folder does not exist below go.mod's.
    GoPackageFolder { go_mod: PathBuf, folder: String },
}

impl Verdict {
    /// The verdict's message for the import `specifier` (`None`: nothing to say).
    pub(crate) fn message(
        &self,
        specifier: &str,
        shown: impl Fn(&PathBuf) -> String,
    ) -> Option<String> {
        let text = match self {
            Verdict::Resolves | Verdict::Unsure(_) => return None,
            Verdict::Missing(Missing::Package) => format!(
                "Cannot find module '{specifier}': no node_modules up the tree holds it and no package.json declares it (TS2307); install the package you meant or use one that exists"
            ),
            Verdict::Missing(Missing::File) => format!(
                "Cannot find module '{specifier}': no such file, with any extension or as a folder with an index file (TS2307); fix the path, or create the file (if you are about to, go on: the stop checks again)"
            ),
            Verdict::Missing(Missing::GoPackage { go_mod }) => format!(
                "no required module provides package {specifier}: no `require` or `replace` of {} covers it (go build fails); `go get` the module you meant or use one that exists",
                shown(go_mod)
            ),
            Verdict::Missing(Missing::GoPackageFolder { go_mod, folder }) => format!(
                "package {specifier} is not in the module: no folder {folder} beside {} (go build fails); import a package that exists, or create it (if you are about to, go on: the stop checks again)",
                shown(go_mod)
            ),
            Verdict::NotHere(NotHere::DeclaredNotInstalled { declared_in }) => format!(
                "Cannot find module '{specifier}' in node_modules, but {} declares it: declared but not installed; run npm install",
                shown(declared_in)
            ),
            Verdict::NotHere(NotHere::NothingInstalled) => format!(
                "Cannot find module '{specifier}': no package.json declares it, and no node_modules up the tree to look in (a warning until the project is installed)"
            ),
            Verdict::NotHere(NotHere::Conditional) => format!(
                "Cannot find module '{specifier}' (a warning, not an error: it is loaded only conditionally, in a function, `try`, `if` or loop)"
            ),
            Verdict::NotHere(NotHere::GoBuildIgnored) => format!(
                "no required module provides package {specifier} (a warning, not an error: `//go:build ignore` keeps this file out of the build)"
            ),
            Verdict::NotHere(NotHere::NotExported { package }) => format!(
                "'{specifier}': `{package}` is installed, but neither its `exports` nor its files provide this path"
            ),
            Verdict::NotHere(NotHere::RustNotADependency { manifest }) => format!(
                "unresolved import `{specifier}`: no dependency of {} and no module of the crate is called so (a warning: a macro or a build script may still provide it)",
                shown(manifest)
            ),
        };
        Some(text)
    }

    /// Whether the verdict blocks the agent.
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Verdict::Missing(_))
    }
}
