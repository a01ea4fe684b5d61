//! JavaScript and TypeScript imports, resolved the way TypeScript resolves them for Node, in
//! process and by looking names up (never by listing `node_modules`):
//! - a relative path: the file as written, with the extensions TypeScript tries (`.js` written
//!   for a `.ts` source included), or a folder with a `package.json` or an `index` file;
//! - a Node built-in (`fs`, `node:fs`, `fs/promises`);
//! - `paths` and `baseUrl` of the nearest tsconfig.json / jsconfig.json (with its `extends`);
//! - a package in a `node_modules` of any folder up to the file system's root, its `@types/`
//!   package, and a subpath its `exports` (or its files) provide;
//! - a workspace package (npm, yarn and pnpm workspaces), or the package itself by its name.
//!
//! What is missing: a relative file that does not exist, or a bare package installed nowhere
//! and declared in no package.json up the tree, blocks. Declared but not installed warns (run
//! npm install), and so does an undeclared package where nothing is installed at all (no
//! `node_modules` anywhere). No verdict where something car cannot see may resolve it: a
//! bundler or test-runner alias configuration, Yarn Plug'n'Play, a `paths` pattern whose targets
//! are not found, an `extends` not found, a package.json or tsconfig that does not parse (named
//! in a note), a URL or `scheme:` import, a `#` subpath import, a name that is no package name
//! (`@/x`, `~/x`, `$lib`), a file in no package, a relative file the nearest package.json's
//! `browser` object maps (a bundler loads its replacement).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::validate::imports::memo::Memo;
use crate::validate::imports::package_json::{PackageJson, Unreadable};
use crate::validate::imports::tsconfig::Tsconfig;
use crate::validate::imports::verdict::{Missing, NotHere, Unsure, Verdict};
use crate::validate::imports::workspace::Workspace;

/// What TypeScript appends to a module path, in its order (plus what bundlers add for their
/// single-file components: a miss, never a false block).
const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".d.mts", ".mjs", ".cts", ".d.cts", ".cjs",
    ".json", ".node", ".vue", ".svelte",
];

/// Platform suffixes React Native's bundler (and TypeScript's `moduleSuffixes`) try before the
/// extension: `./player` loads `player.ios.tsx` on iOS, `player.native.ts` on every native
/// platform. A relative import with any of them resolves (a misspelled name has none of them).
const PLATFORMS: &[&str] = &[".native", ".ios", ".android", ".web", ".windows", ".macos"];

/// A `.js`-family extension written for a TypeScript source, and what it may stand for.
const SOURCE_FOR: &[(&str, &[&str])] = &[
    (".js", &[".ts", ".tsx", ".d.ts"]),
    (".jsx", &[".tsx", ".ts", ".d.ts"]),
    (".mjs", &[".mts", ".d.mts"]),
    (".cjs", &[".cts", ".d.cts"]),
];

/// Node's built-in modules: the top-level names of `require("module").builtinModules` (Node 22),
/// and those only `node:` reaches (`node:test`, `node:sqlite`, `node:sea`).
const BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
    "_http_agent",
    "_http_client",
    "_http_common",
    "_http_incoming",
    "_http_outgoing",
    "_http_server",
    "_stream_duplex",
    "_stream_passthrough",
    "_stream_readable",
    "_stream_transform",
    "_stream_wrap",
    "_stream_writable",
    "_tls_common",
    "_tls_wrap",
    "test",
    "sqlite",
    "sea",
];

/// Configuration files of bundlers and test runners that may map module names: by their name's
/// start (`vite.config.ts`, `webpack.config.prod.js`, `.babelrc`).
const ALIAS_CONFIGS: &[&str] = &[
    "vite.config",
    "vitest.config",
    "webpack.",
    "rollup.config",
    "rspack.config",
    "rsbuild.config",
    "next.config",
    "babel.config",
    ".babelrc",
    "metro.config",
    "craco.config",
    "jest.config",
    "quasar.config",
    "tsup.config",
    "esbuild",
];

/// Frameworks whose configuration maps names without saying so (Nuxt's `~`, SvelteKit's `$lib`,
/// Astro's): any of these present, no verdict on a bare name that is not found.
const IMPLICIT_ALIAS_CONFIGS: &[&str] =
    &["nuxt.config", "svelte.config", "astro.config", "deno.json"];

/// What a configuration that maps names says.
const ALIAS_WORDS: &[&str] = &[
    "alias",
    "moduleNameMapper",
    "moduleDirectories",
    "module-resolver",
    "modules:",
    "roots",
];

const MAX_CONFIG: u64 = 1 << 20;

/// A package.json as read: what it says, none there (`None`), or why it was not read.
type Manifest = Result<Option<PackageJson>, Unreadable>;

