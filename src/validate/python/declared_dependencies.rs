//! The Python packages a project declares as dependencies, as the module names they provide.
//!
//! A module that is missing but declared is an environment that was not synced (`uv sync`,
//! `pip install -r requirements.txt`), not a mistake in the code: the Python check warns about it
//! and never blocks or teaches. Read from the project root: `pyproject.toml` (`[project]`
//! `dependencies` and `optional-dependencies`, `[dependency-groups]`, `[build-system] requires`,
//! poetry's `dependencies`, `dev-dependencies` and groups), the project's requirement lists
//! ([`requirement_files`]), `Pipfile`'s
//! `[packages]` / `[dev-packages]`, `setup.cfg` (`install_requires`, `tests_require`,
//! `setup_requires`, `extras_require`) and `tox.ini` (`deps` of every test environment).
//!
//! A project that configures pytest (`pytest.ini`, `[tool.pytest.ini_options]`, `[tool:pytest]`
//! in `setup.cfg`, `[pytest]` in `tox.ini`) declares `pytest`, and so does a `conftest.py` in the
//! checked file's folder or one above it inside the project ([`pytest_conftest`]): pytest loads
//! those files itself, so the project runs its tests with pytest.
//!
//! A distribution's name is normalised to the module it provides (`rich-click` → `rich_click`),
//! with the well-known mismatches (`PyYAML` → `yaml`, `beautifulsoup4` → `bs4`, `Pillow` → `PIL`,
//! `scikit-learn` → `sklearn`, …) and namespace families (`google-cloud-storage` → `google`).
//! Invariant: this only ever turns an error into a warning, so a guess that is too wide costs a
//! missed error, never a false block.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml_edit::{Item, Table, TableLike};

use crate::validate::python::project_files::{IniFile, ProjectFiles};
use crate::validate::python::requirement_files::requirement_files;

/// Files larger than this are not dependency lists.
const MAX_FILE: u64 = 1 << 20;

/// Distributions whose module has another name.
const KNOWN: &[(&str, &str)] = &[
    ("pyyaml", "yaml"),
    ("beautifulsoup4", "bs4"),
    ("pillow", "PIL"),
    ("scikit-learn", "sklearn"),
    ("scikit-image", "skimage"),
    ("python-dateutil", "dateutil"),
    ("opencv-python", "cv2"),
    ("opencv-python-headless", "cv2"),
    ("opencv-contrib-python", "cv2"),
    ("attrs", "attr"),
    ("protobuf", "google"),
    ("pyzmq", "zmq"),
    ("python-dotenv", "dotenv"),
    ("pyjwt", "jwt"),
    ("pycryptodome", "Crypto"),
    ("pycryptodomex", "Cryptodome"),
    ("pyserial", "serial"),
    ("pyopenssl", "OpenSSL"),
    ("setuptools", "pkg_resources"),
    ("grpcio", "grpc"),
    ("msgpack-python", "msgpack"),
    ("python-magic", "magic"),
    ("python-multipart", "multipart"),
    ("discord.py", "discord"),
    ("pywin32", "win32api"),
    ("faiss-cpu", "faiss"),
    ("faiss-gpu", "faiss"),
    ("psycopg2-binary", "psycopg2"),
    ("psycopg-binary", "psycopg"),
    ("mysqlclient", "MySQLdb"),
    ("pymupdf", "fitz"),
    ("python-docx", "docx"),
    ("python-pptx", "pptx"),
    ("google-api-python-client", "googleapiclient"),
    ("ruamel.yaml", "ruamel"),
    ("typing-extensions", "typing_extensions"),
    ("importlib-metadata", "importlib_metadata"),
    ("tensorflow-cpu", "tensorflow"),
    ("tensorflow-gpu", "tensorflow"),
    ("torch", "torch"),
    ("pytorch-lightning", "pytorch_lightning"),
    ("websocket-client", "websocket"),
    ("pyqt5", "PyQt5"),
    ("pyqt6", "PyQt6"),
    ("pyside6", "PySide6"),
];

/// The declared distributions, by the module name they provide, with the file that declares them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    modules: BTreeMap<String, (String, PathBuf)>,
}

