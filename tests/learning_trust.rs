//! Issue 9's reproductions, through the binary: what teaches a lesson (a specific subject, never a
//! syntax slip; a second independent occurrence), `car check` read-only, the project's Python
//! environment as the truth for imports, and nothing from the project ever running.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const CANDIDATES: &str = ".claude/claude-auto-review/lesson_candidates.json";
const T0: i64 = 1_780_000_000;
const DAY: i64 = 86_400;

/// Every file under `root` with its bytes (the `.git` folder aside).
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn candidates(project: &TestProject) -> Vec<Value> {
    if !project.exists(CANDIDATES) {
        return Vec::new();
    }
    project.read_json(CANDIDATES)["candidates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn lessons(project: &TestProject) -> Vec<Value> {
    if !project.exists(LESSONS) {
        return Vec::new();
    }
    project.read_json(LESSONS)["lessons"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The agent writes `broken`, is blocked, and fixes it.
fn slip_and_fix(project: &TestProject, file: &str, broken: &str, fixed: &str) {
    let answer = project.hook("post-tool-use", &project.write_payload(file, broken, None));
    assert!(answer.is_block(), "{file}: {answer:?}");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(file, fixed, Some(broken)),
    );
    assert!(!answer.is_block(), "{file}: {answer:?}");
}

/// Issue 9: `for item in items` and `while items` without a colon taught the trigger `items`,
/// which then warned on every correct `x.items()`; the same with `path`.
#[test]
fn syntax_slips_never_teach_and_valid_code_gets_no_warning() {
    let mut project = TestProject::new();
    project.at(T0);
    let slips = [
        (
            "m1.py",
            "for item in items\n    print(item)\n",
            "for item in items:\n    print(item)\n",
        ),
        (
            "m2.py",
            "while items\n    items.pop()\n",
            "while items:\n    items.pop()\n",
        ),
        (
            "m3.py",
            "with open(path) as handle\n    pass\n",
            "with open(path) as handle:\n    pass\n",
        ),
        (
            "m4.py",
            "if os.path.exists(path)\n    pass\n",
            "if os.path.exists(path):\n    pass\n",
        ),
        ("c1.json", "{\"items\": [1, 2,]}\n", "{\"items\": [1, 2]}\n"),
        ("c2.json", "{\"items\": [1, 2,]}\n", "{\"items\": [1, 2]}\n"),
        (
            "s1.sh",
            "if [ -f \"$path\" ]; then\n  echo hi\n",
            "if [ -f \"$path\" ]; then\n  echo hi\nfi\n",
        ),
        (
            "s2.sh",
            "if [ -d \"$path\" ]; then\n  echo hi\n",
            "if [ -d \"$path\" ]; then\n  echo hi\nfi\n",
        ),
    ];
    for (file, broken, fixed) in slips {
        project.at(T0 + DAY);
        slip_and_fix(&project, file, broken, fixed);
    }
    assert_eq!(candidates(&project), Vec::<Value>::new());
    assert_eq!(lessons(&project), Vec::<Value>::new());
    let valid = "import os\nfor k, v in x.items():\n    print(os.path.join(k, v))\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("ok.py", valid, None),
    );
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

/// Issue 9: a notebook error learned `'data.csv'`.
#[test]
fn a_notebook_slip_teaches_nothing() {
    let mut project = TestProject::new();
    project.at(T0);
    for day in 0..2 {
        project.at(T0 + day * DAY);
        let answer = project.post_fixture("claude-post-notebookedit.json");
        assert!(answer.is_block(), "{answer:?}");
    }
    assert_eq!(candidates(&project), Vec::<Value>::new());
    assert_eq!(lessons(&project), Vec::<Value>::new());
}

/// Issue 9: three `car check .` runs pushed a lesson to weight 10; `car check a.py` twice
/// promoted `requestz`; outside git it created the state folder.
#[test]
fn car_check_is_read_only_in_and_out_of_git() {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [{"scope": "*.py", "triggers": ["requests.get("],
            "lesson": "pass a timeout", "weight": 2, "hits": 0}]})
        .to_string(),
    );
    project.write("a.py", "import requestz\nrequests.get(url)\n");
    project.write("b.py", "import json\n");
    let before = snapshot(project.path());
    for args in [
        vec!["check", "."],
        vec!["check", "."],
        vec!["check", "a.py"],
        vec!["check", "a.py"],
        vec!["check", "--no-learn", "a.py"],
        vec!["check", "--json", "."],
    ] {
        let run = project.run(&args);
        assert_eq!(run.code, 1, "{args:?}: {run:?}");
        assert!(run.stdout.contains("No module named 'requestz'"), "{run:?}");
        assert!(
            run.stdout.contains("weight 2") || args.contains(&"--json"),
            "{run:?}"
        );
    }
    assert_eq!(snapshot(project.path()), before, "car check changed a file");
    assert_eq!(
        project.git_status(),
        "?? .claude/claude-auto-review/lessons.json\n?? a.py\n?? b.py\n"
    );

    let outside = TestProject::plain();
    outside.write("a.py", "import requestz\n");
    for _ in 0..2 {
        assert_eq!(outside.run(&["check", "a.py"]).code, 1);
    }
    assert!(
        !outside.exists(".claude"),
        "car check created a state folder"
    );
    assert_eq!(snapshot(outside.path()).len(), 1);
}

