//! The domain context file: the knowledge a cold reviewer lacks (units, currencies, protocol
//! rules, known pitfalls), one Markdown file per high-stakes feature, version-controlled with the
//! project.
//!
//! `CONTEXT` is looked up as `.claude/review-contexts/CONTEXT` (with or without `.md`) in the
//! checkout, then in `~/.claude/review-contexts/`; an argument with a `/` is a path (relative to
//! the checkout, or absolute); `none` means no context (the generic rubric).
//!
//! Invariants: a named context that is not found is an error listing every place looked at —
//! never a silent review without context; a context's state name is its file stem, so `fx` and
//! `fx.md` share one round state.

use std::path::{Path, PathBuf};

/// Where a project keeps its context files, relative to the checkout (and to the home folder for
/// the user's own).
pub(crate) const CONTEXT_DIR: &str = ".claude/review-contexts";
/// The argument that asks for no context.
pub(crate) const NO_CONTEXT: &str = "none";
/// Context files larger than this are refused (they are meant to be read by a model in full).
const MAX_CONTEXT_BYTES: u64 = 512 * 1024;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ContextError {
    #[error("no context file {name:?}: looked for {searched}")]
    Missing { name: String, searched: String },
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error("{path}: not UTF-8 text")]
    NotText { path: PathBuf },
    #[error("{path}: resolves outside the project (a symbolic link); not read")]
    Outside { path: PathBuf },
    #[error(
        "{name:?} is not a context name: use letters, digits, '-', '_' and '.' (and not \"none\")"
    )]
    InvalidName { name: String },
}

/// A resolved context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Context {
    /// The state name: the file stem, or `none`.
    pub(crate) name: String,
    /// The file read, `None` for `none`.
    pub(crate) file: Option<PathBuf>,
    pub(crate) text: Option<String>,
}

/// The state name an argument stands for (`fx.md` → `fx`, `docs/fx.md` → `fx`).
pub(crate) fn name_of(argument: &str) -> String {
    let trimmed = argument.trim();
    let last = trimmed.rsplit('/').next().unwrap_or(trimmed);
    last.strip_suffix(".md").unwrap_or(last).to_string()
}

/// Checks a feature name for `init` (a file name, not a path) and strips `.md`.
pub(crate) fn valid_name(argument: &str) -> Result<String, ContextError> {
    let name = argument.trim();
    let name = name.strip_suffix(".md").unwrap_or(name);
    let is_valid = !name.is_empty()
        && !name.starts_with('.')
        && name != NO_CONTEXT
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if is_valid {
        Ok(name.to_string())
    } else {
        Err(ContextError::InvalidName {
            name: argument.to_string(),
        })
    }
}

/// Finds and reads the context an argument names (see the module docs for the order).
pub(crate) fn resolve(
    checkout: &Path,
    home: Option<&Path>,
    argument: &str,
) -> Result<Context, ContextError> {
    let argument = argument.trim();
    if argument == NO_CONTEXT {
        return Ok(Context {
            name: NO_CONTEXT.into(),
            file: None,
            text: None,
        });
    }
    let candidates = candidates(checkout, home, argument);
    let Some(file) = candidates.iter().find(|path| path.is_file()) else {
        let searched = candidates
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ContextError::Missing {
            name: argument.to_string(),
            searched,
        });
    };
    // A context file in the project is read only where it resolves inside it (a committed link
    // to an outside file would put that file into the prompt); one in the home folder is the
    // person's own.
    let in_project = file.starts_with(checkout);
    let inside = crate::project::Project::at(checkout).inside(file);
    let bytes = match (in_project, inside) {
        (true, Some(inside)) => crate::files::read_resolved(&inside.resolved, MAX_CONTEXT_BYTES)?,
        (true, None) => {
            return Err(ContextError::Outside { path: file.clone() });
        }
        (false, _) => crate::files::read_bounded(file, MAX_CONTEXT_BYTES)?,
    };
    let text =
        String::from_utf8(bytes).map_err(|_| ContextError::NotText { path: file.clone() })?;
    Ok(Context {
        name: name_of(argument),
        file: Some(file.clone()),
        text: Some(text),
    })
}

fn candidates(checkout: &Path, home: Option<&Path>, argument: &str) -> Vec<PathBuf> {
    if argument.contains('/') {
        let path = Path::new(argument);
        return vec![if path.is_absolute() {
            path.to_path_buf()
        } else {
            checkout.join(path)
        }];
    }
    let names: Vec<String> = if argument.ends_with(".md") {
        vec![argument.to_string()]
    } else {
        vec![format!("{argument}.md"), argument.to_string()]
    };
    let folders = [Some(checkout), home].into_iter().flatten();
    folders
        .flat_map(|folder| {
            let dir = folder.join(CONTEXT_DIR);
            names.iter().map(move |name| dir.join(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_first_then_home_then_a_clear_error() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let write = |root: &Path, name: &str, text: &str| {
            let dir = root.join(CONTEXT_DIR);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(name), text).unwrap();
        };
        write(home.path(), "fx.md", "home fx");
        write(home.path(), "rates.md", "home rates");
        write(project.path(), "fx.md", "project fx");
        let found = |arg: &str| resolve(project.path(), Some(home.path()), arg).unwrap();
        assert_eq!(found("fx").text.as_deref(), Some("project fx"));
        assert_eq!(found("fx.md").name, "fx");
        assert_eq!(found("rates").text.as_deref(), Some("home rates"));
        assert_eq!(found("none").file, None);
        let missing = resolve(project.path(), Some(home.path()), "units").unwrap_err();
        let message = missing.to_string();
        assert!(
            message.contains(".claude/review-contexts/units.md"),
            "{message}"
        );
        assert!(
            message.contains(&home.path().display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn names() {
        assert_eq!(name_of("docs/fx.md"), "fx");
        assert_eq!(valid_name("fx-rates.md").unwrap(), "fx-rates");
        for bad in ["", "none", "../x", ".hidden", "a b"] {
            assert!(valid_name(bad).is_err(), "{bad}");
        }
    }
}