/// JavaScript and TypeScript resolution for one process: the manifests it read, kept.
#[derive(Debug, Default)]
pub(crate) struct NodeResolver {
    manifests: Memo<Manifest>,
    tsconfigs: Memo<Result<Tsconfig, Unreadable>>,
    workspaces: Memo<Workspace>,
}

/// What the folders around one file say about its imports: found once per file by listing each
/// folder up to the project's top (never a `node_modules`); the project files among them are
/// parsed only when an import needs them (most imports are installed packages or files).
#[derive(Debug, Default)]
pub(crate) struct Surroundings {
    /// `node_modules` folders from the file's folder up to the file system's root, nearest first.
    node_modules: Vec<PathBuf>,
    /// package.json files from the file's folder up to the project's top, nearest first.
    manifest_paths: Vec<PathBuf>,
    /// The nearest tsconfig.json or jsconfig.json.
    tsconfig_path: Option<PathBuf>,
    /// The folder of a pnpm-workspace.yaml, the topmost.
    pnpm_root: Option<PathBuf>,
    has_plug_n_play: bool,
    has_alias_config: bool,
    manifests: OnceCell<Vec<Arc<Manifest>>>,
    tsconfig: OnceCell<Option<Arc<Result<Tsconfig, Unreadable>>>>,
    workspace: OnceCell<Option<Arc<Workspace>>>,
}

impl Surroundings {
    /// The project files an import needed that could not be read (each to be named once).
    pub(crate) fn unreadable(&self) -> Vec<Unreadable> {
        let manifests = self
            .manifests
            .get()
            .into_iter()
            .flatten()
            .filter_map(|m| m.as_ref().as_ref().err());
        let tsconfig = self
            .tsconfig
            .get()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_ref().as_ref().err());
        manifests.chain(tsconfig).cloned().collect()
    }
}

