//! What a directory given to `car check` means: the files git would show in it (tracked, plus
//! untracked ones that are not ignored), so `.gitignore` is respected exactly as git reads it,
//! without car re-implementing its rules. Only files whose name tells car how to check them are
//! kept (an extension or special name car validates, or a custom rule's scope): a directory walk
//! must not drown the output in "binary file; not checked" notes for images and fonts.
//!
//! Outside a git repository a directory is refused: car cannot know what to leave out.

use std::path::{Path, PathBuf};

use crate::git;
use crate::process::ProcessError;
use crate::validate::language::Language;

/// The checkable files under `dir`, relative to `dir` joined onto `shown` (the directory as the
/// user wrote it), sorted. `wants` says whether a file's name makes it checkable.
pub(crate) fn files_under(
    dir: &Path,
    shown: &str,
    wants: &dyn Fn(&Path) -> bool,
) -> Result<Vec<(String, PathBuf)>, String> {
    let output = match git_listed(dir, &["."], git::Wait::Command) {
        Ok(output) if output.success() => output,
        Ok(_) | Err(ProcessError::NotFound { .. }) => return Err(refusal(shown)),
        Err(error) => return Err(format!("{shown}: {error}")),
    };
    let prefix = shown.trim_end_matches('/');
    let mut files: Vec<(String, PathBuf)> = output
        .stdout
        .split('\0')
        .filter(|name| !name.is_empty())
        .map(|name| (name, dir.join(name)))
        // Deleted but still tracked files are listed by git; there is nothing to check.
        .filter(|(_, path)| path.is_file() && wants(path))
        .map(|(name, path)| {
            let shown = if prefix.is_empty() || prefix == "." {
                name.to_string()
            } else {
                format!("{prefix}/{name}")
            };
            (shown, path)
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `git ls-files` of `pathspecs` in `dir`: tracked files plus untracked ones git does not ignore,
/// NUL-separated.
pub(crate) fn git_listed(
    dir: &Path,
    pathspecs: &[&str],
    wait: git::Wait,
) -> Result<crate::process::ProcessOutput, ProcessError> {
    let mut list = vec![
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
        "--",
    ];
    list.extend_from_slice(pathspecs);
    git::run(dir, &list, wait)
}

fn refusal(shown: &str) -> String {
    format!(
        "{shown}: is a directory outside a git repository; `car check` walks directories only in \
         git (to respect .gitignore): pass the files instead, e.g. `find {shown} -name '*.py' -exec car check {{}} +`"
    )
}

/// Whether car validates a file with this name (content is not read: no shebang detection).
pub(crate) fn has_known_language(path: &Path) -> bool {
    Language::detect(path, "", None).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::git::git_in as git;

    #[test]
    fn lists_what_git_shows_and_car_can_check() {
        let root = tempfile::tempdir().unwrap();
        git(root.path(), &["init", "-q"]);
        for (name, text) in [
            ("src/a.py", "x = 1\n"),
            ("src/b.ts", "let b = 1;\n"),
            ("src/logo.png", "\u{1}"),
            ("build/out.js", "bad(\n"),
            (".gitignore", "build/\n"),
        ] {
            let path = root.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let files = files_under(root.path(), ".", &has_known_language).unwrap();
        let names: Vec<&str> = files.iter().map(|(shown, _)| shown.as_str()).collect();
        assert_eq!(names, ["src/a.py", "src/b.ts"]);
        let files = files_under(&root.path().join("src"), "src/", &has_known_language).unwrap();
        assert_eq!(files[0].0, "src/a.py");
    }

    #[test]
    fn outside_git_a_directory_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let error = files_under(root.path(), "stuff", &has_known_language).unwrap_err();
        assert!(
            error.starts_with("stuff: is a directory outside a git repository"),
            "{error}"
        );
    }
}