/// A candidate is promoted by a second, independent occurrence, never by the same file again
/// while its error is still there.
#[test]
fn the_same_unchanged_file_never_promotes() {
    let mut project = TestProject::new();
    project.at(T0);
    let wrong = "import car_hallucinated_zz\n";
    for day in 0..3 {
        project.at(T0 + day * DAY);
        let answer = project.hook("post-tool-use", &project.write_payload("a.py", wrong, None));
        assert!(answer.is_block(), "{answer:?}");
    }
    assert_eq!(lessons(&project), Vec::<Value>::new());
    assert_eq!(candidates(&project).len(), 1);
    // Fixed, then made again in the same file: that is a second occurrence.
    project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "import json\n", Some(wrong)),
    );
    let again = project.hook(
        "post-tool-use",
        &project.write_payload("a.py", wrong, Some("import json\n")),
    );
    assert!(
        again.system_message().contains("learned a lesson"),
        "{again:?}"
    );
}

/// A hallucinated module imported in two files, fixed once, becomes a lesson that says what to
/// write instead and warns the third time; before any fix is known it stays a candidate.
#[test]
fn a_hallucinated_module_in_two_files_warns_the_third_time() {
    let mut project = TestProject::new();
    project.at(T0);
    let wrong = "import car_hallucinated_zz\n";
    project.hook("post-tool-use", &project.write_payload("a.py", wrong, None));
    project.at(T0 + 60);
    let second = project.hook("post-tool-use", &project.write_payload("b.py", wrong, None));
    assert!(
        !second.system_message().contains("learned a lesson"),
        "no fix known yet: {second:?}"
    );
    assert_eq!(candidates(&project)[0]["hits"], 2);
    project.at(T0 + 120);
    let fixed = project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "import json\n", Some(wrong)),
    );
    assert!(
        fixed.system_message().contains("learned a lesson"),
        "{fixed:?}"
    );
    let third = project.hook("post-tool-use", &project.write_payload("c.py", wrong, None));
    let reason = third.reason();
    assert!(reason.contains("⚠️ lesson (weight"), "{third:?}");
    assert!(
        reason.contains("Write `json`, not `car_hallucinated_zz`"),
        "{reason}"
    );
}