impl NodeResolver {
    /// Lists the folders around `file`: up to `top` (the project's) for project files, up to
    /// the file system's root for `node_modules`.
    pub(crate) fn surroundings(&self, file: &Path, top: &Path) -> Surroundings {
        let mut found = Surroundings::default();
        let folder = file.parent().unwrap_or(Path::new("/"));
        for dir in folder.ancestors() {
            if !dir.starts_with(top) {
                if dir.join("node_modules").is_dir() {
                    found.node_modules.push(dir.join("node_modules"));
                }
                continue;
            }
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name();
                match name.to_string_lossy().as_ref() {
                    "node_modules" => found.node_modules.push(entry.path()),
                    "package.json" => found.manifest_paths.push(entry.path()),
                    "pnpm-workspace.yaml" => found.pnpm_root = Some(dir.to_path_buf()),
                    "tsconfig.json" | "jsconfig.json" if found.tsconfig_path.is_none() => {
                        found.tsconfig_path = Some(entry.path());
                    }
                    ".pnp.cjs" | ".pnp.js" => found.has_plug_n_play = true,
                    name => found.has_alias_config |= maps_names(name, &entry.path()),
                }
            }
        }
        found
    }

    /// The package.json files around, parsed (once per process).
    fn manifests<'a>(&self, around: &'a Surroundings) -> &'a [Arc<Manifest>] {
        around.manifests.get_or_init(|| {
            around
                .manifest_paths
                .iter()
                .map(|path| self.manifests.get(path, || PackageJson::read(path)))
                .collect()
        })
    }

    fn packages<'a>(&self, around: &'a Surroundings) -> impl Iterator<Item = &'a PackageJson> {
        self.manifests(around)
            .iter()
            .filter_map(|manifest| manifest.as_ref().as_ref().ok()?.as_ref())
    }

    fn tsconfig<'a>(&self, around: &'a Surroundings) -> Option<&'a Result<Tsconfig, Unreadable>> {
        around
            .tsconfig
            .get_or_init(|| {
                let path = around.tsconfig_path.as_ref()?;
                Some(self.tsconfigs.get(path, || Tsconfig::read(path)))
            })
            .as_deref()
    }

    /// The workspace the file is in: the topmost package.json with `workspaces`, or a
    /// pnpm-workspace.yaml (its members expanded once per process).
    fn workspace<'a>(&self, around: &'a Surroundings) -> Option<&'a Workspace> {
        around
            .workspace
            .get_or_init(|| {
                let npm_root = self
                    .packages(around)
                    .filter(|manifest| !manifest.workspaces.is_empty())
                    .last()
                    .map(|manifest| {
                        let root = manifest.path.parent().unwrap_or(Path::new("/"));
                        (root.to_path_buf(), manifest.workspaces.clone())
                    });
                let (root, globs) =
                    npm_root.or_else(|| Some((around.pnpm_root.clone()?, Vec::new())))?;
                Some(
                    self.workspaces
                        .get(&root, || Workspace::find(&root, &globs)),
                )
            })
            .as_deref()
    }

    /// The verdict on `specifier`, imported by `file`, with what surrounds the file.
    pub(crate) fn resolve(&self, file: &Path, specifier: &str, around: &Surroundings) -> Verdict {
        let folder = file.parent().unwrap_or(Path::new("/"));
        if is_relative(specifier) {
            if specifier.contains(['?', '!']) {
                return Verdict::Unsure(Unsure::BundlerAlias);
            }
            let target = folder.join(specifier);
            return if exists_as_module(&target) {
                Verdict::Resolves
            } else if self.browser_maps(&target, around) {
                // A bundler loads the file the package's `browser` object names instead.
                Verdict::Unsure(Unsure::BundlerAlias)
            } else {
                Verdict::Missing(Missing::File)
            };
        }
        if specifier.starts_with("node:") {
            return Verdict::Resolves;
        }
        if specifier.contains(':') || specifier.contains('!') {
            return Verdict::Unsure(Unsure::Scheme);
        }
        if specifier.starts_with('#') {
            return Verdict::Unsure(Unsure::SubpathImport);
        }
        let Some((package, subpath)) = package_name(specifier) else {
            return Verdict::Unsure(Unsure::BundlerAlias);
        };
        if BUILTINS.contains(&package) {
            return Verdict::Resolves;
        }
        // Installed first: a few lookups, and what most imports are. What a `paths` entry maps
        // the name to would resolve it too.
        if let Some(verdict) = installed(package, subpath, around) {
            return verdict;
        }
        if let Some(verdict) = self
            .tsconfig(around)
            .and_then(|c| through_tsconfig(specifier, c))
        {
            return verdict;
        }
        self.not_installed(package, around)
    }

    /// Whether the nearest package.json's `browser` object maps the file `target` (the browser
    /// field spec, followed by webpack, vite, esbuild and browserify for browser builds).
    fn browser_maps(&self, target: &Path, around: &Surroundings) -> bool {
        let nearest = self.manifests(around).first();
        nearest.is_some_and(|manifest| {
            manifest.as_ref().as_ref().is_ok_and(|read| {
                read.as_ref().is_some_and(|package| {
                    package.maps_for_browsers(&crate::project::normalize(target))
                })
            })
        })
    }

    /// A package found in no `node_modules`: declared, a workspace member, the package itself,
    /// or missing.
    fn not_installed(&self, package: &str, around: &Surroundings) -> Verdict {
        if around.has_plug_n_play {
            return Verdict::Unsure(Unsure::PlugNPlay);
        }
        let manifests = self.manifests(around);
        if manifests.iter().any(|manifest| manifest.is_err()) {
            return Verdict::Unsure(Unsure::Unreadable);
        }
        if manifests.is_empty() {
            return Verdict::Unsure(Unsure::NotAProject);
        }
        let is_member = self
            .workspace(around)
            .is_some_and(|workspace| workspace.names.contains(package));
        if is_member
            || self
                .packages(around)
                .any(|p| p.name.as_deref() == Some(package))
        {
            return Verdict::Resolves;
        }
        let has_alias = around.has_alias_config || self.packages(around).any(|p| p.has_aliases);
        if has_alias || package.chars().any(|c| c.is_ascii_uppercase()) {
            // A name with capitals is no package npm accepts today (babel's helpers import each
            // other by such names): a name something else resolves.
            return Verdict::Unsure(Unsure::BundlerAlias);
        }
        let is_partial = |config: &Result<Tsconfig, Unreadable>| {
            config.as_ref().is_ok_and(|config| config.is_partial)
        };
        if self.tsconfig(around).is_some_and(is_partial) {
            // An `extends` car could not read may map the name.
            return Verdict::Unsure(Unsure::TsconfigPaths);
        }
        let declared_in = self
            .packages(around)
            .find(|manifest| manifest.declared.contains(package));
        match (declared_in, around.node_modules.is_empty()) {
            (Some(_), true) => Verdict::Resolves,
            (Some(manifest), false) => Verdict::NotHere(NotHere::DeclaredNotInstalled {
                declared_in: manifest.path.clone(),
            }),
            (None, true) => Verdict::NotHere(NotHere::NothingInstalled),
            (None, false) => Verdict::Missing(Missing::Package),
        }
    }
}

