//! The Python validator: one start of the project's interpreter compiles the source and finds
//! the modules the edit's imports name. No interpreter → tree-sitter-python, with a note saying so
//! (syntax only: no compiler-only errors, no import checks).
//!
//! A monorepo holds several Python projects: each file is checked as part of the nearest folder
//! above it with its own project files ([`PythonProjects`]). Which interpreter, and which
//! environments count, is [`interpreter::find`]'s answer. Flags:
//! `-I` (isolated: no user environment variables, no current folder on `sys.path`), `-S` (no
//! `site`: no `.pth` file, `sitecustomize` or `usercustomize` ever runs), `-B` (never write
//! bytecode); no `-W` (it would import `warnings` on every start, a millisecond; a SyntaxWarning
//! goes to stderr, which car reads only when the check fails). The scripts (`compile_check.py`, and
//! `find_imports.py` when the edit added imports) never import a module to find it: it asks the import system's path finder, over the project's
//! source roots (the file's folder and its parents, the root, `src/`, `lib/`), the interpreter's
//! own paths and site-packages, every project environment's site-packages, and what their `.pth`
//! files and editable installs point to (read as text). Nothing from the project runs.
//!
//! Policy for a module that is not found anywhere:
//! - imported unconditionally at module level → an error whose subject is the module (learning
//!   keys on it);
//! - declared as a dependency of the project but not installed → a warning: sync the environment;
//! - imported only conditionally (in a function, `if`, `with`, a loop, or a `try` that does not
//!   expect ImportError) → a warning;
//! - expected to be missing (`try`/`except ImportError`, `suppress(ImportError)`, a
//!   `TYPE_CHECKING`, version or platform test) → nothing.
//!
//! Where to look: which Python runs ([`interpreter`], [`environments`]); what a project's files
//! say, read once per project root ([`project_files`]) and asked by the rules that turn an error
//! into a warning ([`declared_dependencies`] with [`requirement_files`], [`required_version`],
//! [`built_extensions`]); a notebook cell as Python ([`notebook_cell`]).

mod built_extensions;
mod declared_dependencies;
mod environments;
mod interpreter;
mod notebook_cell;
pub(crate) mod overview;
mod project_files;
mod required_version;
mod requirement_files;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::process::run_command;
use crate::validate::language::Language;
use crate::validate::python::built_extensions::built_by_project;
use crate::validate::python::declared_dependencies::{Declared, pytest_conftest};
use crate::validate::python::environments::Environment;
use crate::validate::python::interpreter::ProjectPython;
use crate::validate::python::notebook_cell::ipython_to_python;
use crate::validate::python::project_files::ProjectFiles;
use crate::validate::python::required_version::{Version, required_python};
use crate::validate::{Diagnostic, Origin, Report, Severity, Source, snippet_at, treesitter};

/// The check run with `-c`: compile, then (only when the edit added imports) the import half.
const SCRIPT: &str = include_str!("compile_check.py");
/// The import half, passed as text and compiled only when needed (compiling it on every start
/// would cost milliseconds on every edit).
const IMPORTS_SCRIPT: &str = include_str!("find_imports.py");

pub(crate) const VALIDATOR: &str = "python";

/// Compiling even a 2 MiB file takes a fraction of this; a hung file system does not.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// Python checking for every Python project of a checkout: the checkout itself, and each folder
/// below it that is a Python project of its own (a monorepo's `backend/` with its
/// `pyproject.toml` and `.venv`): [`python_root`] says which one a file belongs to.
#[derive(Debug)]
pub(crate) struct PythonProjects {
    checkout: PathBuf,
    explicit: Option<String>,
    by_root: Mutex<HashMap<PathBuf, Arc<PythonProject>>>,
}

impl PythonProjects {
    pub(crate) fn new(checkout: &Path, explicit: Option<String>) -> PythonProjects {
        PythonProjects {
            checkout: checkout.to_path_buf(),
            explicit,
            by_root: Mutex::new(HashMap::new()),
        }
    }

    /// Checks `source` as a file of its Python project.
    pub(crate) fn check(&self, source: &Source<'_>, report: &mut Report) {
        self.project_of(source.path).check(source, report);
    }

