//! What became of each lesson warning of a session: heeded or ignored
//! ([`crate::lessons::counters::outcome`]), recorded as one line in the lessons' hit log.
//!
//! A warning stays open (in the session's `open-warnings.json`) until one of:
//! - **heeded**: at a later edit of its file, or at a stop, the warned line is no longer in the
//!   file, or the trigger no longer matches it;
//! - **ignored**: at a stop, the line is still there, a review of the session covered the file as
//!   it is now, and no finding of the session's reviews is about that place (the same file, within
//!   [`NEAR_LINES`] lines, or the whole file);
//! - dropped: the file is gone, or the session ended with the warning still open (no evidence
//!   either way: rather no count than a wrong one).
//!
//! Invariants: nothing here fails a hook (every problem is a note); a warning is taken off the open
//! list before its outcome is appended, so a crash in between loses the count rather than counting
//! it twice; only warnings with a known line of a whole file are tracked (not a notebook cell).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::edit::Edit;
use crate::files::{self, FileLock, HOOK_LOCK_WAIT};
use crate::lessons::counters::hits::{self, Hit, HitLog};
use crate::lessons::counters::outcome::Outcome;
use crate::lessons::trigger::Trigger;
use crate::lessons::{LessonScope, Warning, library};
use crate::session::Session;
use crate::session::event::content_hash;
use crate::session::snapshot::Snapshot;

/// A finding this many lines from the warned line is about the same place.
pub(crate) const NEAR_LINES: u64 = 3;

/// Open warnings kept per session; past it the oldest are dropped (uncounted).
const MAX_OPEN: usize = 500;

/// Largest file read back at a stop to look for the warned line.
const READ_LIMIT: u64 = 2 * 1024 * 1024;

/// One warning still waiting for its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OpenWarning {
    pub(crate) lesson_id: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// The warned line as written, trimmed.
    pub(crate) text: String,
    /// The trigger that matched, as written in the lesson file.
    pub(crate) trigger: String,
    pub(crate) at: i64,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct OpenFile {
    #[serde(default)]
    open: Vec<OpenWarning>,
}

/// A decided warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settled {
    pub(crate) warning: OpenWarning,
    pub(crate) outcome: Outcome,
}

fn open_path(session: &Session<'_>) -> PathBuf {
    session.file(crate::state::names::OPEN_WARNINGS)
}

/// After an agent's edit: decides the open warnings of the edited file that the edit heeded, and
/// opens the warnings the edit drew. Returns notes for the person.
pub(crate) fn after_edit(
    scope: &LessonScope<'_>,
    session: &Session<'_>,
    edit: &Edit,
    warnings: &[Warning],
) -> Vec<String> {
    if edit.language.is_some() {
        return Vec::new();
    }
    let path = open_path(session);
    let fresh: Vec<OpenWarning> = warnings
        .iter()
        .filter_map(|warning| opened(warning, edit, scope.clock.now()))
        .collect();
    if fresh.is_empty() && !path.exists() {
        return Vec::new();
    }
    let settled = match change_open(&path, |open| {
        let settled = settle(open, |warning| {
            (warning.file == edit.relative_path && !fresh.contains(warning))
                .then(|| heeded(warning, &edit.content).then_some(Outcome::Heeded))
                .flatten()
        });
        add_open(open, fresh);
        settled
    }) {
        Ok(settled) => settled,
        Err(error) => return vec![format!("could not record lesson warnings: {error}")],
    };
    record(scope, &settled)
}

/// A write the PreToolUse hook stopped for its lessons: their warnings open as if the write had
/// landed (nothing else is settled: the file did not change). The agent's next edit of the file
/// then settles them like any warning: heeded when it leaves the line out, or at the stop; an
/// agent that sends the same write again lands the line, and the review decides.
pub(crate) fn after_stopped_write(
    session: &Session<'_>,
    edit: &Edit,
    warnings: &[Warning],
) -> Result<(), files::FileError> {
    if edit.language.is_some() {
        return Ok(());
    }
    let fresh: Vec<OpenWarning> = warnings
        .iter()
        .filter_map(|warning| opened(warning, edit, session.clock.now()))
        .collect();
    if fresh.is_empty() {
        return Ok(());
    }
    let path = open_path(session);
    files::ensure_parent(&path)?;
    change_open(&path, |open| add_open(open, fresh))
}

