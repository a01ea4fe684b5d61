use super::*;
use crate::edit::AddedLine;
use crate::validate::python::interpreter;

/// The errors and warnings of a report as `(line, severity, subject)`.
fn findings(report: &Report) -> Vec<(usize, Severity, Option<String>)> {
    report
        .diagnostics
        .iter()
        .map(|d| (d.line, d.severity, d.subject.clone()))
        .collect()
}

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
    let mut report = Report::default();
    PythonProject::new(root, root, None).check(&source, &mut report);
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

/// A venv as uv, poetry or `python -m venv` make it, with a package in its site-packages.
fn make_venv(root: &Path, name: &str, package: &str) -> PathBuf {
    let base = interpreter::resolve(None, root).expect("python3 for the tests");
    let venv = root.join(name);
    let status = Command::new(&base)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(status.success());
    let python = venv.join("bin/python");
    let output = Command::new(&python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ])
        .output()
        .unwrap();
    let site_packages = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    // Never the interpreter's own site-packages: a test must not install into the machine.
    assert!(site_packages.starts_with(&venv), "{site_packages:?}");
    std::fs::create_dir_all(site_packages.join(package)).unwrap();
    std::fs::write(site_packages.join(package).join("__init__.py"), "").unwrap();
    venv
}

#[test]
fn the_project_venv_is_the_truth_for_imports() {
    let root = tempfile::tempdir().unwrap();
    make_venv(root.path(), ".venv", "car_fake_installed");
    let content = "import car_fake_installed\nimport car_fake_not_installed\n";
    let report = run_in(
        root.path(),
        "app.py",
        content,
        &AddedLine::every_line(content),
    );
    assert_eq!(
        findings(&report),
        [(
            2,
            Severity::Error,
            Some("car_fake_not_installed".to_string())
        )],
        "{report:?}"
    );
}

#[test]
fn any_environment_of_the_project_counts() {
    let root = tempfile::tempdir().unwrap();
    make_venv(root.path(), "env-a", "car_pkg_in_a");
    make_venv(root.path(), "env-b", "car_pkg_in_b");
    let content = "import car_pkg_in_a\nimport car_pkg_in_b\n";
    let report = run_in(
        root.path(),
        "app.py",
        content,
        &AddedLine::every_line(content),
    );
    assert!(report.diagnostics.is_empty(), "{report:?}");
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
    let check = PythonProject::new(root.path(), root.path(), None);
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
        check.check(&source, &mut report);
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
    let check = PythonProject::with_python(
        root.path(),
        ProjectPython {
            program: Err("no Python interpreter (python3 or python) on PATH".into()),
            environments: Vec::new(),
            notes: Vec::new(),
        },
    );
    let mut report = Report::default();
    check.check(&source, &mut report);
    assert!(report.notes[0].contains("tree-sitter-python"), "{report:?}");
    assert_eq!(report.diagnostics[0].validator, "tree-sitter-python");
}

/// A whole file checked the way `car check` checks it.
fn check_file(root: &Path, name: &str, content: &str) -> Report {
    run_in(root, name, content, &AddedLine::every_line(content))
}

#[test]
fn conditional_imports_warn_and_expected_ones_are_silent() {
    let root = tempfile::tempdir().unwrap();
    let content = "def load():\n    import car_lazy_zz\nif __name__ == '__main__':\n    import car_main_zz\ntry:\n    import car_opt_zz\nexcept ImportError:\n    pass\nclass C:\n    import car_class_zz\n";
    let report = check_file(root.path(), "app.py", content);
    assert_eq!(
        findings(&report),
        [
            (2, Severity::Warning, None),
            (4, Severity::Warning, None),
            (10, Severity::Error, Some("car_class_zz".to_string())),
        ],
        "{report:?}"
    );
    assert!(
        report.diagnostics[0].message.contains("only conditionally"),
        "{report:?}"
    );
}

#[test]
fn declared_but_not_installed_is_a_warning() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("pyproject.toml"),
        "[project]\nname = \"demo\"\ndependencies = [\"car-rich-zz>=1\"]\n",
    )
    .unwrap();
    let report = check_file(
        root.path(),
        "app.py",
        "import car_rich_zz\nimport car_undeclared_zz\n",
    );
    assert_eq!(
        findings(&report),
        [
            (1, Severity::Warning, None),
            (2, Severity::Error, Some("car_undeclared_zz".to_string())),
        ],
        "{report:?}"
    );
    let message = &report.diagnostics[0].message;
    assert!(
        message.contains("pyproject.toml declares `car-rich-zz`")
            && message.contains("declared but not installed; sync the environment"),
        "{message}"
    );
}

