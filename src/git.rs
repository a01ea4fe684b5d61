//! The one way car runs git: argv only, in a named checkout, through [`crate::process`] (its own
//! process group, killed with everything it started at its time), and the one answer to "is this
//! a git checkout".
//!
//! Timeout policy: a git call either runs on a hook's path ([`Wait::Hook`]) or for a command a
//! person started ([`Wait::Command`]). A hook's call gets a few seconds, well inside the shortest
//! budget of a hook that asks git anything, so the hook still answers (fail open) when git hangs
//! on a lock or a slow disk; a command's call gets long enough for a very large repository.
//!
//! Invariants: a call past its time, a missing `git` and a failing git all come back as a
//! [`ProcessOutput`] that is not a success or as a [`ProcessError`]; every caller reads that as
//! "git does not know" and goes on without it. car never runs git through a shell.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::process::{ProcessError, ProcessOutput, run_command};

/// How long a git call may take before it counts as failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// On a hook's path: the hook must answer within its budget even when git hangs.
    Hook,
    /// For a command a person ran (`car check DIR`, `car deep-review`): listing or diffing even a
    /// very large repository takes far less.
    Command,
    /// On a hook's path with a deadline (its budget counts from its start): a hook's wait, and
    /// never past the deadline.
    Until(Instant),
}

impl Wait {
    pub(crate) fn limit(self) -> Duration {
        match self {
            Wait::Hook => Duration::from_secs(3),
            Wait::Command => Duration::from_secs(30),
            Wait::Until(deadline) => Wait::Hook
                .limit()
                .min(deadline.saturating_duration_since(Instant::now())),
        }
    }
}

/// Whether `dir` is the top of a git checkout (a main checkout's `.git` folder, or a linked
/// worktree's or submodule's `.git` file).
pub(crate) fn is_checkout(dir: &Path) -> bool {
    dir.join(".git").exists()
}

/// Where git logs the moves of `checkout`'s HEAD (`.git/logs/HEAD`, or the linked worktree's
/// own `logs/HEAD`); `None` outside git.
fn head_log(checkout: &Path) -> Option<std::path::PathBuf> {
    let dot_git = checkout.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git.join("logs").join("HEAD"));
    }
    let text = crate::files::read_text_or_none(&dot_git, 64 * 1024)?;
    let git_dir = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))?
        .trim();
    Some(checkout.join(git_dir).join("logs").join("HEAD"))
}

/// How far git's log of HEAD's moves has grown: a bookmark to ask later whether HEAD moved
/// (a commit, merge, pull, rebase, checkout or reset each add a line). One `stat`: cheap enough
/// for a hook's path. `None` outside git or where HEAD is not logged.
pub(crate) fn head_log_mark(checkout: &Path) -> Option<u64> {
    std::fs::metadata(head_log(checkout)?)
        .ok()
        .map(|meta| meta.len())
}

/// The commits HEAD moved from and to since `mark` ([`head_log_mark`]), when it moved: the
/// first logged move's old commit and the last one's new commit.
pub(crate) fn head_moves_since(checkout: &Path, mark: u64) -> Option<(String, String)> {
    let bytes = crate::files::read_bounded(&head_log(checkout)?, 16 * 1024 * 1024).ok()?;
    let text = String::from_utf8_lossy(bytes.get(usize::try_from(mark).ok()?..)?).into_owned();
    let mut moves = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            Some((fields.next()?.to_string(), fields.next()?.to_string()))
        })
        .filter(|(from, to)| from != to);
    let (from, mut to) = moves.next()?;
    for (_, later) in moves {
        to = later;
    }
    Some((from, to))
}

/// Runs `git ARGS…` in `checkout` within `wait`'s time.
pub(crate) fn run<S: AsRef<OsStr>>(
    checkout: &Path,
    args: &[S],
    wait: Wait,
) -> Result<ProcessOutput, ProcessError> {
    let mut command = Command::new("git");
    command.arg("-C").arg(checkout).args(args);
    run_command(command, None, wait.limit())
}

/// Why a git call gave no answer, said so a person knows what to fix.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    #[error("`git` is not on PATH")]
    NotFound,
    #[error("`git` could not be started: {0}")]
    Spawn(String),
    #[error("`git {command}` did not answer within {waited_ms} ms")]
    TimedOut { command: String, waited_ms: u128 },
    #[error("`git {command}` failed (exit {code}): {stderr}")]
    Failed {
        command: String,
        code: String,
        stderr: String,
    },
}

/// [`run`], with every way it can fail as a [`GitError`] naming the git command (its first
/// argument that is not an option) and, for a failure, git's first line on stderr.
pub(crate) fn run_checked(
    checkout: &Path,
    args: &[&str],
    wait: Wait,
) -> Result<ProcessOutput, GitError> {
    let limit = wait.limit();
    let output = run(checkout, args, wait).map_err(|error| match error {
        ProcessError::NotFound { .. } => GitError::NotFound,
        ProcessError::Spawn { source, .. } => GitError::Spawn(source.to_string()),
    })?;
    let command = args
        .iter()
        .find(|arg| !arg.starts_with('-'))
        .unwrap_or(&"")
        .to_string();
    if output.timed_out {
        return Err(GitError::TimedOut {
            command,
            waited_ms: limit.as_millis(),
        });
    }
    if !output.success() {
        let stderr = output.stderr.lines().next().unwrap_or_default();
        return Err(GitError::Failed {
            command,
            code: output
                .code
                .map_or_else(|| "signal".into(), |code| code.to_string()),
            stderr: stderr.chars().take(300).collect(),
        });
    }
    Ok(output)
}

/// Runs `git ARGS…` in `dir` and asserts it succeeded (unit tests that need a repository).
#[cfg(test)]
pub(crate) fn git_in(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git must be installed for the tests");
    assert!(status.success(), "git {args:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_in_the_checkout_and_knows_one() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_checkout(dir.path()));
        git_in(dir.path(), &["init", "-q"]);
        assert!(is_checkout(dir.path()));
        let output = run(
            dir.path(),
            &["rev-parse", "--is-inside-work-tree"],
            Wait::Hook,
        )
        .unwrap();
        assert!(output.success(), "{output:?}");
        assert_eq!(output.stdout.trim(), "true");
        let outside = tempfile::tempdir().unwrap();
        let failed = run(outside.path(), &["rev-parse", "HEAD"], Wait::Hook).unwrap();
        assert!(!failed.success());
    }
}
