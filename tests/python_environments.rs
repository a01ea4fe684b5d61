//! The Python environment a project runs in decides which imports resolve: a virtual environment
//! made without system site-packages (`include-system-site-packages = false` in its `pyvenv.cfg`,
//! the default of `python -m venv`, uv and virtualenv) sees only its own packages, so a package
//! installed only for the base interpreter or the user fails when the project runs, and car says
//! so.

use std::path::{Path, PathBuf};

use crate::support::TestProject;

/// `python3 -m venv --without-pip .venv` in the project (isolated, as the tools make it).
fn make_isolated_venv(project: &TestProject) -> PathBuf {
    let venv = project.path().join(".venv");
    let status = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(status.success());
    let config = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap();
    assert!(
        config.contains("include-system-site-packages = false"),
        "{config}"
    );
    venv
}

/// An empty package in the user's site-packages of the test's HOME (what `pip install --user`
/// makes), never in the machine's.
fn user_package(project: &TestProject, venv: &Path, name: &str) {
    let mut python = std::process::Command::new(venv.join("bin/python"));
    let output = crate::support::isolate(&mut python, project.home())
        .args(["-c", "import site; print(site.getusersitepackages())"])
        .output()
        .unwrap();
    let site = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    assert!(site.starts_with(project.home()), "{site:?}");
    std::fs::create_dir_all(site.join(name)).unwrap();
    std::fs::write(site.join(name).join("__init__.py"), "").unwrap();
}

fn import_edit(project: &TestProject) -> crate::support::HookAnswer {
    let content = "import car_user_only_pkg\n\nVALUE = 1\n";
    project.write("app.py", content);
    project.hook(
        "post-tool-use",
        &project.edit_payload("app.py", "", "import car_user_only_pkg\n"),
    )
}

#[test]
fn an_isolated_venv_does_not_see_the_users_or_the_base_interpreters_packages() {
    let project = TestProject::new();
    project.write("app.py", "VALUE = 1\n");
    project.commit_all();
    let venv = make_isolated_venv(&project);
    user_package(&project, &venv, "car_user_only_pkg");
    let answer = import_edit(&project);
    assert!(answer.is_block(), "{}", answer.stdout);
    assert!(
        answer
            .reason()
            .contains("ModuleNotFoundError: No module named 'car_user_only_pkg'"),
        "{}",
        answer.stdout
    );

    // The same environment with system site-packages: the user's package counts.
    let config = venv.join("pyvenv.cfg");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "include-system-site-packages = false",
            "include-system-site-packages = true",
        ),
    )
    .unwrap();
    project.write("app.py", "VALUE = 1\n");
    let answer = import_edit(&project);
    assert!(!answer.is_block(), "{}", answer.stdout);
}

/// Declared by the project but not in its isolated environment: "not installed", a warning (the
/// person runs the install), no longer hidden by the user's copy.
#[test]
fn declared_but_only_installed_outside_the_isolated_venv_is_told_not_installed() {
    let project = TestProject::new();
    project.write("app.py", "VALUE = 1\n");
    project.write(
        "pyproject.toml",
        "[project]\nname = \"demo\"\nversion = \"0.1.0\"\ndependencies = [\"car_user_only_pkg\"]\n",
    );
    project.commit_all();
    let venv = make_isolated_venv(&project);
    user_package(&project, &venv, "car_user_only_pkg");
    let answer = import_edit(&project);
    assert!(!answer.is_block(), "{}", answer.stdout);
    assert!(
        answer
            .context()
            .contains("No module named 'car_user_only_pkg'"),
        "{}",
        answer.stdout
    );
}

/// `car status` names the Python that checks the project's files and the environment whose
/// packages count, and says there are no lessons yet rather than "0 lessons in" a file that does
/// not exist.
#[test]
fn status_names_the_python_and_the_environment_and_no_lessons_yet() {
    let project = TestProject::new();
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("project: none yet ("),
        "{}",
        status.stdout
    );
    let venv = make_isolated_venv(&project);
    let status = project.run(&["status"]);
    let real = venv.canonicalize().unwrap();
    let expected = format!(
        "packages: {} (the project's virtual environment, without system site-packages)",
        real.display()
    );
    assert!(status.stdout.contains(&expected), "{}", status.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&project.run(&["status", "--json"]).stdout).unwrap();
    assert!(
        json["python"]
            .as_str()
            .unwrap()
            .contains("without system site-packages")
    );
}
