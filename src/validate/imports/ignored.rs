//! A relative import whose target git ignores is build output (`../../dist/source/index.js` in a
//! documentation example, `./CompaniesUsing.script.output`): it exists once the project is
//! built, and `.gitignore` says it is made, not written. No verdict, and a note says why
//! (issue 40, item 4).
//!
//! Invariant: asked only for an import that would otherwise be missing (one `git check-ignore`,
//! a few milliseconds, on that rare path); a target outside the checkout, or any git failure,
//! is not ignored (the import stays missing).

use std::path::{Component, Path, PathBuf};

use crate::git;

/// Whether git ignores `target` (a path that need not exist) in `checkout`.
pub(crate) fn is_build_output(checkout: &Path, target: &Path) -> bool {
    let target = lexically_normal(target);
    let Ok(relative) = target.strip_prefix(checkout) else {
        return false;
    };
    if relative.as_os_str().is_empty() {
        return false;
    }
    // `--no-index`: a tracked file under an ignored folder counts as ignored too (it exists, so
    // the import would have resolved anyway).
    let args = [
        "check-ignore".as_ref(),
        "-q".as_ref(),
        "--no-index".as_ref(),
        "--".as_ref(),
        relative.as_os_str(),
    ];
    git::run(checkout, &args, git::Wait::Hook).is_ok_and(|output| output.success())
}

/// `a/b/../c` → `a/c`, without touching the file system (the target may not exist).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_without_the_file_system() {
        assert_eq!(
            lexically_normal(Path::new("/p/docs/examples/../../dist/./index.js")),
            PathBuf::from("/p/dist/index.js")
        );
    }

    #[test]
    fn ignored_targets_are_build_output_and_others_are_not() {
        let root = tempfile::tempdir().unwrap();
        let checkout = root.path();
        crate::git::git_in(checkout, &["init", "-q"]);
        std::fs::write(checkout.join(".gitignore"), "dist/\n*.output\n").unwrap();
        let file = checkout.join("docs/example.ts");
        let folder = file.parent().unwrap();
        assert!(is_build_output(
            checkout,
            &folder.join("../dist/source/index.js")
        ));
        assert!(is_build_output(
            checkout,
            &folder.join("./Companies.script.output")
        ));
        assert!(!is_build_output(checkout, &folder.join("./utils/retry")));
        assert!(!is_build_output(
            checkout,
            Path::new("/elsewhere/dist/x.js")
        ));
    }
}
