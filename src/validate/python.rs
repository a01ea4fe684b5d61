//! The Python validator: one start of the real interpreter compiles the source and checks the
//! imports the edit added (module not found = error). No interpreter → tree-sitter-python, with a
//! note saying so (syntax only: no compiler-only errors, no import checks).
//!
//! Flags: `-I` (isolated: no user environment variables, no current folder on `sys.path`), `-S`
//! (no `site` at start-up: it costs 5–30 ms with many `.pth` files), `-B` (never write bytecode),
//! `-W ignore` (SyntaxWarnings are not errors). Import checks need site-packages, so the script
//! runs `site.main()` itself, and only when a module is not found without it; the project's own
//! folders (the file's folder and its parents up to the root, and `src/`) and `PYTHONPATH` are
//! added so local packages count as found. Nothing is imported: modules are looked up with
//! `find_spec`, so no project code runs and nothing lands in `__pycache__`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::run_command;
use crate::validate::language::Language;
use crate::validate::{Diagnostic, Report, Severity, Source, snippet_at, treesitter};

const SCRIPT: &str = include_str!("python_check.py");

pub(crate) const VALIDATOR: &str = "python";

/// Compiling even a 2 MiB file takes a fraction of this; a hung site-packages scan does not.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// What to check besides syntax.
pub(crate) struct PythonCheck<'a> {
    pub(crate) interpreter: Result<PathBuf, String>,
    pub(crate) project_root: &'a Path,
}

impl PythonCheck<'_> {
    /// Compiles `source` and checks the imports it added; falls back to tree-sitter.
    pub(crate) fn run(&self, source: &Source<'_>, report: &mut Report) {
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
        match &self.interpreter {
            Ok(interpreter) => self.compile(interpreter, &source, report),
            Err(why) => fallback(&source, why, report),
        }
    }

    /// The one interpreter call: compile, then the added imports.
    fn compile(&self, interpreter: &Path, source: &Source<'_>, report: &mut Report) {
        let mut command = Command::new(interpreter);
        command
            .args(["-I", "-S", "-B", "-W", "ignore", "-c", SCRIPT])
            .arg(source.display_path)
            .arg(import_lines(source))
            .args(search_paths(source.path, self.project_root))
            .current_dir(self.project_root);
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
            let why = format!("`{}` failed ({why})", interpreter.display());
            return fallback(source, &why, report);
        }
        report.diagnostics.extend(parse_output(
            source.display_path,
            source.content,
            &output.stdout,
        ));
    }
}

/// A notebook cell as plain Python: line magics (`%timeit f()`), shell escapes (`!pip install x`,
/// `files = !ls`) and help lines (`obj?`) become `pass` at the same indentation, so line numbers do
/// not move. `None` for a cell magic (`%%bash`, `%%time`, …): the cell is another language or
/// wraps its code, and car would rather miss than misread it.
pub(crate) fn ipython_to_python(cell: &str) -> Option<String> {
    let first = cell.lines().map(str::trim).find(|line| !line.is_empty());
    if first.is_some_and(|line| line.starts_with("%%")) {
        return None;
    }
    let lines: Vec<String> = cell
        .split('\n')
        .map(|line| {
            let code = line.trim_start();
            let indent = &line[..line.len() - code.len()];
            if is_ipython_line(code) {
                format!("{indent}pass")
            } else {
                line.to_string()
            }
        })
        .collect();
    Some(lines.join("\n"))
}

fn is_ipython_line(code: &str) -> bool {
    if code.starts_with('%') || code.starts_with('!') {
        return true;
    }
    let is_name = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ',' | ' '))
    };
    // `files = !ls`, `out = %sx ls`
    if let Some((target, value)) = code.split_once('=') {
        let value = value.trim_start();
        if is_name(target.trim()) && (value.starts_with('!') || value.starts_with('%')) {
            return true;
        }
    }
    // `obj?`, `obj??`
    code.strip_suffix('?')
        .map(|rest| rest.strip_suffix('?').unwrap_or(rest))
        .is_some_and(|name| is_name(name) && !name.contains(' '))
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
/// project root, and `<root>/src`.
fn search_paths(file: &Path, project_root: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(project_root))
        .map(Path::to_path_buf)
        .collect();
    if !paths.iter().any(|dir| dir == project_root) {
        paths.push(project_root.to_path_buf());
    }
    paths.push(project_root.join("src"));
    paths
}