    /// The interpreter that checks `file`, or why there is none (resolved, not run).
    pub(crate) fn program(&self, file: &Path) -> Result<PathBuf, String> {
        self.project_of(file).python().program.clone()
    }

    /// The Python project `file` belongs to, made on first use.
    fn project_of(&self, file: &Path) -> Arc<PythonProject> {
        let root = python_root(&self.checkout, file);
        let mut by_root = self
            .by_root
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(by_root.entry(root.clone()).or_insert_with(|| {
            Arc::new(PythonProject::new(
                &self.checkout,
                &root,
                self.explicit.clone(),
            ))
        }))
    }
}

/// Files that make a folder a Python project of its own.
const PROJECT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "requirements.txt",
    ".venv/pyvenv.cfg",
    "venv/pyvenv.cfg",
];

/// The Python project `file` belongs to: the nearest folder above it, inside the checkout, that
/// holds a project file ([`PROJECT_MARKERS`]); else the checkout.
fn python_root(checkout: &Path, file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .take_while(|folder| folder.starts_with(checkout) && *folder != checkout)
        .find(|folder| {
            PROJECT_MARKERS
                .iter()
                .any(|marker| folder.join(marker).is_file())
        })
        .unwrap_or(checkout)
        .to_path_buf()
}

/// One Python project's checking: the interpreter, the project files and what they declare, each
/// found on first use (most edits are not Python; most Python edits import nothing missing).
#[derive(Debug)]
pub(crate) struct PythonProject {
    /// The checkout: `pythonInterpreter` is relative to it, and nothing inside it is ever run.
    checkout: PathBuf,
    /// The Python project's folder (the checkout, or a folder below it).
    root: PathBuf,
    /// `pythonInterpreter` from the settings.
    explicit: Option<String>,
    python: OnceLock<ProjectPython>,
    /// The project files at `root`, read once.
    files: OnceLock<ProjectFiles>,
    /// The project files at the checkout, when `root` is a folder below it, read once.
    checkout_files: OnceLock<ProjectFiles>,
    declared: OnceLock<Declared>,
    /// The oldest Python the project supports, and the file saying so (read on first use).
    required: OnceLock<Option<(Version, PathBuf)>>,
}

/// What the script reported.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Finding {
    /// A compiler error.
    Error {
        line: usize,
        column: usize,
        message: String,
    },
    /// The interpreter's version, reported with compile errors.
    Interpreter { major: u32, minor: u32 },
    /// A module found nowhere.
    Missing {
        line: usize,
        column: usize,
        module: String,
        /// Its top-level package exists (a submodule is missing).
        top_found: bool,
        /// The import runs only in some cases.
        conditional: bool,
    },
}

impl PythonProject {
    pub(crate) fn new(checkout: &Path, root: &Path, explicit: Option<String>) -> PythonProject {
        PythonProject {
            checkout: checkout.to_path_buf(),
            root: root.to_path_buf(),
            explicit,
            python: OnceLock::new(),
            files: OnceLock::new(),
            checkout_files: OnceLock::new(),
            declared: OnceLock::new(),
            required: OnceLock::new(),
        }
    }

    /// A project whose interpreter is already known (tests).
    #[cfg(test)]
    pub(crate) fn with_python(root: &Path, python: ProjectPython) -> PythonProject {
        let project = PythonProject::new(root, root, None);
        let _ = project.python.set(python);
        project
    }

    fn python(&self) -> &ProjectPython {
        self.python
            .get_or_init(|| interpreter::find(self.explicit.as_deref(), &self.checkout, &self.root))
    }

    /// Compiles `source` and checks the imports it added; falls back to tree-sitter.
    pub(crate) fn check(&self, source: &Source<'_>, report: &mut Report) {
        let cell_code;
        let mut source = *source;
        if source.language.is_some() {
            // A notebook cell: IPython syntax is not Python.
            let Some(code) = ipython_to_python(source.content) else {
                return;
            };
            cell_code = code;
            source.content = &cell_code;
        }
        let python = self.python();
        report.notes.extend(python.notes.iter().cloned());
        match &python.program {
            Ok(program) => self.compile(program, python, &source, report),
            Err(why) => fallback(&source, why, report),
        }
    }