/// A trigger that occurs in the project's committed, valid files of that kind is not a lesson.
#[test]
fn a_comment_naming_the_mistake_in_a_committed_file_does_not_refuse_it() {
    // Before the learning model, `git grep` found the name in the committed comment and refused
    // the lesson for good; a lesson matches code only, so the comment is no evidence against it.
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "docs/notes.py",
        "# car_half_known_zz is not a real package\n",
    );
    project.commit_all();
    let wrong = "import car_half_known_zz\n";
    project.hook("post-tool-use", &project.write_payload("a.py", wrong, None));
    project.hook(
        "post-tool-use",
        &project.write_payload("a.py", "import json\n", Some(wrong)),
    );
    project.at(T0 + DAY);
    let second = project.hook("post-tool-use", &project.write_payload("b.py", wrong, None));
    assert!(second.is_block(), "{second:?}");
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0]["triggers"], json!(["car_half_known_zz"]));
    assert!(
        learned[0].get("known_instances").is_none(),
        "a comment is no instance: {learned:?}"
    );
}

/// Issue 9: with no interpreter, tree-sitter sees no import error, and learning recorded
/// "`import missing_zz` became `import missing_zz`".
#[test]
fn no_interpreter_never_records_a_fake_fix() {
    let mut project = TestProject::new();
    project.at(T0);
    let wrong = "import missing_zz\n";
    project.hook("post-tool-use", &project.write_payload("a.py", wrong, None));
    assert_eq!(candidates(&project)[0]["trigger"], "missing_zz");
    let empty = tempfile::tempdir().unwrap();
    let edited = "import missing_zz\nx = 1\n";
    let answer = project.hook_with_env(
        "post-tool-use",
        &project.write_payload("a.py", edited, Some(wrong)),
        &[("PATH", &empty.path().to_string_lossy())],
    );
    assert!(
        answer.system_message().contains("tree-sitter-python"),
        "{answer:?}"
    );
    // The error is gone but `import missing_zz` is still written: no fix, nothing learned.
    for candidate in candidates(&project) {
        assert!(candidate.get("learned_from").is_none(), "{candidate}");
    }
    assert_eq!(lessons(&project), Vec::<Value>::new());
}

/// Issue 9: the starter lesson "write `cd dir || exit 1` (or use `set -e`)" fired in scripts that
/// already have `set -euo pipefail`.
#[test]
fn the_cd_starter_lesson_is_silent_under_set_e() {
    let project = TestProject::new();
    assert_eq!(
        project
            .run(&["install", "--starter-lessons", "--non-interactive"])
            .code,
        0
    );
    let guarded = "#!/bin/bash\nset -euo pipefail\n\ncd build\nmake\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("a.sh", guarded, None),
    );
    assert!(!answer.context().contains("cd dir || exit 1"), "{answer:?}");
    let edit = "#!/bin/bash\nset -e\necho start\ncd out\n";
    project.write("b.sh", edit);
    let answer = project.hook("post-tool-use", &project.edit_payload("b.sh", "", "cd out"));
    assert!(!answer.context().contains("cd dir || exit 1"), "{answer:?}");
    let bare = "#!/bin/bash\ncd build\nmake\n";
    let answer = project.hook("post-tool-use", &project.write_payload("c.sh", bare, None));
    assert!(answer.context().contains("cd dir || exit 1"), "{answer:?}");
}

/// A venv at `venv` (as `python3 -m venv` makes it) with an empty package in its site-packages.
fn make_venv_at(venv: &Path, package: &str) {
    let status = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(venv)
        .status()
        .unwrap();
    assert!(status.success());
    let output = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ])
        .output()
        .unwrap();
    let site = std::path::PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    // Never the interpreter's own site-packages: a test must not install into the machine.
    assert!(site.starts_with(venv), "{site:?}");
    std::fs::create_dir_all(site.join(package)).unwrap();
    std::fs::write(site.join(package).join("__init__.py"), "").unwrap();
}

fn make_venv(project: &TestProject, package: &str) {
    make_venv_at(&project.path().join(".venv"), package);
}