/// Opens the `fresh` warnings not open yet at the same place; past [`MAX_OPEN`] the oldest go.
fn add_open(open: &mut Vec<OpenWarning>, fresh: Vec<OpenWarning>) {
    for warning in fresh {
        if !open.iter().any(|known| is_same_place(known, &warning)) {
            open.push(warning);
        }
    }
    let excess = open.len().saturating_sub(MAX_OPEN);
    open.drain(..excess);
}

/// The same lesson warned on the same line text of the same file.
fn is_same_place(known: &OpenWarning, warning: &OpenWarning) -> bool {
    known.lesson_id == warning.lesson_id && known.file == warning.file && known.text == warning.text
}

/// At a stop, after the gate: decides every open warning the files on disk and the session's
/// reviews settle. Returns notes for the person (a lesson demoted or retired).
pub(crate) fn at_stop(
    scope: &LessonScope<'_>,
    session: &Session<'_>,
    snapshot: impl FnOnce() -> Option<Snapshot>,
) -> Vec<String> {
    let path = open_path(session);
    if !path.exists() {
        return Vec::new();
    }
    let mut snapshot = Some(snapshot);
    let mut view: Option<Option<Snapshot>> = None;
    let project = session.project;
    let settled = change_open(&path, |open| {
        settle(open, |warning| {
            let content = project.read_inside(&warning.file, READ_LIMIT)?;
            if heeded(warning, &content) {
                return Some(Outcome::Heeded);
            }
            let view = view.get_or_insert_with(|| snapshot.take().and_then(|load| load()));
            let snapshot = view.as_ref()?;
            passed_review(snapshot, warning, &content).then_some(Outcome::Ignored)
        })
    });
    match settled {
        Ok(settled) => record(scope, &settled),
        Err(error) => vec![format!("could not settle lesson warnings: {error}")],
    }
}

/// The session ended: its open warnings are dropped uncounted.
pub(crate) fn forget(session: &Session<'_>) {
    let _ = std::fs::remove_file(open_path(session));
}

/// A warning as it opens: its line's text, when the line is known.
fn opened(warning: &Warning, edit: &Edit, at: i64) -> Option<OpenWarning> {
    let line = edit.content.lines().nth(warning.line.checked_sub(1)?)?;
    let text = line.trim();
    (!text.is_empty()).then(|| OpenWarning {
        lesson_id: warning.lesson_id.clone(),
        file: edit.relative_path.clone(),
        text: text.to_string(),
        trigger: warning.trigger.clone(),
        at,
    })
}

/// Whether the warned line is gone from `content` or the trigger no longer matches it.
fn heeded(warning: &OpenWarning, content: &str) -> bool {
    let line_there = content.lines().any(|line| line.trim() == warning.text);
    let trigger_there = match Trigger::parse(&warning.trigger) {
        Ok(trigger) => trigger.is_match(content),
        Err(_) => true,
    };
    !line_there || !trigger_there
}

/// Whether a review covered the file as it is now and none of the session's findings is about the
/// warned place.
fn passed_review(snapshot: &Snapshot, warning: &OpenWarning, content: &str) -> bool {
    let version = Some(content_hash(content.as_bytes()));
    let reviewed = snapshot
        .reviews
        .iter()
        .any(|review| review.files.get(&warning.file) == Some(&version));
    if !reviewed {
        return false;
    }
    let Some(index) = content.lines().position(|line| line.trim() == warning.text) else {
        return false;
    };
    let line = index as u64 + 1;
    !snapshot
        .reviews
        .iter()
        .flat_map(|review| &review.findings)
        .any(|finding| {
            finding.file == warning.file
                && (finding.line == 0 || finding.line.abs_diff(line) <= NEAR_LINES)
        })
}