    /// The one interpreter call: compile, then find the added imports.
    fn compile(
        &self,
        program: &Path,
        python: &ProjectPython,
        source: &Source<'_>,
        report: &mut Report,
    ) {
        let import_lines = import_lines(source);
        // The import half resolves against what is installed and the project's own modules.
        report.read_other_files |= !import_lines.is_empty();
        let mut command = Command::new(program);
        command
            .args(["-I", "-S", "-B", "-c", SCRIPT, IMPORTS_SCRIPT])
            .arg(source.display_path)
            .arg(import_lines);
        for root in source_roots(source.path, &self.checkout, &self.root) {
            command.arg(format!("r:{}", root.display()));
        }
        for environment in &python.environments {
            for site in environment.site_packages() {
                command.arg(format!("s:{}", site.display()));
            }
        }
        // The project runs in its first environment: when that one sees only its own packages,
        // the running interpreter's (and the user's) site-packages do not count.
        if python
            .environments
            .first()
            .is_some_and(Environment::is_isolated)
        {
            command.arg("x:isolated");
        }
        command.current_dir(&self.root);
        let output = match run_command(command, Some(source.content.as_bytes()), TIMEOUT) {
            Ok(output) => output,
            Err(error) => return fallback(source, &error.to_string(), report),
        };
        if output.timed_out {
            return report.notes.push(format!(
                "{}: the Python check took over {} s; not checked",
                source.display_path,
                TIMEOUT.as_secs()
            ));
        }
        if !output.success() {
            let why = output.stderr.lines().last().unwrap_or("no output").trim();
            let why = format!("`{}` failed ({why})", program.display());
            return fallback(source, &why, report);
        }
        let findings = parse_output(&output.stdout);
        // The interpreter reports its version with compile errors only, and then the Python the
        // project requires (its project files) decides their severity.
        report.read_other_files |= findings
            .iter()
            .any(|finding| matches!(finding, Finding::Interpreter { .. }));
        let too_old = findings
            .iter()
            .find_map(|finding| match finding {
                Finding::Interpreter { major, minor } => Some((*major, *minor)),
                _ => None,
            })
            .and_then(|version| self.too_old(version))
            // A second opinion that knows the newer syntax: where tree-sitter-python also finds
            // an error, the slip is real and blocks as usual.
            .filter(|_| !tree_sitter_agrees(source));
        for finding in findings {
            if let Some(diagnostic) = self.diagnostic(finding, program, source, too_old.as_deref())
            {
                report.diagnostics.push(diagnostic);
            }
        }
    }

    /// The project files of the Python project, then (in a monorepo) those of the checkout
    /// around it: where a question about the project is asked, in that order.
    fn project_files(&self) -> impl Iterator<Item = &ProjectFiles> {
        let own = self.files.get_or_init(|| ProjectFiles::read(&self.root));
        let around = (self.root != self.checkout).then(|| {
            self.checkout_files
                .get_or_init(|| ProjectFiles::read(&self.checkout))
        });
        std::iter::once(own).chain(around)
    }

    /// What the Python project declares, then what the checkout around it declares.
    fn read_declared(&self) -> Declared {
        let mut declared = Declared::default();
        for files in self.project_files() {
            declared.extend(Declared::read(files));
        }
        declared
    }

    /// Why the compile errors of an interpreter at `version` do not block: it is older than the
    /// Python the project requires ([`required_python`]) (and tree-sitter-python, asked next,
    /// finds no error: see the caller).
    fn too_old(&self, version: Version) -> Option<String> {
        let (required, file) = self
            .required
            .get_or_init(|| self.project_files().find_map(required_python))
            .as_ref()?;
        (version < *required).then(|| {
            let file = self.shown(file);
            format!(
                "checked with Python {}.{}, older than the {}.{} that {} requires, so a warning: install it or set pythonInterpreter",
                version.0,
                version.1,
                required.0,
                required.1,
                file.display()
            )
        })
    }

