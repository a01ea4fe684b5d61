//! The SessionEnd hook: close the session's state and remove stale sessions.
//!
//! Invariants: bounded time (the ending session's snapshot comes from its cache, other sessions'
//! logs are read only at their tail); changes no review covered are named in the answer (a
//! postponed review must not be forgotten) and kept in the lifecycle log; a session is stale when
//! its newest event is older than `staleClientTimeoutHours` by the one clock — other live
//! sessions are never touched; the ending session's own folder is kept (its P3 offers stay
//! available to `car review offers`) until it goes stale in turn.

use std::path::Path;

use crate::answer::Answer;
use crate::project::Project;
use crate::session::Session;
use crate::session::event::Event;
use crate::session::log::{EventLog, last_ts_of};
use crate::state::names::{EVENTS, PYTHON_TOOL_LOG};

/// Closes the session (`reason`: why the agent says it ended) and removes stale ones.
pub(crate) fn handle(context: Session<'_>, reason: &str) -> Answer {
    let log = EventLog::for_session(context.project, context.id);
    let now = context.clock.now();
    let mut answer = Answer::allow();
    if log.exists() {
        let unreviewed: Vec<String> = crate::session::checkpoint::load(&log)
            .map(|snapshot| snapshot.unreviewed().into_keys().collect())
            .unwrap_or_default();
        if !unreviewed.is_empty() {
            answer = answer.with_system_line(format!(
                "car: the session ends with changes no review covered: {} (`car review status` lists them; they are reviewed at this session's next stop if it resumes).",
                unreviewed.join(", ")
            ));
        }
        let reason = reason.to_string();
        if let Err(error) = log.append(now, Event::SessionEnded { reason, unreviewed }) {
            answer = answer.with_system_line(format!("car: could not close the session: {error}"));
        }
    }
    crate::session::start::forget(context);
    let max_age = context.settings.stale_client_timeout_seconds();
    let current = crate::project::folder_name_of(context.id);
    remove_stale(context.project, &current, now, max_age);
    answer
}

/// Removes every other session folder whose newest event is older than `max_age` seconds.
pub(crate) fn remove_stale(
    project: &Project,
    current: &str,
    now: i64,
    max_age: i64,
) -> Vec<String> {
    let mut removed = Vec::new();
    for (name, folder) in project.session_folders() {
        // The Python claude-auto-review tool keeps its sessions here too (`state.jsonl`, no
        // car events): its own SessionEnd cleans them.
        let is_python_tools =
            !folder.join(EVENTS).exists() && folder.join(PYTHON_TOOL_LOG).exists();
        if name == current || is_python_tools {
            continue;
        }
        let last_seen = last_seen(&folder);
        if now.saturating_sub(last_seen) <= max_age {
            continue;
        }
        if std::fs::remove_dir_all(&folder).is_ok() {
            let _ = EventLog::in_folder(project, &folder, &name).append_lifecycle_only(
                now,
                Event::SessionRemoved {
                    removed: name.clone(),
                    last_seen,
                },
            );
            removed.push(name);
        }
    }
    removed
}

/// The newest event's time, else the folder's modification time.
fn last_seen(dir: &Path) -> i64 {
    last_ts_of(&dir.join(EVENTS)).unwrap_or_else(|| {
        std::fs::metadata(dir)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |age| age.as_secs() as i64)
    })
}
