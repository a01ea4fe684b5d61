//! Modules the project builds itself: a C, C++, Cython, Rust or SWIG extension exists only after
//! a build (`pip install -e .`, `meson compile`, `maturin develop`), so in a checkout that was not
//! built in place its import fails although the code is right. The Python check then warns
//! ("not built here") instead of blocking, and never teaches.
//!
//! Evidence, looked for in the folder the module would live in under each source root of the
//! importing file: a source named after the module (`storer.pyx`, `_speedups.c`, `Tensor.i`, …),
//! or a build file there (`meson.build`, `setup.py`, `CMakeLists.txt`) naming it in quotes
//! (numpy's `py.extension_module('_multiarray_tests', …)`); at the project root, `setup.py`,
//! `setup.cfg` or `pyproject.toml` naming the whole dotted module in quotes (setuptools'
//! `Extension("pkg._core", …)`, maturin's `module-name = "pkg._core"`).
//!
//! Invariant: this only ever turns an error into a warning, so evidence that is too wide costs a
//! missed error, never a false block.

use std::path::{Path, PathBuf};

use crate::validate::python::project_files::ProjectFiles;

/// Build files larger than this are not read.
const MAX_FILE: u64 = 1 << 20;

/// Source files an extension module is built from, by extension.
const SOURCES: &[&str] = &["pyx", "pxd", "c", "cc", "cpp", "cxx", "rs", "i"];

/// Build files that name the extensions built from their folder.
const FOLDER_BUILD_FILES: &[&str] = &["meson.build", "setup.py", "CMakeLists.txt"];

/// The file showing that the project builds `module` (dotted), looked for under `roots` (the
/// importing file's source roots) and in the build files at the project's root (`setup.py`,
/// `setup.cfg`, `pyproject.toml`, in that order); `None` when nothing does.
pub(crate) fn built_by_project(
    module: &str,
    roots: &[PathBuf],
    project: &ProjectFiles,
) -> Option<PathBuf> {
    let parts: Vec<&str> = module.split('.').collect();
    let (leaf, parents) = parts.split_last()?;
    if leaf.is_empty() || parents.iter().any(|part| part.is_empty()) {
        return None;
    }
    for root in roots {
        let folder = parents
            .iter()
            .fold(root.clone(), |path, part| path.join(part));
        if let Some(source) = SOURCES
            .iter()
            .map(|extension| folder.join(format!("{leaf}.{extension}")))
            .find(|source| source.is_file())
        {
            return Some(source);
        }
        if let Some(build) = names_in_quotes(&folder, FOLDER_BUILD_FILES, leaf) {
            return Some(build);
        }
    }
    if parents.is_empty() {
        return None;
    }
    let root_build_files = [
        project.setup_py.as_ref(),
        project.setup_cfg.as_ref().map(|ini| &ini.file),
        project.pyproject.as_ref().map(|toml| &toml.file),
    ];
    root_build_files
        .into_iter()
        .flatten()
        .find(|file| holds_in_quotes(&file.text, module))
        .map(|file| file.path.clone())
}

/// The first of `files` in `folder` that holds `name` in single or double quotes.
fn names_in_quotes(folder: &Path, files: &[&str], name: &str) -> Option<PathBuf> {
    files.iter().map(|file| folder.join(file)).find(|path| {
        crate::files::read_text_or_none(path, MAX_FILE)
            .is_some_and(|text| holds_in_quotes(&text, name))
    })
}

/// Whether `text` holds `name` in single or double quotes.
fn holds_in_quotes(text: &str, name: &str) -> bool {
    [format!("'{name}'"), format!("\"{name}\"")]
        .iter()
        .any(|quoted| text.contains(quoted.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_beside_or_a_build_file_naming_the_module_is_evidence() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let core = root.join("pkg/_core");
        std::fs::create_dir_all(&core).unwrap();
        let roots = vec![root.to_path_buf()];

        std::fs::write(root.join("storer.pyx"), "cdef class Storer: pass\n").unwrap();
        assert_eq!(
            built_by_project("storer", &roots, &ProjectFiles::read(root)),
            Some(root.join("storer.pyx"))
        );

        std::fs::write(
            core.join("meson.build"),
            "py.extension_module('_multiarray_tests',\n  sources)\n",
        )
        .unwrap();
        assert_eq!(
            built_by_project(
                "pkg._core._multiarray_tests",
                &roots,
                &ProjectFiles::read(root)
            ),
            Some(core.join("meson.build"))
        );

        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.maturin]\nmodule-name = \"pkg._native\"\n",
        )
        .unwrap();
        assert_eq!(
            built_by_project("pkg._native", &roots, &ProjectFiles::read(root)),
            Some(root.join("pyproject.toml"))
        );

        for unknown in ["requests", "pkg._core.missing", "pkg._other", "", "pkg..x"] {
            assert_eq!(
                built_by_project(unknown, &roots, &ProjectFiles::read(root)),
                None,
                "{unknown}"
            );
        }
    }
}