impl Declared {
    /// What the project's dependency files declare; a missing or unreadable file declares
    /// nothing.
    pub(crate) fn read(files: &ProjectFiles) -> Declared {
        let mut declared = Declared::default();
        let toml_files = [
            (
                &files.pyproject,
                pyproject_names as fn(&Table) -> Vec<String>,
            ),
            (&files.pipfile, pipfile_names),
        ];
        for (file, names) in toml_files {
            let Some(file) = file else { continue };
            for name in file.table().map(names).unwrap_or_default() {
                declared.add(&name, &file.file.path);
            }
        }
        for file in requirement_files(&files.root) {
            if let Some(text) = read(&file) {
                for name in requirement_names(&text) {
                    declared.add(&name, &file);
                }
            }
        }
        let ini_files = [
            (
                &files.setup_cfg,
                setup_cfg_names as fn(&IniFile) -> Vec<String>,
            ),
            (&files.tox_ini, tox_names),
        ];
        for (file, names) in ini_files {
            let Some(file) = file else { continue };
            for name in names(file) {
                declared.add(&name, &file.file.path);
            }
        }
        if let Some(file) = pytest_configuration(files) {
            declared.add("pytest", file);
        }
        declared
    }

    /// Adds what `other` declares and this does not.
    pub(crate) fn extend(&mut self, other: Declared) {
        for (module, declaration) in other.modules {
            self.modules.entry(module).or_insert(declaration);
        }
    }

    fn add(&mut self, distribution: &str, file: &Path) {
        for module in modules_of(distribution) {
            self.modules
                .entry(module)
                .or_insert_with(|| (distribution.to_string(), file.to_path_buf()));
        }
    }

    /// The distribution that provides top-level module `module`, and the file declaring it.
    pub(crate) fn provider(&self, module: &str) -> Option<(&str, &Path)> {
        self.modules
            .get(module)
            .or_else(|| self.modules.get(&module.to_ascii_lowercase()))
            .map(|(name, file)| (name.as_str(), file.as_path()))
    }
}

fn read(path: &Path) -> Option<String> {
    crate::files::read_text_or_none(path, MAX_FILE)
}

/// The module names a distribution may provide: its normalised name (and lowercased), the known
/// mismatch, the name without a `python-`/`py` prefix or `-binary`-like suffix, and the first part
/// of a namespace family (`google-cloud-storage` → `google`).
fn modules_of(distribution: &str) -> Vec<String> {
    let lower = distribution.trim().to_ascii_lowercase();
    let normal: String = lower
        .chars()
        .map(|c| if c == '-' || c == '.' { '_' } else { c })
        .collect();
    let mut names = vec![normal.clone()];
    let dashed = lower.replace(['_', '.'], "-");
    if let Some((_, module)) = KNOWN
        .iter()
        .find(|(name, _)| *name == lower || *name == dashed)
    {
        names.push((*module).to_string());
    }
    if let Some(rest) = dashed.strip_prefix("python-") {
        names.push(rest.replace('-', "_"));
    }
    for suffix in ["-binary", "-cpu", "-gpu", "-headless", "-slim", "-lite"] {
        if let Some(rest) = dashed.strip_suffix(suffix) {
            names.push(rest.replace('-', "_"));
        }
    }
    if let Some((family, _)) = dashed.split_once('-') {
        names.push(family.to_string());
    }
    names.sort();
    names.dedup();
    names
}

/// The distribution name of a PEP 508 requirement (`rich-click[extra]>=1; python_version<"3.9"`).
fn requirement_name(requirement: &str) -> Option<String> {
    let name: String = requirement
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    (!name.is_empty()).then_some(name)
}

fn requirement_names(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split(" #").next().unwrap_or(line).trim())
        .filter(|line| !line.is_empty() && !line.starts_with(['#', '-']))
        .filter(|line| !line.contains("://") || line.contains(" @ "))
        .filter_map(requirement_name)
        .collect()
}

fn table(item: Option<&Item>) -> Option<&dyn TableLike> {
    item?.as_table_like()
}

/// Strings of an array item (`["a>=1", "b"]`); inline tables (`{include-group = …}`) are skipped.
fn strings(item: Option<&Item>) -> Vec<String> {
    item.and_then(Item::as_array)
        .map(|array| {
            array
                .iter()
                .filter_map(|value| value.as_str().and_then(requirement_name))
                .collect()
        })
        .unwrap_or_default()
}

/// The keys of a table (poetry's and Pipfile's `name = "version"`), `python` excepted.
fn keys(item: Option<&Item>) -> Vec<String> {
    table(item)
        .map(|table| {
            table
                .iter()
                .map(|(key, _)| key.to_string())
                .filter(|key| key != "python")
                .collect()
        })
        .unwrap_or_default()
}

