//! car's git merge driver for its library files: `.gitattributes` in the state folder names the
//! driver for `lessons.json`, `retired-lessons.json` and `lesson_candidates.json`
//! (`merge=car-lessons`), and the repository's own git config says what runs it
//! (`merge.car-lessons.driver = car lessons merge %O %A %B`).
//!
//! Why both: the attributes file is committed, so every clone names the driver; git config is not
//! shared by git, so each clone registers it (`car install`). A clone without it merges the files
//! line by line, as before: no harm, only the old conflicts.
//!
//! Invariants: registering is idempotent and adds only car's block to the attributes file (a
//! file the user keeps there keeps the rest); unregistering removes exactly that block (deleting
//! a file that held nothing else) and the config section. car is named by `program` as the
//! caller gives it: git runs the driver through a shell whose PATH may not be the terminal's.

use std::path::Path;

use crate::files::{self, FileError};
use crate::git::{self, Wait};
use crate::project::Project;
use crate::state::names;

/// The driver's name in `.gitattributes` and git config.
pub(crate) const DRIVER: &str = "car-lessons";

/// What car puts in the state folder's `.gitattributes`.
const ATTRIBUTES: &str = "\
# git merges car's lesson files with `car lessons merge` (both branches' lessons kept, their
# counters combined); `car install` registers the driver in each clone's git config.
lessons.json merge=car-lessons
retired-lessons.json merge=car-lessons
lesson_candidates.json merge=car-lessons
";

/// Why the driver could not be registered or removed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DriverError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("git {args} failed in {checkout}: {message}")]
    Git {
        args: String,
        checkout: String,
        message: String,
    },
}

/// What registering changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Registered {
    /// The attributes file was written.
    pub(crate) attributes: bool,
    /// The git config entry was added or changed.
    pub(crate) config: bool,
}

/// The command git runs: `PROGRAM lessons merge %O %A %B`.
pub(crate) fn driver_command(program: &str) -> String {
    format!("{program} lessons merge %O %A %B")
}

/// Registers the driver (attributes file and git config); `None` outside a git checkout.
pub(crate) fn register(
    project: &Project,
    program: &str,
) -> Result<Option<Registered>, DriverError> {
    let root = project.root();
    if !git::is_checkout(root) {
        return Ok(None);
    }
    let path = attributes_path(project);
    let current = files::read_optional(&path)?;
    let attributes = match current.as_deref() {
        Some(text) if text.contains(ATTRIBUTES) => false,
        Some(text) => {
            let separator = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            files::write_atomic(&path, format!("{text}{separator}{ATTRIBUTES}").as_bytes())?;
            true
        }
        None => {
            files::write_atomic(&path, ATTRIBUTES.as_bytes())?;
            true
        }
    };
    let command = driver_command(program);
    let driver_key = format!("merge.{DRIVER}.driver");
    let config = config_value(root, &driver_key).as_deref() != Some(command.as_str());
    if config {
        config_set(
            root,
            &format!("merge.{DRIVER}.name"),
            "car's lesson library",
        )?;
        config_set(root, &driver_key, &command)?;
    }
    Ok(Some(Registered { attributes, config }))
}

/// The command registered in the repository's git config, if any.
pub(crate) fn registered_command(project: &Project) -> Option<String> {
    config_value(project.root(), &format!("merge.{DRIVER}.driver"))
}

/// Removes car's block from the attributes file and the driver from git config; what it removed,
/// as names for the person.
pub(crate) fn unregister(project: &Project) -> Result<Vec<String>, DriverError> {
    let mut removed = Vec::new();
    let path = attributes_path(project);
    if let Some(text) = files::read_optional(&path)?
        && text.contains(ATTRIBUTES)
    {
        let rest = text.replacen(ATTRIBUTES, "", 1);
        if rest.trim().is_empty() {
            std::fs::remove_file(&path).map_err(|source| FileError::io(&path, source))?;
        } else {
            files::write_atomic(&path, rest.as_bytes())?;
        }
        removed.push(format!("car's merge attributes ({})", path.display()));
    }
    let root = project.root();
    if git::is_checkout(root) && registered_command(project).is_some() {
        run_config(
            root,
            &[
                "config",
                "--local",
                "--remove-section",
                &format!("merge.{DRIVER}"),
            ],
        )?;
        removed.push(format!("the merge driver merge.{DRIVER} from git config"));
    }
    Ok(removed)
}

fn attributes_path(project: &Project) -> std::path::PathBuf {
    project.state_dir().join(names::GITATTRIBUTES)
}

fn config_value(root: &Path, key: &str) -> Option<String> {
    let output = git::run(root, &["config", "--local", "--get", key], Wait::Command).ok()?;
    output
        .success()
        .then(|| output.stdout.trim_end_matches('\n').to_string())
}

fn config_set(root: &Path, key: &str, value: &str) -> Result<(), DriverError> {
    run_config(root, &["config", "--local", key, value])
}

fn run_config(root: &Path, args: &[&str]) -> Result<(), DriverError> {
    let failed = |message: String| DriverError::Git {
        args: args.join(" "),
        checkout: root.display().to_string(),
        message,
    };
    let output = git::run(root, args, Wait::Command).map_err(|error| failed(error.to_string()))?;
    if !output.success() {
        return Err(failed(output.stderr.trim().to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_is_idempotent_and_unregister_removes_exactly_what_it_added() {
        let dir = tempfile::tempdir().unwrap();
        git::git_in(dir.path(), &["init", "-q"]);
        let project = Project::at(dir.path());
        let path = attributes_path(&project);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "notes.md text\n").unwrap();
        let first = register(&project, "/opt/car").unwrap().unwrap();
        assert_eq!(
            first,
            Registered {
                attributes: true,
                config: true
            }
        );
        assert_eq!(
            registered_command(&project).as_deref(),
            Some("/opt/car lessons merge %O %A %B")
        );
        let again = register(&project, "/opt/car").unwrap().unwrap();
        assert_eq!(
            again,
            Registered {
                attributes: false,
                config: false
            }
        );
        assert_eq!(unregister(&project).unwrap().len(), 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "notes.md text\n");
        assert_eq!(registered_command(&project), None);
        assert!(unregister(&project).unwrap().is_empty());
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(register(&Project::at(outside.path()), "car").unwrap(), None);
    }
}
