//! car's state folder in a project (`.claude/claude-auto-review/`): the name of every file in it
//! ([`names`]); it keeps its runtime files out of git, and it holds the log of the hooks' internal
//! errors that `car status` shows.
//!
//! Invariants: the `.gitignore` keeps runtime state (sessions, logs, locks, caches, candidates)
//! local and what a team shares (lessons, validators, rules) tracked; logging an internal error
//! never fails the hook that reports it.

pub(crate) mod created_files;
pub(crate) mod merge_driver;
pub(crate) mod names;

use std::path::Path;

use serde_json::json;

use crate::clock::Clock;
use crate::files::FileError;
use crate::project::Project;

/// Keeps car's runtime state out of git; what a team shares stays tracked.
const STATE_GITIGNORE: &str = "\
# car runtime state (sessions, logs, locks, caches, candidates) stays local.
# lessons.json (and the lessons it retired), validators/ and rules are meant to be committed and
# shared; .gitattributes makes git merge the lesson files with `car lessons merge`.
*
!.gitignore
!.gitattributes
!lessons.json
!retired-lessons.json
!validators/
!validators/*.json
!rules.md
";

/// Makes sure car's state folder, once it exists, keeps its runtime files out of git — also when
/// car runs as a plugin and `car install` never ran. Returns whether it wrote the file.
pub(crate) fn ensure_gitignore(project: &Project) -> Result<bool, FileError> {
    if !project.state_dir().is_dir() || project.state_dir().join(names::GITIGNORE).exists() {
        return Ok(false);
    }
    write_gitignore(project)
}

/// Writes the state folder's `.gitignore` (creating the folder); whether it changed anything.
pub(crate) fn write_gitignore(project: &Project) -> Result<bool, FileError> {
    let gitignore = project.state_dir().join(names::GITIGNORE);
    if crate::files::read_optional(&gitignore)?.as_deref() == Some(STATE_GITIGNORE) {
        return Ok(false);
    }
    crate::files::write_atomic(&gitignore, STATE_GITIGNORE.as_bytes())?;
    Ok(true)
}

/// Records an internal hook error (best effort: logging must not fail the hook).
pub(crate) fn log_hook_error(state_dir: &Path, message: &str) {
    let now = Clock::from_env()
        .map(|clock| clock.now())
        .unwrap_or_default();
    let line = json!({"ts": now, "error": message});
    let _ = crate::files::append_line(
        &state_dir.join(names::HOOK_ERRORS),
        &line.to_string(),
        crate::files::HOOK_LOCK_WAIT,
    );
}

/// Whether `notice` is new to this session: the last notice said is kept in the session's folder,
/// so a problem is told once, and again only when it changes. Best effort: when the folder cannot
/// be written, the notice counts as new (saying it twice beats never saying it).
pub(crate) fn first_notice(project: &Project, session_id: &str, notice: &str) -> bool {
    let path = project.client_dir(session_id).join(names::NOTICE);
    if crate::files::read_optional(&path).ok().flatten().as_deref() == Some(notice) {
        return false;
    }
    let _ = crate::files::write_atomic(&path, notice.as_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gitignore_keeps_what_a_team_shares() {
        for shared in [
            names::GITIGNORE,
            names::GITATTRIBUTES,
            names::LESSONS,
            names::RETIRED_LESSONS,
            names::RULES,
        ] {
            assert!(
                STATE_GITIGNORE.contains(&format!("\n!{shared}\n")),
                "{shared}"
            );
        }
        let validators = format!("\n!{}/*.json\n", names::VALIDATORS_DIR);
        assert!(STATE_GITIGNORE.contains(&validators));
    }
}