    /// A finding as a diagnostic, by the policy in the module docs; `too_old` says why compile
    /// errors only warn.
    fn diagnostic(
        &self,
        finding: Finding,
        program: &Path,
        source: &Source<'_>,
        too_old: Option<&str>,
    ) -> Option<Diagnostic> {
        let (line, column, severity, message, subject, origin) = match finding {
            Finding::Interpreter { .. } => return None,
            Finding::Error {
                line,
                column,
                message,
            } => match too_old {
                Some(why) => (
                    line,
                    column,
                    Severity::Warning,
                    format!("{message} ({why})"),
                    None,
                    Origin::Interpreter,
                ),
                None => (
                    line,
                    column,
                    Severity::Error,
                    message,
                    None,
                    Origin::Interpreter,
                ),
            },
            Finding::Missing {
                line,
                column,
                module,
                top_found,
                conditional,
            } => {
                let (severity, message) =
                    self.missing(&module, top_found, conditional, program, source.path);
                let subject = (severity == Severity::Error).then_some(module);
                (
                    line,
                    column,
                    severity,
                    message,
                    subject,
                    Origin::Environment,
                )
            }
        };
        let (line, column) = (line.max(1), column.max(1));
        Some(Diagnostic {
            file: source.display_path.to_string(),
            line,
            column,
            severity,
            validator: VALIDATOR.to_string(),
            origin,
            message,
            snippet: snippet_at(source.content, line, column),
            subject,
        })
    }

    /// A module found nowhere: a warning when the project declares it (not installed; `pytest`
    /// and its `pytest_*` plugins also where a `conftest.py` above the file, or pytest declared,
    /// shows the tests run with it), builds it (an
    /// extension not built here) or the import runs only conditionally, else an error.
    fn missing(
        &self,
        module: &str,
        top_found: bool,
        conditional: bool,
        program: &Path,
        path: &Path,
    ) -> (Severity, String) {
        let missing = format!("No module named '{module}'");
        if let Some(why) = self.not_installed_here(module, top_found, path) {
            return (
                Severity::Warning,
                format!("{missing} in `{}`, {why}", program.display()),
            );
        }
        if conditional {
            return (
                Severity::Warning,
                format!(
                    "{missing} in `{}`; a warning, not an error: the import runs only conditionally (in a function, `if`, `with`, loop or `try`)",
                    program.display()
                ),
            );
        }
        (Severity::Error, format!("ModuleNotFoundError: {missing}"))
    }

    /// Why a module found nowhere is missing only from this machine, not from the project: the
    /// project runs pytest (for pytest and its plugins) or declares it (both only when its
    /// top-level package is missing too), or builds it. The text continues "No module named 'x'
    /// in `python`, …".
    fn not_installed_here(&self, module: &str, top_found: bool, path: &Path) -> Option<String> {
        let top = match module.split('.').next().unwrap_or(module) {
            "_pytest" => "pytest",
            top => top,
        };
        let declared = self.declared.get_or_init(|| self.read_declared());
        if !top_found && (top == "pytest" || top.starts_with("pytest_")) {
            // A conftest.py above the file, or pytest declared.
            let evidence = pytest_conftest(&self.checkout, path).or_else(|| {
                declared
                    .provider("pytest")
                    .map(|(_, file)| file.to_path_buf())
            });
            if let Some(evidence) = evidence {
                return Some(format!(
                    "but the project runs its tests with pytest ({}): declared but not installed; sync the environment",
                    self.shown(&evidence).display()
                ));
            }
        }
        if let Some((distribution, file)) = declared.provider(top).filter(|_| !top_found) {
            return Some(format!(
                "but {} declares `{distribution}`: declared but not installed; sync the environment",
                self.shown(file).display()
            ));
        }
        let roots = source_roots(path, &self.checkout, &self.root);
        let built = self
            .project_files()
            .find_map(|files| built_by_project(module, &roots, files))?;
        Some(format!(
            "but the project builds it ({}): an extension module not built here; build the project in place (e.g. `pip install -e .`)",
            self.shown(&built).display()
        ))
    }

    /// A path as the messages show it: relative to the checkout.
    fn shown<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.checkout).unwrap_or(path)
    }
}

