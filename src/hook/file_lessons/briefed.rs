//! The lessons car gave the agent with its writes of a file, per file, in one session: each
//! lesson is given once per file and session, however often the agent writes it.
//!
//! Invariants:
//! - what was given is recorded in one update under the list's lock ([`take_new`]), which also
//!   decides what is new, so parallel hooks of one session never give a lesson twice;
//! - the list keeps the latest [`MAX_FILES`] files (oldest dropped) within [`MAX_BYTES`]; a file
//!   dropped may be briefed again, which costs a few lines, never a wrong answer;
//! - nothing is given that could not be recorded: [`take_new`] fails and the caller says nothing
//!   (rather miss a lesson than repeat it on every edit).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};
use crate::session::Session;
use crate::state::names;

/// Files remembered per session.
const MAX_FILES: usize = 2_000;

/// Largest list read back.
const MAX_BYTES: u64 = 1024 * 1024;

/// One file and the lessons given before its edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct BriefedFile {
    /// Project-relative path.
    file: String,
    /// Lesson ids.
    lessons: Vec<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct BriefedList {
    #[serde(default)]
    files: Vec<BriefedFile>,
}

impl BriefedList {
    fn has(&self, file: &str, lesson: &str) -> bool {
        self.files
            .iter()
            .any(|entry| entry.file == file && entry.lessons.iter().any(|id| id == lesson))
    }

    fn add(&mut self, file: &str, lesson: &str) {
        match self.files.iter().position(|entry| entry.file == file) {
            Some(index) => {
                // Moved to the end: the latest file is the last one dropped.
                let mut entry = self.files.remove(index);
                entry.lessons.push(lesson.to_string());
                self.files.push(entry);
            }
            None => self.files.push(BriefedFile {
                file: file.to_string(),
                lessons: vec![lesson.to_string()],
            }),
        }
        let excess = self.files.len().saturating_sub(MAX_FILES);
        self.files.drain(..excess);
    }
}

/// Of the (file, lesson id) pairs, those given before in this session: read without the lock, to
/// leave out early what is old (the common case after a file's first edit).
pub(crate) fn given(session: Session<'_>, pairs: &[(&str, &str)]) -> Vec<bool> {
    let list: BriefedList = files::read_text_or_none(&list_path(session), MAX_BYTES)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    pairs
        .iter()
        .map(|(file, lesson)| list.has(file, lesson))
        .collect()
}

/// Records the (file, lesson id) pairs as given, in one update under the list's lock; returns
/// for each whether it is new (a parallel hook may have given it meanwhile). An error means
/// nothing was recorded: the caller must give nothing.
pub(crate) fn take_new(
    session: Session<'_>,
    pairs: &[(&str, &str)],
) -> Result<Vec<bool>, FileError> {
    let path = list_path(session);
    files::ensure_parent(&path)?;
    files::update_json(&path, MAX_BYTES, |list: &mut BriefedList| {
        pairs
            .iter()
            .map(|(file, lesson)| {
                let is_new = !list.has(file, lesson);
                if is_new {
                    list.add(file, lesson);
                }
                is_new
            })
            .collect()
    })
}

fn list_path(session: Session<'_>) -> PathBuf {
    session.file(names::BRIEFED_LESSONS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    fn with_session(id: &str, test: impl FnOnce(Session<'_>)) {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        test(Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(1),
            id,
        });
    }

    #[test]
    fn a_lesson_is_new_once_per_file() {
        with_session("s", |session| {
            let pairs = [("a.py", "l1"), ("b.py", "l1"), ("a.py", "l2")];
            assert_eq!(given(session, &pairs), [false, false, false]);
            assert_eq!(take_new(session, &pairs).unwrap(), [true, true, true]);
            assert_eq!(given(session, &pairs), [true, true, true]);
            let again = [("a.py", "l1"), ("a.py", "l3")];
            assert_eq!(take_new(session, &again).unwrap(), [false, true]);
        });
    }

    #[test]
    fn parallel_hooks_give_a_lesson_once() {
        with_session("s", |session| {
            let new_count = std::sync::atomic::AtomicUsize::new(0);
            std::thread::scope(|scope| {
                for _ in 0..8 {
                    scope.spawn(|| {
                        let taken = take_new(session, &[("a.py", "l1")]).unwrap();
                        if taken[0] {
                            new_count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    });
                }
            });
            assert_eq!(new_count.into_inner(), 1);
        });
    }

    #[test]
    fn the_oldest_files_are_dropped_past_the_bound() {
        let mut list = BriefedList::default();
        for index in 0..(MAX_FILES + 5) {
            list.add(&format!("f{index}.py"), "l");
        }
        assert_eq!(list.files.len(), MAX_FILES);
        assert!(!list.has("f0.py", "l"));
        assert!(list.has(&format!("f{}.py", MAX_FILES + 4), "l"));
    }
}