/// `paths` and `baseUrl` of the nearest tsconfig: `Some` when they decide.
fn through_tsconfig(specifier: &str, config: &Result<Tsconfig, Unreadable>) -> Option<Verdict> {
    let config = match config {
        Ok(config) => config,
        Err(_) => return Some(Verdict::Unsure(Unsure::Unreadable)),
    };
    if let Some(targets) = config.mapped(specifier) {
        return Some(if targets.iter().any(|target| exists_as_module(target)) {
            Verdict::Resolves
        } else {
            Verdict::Unsure(Unsure::TsconfigPaths)
        });
    }
    if let Some(base) = &config.base_url
        && exists_as_module(&base.join(specifier))
    {
        return Some(Verdict::Resolves);
    }
    None
}

/// The package in a `node_modules` up the tree (or its `@types/` package): `Some` when found.
fn installed(package: &str, subpath: &str, around: &Surroundings) -> Option<Verdict> {
    let types = match package.strip_prefix('@') {
        Some(scoped) => scoped.replacen('/', "__", 1),
        None => package.to_string(),
    };
    for modules in &around.node_modules {
        let folder = modules.join(package);
        if folder.symlink_metadata().is_ok() {
            return Some(subpath_verdict(&folder, package, subpath));
        }
        let typed = modules.join("@types").join(&types);
        if typed.is_dir() {
            return Some(Verdict::Resolves);
        }
    }
    None
}

/// Whether an installed package provides `subpath` (`""`: the package itself).
fn subpath_verdict(folder: &Path, package: &str, subpath: &str) -> Verdict {
    if subpath.is_empty() {
        return Verdict::Resolves;
    }
    let manifest = PackageJson::read(&folder.join("package.json"));
    let exported = manifest
        .ok()
        .flatten()
        .and_then(|manifest| manifest.exports_subpath(&format!("./{subpath}")));
    if exported == Some(true) || exists_as_module(&folder.join(subpath)) {
        return Verdict::Resolves;
    }
    Verdict::NotHere(NotHere::NotExported {
        package: package.to_string(),
    })
}

/// Whether `path` names a module TypeScript (or a bundler) would load: the file as written, with
/// an extension, a TypeScript source for a `.js` path, or a folder with a package.json or index.
fn exists_as_module(path: &Path) -> bool {
    if path.is_file() {
        return true;
    }
    let text = path.to_string_lossy();
    let with = |suffix: &str| PathBuf::from(format!("{text}{suffix}")).is_file();
    for (written, sources) in SOURCE_FOR {
        if let Some(stem) = text.strip_suffix(written)
            && sources
                .iter()
                .any(|source| PathBuf::from(format!("{stem}{source}")).is_file())
        {
            return true;
        }
    }
    if EXTENSIONS.iter().any(|extension| with(extension)) {
        return true;
    }
    let for_a_platform = |stem: &str| {
        PLATFORMS.iter().any(|platform| {
            EXTENSIONS
                .iter()
                .any(|extension| PathBuf::from(format!("{stem}{platform}{extension}")).is_file())
        })
    };
    if for_a_platform(&text) {
        return true;
    }
    path.is_dir()
        && (path.join("package.json").is_file()
            || EXTENSIONS
                .iter()
                .any(|extension| path.join(format!("index{extension}")).is_file())
            || for_a_platform(&path.join("index").to_string_lossy()))
}

fn is_relative(specifier: &str) -> bool {
    specifier == "."
        || specifier == ".."
        || specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier.starts_with('/')
}

/// The package a bare specifier names and the rest (`@s/p/x` → `@s/p`, `x`); `None` when it is
/// no valid package name (`@/x`, `~/x`, `$lib`: an alias).
fn package_name(specifier: &str) -> Option<(&str, &str)> {
    let split = if specifier.starts_with('@') {
        let slash = specifier.find('/')?;
        specifier[slash + 1..].find('/').map(|at| slash + 1 + at)
    } else {
        specifier.find('/')
    };
    let (package, subpath) = match split {
        Some(at) => (&specifier[..at], &specifier[at + 1..]),
        None => (specifier, ""),
    };
    let is_part = |part: &str| {
        !part.is_empty()
            && !part.starts_with(['.', '_'])
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    };
    let valid = match package.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, name)| is_part(scope) && is_part(name)),
        None => is_part(package),
    };
    valid.then_some((package, subpath))
}

/// Whether the file `name` in a folder is a bundler's or test runner's configuration that maps
/// module names.
fn maps_names(name: &str, path: &Path) -> bool {
    if IMPLICIT_ALIAS_CONFIGS
        .iter()
        .any(|prefix| name.starts_with(prefix))
    {
        return true;
    }
    if !ALIAS_CONFIGS.iter().any(|prefix| name.starts_with(prefix)) {
        return false;
    }
    let text = crate::files::read_text_or_none(path, MAX_CONFIG).unwrap_or_default();
    ALIAS_WORDS.iter().any(|word| text.contains(word))
}

#[cfg(test)]
mod tests;