fn pyproject_names(root: &Table) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(project) = table(root.get("project")) {
        names.extend(strings(project.get("dependencies")));
        if let Some(optional) = table(project.get("optional-dependencies")) {
            for (_, group) in optional.iter() {
                names.extend(strings(Some(group)));
            }
        }
    }
    for section in ["dependency-groups"] {
        if let Some(groups) = table(root.get(section)) {
            for (_, group) in groups.iter() {
                names.extend(strings(Some(group)));
            }
        }
    }
    if let Some(build) = table(root.get("build-system")) {
        names.extend(strings(build.get("requires")));
    }
    let tool = table(root.get("tool"));
    if let Some(poetry) = tool.and_then(|tool| table(tool.get("poetry"))) {
        names.extend(keys(poetry.get("dependencies")));
        names.extend(keys(poetry.get("dev-dependencies")));
        if let Some(groups) = table(poetry.get("group")) {
            for (_, group) in groups.iter() {
                names.extend(keys(table(Some(group)).and_then(|g| g.get("dependencies"))));
            }
        }
    }
    if let Some(uv) = tool.and_then(|tool| table(tool.get("uv"))) {
        names.extend(strings(uv.get("dev-dependencies")));
    }
    names
}

/// The file that configures pytest at the root, if one does.
fn pytest_configuration(files: &ProjectFiles) -> Option<&Path> {
    if let Some(pytest_ini) = &files.pytest_ini {
        return Some(pytest_ini);
    }
    let pyproject = files.pyproject.as_ref().filter(|pyproject| {
        pyproject
            .table()
            .and_then(|root| table(root.get("tool")))
            .is_some_and(|tool| tool.contains_key("pytest"))
    });
    fn ini<'a>(file: &'a Option<IniFile>, section: &str) -> Option<&'a Path> {
        file.as_ref()
            .filter(|ini| ini.has_section(section))
            .map(|ini| ini.file.path.as_path())
    }
    pyproject
        .map(|pyproject| pyproject.file.path.as_path())
        .or_else(|| ini(&files.setup_cfg, "tool:pytest"))
        .or_else(|| ini(&files.tox_ini, "pytest"))
}

/// A `conftest.py` in the folder of `file` or one above it, up to `project_root`: pytest loads it
/// for the tests below it.
pub(crate) fn pytest_conftest(project_root: &Path, file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|folder| folder.starts_with(project_root))
        .take(64)
        .map(|folder| folder.join("conftest.py"))
        .find(|conftest| conftest.is_file())
}

/// Requirement names of value lines: one per line, or comma-separated on one line; environment
/// markers (`; python_version < "3.9"`), `-r` includes and tox's `{[testenv]deps}` ignored, and a
/// tox factor prefix (`py38: pytest`) dropped.
fn value_names(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|line| line.split(','))
        .map(|item| item.split(';').next().unwrap_or(item).trim())
        .map(|item| match item.split_once(": ") {
            Some((factor, rest)) if !factor.contains(' ') => rest.trim(),
            _ => item,
        })
        .filter(|item| !item.is_empty() && !item.starts_with(['-', '{', '#']))
        .filter_map(requirement_name)
        .collect()
}

fn setup_cfg_names(setup_cfg: &IniFile) -> Vec<String> {
    setup_cfg
        .values
        .iter()
        .filter(|(section, key, _)| {
            (section == "options"
                && matches!(
                    key.as_str(),
                    "install_requires" | "tests_require" | "setup_requires"
                ))
                || section == "options.extras_require"
        })
        .flat_map(|(_, _, lines)| value_names(lines))
        .collect()
}

fn tox_names(tox_ini: &IniFile) -> Vec<String> {
    tox_ini
        .values
        .iter()
        .filter(|(section, key, _)| section.starts_with("testenv") && key == "deps")
        .flat_map(|(_, _, lines)| value_names(lines))
        .collect()
}

