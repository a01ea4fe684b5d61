//! Go imports, checked as `go build` checks them in module mode: an import path resolves when it
//! is in the standard library (its first element has no dot: Go reserves those paths), in the
//! module itself (`module` of go.mod), or in a module a `require` or `replace` of go.mod names.
//! Anything else fails the build with "no required module provides package".
//!
//! No verdict without a go.mod up the tree (GOPATH mode), under a `go.work` (a workspace adds
//! modules go.mod does not name), with a `vendor/` folder that has no `modules.txt`, or when
//! go.mod does not parse (named in a note).

use std::path::{Path, PathBuf};

use crate::validate::imports::memo::Memo;
use crate::validate::imports::package_json::Unreadable;
use crate::validate::imports::verdict::{Missing, Unsure, Verdict};

const MAX_FILE: u64 = 1 << 20;

/// What a go.mod says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GoMod {
    pub(crate) path: PathBuf,
    pub(crate) module: String,
    /// Module paths of every `require`, and the old side of every `replace`.
    pub(crate) provided: Vec<String>,
}

impl GoMod {
    /// Parses go.mod's text: `module`, `require` and `replace` directives, one-line or in a
    /// block; other directives are skipped.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<GoMod, Unreadable> {
        let mut module = None;
        let mut provided = Vec::new();
        let mut block: Option<String> = None;
        for (index, raw_line) in text.lines().enumerate() {
            let line = raw_line.split("//").next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            if let Some(directive) = &block {
                if line == ")" {
                    block = None;
                } else {
                    entry(directive, line, &mut provided);
                }
                continue;
            }
            let (directive, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let rest = rest.trim();
            match directive {
                "module" => module = Some(unquote(rest).to_string()),
                _ if rest == "(" => block = Some(directive.to_string()),
                _ if directive.contains(['(', ')', '"']) => {
                    return Err(Unreadable::new(
                        path,
                        format!("line {}: `{line}` is not a directive", index + 1),
                    ));
                }
                _ => entry(directive, rest, &mut provided),
            }
        }
        match module.filter(|module| !module.is_empty()) {
            Some(module) if block.is_none() => Ok(GoMod {
                path: path.to_path_buf(),
                module,
                provided,
            }),
            Some(_) => Err(Unreadable::new(path, "a `(` block is never closed")),
            None => Err(Unreadable::new(path, "no `module` line")),
        }
    }
}

/// One `require` or `replace` entry: its first word is a module path.
fn entry(directive: &str, rest: &str, provided: &mut Vec<String>) {
    if matches!(directive, "require" | "replace")
        && let Some(first) = rest.split_whitespace().next()
    {
        provided.push(unquote(first).to_string());
    }
}

fn unquote(text: &str) -> &str {
    text.trim().trim_matches(['"', '`'])
}

/// Go resolution for one process: the go.mod files it read, kept.
#[derive(Debug, Default)]
pub(crate) struct GoModules {
    mods: Memo<Result<GoMod, Unreadable>>,
}

/// Where one Go file's imports are looked up.
#[derive(Debug)]
pub(crate) enum GoContext {
    Module(std::sync::Arc<Result<GoMod, Unreadable>>),
    Unsure,
}

impl GoModules {
    /// The module `file` belongs to (the nearest go.mod up to `top`), or why none is used.
    pub(crate) fn context(&self, file: &Path, top: &Path) -> GoContext {
        let folder = file.parent().unwrap_or(Path::new("/"));
        let mut within = folder.ancestors().take_while(|dir| dir.starts_with(top));
        let Some(root) = within.find(|dir| dir.join("go.mod").is_file()) else {
            return GoContext::Unsure;
        };
        let has_workspace = root
            .ancestors()
            .take_while(|dir| dir.starts_with(top))
            .any(|dir| dir.join("go.work").is_file());
        let vendor = root.join("vendor");
        if has_workspace || (vendor.is_dir() && !vendor.join("modules.txt").is_file()) {
            return GoContext::Unsure;
        }
        let path = root.join("go.mod");
        GoContext::Module(self.mods.get(&path, || {
            let text = crate::files::read_text_or_none(&path, MAX_FILE)
                .ok_or_else(|| Unreadable::new(&path, "not readable as UTF-8 text"))?;
            GoMod::parse(&path, &text)
        }))
    }
}