/// How poetry and pipenv name an environment after a path: URL-safe base64 of SHA-256, 8 chars.
fn short_hash(text: &str) -> String {
    let script = "import base64,hashlib,sys;print(base64.urlsafe_b64encode(hashlib.sha256(sys.argv[1].encode()).digest()).decode()[:8])";
    let output = std::process::Command::new("python3")
        .args(["-c", script, text])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// poetry's and pipenv's environments live outside the project, named after its path: found
/// without running either tool, and their packages count.
#[test]
fn poetry_and_pipenv_environments_count() {
    let project = TestProject::new();
    let real = project.path().canonicalize().unwrap();
    let poetry = tempfile::tempdir().unwrap();
    let name = format!("demo-{}-py3.11", short_hash(&real.to_string_lossy()));
    make_venv_at(&poetry.path().join(name), "car_poetry_dep");
    project.write("Pipfile", "[packages]\n");
    let pipenv = tempfile::tempdir().unwrap();
    let pipfile = real.join("Pipfile");
    let name = format!("demo-{}", short_hash(&pipfile.to_string_lossy()));
    make_venv_at(&pipenv.path().join(name), "car_pipenv_dep");
    let content = "import car_poetry_dep\nimport car_pipenv_dep\n";
    let payload = project.write_payload("a.py", content, None);
    let env = [
        ("POETRY_VIRTUALENVS_PATH", poetry.path().to_str().unwrap()),
        ("WORKON_HOME", pipenv.path().to_str().unwrap()),
    ];
    let answer = project.hook_with_env("post-tool-use", &payload, &env);
    assert_eq!(answer.json, json!({}), "{answer:?}");
    let without = project.write_payload("b.py", content, None);
    let answer = project.hook("post-tool-use", &without);
    assert!(answer.reason().contains("car_poetry_dep"), "{answer:?}");
}

/// Issue 9: a dependency in the project's `.venv` (agent started without activating it) was
/// blocked and became a lesson against importing it; a module in no environment still blocks.
#[test]
fn a_venv_dependency_is_neither_blocked_nor_learned() {
    let mut project = TestProject::new();
    std::fs::write(project.path().join(".gitignore"), ".venv/\n").unwrap();
    make_venv(&project, "car_fake_dep");
    for (day, file) in ["a.py", "b.py", "c.py"].iter().enumerate() {
        project.at(T0 + day as i64 * DAY);
        let content = "import car_fake_dep\n\ncar_fake_dep.run()\n";
        let answer = project.hook("post-tool-use", &project.write_payload(file, content, None));
        assert_eq!(answer.json, json!({}), "{answer:?}");
    }
    assert_eq!(candidates(&project), Vec::<Value>::new());
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("d.py", "import car_in_no_env_zz\n", None),
    );
    assert!(
        answer
            .reason()
            .contains("No module named 'car_in_no_env_zz'"),
        "{answer:?}"
    );
    let run = project.run(&["check", "a.py", "d.py"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("1 error in 2 files"), "{run:?}");
}

/// pytest where a `conftest.py` above the test shows the project runs it, and a dependency that
/// only `setup.cfg` or `tox.ini` declares: missing from the project's environment, they warn; the
/// same `import pytest` in a file no conftest.py covers still blocks. (The `.venv` makes the test
/// independent of what the machine's own Python has installed.)
#[test]
fn pytest_in_a_conftest_covered_test_and_setup_cfg_or_tox_dependencies_warn() {
    let project = TestProject::new();
    std::fs::write(project.path().join(".gitignore"), ".venv/\n").unwrap();
    make_venv(&project, "car_unrelated_dep");
    project.write("tests/conftest.py", "");
    project.write(
        "setup.cfg",
        "[options]\ninstall_requires =\n    car-cfg-dep-zz>=1\n",
    );
    project.write("tox.ini", "[testenv]\ndeps =\n    car-tox-dep-zz\n");
    let content = "import pytest\nimport pytest_car_plugin_zz\nimport car_cfg_dep_zz\nimport car_tox_dep_zz\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("tests/unit/test_a.py", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let context = answer.context();
    for expected in [
        "No module named 'pytest'",
        "the project runs its tests with pytest (tests/conftest.py)",
        "No module named 'pytest_car_plugin_zz'",
        "setup.cfg declares `car-cfg-dep-zz`",
        "tox.ini declares `car-tox-dep-zz`",
    ] {
        assert!(context.contains(expected), "{expected}: {context}");
    }
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("src/app.py", "import pytest\n", None),
    );
    assert!(
        answer.is_block() && answer.reason().contains("No module named 'pytest'"),
        "no conftest.py above src/app.py: {answer:?}"
    );
}