/// The lines whose imports are checked: `all` for `car check` (every line counts as added),
/// else the added lines that mention `import`; empty when there are none (no AST is built).
fn import_lines(source: &Source<'_>) -> String {
    // Stubs import what exists only for type checkers (`_typeshed`): nothing to find at run time.
    let is_stub = source.path.extension().is_some_and(|ext| ext == "pyi");
    if source.added.is_empty() || is_stub {
        return String::new();
    }
    let mentions_import: Vec<String> = source
        .added
        .iter()
        .filter(|added| added.line > 0 && added.text.contains("import"))
        .map(|added| added.line.to_string())
        .collect();
    if source.added_everything() && source.content.contains("import") {
        "all".to_string()
    } else {
        mentions_import.join(",")
    }
}

/// Folders where the project's own modules live: the file's folder and its parents up to the
/// project root, and the root's `src/` and `lib/` (ansible's `lib/ansible`, sqlalchemy's
/// `lib/sqlalchemy`). A project folder shadows the standard library, as it does when the project
/// runs (sqlalchemy's `test/` package is not the stdlib's `test`).
fn source_roots(file: &Path, project_root: &Path, python_root: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(project_root))
        .map(Path::to_path_buf)
        .collect();
    for root in [
        python_root.to_path_buf(),
        python_root.join("src"),
        python_root.join("lib"),
        project_root.to_path_buf(),
        project_root.join("src"),
        project_root.join("lib"),
    ] {
        if !roots.contains(&root) && root.is_dir() {
            roots.push(root);
        }
    }
    roots
}

/// Reads the script's `E` and `M` lines.
fn parse_output(stdout: &str) -> Vec<Finding> {
    stdout
        .lines()
        .filter_map(|text| {
            let fields: Vec<&str> = text.split('\t').collect();
            let line: usize = fields.get(1)?.parse().ok()?;
            let column: usize = fields.get(2)?.parse().ok()?;
            match (fields[0], fields.len()) {
                ("E", 4) => Some(Finding::Error {
                    line,
                    column,
                    message: fields[3].to_string(),
                }),
                ("V", 3) => Some(Finding::Interpreter {
                    major: u32::try_from(line).ok()?,
                    minor: u32::try_from(column).ok()?,
                }),
                ("M", 6) => Some(Finding::Missing {
                    line,
                    column,
                    module: fields[3].to_string(),
                    top_found: fields[4] == "1",
                    conditional: fields[5] == "conditional",
                }),
                _ => None,
            }
        })
        .collect()
}

/// Whether tree-sitter-python, which reads the newest syntax, also finds an error in the source.
fn tree_sitter_agrees(source: &Source<'_>) -> bool {
    treesitter::check(source.display_path, source.content, Language::Python)
        .is_ok_and(|found| found.iter().any(Diagnostic::is_error))
}

fn fallback(source: &Source<'_>, why: &str, report: &mut Report) {
    report.notes.push(format!(
        "{}: {why}; checked with tree-sitter-python (syntax only, imports not checked)",
        source.display_path
    ));
    match treesitter::check(source.display_path, source.content, Language::Python) {
        Ok(found) => report.diagnostics.extend(found),
        Err(note) => report.notes.push(note),
    }
}

#[cfg(test)]
mod tests;

/// Which Python checks the project's Python files, in words for `car status`: the program (or
/// why there is none) and the environment whose packages count first.
pub(crate) fn describe_interpreter(project_root: &Path, explicit: Option<&str>) -> String {
    let python = interpreter::find(explicit, project_root, project_root);
    let program = match &python.program {
        Ok(program) => program.display().to_string(),
        Err(why) => format!("none ({why}); Python files are read by tree-sitter only"),
    };
    let packages = python.environments.first().map_or_else(
        || "; packages: the interpreter's own (no project environment found)".to_string(),
        |environment| {
            let isolated = if environment.is_isolated() {
                ", without system site-packages"
            } else {
                ""
            };
            format!(
                "; packages: {} ({}{isolated})",
                environment.dir.display(),
                environment.origin.describe()
            )
        },
    );
    format!("{program}{packages}")
}
