//! A scope: a glob over the project's files, as lessons, custom validator rules and
//! `car deep-review --paths` use it.
//!
//! Rules (docs/contracts.md): a pattern without `/` (`*.swift`, `Makefile`) matches the file **name** in
//! any folder; a pattern with `/` (`src/**/*.rs`) matches the project-relative path, `/`
//! separated, where `*` does not cross folders but `**` does. An empty scope, `*` and `**` match
//! every file.

use std::sync::{Arc, OnceLock};

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// A scope: validated when parsed, its matcher compiled on first use (compiling a glob builds a
/// regex, which would dominate loading 10,000 lessons; the index uses [`ScopeSet`] instead).
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    text: String,
    glob: Option<Glob>,
    matcher: Arc<OnceLock<GlobMatcher>>,
    is_path: bool,
}

impl Scope {
    pub(crate) fn parse(text: &str) -> Result<Scope, globset::Error> {
        let trimmed = text.trim();
        let glob = if matches!(trimmed, "" | "*" | "**" | "**/*") {
            None
        } else {
            Some(build_glob(trimmed)?)
        };
        Ok(Scope {
            text: text.to_string(),
            glob,
            matcher: Arc::new(OnceLock::new()),
            is_path: trimmed.contains('/'),
        })
    }

    /// The scope as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the file at this project-relative path is in scope.
    pub(crate) fn matches(&self, relative_path: &str) -> bool {
        let Some(glob) = &self.glob else {
            return true;
        };
        let matcher = self.matcher.get_or_init(|| glob.compile_matcher());
        if self.is_path {
            matcher.is_match(relative_path.trim_start_matches('/'))
        } else {
            matcher.is_match(file_name(relative_path))
        }
    }
}

/// Whether the scope `text` covers the project-relative path, decided without compiling a glob,
/// for the two simplest kinds of scope: a file name (`Makefile`) and `*` with a literal suffix
/// (`*.py`, `*_test.go`); `None` for any other scope. Agrees with [`Scope::matches`]: a name
/// scope matches the path's file name, and a `*` never crosses a `/`.
pub(crate) fn simple_match(text: &str, relative_path: &str) -> Option<bool> {
    let text = text.trim();
    let is_literal =
        |part: &str| !part.is_empty() && !part.contains(['*', '?', '[', ']', '{', '}', '\\', '/']);
    let name = file_name(relative_path);
    match text.strip_prefix('*') {
        Some(suffix) if is_literal(suffix) => Some(name.ends_with(suffix)),
        None if is_literal(text) => Some(name == text),
        _ => None,
    }
}

fn build_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern.trim_start_matches('/'))
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

fn file_name(relative_path: &str) -> &str {
    relative_path.rsplit('/').next().unwrap_or(relative_path)
}

/// Many scopes matched at once: two glob sets (file-name scopes and path scopes), so checking a
/// path against 10,000 lessons costs about as much as against 10.
#[derive(Debug, Default)]
pub(crate) struct ScopeSet {
    names: GlobSet,
    name_ids: Vec<usize>,
    paths: GlobSet,
    path_ids: Vec<usize>,
    everything: Vec<usize>,
    count: usize,
}

impl ScopeSet {
    /// Compiles the distinct scopes; their positions are the ids [`ScopeSet::matching`] returns.
    pub(crate) fn new(scopes: &[&Scope]) -> ScopeSet {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut set = ScopeSet {
            count: scopes.len(),
            ..ScopeSet::default()
        };
        for (id, scope) in scopes.iter().enumerate() {
            match &scope.glob {
                None => set.everything.push(id),
                Some(glob) if scope.is_path => {
                    paths.add(glob.clone());
                    set.path_ids.push(id);
                }
                Some(glob) => {
                    names.add(glob.clone());
                    set.name_ids.push(id);
                }
            }
        }
        set.names = names.build().unwrap_or_else(|_| GlobSet::empty());
        set.paths = paths.build().unwrap_or_else(|_| GlobSet::empty());
        set
    }

    /// A flag per scope id: does it cover this path?
    pub(crate) fn matching(&self, relative_path: &str) -> Vec<bool> {
        let mut covered = vec![false; self.count];
        for id in &self.everything {
            covered[*id] = true;
        }
        for index in self.names.matches(file_name(relative_path)) {
            covered[self.name_ids[index]] = true;
        }
        for index in self.paths.matches(relative_path.trim_start_matches('/')) {
            covered[self.path_ids[index]] = true;
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simple_match_agrees_with_the_glob() {
        let scopes = [
            "*.py",
            "*_test.go",
            "Makefile",
            "app.py",
            " *.ts ",
            "*.d.ts",
            "*",
            "**/*.py",
            "src/*.py",
            "*.{ts,tsx}",
            "a?.py",
            "",
        ];
        let paths = [
            "app.py",
            "src/app.py",
            "x_test.go",
            "Makefile",
            "src/Makefile",
            "a.d.ts",
            "b.ts",
            ".py",
            "ab.py",
            "app.pyc",
            "dir.py/file",
        ];
        for scope in scopes {
            let parsed = Scope::parse(scope).unwrap();
            for path in paths {
                if let Some(simple) = simple_match(scope, path) {
                    assert_eq!(simple, parsed.matches(path), "{scope:?} on {path}");
                }
            }
        }
        assert_eq!(simple_match("*.py", "src/app.py"), Some(true));
        assert_eq!(simple_match("src/*.py", "src/app.py"), None);
        assert_eq!(simple_match("*.{ts,tsx}", "a.ts"), None);
    }

    #[test]
    fn name_scopes_match_anywhere() {
        let scope = Scope::parse("*.swift").unwrap();
        assert!(scope.matches("App.swift"));
        assert!(scope.matches("ios/Views/App.swift"));
        assert!(!scope.matches("ios/App.swift.md"));
        assert!(!scope.matches("app.py"));
    }

    #[test]
    fn path_scopes_match_relative_paths() {
        let scope = Scope::parse("src/**/*.rs").unwrap();
        assert!(scope.matches("src/a/b.rs"));
        assert!(scope.matches("src/b.rs"));
        assert!(!scope.matches("tests/src/b.rs"));
        let shallow = Scope::parse("src/*.rs").unwrap();
        assert!(!shallow.matches("src/a/b.rs"));
        assert!(Scope::parse("").unwrap().matches("any/thing.txt"));
        assert!(Scope::parse("a/[").is_err());
    }

    #[test]
    fn set_agrees_with_single_scopes() {
        let scopes: Vec<Scope> = ["*.py", "src/*.py", "*", "docs/**", "Makefile"]
            .iter()
            .map(|text| Scope::parse(text).unwrap())
            .collect();
        let refs: Vec<&Scope> = scopes.iter().collect();
        let set = ScopeSet::new(&refs);
        for path in [
            "a.py",
            "src/a.py",
            "src/x/a.py",
            "docs/a/b.md",
            "x/Makefile",
        ] {
            let expected: Vec<bool> = scopes.iter().map(|s| s.matches(path)).collect();
            assert_eq!(set.matching(path), expected, "{path}");
        }
    }
}