/// An extension module the project builds (a Cython source beside the importing file, numpy's
/// `meson.build` naming it) is missing only because the checkout was not built in place: a
/// warning, never a block; a module no build names still blocks.
#[test]
fn an_extension_the_project_builds_but_did_not_build_warns() {
    let project = TestProject::new();
    std::fs::write(project.path().join(".gitignore"), ".venv/\n").unwrap();
    make_venv(&project, "car_unrelated_dep");
    project.write("pkg/__init__.py", "");
    project.write("pkg/_core/__init__.py", "");
    project.write(
        "pkg/_core/meson.build",
        "py.extension_module('_umath_zz',\n  'src/umath.c',\n  install: true)\n",
    );
    project.write("demos/storer_zz.pyx", "cdef class Storer:\n    pass\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "pkg/overrides.py",
            "from pkg._core._umath_zz import add\n",
            None,
        ),
    );
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer.context().contains(
            "the project builds it (pkg/_core/meson.build): an extension module not built here"
        ),
        "{answer:?}"
    );
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("demos/run.py", "import storer_zz\n", None),
    );
    assert!(
        answer.context().contains("(demos/storer_zz.pyx)") && !answer.is_block(),
        "{answer:?}"
    );
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "pkg/other.py",
            "from pkg._core._missing_zz import add\n",
            None,
        ),
    );
    assert!(answer.is_block(), "nothing builds _missing_zz: {answer:?}");
}

/// A project that requires a newer Python than the interpreter car found (here: one that does not
/// exist yet) may use syntax that interpreter rejects (`type X = …` needs 3.12): its compile
/// errors warn, naming both versions, and never teach, unless tree-sitter-python (which reads the
/// newest syntax) finds an error too; without the requirement they block.
#[test]
fn an_interpreter_older_than_the_project_requires_only_warns() {
    let project = TestProject::new();
    project.write(
        "pyproject.toml",
        "[project]\nname = \"demo\"\nrequires-python = \">=3.99\"\n",
    );
    let content = "type Pair = tuple[int, int]\nprint(f\"{ {'a': 1}[\"a\"] }\")\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("app.py", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .context()
            .contains("older than the 3.99 that pyproject.toml requires, so a warning"),
        "{answer:?}"
    );
    assert_eq!(candidates(&project), Vec::<Value>::new());
    let slip = project.write_payload("slip.py", "def f(:\n    pass\n", None);
    let answer = project.hook("post-tool-use", &slip);
    assert!(
        answer.is_block(),
        "a slip tree-sitter-python sees too: {answer:?}"
    );
    project.write("pyproject.toml", "[project]\nname = \"demo\"\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("other.py", content, None),
    );
    assert!(answer.is_block(), "{answer:?}");
}

/// A monorepo: `backend/` is a Python project of its own (its `pyproject.toml` and `.venv`). Its
/// files are checked against its environment and its declarations; a file outside it is not.
#[test]
fn a_python_project_in_a_subfolder_has_its_own_environment_and_declarations() {
    let project = TestProject::new();
    std::fs::write(project.path().join(".gitignore"), ".venv/\n").unwrap();
    project.write(
        "backend/pyproject.toml",
        "[project]\nname = \"backend\"\ndependencies = [\"car-declared-zz\"]\n",
    );
    make_venv_at(&project.path().join("backend/.venv"), "car_backend_dep");
    // What the checkout around it declares counts too.
    project.write("requirements-dev.txt", "car-root-declared-zz\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "backend/app/main.py",
            "import car_backend_dep\nimport car_declared_zz\nimport car_root_declared_zz\n",
            None,
        ),
    );
    assert!(!answer.is_block(), "{answer:?}");
    for declared in [
        "backend/pyproject.toml declares `car-declared-zz`",
        "requirements-dev.txt declares `car-root-declared-zz`",
    ] {
        assert!(
            answer.context().contains(declared),
            "{declared}: {answer:?}"
        );
    }
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("scripts/tool.py", "import car_backend_dep\n", None),
    );
    assert!(
        answer.is_block(),
        "outside backend/ its environment does not count: {answer:?}"
    );
}

