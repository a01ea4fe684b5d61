//! Imports that resolve nowhere, beyond Python: the modules the edit's added imports name in
//! JavaScript and TypeScript ([`node`]), Go ([`go`]) and Rust ([`rust`]), looked up in process
//! the way the language's own tool looks them up, without running it. Python's imports are the
//! Python check's (`validate::python`), through its interpreter.
//!
//! Policy (the Python check's): *rather miss than false-alarm*. Only a verdict the language's
//! tool would give too blocks ([`verdict::Missing`]); missing only from this machine warns
//! ([`verdict::NotHere`]); anything car cannot see through is no verdict ([`verdict::Unsure`]).
//! A project file that does not parse is named in a note and leaves its files' imports
//! unchecked. A blocking diagnostic's subject is the missing package (a relative file has none),
//! so a hallucinated package imported twice is learned like a missing Python module.
//!
//! Invariants: only imports whose module name is on a line the edit added are checked
//! ([`found`]); no file is listed below a `node_modules` (names are looked up); what a project
//! file says is read once per process ([`memo`]); declaration files (`.d.ts`) are skipped (their
//! `declare module` blocks name modules, they do not import them).

mod found;
mod go;
mod ignored;
mod memo;
mod node;
mod package_json;
mod rust;
mod tsconfig;
mod verdict;
mod workspace;

use std::path::{Path, PathBuf};

use crate::validate::imports::found::Import;
use crate::validate::imports::package_json::Unreadable;
use crate::validate::imports::verdict::{Missing, Verdict};
use crate::validate::language::Language;
use crate::validate::languages::spec::ImportResolver;
use crate::validate::{Diagnostic, Origin, Report, Severity, Source, snippet_at};

/// The validator name the import check's diagnostics show.
pub(crate) const VALIDATOR: &str = "imports";

/// Import checking for one project, for one process.
#[derive(Debug)]
pub(crate) struct Imports {
    checkout: PathBuf,
    node: node::NodeResolver,
    go: go::GoModules,
    rust: rust::RustCrates,
}

impl Imports {
    pub(crate) fn new(checkout: &Path) -> Imports {
        Imports {
            checkout: checkout.to_path_buf(),
            node: node::NodeResolver::default(),
            go: go::GoModules::default(),
            rust: rust::RustCrates::default(),
        }
    }

    /// Checks the imports `source`'s edit added, in `language`; `tree` is the file's parse when
    /// the syntax check made one (else the file is parsed here, when an added line may import).
    pub(crate) fn check(
        &self,
        source: &Source<'_>,
        language: Language,
        tree: Option<&tree_sitter::Tree>,
        report: &mut Report,
    ) {
        if is_declaration_file(source.path) {
            return;
        }
        let imports = found::added_imports(language, source.content, source.added, tree);
        if imports.is_empty() {
            return;
        }
        report.read_other_files = true;
        let top = if source.path.starts_with(&self.checkout) {
            self.checkout.as_path()
        } else {
            Path::new("/")
        };
        let (verdicts, unreadable) = self.verdicts(source, language, top, &imports);
        for problem in unreadable {
            report.notes.push(problem.note(&self.checkout));
        }
        for (import, verdict) in imports.iter().zip(verdicts) {
            if verdict == Verdict::Unsure(verdict::Unsure::BuildOutput) {
                report.notes.push(format!(
                    "{}:{}: import '{}' not checked: git ignores its target, so it is build output (it exists once the project is built)",
                    source.display_path, import.line, import.specifier
                ));
            }
            if let Some(diagnostic) = self.diagnostic(source, import, &verdict) {
                report.diagnostics.push(diagnostic);
            }
        }
    }

    /// Each import's verdict, and the project files that could not be read.
    fn verdicts(
        &self,
        source: &Source<'_>,
        language: Language,
        top: &Path,
        imports: &[Import],
    ) -> (Vec<Verdict>, Vec<Unreadable>) {
        let Some(resolver) = language.spec().imports else {
            return (Vec::new(), Vec::new());
        };
        match resolver {
            ImportResolver::Go => {
                let context = self.go.context(source.path, top);
                let unreadable = match &context {
                    go::GoContext::Module(module) => module.as_ref().clone().err(),
                    go::GoContext::Unsure => None,
                };
                let is_ignored = go::is_build_ignored(source.content);
                let verdicts = imports
                    .iter()
                    .map(|import| match go::resolve(&import.specifier, &context) {
                        Verdict::Missing(_) if is_ignored => {
                            Verdict::NotHere(verdict::NotHere::GoBuildIgnored)
                        }
                        verdict => verdict,
                    })
                    .collect();
                (verdicts, unreadable.into_iter().collect())
            }
            ImportResolver::Rust => {
                let Some((root, names)) = self.rust.package(source.path, top) else {
                    return (vec![Verdict::Resolves; imports.len()], Vec::new());
                };
                let verdicts = imports
                    .iter()
                    .map(|import| {
                        rust::resolve(
                            &import.specifier,
                            import.is_extern_crate,
                            source.path,
                            source.content,
                            &root,
                            &names,
                        )
                    })
                    .collect();
                (verdicts, names.as_ref().clone().err().into_iter().collect())
            }
            ImportResolver::Node => {
                let around = self.node.surroundings(source.path, top);
                let verdicts = imports
                    .iter()
                    .map(|import| {
                        let verdict = self.node.resolve(source.path, &import.specifier, &around);
                        match verdict {
                            Verdict::Missing(verdict::Missing::File)
                                if self.is_build_output(source.path, &import.specifier) =>
                            {
                                Verdict::Unsure(verdict::Unsure::BuildOutput)
                            }
                            Verdict::Missing(_) if import.is_conditional => {
                                Verdict::NotHere(verdict::NotHere::Conditional)
                            }
                            verdict => verdict,
                        }
                    })
                    .collect();
                (verdicts, around.unreadable())
            }
        }
    }

    /// Whether the relative import `specifier` of `file` names a path git ignores.
    fn is_build_output(&self, file: &Path, specifier: &str) -> bool {
        let folder = file.parent().unwrap_or(Path::new("/"));
        ignored::is_build_output(&self.checkout, &folder.join(specifier))
    }

    fn diagnostic(
        &self,
        source: &Source<'_>,
        import: &Import,
        verdict: &Verdict,
    ) -> Option<Diagnostic> {
        let shown = |path: &PathBuf| {
            path.strip_prefix(&self.checkout)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        let message = verdict.message(&import.specifier, shown)?;
        let severity = if verdict.is_error() {
            Severity::Error
        } else {
            Severity::Warning
        };
        Some(Diagnostic {
            file: source.display_path.to_string(),
            line: import.line,
            column: import.column,
            severity,
            validator: VALIDATOR.to_string(),
            origin: Origin::Environment,
            message,
            snippet: snippet_at(source.content, import.line, import.column),
            subject: subject(import, verdict),
        })
    }
}

/// What a blocking verdict is about, for learning: the package (`fetch-retryx` of
/// `fetch-retryx/sub`), the Go import path; a missing relative file teaches nothing.
fn subject(import: &Import, verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Missing(Missing::Package) => {
            let specifier = import.specifier.as_str();
            let parts = if specifier.starts_with('@') { 2 } else { 1 };
            Some(
                specifier
                    .split('/')
                    .take(parts)
                    .collect::<Vec<_>>()
                    .join("/"),
            )
        }
        Verdict::Missing(Missing::GoPackage { .. }) => Some(import.specifier.clone()),
        _ => None,
    }
}

/// TypeScript declaration files: `declare module "x"` names modules without importing them.
fn is_declaration_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}
