//! One Python project's own files, read and parsed once: `pyproject.toml`, `Pipfile`,
//! `setup.cfg`, `tox.ini`, `setup.py`, `pytest.ini` and `.python-version` at the project's root.
//! The Python check asks this one view what the project declares
//! ([`super::declared_dependencies`]), which Python it requires ([`super::required_version`])
//! and which extensions it builds ([`super::built_extensions`]).
//!
//! Invariants: each file is read at most once per root and parsed at most once (TOML into a
//! tree, INI into its values); a file that is missing, larger than [`MAX_FILE`] or not UTF-8 is
//! absent; a TOML file that does not parse keeps its text (a build file is searched as text) but
//! has no tree, so it declares nothing. Nothing here runs anything. Requirement lists are not
//! part of the view: finding them walks folders, which only the dependency question needs.

use std::path::{Path, PathBuf};

/// Files larger than this are not read.
const MAX_FILE: u64 = 1 << 20;

/// The project files at one Python project's root, as read once.
#[derive(Debug, Default)]
pub(crate) struct ProjectFiles {
    /// The Python project's folder.
    pub(crate) root: PathBuf,
    pub(crate) pyproject: Option<TomlFile>,
    pub(crate) pipfile: Option<TomlFile>,
    pub(crate) setup_cfg: Option<IniFile>,
    pub(crate) tox_ini: Option<IniFile>,
    pub(crate) setup_py: Option<TextFile>,
    /// A pyenv or uv pin.
    pub(crate) python_version: Option<TextFile>,
    /// `pytest.ini`, when there is one (its content does not matter).
    pub(crate) pytest_ini: Option<PathBuf>,
}

impl ProjectFiles {
    /// Reads the project files at `root`.
    pub(crate) fn read(root: &Path) -> ProjectFiles {
        let pytest_ini = root.join("pytest.ini");
        ProjectFiles {
            root: root.to_path_buf(),
            pyproject: TextFile::read(root, "pyproject.toml").map(TomlFile::parse),
            pipfile: TextFile::read(root, "Pipfile").map(TomlFile::parse),
            setup_cfg: TextFile::read(root, "setup.cfg").map(IniFile::parse),
            tox_ini: TextFile::read(root, "tox.ini").map(IniFile::parse),
            setup_py: TextFile::read(root, "setup.py"),
            python_version: TextFile::read(root, ".python-version"),
            pytest_ini: pytest_ini.is_file().then_some(pytest_ini),
        }
    }
}

/// A file's path and text.
#[derive(Debug)]
pub(crate) struct TextFile {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
}

impl TextFile {
    fn read(root: &Path, name: &str) -> Option<TextFile> {
        let path = root.join(name);
        let text = crate::files::read_text_or_none(&path, MAX_FILE)?;
        Some(TextFile { path, text })
    }
}

/// A TOML file, with its tree when it parses.
#[derive(Debug)]
pub(crate) struct TomlFile {
    pub(crate) file: TextFile,
    pub(crate) document: Option<toml_edit::Document<String>>,
}

impl TomlFile {
    fn parse(file: TextFile) -> TomlFile {
        let document = toml_edit::Document::parse(file.text.clone()).ok();
        TomlFile { file, document }
    }

    /// The top-level table, when the file parses.
    pub(crate) fn table(&self) -> Option<&toml_edit::Table> {
        self.document.as_ref().map(|document| document.as_table())
    }
}

/// One key of an INI file: (lowercased section name, lowercased key, value lines).
pub(crate) type IniValue = (String, String, Vec<String>);

/// An INI file (`setup.cfg`, `tox.ini`), with its values.
#[derive(Debug)]
pub(crate) struct IniFile {
    pub(crate) file: TextFile,
    pub(crate) values: Vec<IniValue>,
}

impl IniFile {
    fn parse(file: TextFile) -> IniFile {
        let values = ini_values(&file.text);
        IniFile { file, values }
    }

    /// Whether the file has a section `[name]` (compared case-insensitively), even an empty one.
    pub(crate) fn has_section(&self, name: &str) -> bool {
        self.file.text.lines().any(|line| {
            let line = line.trim();
            line.starts_with('[')
                && line.ends_with(']')
                && line[1..line.len() - 1].trim().eq_ignore_ascii_case(name)
        })
    }

    /// The value lines of every `key` in `section`.
    pub(crate) fn values_of<'a>(
        &'a self,
        section: &'a str,
        key: &'a str,
    ) -> impl Iterator<Item = &'a [String]> + 'a {
        self.values
            .iter()
            .filter(move |(in_section, named, _)| in_section == section && named == key)
            .map(|(_, _, lines)| lines.as_slice())
    }
}

/// INI sections as (lowercased section name, key, value lines): a key's value is the text after
/// `=` (or `:`) and the indented lines below it. Comment lines are skipped.
fn ini_values(text: &str) -> Vec<IniValue> {
    let mut values: Vec<IniValue> = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            section = trimmed[1..trimmed.len() - 1].trim().to_ascii_lowercase();
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, _, lines)) = values.last_mut() {
                lines.push(trimmed.to_string());
            }
            continue;
        }
        let Some(split) = trimmed.find(['=', ':']) else {
            continue;
        };
        let (key, value) = (trimmed[..split].trim(), trimmed[split + 1..].trim());
        let lines = if value.is_empty() {
            Vec::new()
        } else {
            vec![value.to_string()]
        };
        values.push((section.clone(), key.to_ascii_lowercase(), lines));
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_is_read_once_into_its_parsed_form() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
        std::fs::write(root.join("Pipfile"), "[packages\n").unwrap();
        std::fs::write(
            root.join("setup.cfg"),
            "[options]\npython_requires = >=3.9\ninstall_requires =\n    attrs\n    six\n[tool:pytest]\n",
        )
        .unwrap();
        std::fs::write(root.join("pytest.ini"), "").unwrap();
        let files = ProjectFiles::read(root);
        let pyproject = files.pyproject.as_ref().unwrap();
        assert_eq!(pyproject.file.path, root.join("pyproject.toml"));
        assert!(pyproject.table().unwrap().contains_key("project"));
        // Not TOML: the text stays, the tree does not.
        let pipfile = files.pipfile.as_ref().unwrap();
        assert!(pipfile.table().is_none());
        assert_eq!(pipfile.file.text, "[packages\n");
        let setup_cfg = files.setup_cfg.as_ref().unwrap();
        let requires: Vec<&[String]> = setup_cfg.values_of("options", "install_requires").collect();
        assert_eq!(requires, [["attrs".to_string(), "six".to_string()]]);
        assert!(setup_cfg.has_section("TOOL:pytest"));
        assert!(!setup_cfg.has_section("pytest"));
        assert_eq!(files.pytest_ini, Some(root.join("pytest.ini")));
        assert!(files.tox_ini.is_none() && files.setup_py.is_none());
        assert!(files.python_version.is_none());
    }

    #[test]
    fn ini_values_follow_continuation_lines_and_skip_comments() {
        let values = ini_values("# c\n[Testenv:py]\ndeps =\n    pytest\n; x\n    mock\nk: v\n");
        assert_eq!(
            values,
            [
                (
                    "testenv:py".to_string(),
                    "deps".to_string(),
                    vec!["pytest".to_string(), "mock".to_string()]
                ),
                (
                    "testenv:py".to_string(),
                    "k".to_string(),
                    vec!["v".to_string()]
                ),
            ]
        );
    }
}