/// Declared in pyproject.toml but not installed: a warning to sync, never an error or a lesson.
#[test]
fn a_declared_dependency_that_is_not_installed_warns() {
    let mut project = TestProject::new();
    project.write(
        "pyproject.toml",
        "[project]\nname = \"demo\"\ndependencies = [\"car-rich-click-zz>=1\"]\n",
    );
    for (day, file) in ["a.py", "b.py"].iter().enumerate() {
        project.at(T0 + day as i64 * DAY);
        let answer = project.hook(
            "post-tool-use",
            &project.write_payload(file, "import car_rich_click_zz\n", None),
        );
        assert!(!answer.is_block(), "{answer:?}");
        assert!(
            answer
                .context()
                .contains("declared but not installed; sync the environment"),
            "{answer:?}"
        );
    }
    assert_eq!(candidates(&project), Vec::<Value>::new());
}

/// Issue 15.1: a `sitecustomize.py` at the root or a `usercustomize.py` in `src/` ran whenever
/// car checked a Python file, through the hook and through `car check --no-learn`.
#[test]
fn the_python_check_never_runs_project_code() {
    let project = TestProject::new();
    let marker = project.path().join("MARKER");
    let plant = format!("open({:?}, 'w').write('ran')\n", marker.to_string_lossy());
    project.write("sitecustomize.py", &plant);
    project.write("src/usercustomize.py", &plant);
    project.write("src/pkg/__init__.py", &plant);
    let content = "import pkg\nimport car_not_anywhere_zz\n";
    project.hook(
        "post-tool-use",
        &project.write_payload("src/app.py", content, None),
    );
    assert!(!marker.exists(), "the hook ran project code");
    assert_eq!(project.run(&["check", "--no-learn", "src/app.py"]).code, 1);
    assert_eq!(project.run(&["check", "."]).code, 1);
    assert!(!marker.exists(), "car check ran project code");
}

/// Scope follows the cause: a module missing in one sub-project of a monorepo, learned there,
/// never warns in the sub-project where that module is installed, and the lesson's scope names
/// the sub-project it was learned in.
#[test]
fn a_missing_module_lesson_stays_in_its_sub_project() {
    let mut project = TestProject::new();
    project.at(T0);
    std::fs::write(project.path().join(".gitignore"), ".venv/\n").unwrap();
    project.write("backend/pyproject.toml", "[project]\nname = \"backend\"\n");
    project.write("worker/pyproject.toml", "[project]\nname = \"worker\"\n");
    make_venv_at(&project.path().join("worker/.venv"), "car_fastyaml_zz");
    let wrong = "import car_fastyaml_zz\n";
    project.hook(
        "post-tool-use",
        &project.write_payload("backend/app/a.py", wrong, None),
    );
    project.hook(
        "post-tool-use",
        &project.write_payload("backend/app/a.py", "import yaml\n", Some(wrong)),
    );
    project.at(T0 + DAY);
    let learned = project.hook(
        "post-tool-use",
        &project.write_payload("backend/app/b.py", wrong, None),
    );
    assert!(
        learned.system_message().contains("learned a lesson"),
        "{learned:?}"
    );
    assert_eq!(lessons(&project)[0]["scope"], "backend/**/*.py");
    // Where the module is installed: no error, and no lesson warning either.
    let worker = project.hook(
        "post-tool-use",
        &project.write_payload("worker/jobs.py", wrong, None),
    );
    assert!(!worker.is_block(), "{worker:?}");
    assert!(!worker.context().contains("lesson"), "{worker:?}");
    // The same mistake again in backend/: the lesson says what to write.
    let again = project.hook(
        "post-tool-use",
        &project.write_payload("backend/app/c.py", wrong, None),
    );
    assert!(
        again
            .reason()
            .contains("Write `yaml`, not `car_fastyaml_zz`"),
        "{again:?}"
    );
}