fn pipfile_names(root: &Table) -> Vec<String> {
    let mut names = keys(root.get("packages"));
    names.extend(keys(root.get("dev-packages")));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_names_become_module_names() {
        for (distribution, module) in [
            ("rich-click", "rich_click"),
            ("PyYAML", "yaml"),
            ("beautifulsoup4", "bs4"),
            ("Pillow", "PIL"),
            ("scikit-learn", "sklearn"),
            ("python-dateutil", "dateutil"),
            ("google-cloud-storage", "google"),
            ("psycopg2-binary", "psycopg2"),
            ("Django", "django"),
            ("zope.interface", "zope"),
        ] {
            assert!(
                modules_of(distribution).contains(&module.to_string()),
                "{distribution} → {:?}",
                modules_of(distribution)
            );
        }
    }

    #[test]
    fn every_kind_of_dependency_file_is_read() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("pyproject.toml"),
            r#"
[build-system]
requires = ["hatchling>=1.2"]
[project]
name = "demo"
dependencies = ["rich-click>=1.7", "PyYAML; python_version >= '3.8'"]
[project.optional-dependencies]
docs = ["Sphinx[extra]==7"]
[dependency-groups]
dev = ["pytest>=8", {include-group = "docs"}]
[tool.poetry.dependencies]
python = "^3.11"
httpx = "*"
[tool.poetry.group.test.dependencies]
hypothesis = "*"
"#,
        )
        .unwrap();
        std::fs::write(
            root.path().join("requirements-dev.txt"),
            "# tools\n-r requirements.txt\nblack==24.1  # formatter\n-e .\nbeautifulsoup4\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.path().join("requirements")).unwrap();
        std::fs::write(root.path().join("requirements/ci.in"), "mypy\n").unwrap();
        std::fs::write(
            root.path().join("Pipfile"),
            "[packages]\nflask = \"*\"\n[dev-packages]\nruff = \"*\"\n",
        )
        .unwrap();
        let declared = Declared::read(&ProjectFiles::read(root.path()));
        for module in [
            "hatchling",
            "rich_click",
            "yaml",
            "sphinx",
            "pytest",
            "httpx",
            "hypothesis",
            "black",
            "bs4",
            "mypy",
            "flask",
            "ruff",
        ] {
            assert!(
                declared.provider(module).is_some(),
                "{module}: {declared:?}"
            );
        }
        assert!(declared.provider("python").is_none());
        assert!(declared.provider("requests").is_none());
        let (name, file) = declared.provider("yaml").unwrap();
        assert_eq!(name, "PyYAML");
        assert!(file.ends_with("pyproject.toml"));
    }

    #[test]
    fn setup_cfg_tox_and_other_requirement_files_are_read() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("setup.cfg"),
            "[metadata]\nname = demo\n\n[options]\ninstall_requires =\n    car-attrs-zz>=20\n    car-six-zz; python_version < \"3\"\ntests_require = car-mock-zz, car-nose-zz>=1,<2\n\n[options.extras_require]\nyaml =\n    PyYAML\n",
        )
        .unwrap();
        std::fs::write(
            root.path().join("tox.ini"),
            "[tox]\nenvlist = py3\n\n[testenv]\ndeps =\n    -r test-requirements.txt\n    {[base]deps}\n    py38: car-coverage-zz\n    car-hypothesis-zz\ncommands = car-not-a-dep-zz\n",
        )
        .unwrap();
        std::fs::write(root.path().join("test-requirements.txt"), "car-stestr-zz\n").unwrap();
        let declared = Declared::read(&ProjectFiles::read(root.path()));
        for module in [
            "car_attrs_zz",
            "car_six_zz",
            "car_mock_zz",
            "car_nose_zz",
            "yaml",
            "car_coverage_zz",
            "car_hypothesis_zz",
            "car_stestr_zz",
        ] {
            assert!(
                declared.provider(module).is_some(),
                "{module}: {declared:?}"
            );
        }
        for not_declared in ["car_not_a_dep_zz", "python_version", "demo", "pytest"] {
            assert!(
                declared.provider(not_declared).is_none(),
                "{not_declared}: {declared:?}"
            );
        }
    }

    #[test]
    fn a_project_that_configures_pytest_declares_it() {
        for (file, text) in [
            ("pytest.ini", "[pytest]\n"),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
            ),
            ("setup.cfg", "[tool:pytest]\ntestpaths = tests\n"),
            ("tox.ini", "[tox]\n[pytest]\nminversion = 6\n"),
        ] {
            let root = tempfile::tempdir().unwrap();
            std::fs::write(root.path().join(file), text).unwrap();
            let declared = Declared::read(&ProjectFiles::read(root.path()));
            let (name, declaring) = declared.provider("pytest").expect(file);
            assert_eq!(name, "pytest");
            assert!(declaring.ends_with(file));
        }
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[tool.black]\n").unwrap();
        assert!(
            Declared::read(&ProjectFiles::read(root.path()))
                .provider("pytest")
                .is_none()
        );
    }

    #[test]
    fn a_conftest_above_the_file_inside_the_project_counts() {
        let root = tempfile::tempdir().unwrap();
        let tests = root.path().join("tests/unit");
        std::fs::create_dir_all(&tests).unwrap();
        let file = tests.join("test_a.py");
        assert_eq!(pytest_conftest(root.path(), &file), None);
        std::fs::write(root.path().join("tests/conftest.py"), "").unwrap();
        assert_eq!(
            pytest_conftest(root.path(), &file),
            Some(root.path().join("tests/conftest.py"))
        );
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("conftest.py"), "").unwrap();
        let project = outside.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        assert_eq!(
            pytest_conftest(&project, &project.join("test_b.py")),
            None,
            "a conftest.py above the project is not the project's"
        );
    }

    #[test]
    fn a_broken_pyproject_declares_nothing() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[project\n").unwrap();
        assert_eq!(
            Declared::read(&ProjectFiles::read(root.path())),
            Declared::default()
        );
    }
}