#[test]
fn submodule_typos_are_reported() {
    let root = tempfile::tempdir().unwrap();
    let report = check_file(
        root.path(),
        "app.py",
        "import os.path\nimport os.pathh\nimport xml.etreee\n",
    );
    let subjects: Vec<_> = findings(&report).into_iter().map(|f| f.2).collect();
    assert_eq!(
        subjects,
        [Some("os.pathh".to_string()), Some("xml.etreee".to_string())],
        "{report:?}"
    );
}

#[test]
fn the_projects_own_packages_are_found_and_shadow_the_stdlib() {
    let root = tempfile::tempdir().unwrap();
    for package in ["lib/ansible/module_utils", "test/orm"] {
        let dir = root.path().join(package);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("__init__.py"), "").unwrap();
    }
    std::fs::write(root.path().join("lib/ansible/__init__.py"), "").unwrap();
    std::fs::write(root.path().join("test/__init__.py"), "").unwrap();
    let content =
        "import ansible.module_utils\nfrom test.orm import fixtures\nimport test.support\n";
    let report = check_file(root.path(), "test/orm/test_query.py", content);
    assert!(report.diagnostics.is_empty(), "{report:?}");
}

#[test]
fn nothing_from_the_project_runs() {
    let root = tempfile::tempdir().unwrap();
    let marker = root.path().join("MARKER");
    let plant = format!("open({:?}, 'w').write('ran')\n", marker.to_string_lossy());
    for file in [
        "sitecustomize.py",
        "src/usercustomize.py",
        "src/pkg/__init__.py",
    ] {
        let path = root.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &plant).unwrap();
    }
    std::fs::write(root.path().join("src/pkg/sub.py"), "").unwrap();
    let venv = make_venv(root.path(), ".venv", "car_fake_installed");
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::write(
        site.join("site-packages/evil.pth"),
        format!("import os; {plant}"),
    )
    .unwrap();
    let content = "import pkg.sub\nimport car_not_anywhere_zz\n";
    let report = check_file(root.path(), "app.py", content);
    assert_eq!(report.diagnostics.len(), 1, "{report:?}");
    assert!(!marker.exists(), "project code ran");
}

#[test]
fn editable_installs_are_read_not_run() {
    let root = tempfile::tempdir().unwrap();
    let venv = make_venv(root.path(), ".venv", "car_fake_installed");
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
        .join("site-packages");
    let elsewhere = tempfile::tempdir().unwrap();
    for package in ["car_pth_pkg", "car_editable_pkg"] {
        std::fs::create_dir_all(elsewhere.path().join(package)).unwrap();
        std::fs::write(elsewhere.path().join(package).join("__init__.py"), "").unwrap();
    }
    std::fs::write(
        site.join("car_pth.pth"),
        format!("{}\n", elsewhere.path().display()),
    )
    .unwrap();
    std::fs::write(
        site.join("__editable___car_demo_1_0_finder.py"),
        format!(
            "MAPPING = {{'car_mapped': {:?}}}\n",
            elsewhere.path().join("car_editable_pkg").to_string_lossy()
        ),
    )
    .unwrap();
    let report = check_file(
        root.path(),
        "app.py",
        "import car_pth_pkg\nimport car_mapped\n",
    );
    assert!(report.diagnostics.is_empty(), "{report:?}");
}

#[cfg(unix)]
#[test]
fn an_interpreter_inside_the_project_is_never_run() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let venv = root.path().join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    let marker = root.path().join("MARKER");
    let fake = venv.join("bin/python3");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\ntouch {:?}\n", marker.to_string_lossy()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let found = interpreter::find(None, root.path(), root.path());
    assert!(found.notes[0].contains("inside the project"), "{found:?}");
    let report = check_file(root.path(), "app.py", "import json\n");
    assert!(report.diagnostics.is_empty(), "{report:?}");
    assert!(!marker.exists(), "the planted interpreter ran");
    let configured = interpreter::find(Some(".venv/bin/python3"), root.path(), root.path());
    assert!(
        configured
            .notes
            .iter()
            .any(|note| note.contains("inside the project")),
        "{configured:?}"
    );
}

#[test]
fn a_byte_order_mark_is_not_a_syntax_error() {
    let root = tempfile::tempdir().unwrap();
    let report = check_file(
        root.path(),
        "bom.py",
        "\u{feff}# coding=UTF-8\nimport json\n",
    );
    assert!(report.diagnostics.is_empty(), "{report:?}");
}