/// The verdict on the import path `specifier` in `context`.
pub(crate) fn resolve(specifier: &str, context: &GoContext) -> Verdict {
    let first = specifier.split('/').next().unwrap_or_default();
    if !first.contains('.') {
        return Verdict::Resolves;
    }
    let module = match context {
        GoContext::Unsure => return Verdict::Unsure(Unsure::GoLayout),
        GoContext::Module(module) => match module.as_ref() {
            Ok(module) => module,
            Err(_) => return Verdict::Unsure(Unsure::Unreadable),
        },
    };
    let covers = |prefix: &str| {
        specifier == prefix
            || specifier
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    if module.provided.iter().any(|provided| covers(provided)) {
        return Verdict::Resolves;
    }
    if covers(&module.module) {
        return in_module(specifier, module);
    }
    Verdict::Missing(Missing::GoPackage {
        go_mod: module.path.clone(),
    })
}

/// A package of the module itself: its folder below go.mod's must exist, as `go build` requires
/// (issue 40, item 5: `<module>/internal/nosuchpkg` passed). One look-up; a folder that exists
/// resolves, whatever it holds (rather miss than false-alarm).
fn in_module(specifier: &str, module: &GoMod) -> Verdict {
    let inside = specifier
        .strip_prefix(module.module.as_str())
        .unwrap_or_default()
        .trim_start_matches('/');
    let root = module.path.parent().unwrap_or(Path::new("."));
    if inside.is_empty() || root.join(inside).is_dir() {
        return Verdict::Resolves;
    }
    Verdict::Missing(Missing::GoPackageFolder {
        go_mod: module.path.clone(),
        folder: inside.to_string(),
    })
}

/// Whether a build constraint before the package clause keeps the file out of every build
/// (`//go:build ignore`, or the older `// +build ignore`).
pub(crate) fn is_build_ignored(content: &str) -> bool {
    content
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("package "))
        .any(|line| {
            let constraint = line
                .strip_prefix("//go:build ")
                .or_else(|| line.strip_prefix("// +build "));
            constraint.is_some_and(|expression| {
                expression
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
                    .any(|word| word == "ignore")
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO_MOD: &str = "module example.com/app // the app\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n\nrequire (\n\tgolang.org/x/sync v0.7.0\n\tgopkg.in/yaml.v3 v3.0.1 // indirect\n)\n\nreplace example.com/fork => ../fork\n\nreplace (\n\tgithub.com/old/lib v1.0.0 => github.com/new/lib v1.1.0\n)\n";

    fn module() -> GoContext {
        GoContext::Module(std::sync::Arc::new(GoMod::parse(
            Path::new("go.mod"),
            GO_MOD,
        )))
    }

    #[test]
    fn std_own_required_and_replaced_resolve() {
        let context = module();
        for path in [
            "fmt",
            "net/http",
            "github.com/pkg/errors",
            "golang.org/x/sync/errgroup",
            "gopkg.in/yaml.v3",
            "example.com/fork/sub",
            "github.com/old/lib",
        ] {
            assert_eq!(resolve(path, &context), Verdict::Resolves, "{path}");
        }
    }

    #[test]
    fn a_package_of_the_module_resolves_where_its_folder_exists() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("internal/db")).unwrap();
        let go_mod = root.path().join("go.mod");
        let context = GoContext::Module(std::sync::Arc::new(GoMod::parse(&go_mod, GO_MOD)));
        for path in ["example.com/app", "example.com/app/internal/db"] {
            assert_eq!(resolve(path, &context), Verdict::Resolves, "{path}");
        }
        assert_eq!(
            resolve("example.com/app/internal/nosuchpkg", &context),
            Verdict::Missing(Missing::GoPackageFolder {
                go_mod,
                folder: "internal/nosuchpkg".to_string()
            })
        );
    }

    #[test]
    fn an_unrequired_module_is_missing() {
        for path in [
            "github.com/acme/retryx",
            "github.com/pkg/errorsx",
            "example.com/application",
        ] {
            assert!(resolve(path, &module()).is_error(), "{path}");
        }
        assert_eq!(
            resolve("github.com/acme/retryx", &GoContext::Unsure),
            Verdict::Unsure(Unsure::GoLayout)
        );
    }

    #[test]
    fn build_ignored_files() {
        assert!(is_build_ignored(
            "// c\n\n//go:build ignore\n\npackage main\n"
        ));
        assert!(is_build_ignored("// +build ignore\n\npackage main\n"));
        assert!(!is_build_ignored("//go:build linux\n\npackage main\n"));
        assert!(!is_build_ignored("package main\n\n//go:build ignore\n"));
    }

    #[test]
    fn a_broken_go_mod_is_named_and_gives_no_verdict() {
        let broken = GoMod::parse(Path::new("x/go.mod"), "require (\n\ta v1\n");
        assert!(broken.is_err());
        let broken = GoMod::parse(Path::new("x/go.mod"), "go 1.22\n").unwrap_err();
        assert_eq!(
            broken.to_string(),
            "x/go.mod: no `module` line; imports of the files it covers are not checked"
        );
        let context = GoContext::Module(std::sync::Arc::new(Err(broken)));
        assert_eq!(
            resolve("github.com/acme/retryx", &context),
            Verdict::Unsure(Unsure::Unreadable)
        );
    }
}
