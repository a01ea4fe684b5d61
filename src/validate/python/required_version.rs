//! The oldest Python a project says it runs on. An interpreter older than that rejects newer
//! syntax the project may use (`type X = …` and nested f-string quotes need 3.12), so the Python
//! check turns its compile errors into warnings that name both versions, instead of blocking
//! valid code with the wrong interpreter.
//!
//! Read, in order: `pyproject.toml` (`[project] requires-python`, poetry's
//! `[tool.poetry.dependencies] python`), `setup.cfg` (`[options] python_requires`) and
//! `.python-version` (a pyenv or uv pin). The lower bound of a specifier is the highest version
//! among its `>=`, `~=`, `^`, `~` and `==` clauses; a clause car cannot read is ignored.
//!
//! Invariant: this only ever turns an error into a warning.

use std::path::PathBuf;

use crate::validate::python::project_files::{IniFile, ProjectFiles};

/// A Python version as (major, minor).
pub(crate) type Version = (u32, u32);

/// The oldest Python the project supports, and the file that says so.
pub(crate) fn required_python(files: &ProjectFiles) -> Option<(Version, PathBuf)> {
    if let Some(pyproject) = &files.pyproject
        && let Some(version) = pyproject.table().and_then(pyproject_requirement)
    {
        return Some((version, pyproject.file.path.clone()));
    }
    if let Some(setup_cfg) = &files.setup_cfg
        && let Some(version) = setup_cfg_requirement(setup_cfg)
    {
        return Some((version, setup_cfg.file.path.clone()));
    }
    let pin = files.python_version.as_ref()?;
    let version = pin.text.lines().next().and_then(parse_version)?;
    Some((version, pin.path.clone()))
}

fn pyproject_requirement(root: &toml_edit::Table) -> Option<Version> {
    let from_project = root
        .get("project")
        .and_then(|project| project.get("requires-python"))
        .and_then(|item| item.as_str())
        .and_then(lower_bound);
    from_project.or_else(|| {
        root.get("tool")
            .and_then(|tool| tool.get("poetry"))
            .and_then(|poetry| poetry.get("dependencies"))
            .and_then(|dependencies| dependencies.get("python"))
            .and_then(|item| item.as_str())
            .and_then(lower_bound)
    })
}

fn setup_cfg_requirement(setup_cfg: &IniFile) -> Option<Version> {
    setup_cfg
        .values_of("options", "python_requires")
        .next()
        .and_then(|lines| lower_bound(&lines.join(",")))
}

/// The lower bound of a version specifier (`>=3.10,<4`, `~=3.12`, `^3.11`, `==3.12.*`).
fn lower_bound(specifier: &str) -> Option<Version> {
    specifier
        .split([',', '|'])
        .filter_map(|clause| {
            let clause = clause.trim();
            [">=", "~=", "==", "^", "~"]
                .iter()
                .find_map(|operator| clause.strip_prefix(operator))
                .and_then(|version| parse_version(version.trim()))
        })
        .max()
}

/// `3.12`, `3.12.1`, `3.12.*` → (3, 12); anything else (`pypy3.10`, `3`) → `None`.
fn parse_version(text: &str) -> Option<Version> {
    let mut parts = text.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.trim_end_matches('*').parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_bounds_of_the_usual_specifiers() {
        for (specifier, expected) in [
            (">=3.12", Some((3, 12))),
            (">=3.10, <4", Some((3, 10))),
            ("~=3.11", Some((3, 11))),
            ("^3.12", Some((3, 12))),
            ("==3.13.*", Some((3, 13))),
            (">3.9", None),
            ("<4", None),
            ("", None),
        ] {
            assert_eq!(lower_bound(specifier), expected, "{specifier:?}");
        }
    }

    #[test]
    fn each_file_that_states_it() {
        for (file, text, expected) in [
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nrequires-python = \">=3.12\"\n",
                (3, 12),
            ),
            (
                "pyproject.toml",
                "[tool.poetry.dependencies]\npython = \"^3.13\"\n",
                (3, 13),
            ),
            (
                "setup.cfg",
                "[metadata]\nname = x\n[options]\npython_requires = >=3.9\n",
                (3, 9),
            ),
            (".python-version", "3.12.4\n", (3, 12)),
        ] {
            let root = tempfile::tempdir().unwrap();
            std::fs::write(root.path().join(file), text).unwrap();
            let (version, source) = required_python(&ProjectFiles::read(root.path())).expect(file);
            assert_eq!(version, expected, "{file}");
            assert!(source.ends_with(file));
        }
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join(".python-version"), "pypy3.10\n").unwrap();
        assert_eq!(required_python(&ProjectFiles::read(root.path())), None);
    }
}