/// Reads the script's `E`/`M` lines.
pub(crate) fn parse_output(display_path: &str, content: &str, stdout: &str) -> Vec<Diagnostic> {
    stdout
        .lines()
        .filter_map(|text| {
            let mut fields = text.splitn(4, '\t');
            let kind = fields.next()?;
            let line: usize = fields.next()?.parse().ok()?;
            let column: usize = fields.next()?.parse().ok()?;
            let rest = fields.next()?.to_string();
            let (message, subject) = match kind {
                "E" => (rest, None),
                "M" => (
                    format!("ModuleNotFoundError: No module named '{rest}'"),
                    Some(rest),
                ),
                _ => return None,
            };
            Some(Diagnostic {
                file: display_path.to_string(),
                line: line.max(1),
                column: column.max(1),
                severity: Severity::Error,
                validator: VALIDATOR.to_string(),
                message,
                snippet: snippet_at(content, line.max(1), column.max(1)),
                subject,
            })
        })
        .collect()
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
mod tests {
    use super::*;
    use crate::edit::AddedLine;
    use crate::validate::interpreter;

    fn run(content: &str, added: &[AddedLine]) -> Report {
        let root = tempfile::tempdir().unwrap();
        run_in(root.path(), "app.py", content, added)
    }

    fn run_in(root: &Path, name: &str, content: &str, added: &[AddedLine]) -> Report {
        let path = root.join(name);
        let source = Source {
            path: &path,
            display_path: name,
            content,
            language: None,
            added,
        };
        let check = PythonCheck {
            interpreter: interpreter::resolve(None, root),
            project_root: root,
        };
        let mut report = Report::default();
        check.run(&source, &mut report);
        report
    }

    #[test]
    fn valid_code_passes() {
        let content = "import json\nimport os.path\nfrom collections import OrderedDict\n\ndef f(x):\n    return json.dumps(x)\n";
        let report = run(content, &AddedLine::every_line(content));
        assert!(report.diagnostics.is_empty(), "{report:?}");
        assert!(report.notes.is_empty(), "{report:?}");
    }

    #[test]
    fn return_outside_function_is_a_compiler_error() {
        let report = run("x = 1\nreturn x\n", &[]);
        let error = &report.diagnostics[0];
        assert_eq!((error.line, error.column), (2, 1), "{error:?}");
        assert!(
            error.message.contains("'return' outside function"),
            "{error:?}"
        );
        assert_eq!(error.validator, "python");
        assert_eq!(error.snippet.as_deref(), Some("return x"));
    }

    #[test]
    fn indentation_error_has_line() {
        let report = run("def f():\n    a = 1\n      b = 2\n", &[]);
        let error = &report.diagnostics[0];
        assert_eq!(error.line, 3, "{error:?}");
        assert!(error.message.starts_with("IndentationError"), "{error:?}");
    }

    #[test]
    fn unclosed_paren() {
        let report = run("df = load('data.csv'\nprint(df.head())", &[]);
        assert_eq!(report.diagnostics[0].line, 1, "{report:?}");
    }

    #[test]
    fn added_missing_module_is_an_error_with_subject() {
        let content =
            "import json\nimport car_no_such_module_xyz\nfrom car_missing_pkg.sub import thing\n";
        let report = run(content, &AddedLine::every_line(content));
        let subjects: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| (d.line, d.subject.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            subjects,
            vec![
                (2, "car_no_such_module_xyz".to_string()),
                (3, "car_missing_pkg.sub".to_string())
            ]
        );
        assert!(
            report.diagnostics[0]
                .message
                .contains("car_no_such_module_xyz")
        );
    }

    #[test]
    fn stub_files_are_compiled_but_their_imports_not_checked() {
        let root = tempfile::tempdir().unwrap();
        let content = "from _typeshed import StrPath\ndef f(p: StrPath) -> None: ...\n";
        let report = run_in(
            root.path(),
            "m.pyi",
            content,
            &AddedLine::every_line(content),
        );
        assert!(report.diagnostics.is_empty(), "{report:?}");
        let report = run_in(
            root.path(),
            "m.pyi",
            "def f(:\n",
            &AddedLine::every_line("def f(:\n"),
        );
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
    }

    #[test]
    fn only_added_imports_are_checked() {
        let content = "import car_no_such_old\nimport json\nx = 1\n";
        let added = vec![AddedLine {
            line: 3,
            text: "x = 1".into(),
        }];
        assert!(run(content, &added).diagnostics.is_empty());
        let added = vec![AddedLine {
            line: 1,
            text: "import car_no_such_old".into(),
        }];
        assert_eq!(run(content, &added).diagnostics.len(), 1);
    }

    #[test]
    fn guarded_relative_and_local_imports_are_not_flagged() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("src/mypkg")).unwrap();
        std::fs::write(root.path().join("src/mypkg/__init__.py"), "").unwrap();
        std::fs::write(root.path().join("src/mypkg/util.py"), "").unwrap();
        let content = "try:\n    import car_optional_accel\nexcept ImportError:\n    car_optional_accel = None\nfrom . import sibling\nimport mypkg.util\nimport os.path\nif TYPE_CHECKING:\n    from _typeshed import StrPath\nif sys.version_info < (3, 11):\n    import tomli\nwith suppress(ImportError):\n    import car_optional_other\n";
        let report = run_in(
            root.path(),
            "src/mypkg/main.py",
            content,
            &AddedLine::every_line(content),
        );
        assert!(report.diagnostics.is_empty(), "{report:?}");
        let content = "import mypkg.nothing_here\n";
        let report = run_in(
            root.path(),
            "src/mypkg/main.py",
            content,
            &AddedLine::every_line(content),
        );
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
    }

    #[test]
    fn site_packages_of_a_virtualenv_are_visible() {
        let root = tempfile::tempdir().unwrap();
        let base = interpreter::resolve(None, root.path()).expect("python3 for the tests");
        let venv = root.path().join("venv");
        let status = Command::new(&base)
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .status()
            .unwrap();
        assert!(status.success());
        let python = venv.join("bin/python");
        let output = Command::new(&python)
            .args(["-c", "import site; print(site.getsitepackages()[0])"])
            .output()
            .unwrap();
        let site_packages = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        std::fs::create_dir_all(site_packages.join("car_fake_installed")).unwrap();
        std::fs::write(site_packages.join("car_fake_installed/__init__.py"), "").unwrap();
        let content = "import car_fake_installed\nimport car_fake_not_installed\n";
        let path = root.path().join("app.py");
        let added = AddedLine::every_line(content);
        let source = Source {
            path: &path,
            display_path: "app.py",
            content,
            language: None,
            added: &added,
        };
        let check = PythonCheck {
            interpreter: Ok(python),
            project_root: root.path(),
        };
        let mut report = Report::default();
        check.run(&source, &mut report);
        let missing: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| d.subject.clone())
            .collect();
        assert_eq!(
            missing,
            [Some("car_fake_not_installed".to_string())],
            "{report:?}"
        );
    }

    #[test]
    fn nothing_written_to_pycache() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("helper.py"), "X = 1\n").unwrap();
        let content = "import helper\n";
        let report = run_in(
            root.path(),
            "app.py",
            content,
            &AddedLine::every_line(content),
        );
        assert!(report.diagnostics.is_empty(), "{report:?}");
        assert!(!root.path().join("__pycache__").exists());
    }

    #[test]
    fn notebook_cells_allow_ipython_syntax() {
        assert_eq!(
            ipython_to_python(
                "%matplotlib inline\n!pip install x\nfiles = !ls\ndf?\nif x:\n    %time f()\n"
            ),
            Some("pass\npass\npass\npass\nif x:\n    pass\n".to_string())
        );
        assert_eq!(ipython_to_python("\n%%bash\necho $((\n"), None);
        assert_eq!(
            ipython_to_python("a = b != c\n"),
            Some("a = b != c\n".to_string())
        );
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("n.ipynb");
        let check = PythonCheck {
            interpreter: interpreter::resolve(None, root.path()),
            project_root: root.path(),
        };
        for (cell, errors) in [
            ("%load_ext autoreload\nx = (1,\n", 1),
            ("!ls -la\nprint(1)\n", 0),
        ] {
            let source = Source {
                path: &path,
                display_path: "n.ipynb",
                content: cell,
                language: Some("python"),
                added: &[],
            };
            let mut report = Report::default();
            check.run(&source, &mut report);
            assert_eq!(report.diagnostics.len(), errors, "{cell:?}: {report:?}");
        }
    }

    #[test]
    fn without_interpreter_tree_sitter_says_so() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("a.py");
        let content = "def f(:\n";
        let source = Source {
            path: &path,
            display_path: "a.py",
            content,
            language: None,
            added: &[],
        };
        let check = PythonCheck {
            interpreter: Err("no Python interpreter (python3 or python) on PATH".into()),
            project_root: root.path(),
        };
        let mut report = Report::default();
        check.run(&source, &mut report);
        assert!(report.notes[0].contains("tree-sitter-python"), "{report:?}");
        assert_eq!(report.diagnostics[0].validator, "tree-sitter-python");
    }
}