/// Takes the warnings `decide` settles off the open list.
fn settle(
    open: &mut Vec<OpenWarning>,
    mut decide: impl FnMut(&OpenWarning) -> Option<Outcome>,
) -> Vec<Settled> {
    let mut settled = Vec::new();
    open.retain(|warning| match decide(warning) {
        Some(outcome) => {
            settled.push(Settled {
                warning: warning.clone(),
                outcome,
            });
            false
        }
        None => true,
    });
    settled
}

/// Loads, changes and saves the open list under its lock.
fn change_open<T>(
    path: &Path,
    change: impl FnOnce(&mut Vec<OpenWarning>) -> T,
) -> Result<T, files::FileError> {
    files::update_json(path, READ_LIMIT, |file: &mut OpenFile| {
        change(&mut file.open)
    })
}

/// Appends the outcomes to the lessons' hit log; notes for lessons an ignore demoted or retired.
fn record(scope: &LessonScope<'_>, settled: &[Settled]) -> Vec<String> {
    if settled.is_empty() {
        return Vec::new();
    }
    let path = scope.project.lessons_file();
    let now = scope.clock.now();
    let outcomes: Vec<Hit> = settled
        .iter()
        .map(|item| Hit::new(&item.warning.lesson_id, now, item.outcome))
        .collect();
    let mut notes = changes_noted(&path, &outcomes);
    let log = HitLog::of(&path);
    let appended =
        FileLock::acquire(&path, HOOK_LOCK_WAIT).and_then(|lock| log.append(&outcomes, &lock));
    if let Err(error) = appended {
        notes.push(format!(
            "{} lesson warning outcome(s) were not recorded: {error}",
            outcomes.len()
        ));
        return notes;
    }
    if log.size() > hits::FOLD_FROM
        && let Err(error) = library::fold(&path, HOOK_LOCK_WAIT)
    {
        notes.push(format!(
            "lesson outcomes were not folded into the file: {error}"
        ));
    }
    notes
}

/// What the ignores among `outcomes` will do to their lessons (demote, retire), for the person.
fn changes_noted(lessons_file: &Path, outcomes: &[Hit]) -> Vec<String> {
    if outcomes
        .iter()
        .all(|hit| hit.outcome != Some(Outcome::Ignored))
    {
        return Vec::new();
    }
    let Ok(mut live) = library::load_live(lessons_file) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for hit in outcomes {
        let Some(outcome) = hit.outcome else { continue };
        if let Some(lesson) = live.lessons_mut().find(|lesson| lesson.id == hit.id)
            && let Some(change) = lesson.record_outcome(outcome, hit.at)
        {
            notes.push(lesson.outcome_note(change));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(text: &str, trigger: &str) -> OpenWarning {
        OpenWarning {
            lesson_id: "a1".into(),
            file: "app.py".into(),
            text: text.into(),
            trigger: trigger.into(),
            at: 1,
        }
    }

    #[test]
    fn a_warning_is_heeded_when_its_line_or_its_trigger_is_gone() {
        let open = warning("subprocess.run(cmd, shell=True)", "shell=True");
        assert!(!heeded(
            &open,
            "x = 1\n    subprocess.run(cmd, shell=True)\n"
        ));
        assert!(heeded(&open, "subprocess.run(cmd)\n"));
        assert!(heeded(
            &warning("run(a,  shell=True)", "regex:shell\\s*=\\s*True"),
            "run(a, shell=False)\n"
        ));
        // The same line elsewhere in the file still stands.
        assert!(!heeded(
            &open,
            "def f():\n\n  subprocess.run(cmd, shell=True)"
        ));
    }

    #[test]
    fn settle_takes_off_only_what_was_decided() {
        let mut open = vec![warning("a", "a"), warning("b", "b")];
        let settled = settle(&mut open, |w| (w.text == "a").then_some(Outcome::Heeded));
        assert_eq!(settled.len(), 1);
        assert_eq!(open, [warning("b", "b")]);
    }
}
