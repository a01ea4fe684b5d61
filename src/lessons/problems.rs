//! Lesson entries car cannot use, told once: a lessons file may hold an entry that is not a
//! lesson (no trigger, a number where text belongs); car ignores it and keeps it in the file, and
//! the edit hook says so — once per session and version of the problems, not on every edit.
//!
//! Invariants: the lessons file is looked at only when it changed since this session last looked
//! (its size, modification time and inode are remembered in the session's folder); a mention is
//! made only when the list of problems differs from the one last mentioned. Remembering is best
//! effort: a lost memory means one more mention, never a missed one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::lessons::store::LessonFile;

/// What a session remembers per lessons file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Memory {
    files: BTreeMap<String, Seen>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    /// The file's version when it was last looked at.
    stamp: String,
    /// A digest of the problems last mentioned (empty: none).
    problems: String,
}

/// The problems of the lessons files in `files` not yet mentioned in this session, with the
/// session's memory kept in `memory` (a file in the session's folder).
pub(crate) fn not_yet_mentioned(files: &[&Path], memory: &Path) -> Vec<String> {
    let mut remembered: Memory = crate::files::read_optional(memory)
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let mut lines = Vec::new();
    let mut changed = false;
    for file in files {
        let Some(stamp) = stamp_of(file) else {
            continue;
        };
        let key = file.display().to_string();
        let seen = remembered.files.entry(key).or_default();
        if seen.stamp == stamp {
            continue;
        }
        // The fresh index knows them (no parse of a 10,000-lesson library on the edit after a
        // fold); else the file is parsed. A file that does not parse at all is reported on every
        // edit elsewhere.
        let problems = crate::lessons::cache::problems_of(file).unwrap_or_else(|| {
            LessonFile::load(file)
                .map(|loaded| loaded.problems())
                .unwrap_or_default()
        });
        let digest = if problems.is_empty() {
            String::new()
        } else {
            digest_of(&problems)
        };
        if digest != seen.problems && !problems.is_empty() {
            lines.extend(problems);
        }
        *seen = Seen {
            stamp,
            problems: digest,
        };
        changed = true;
    }
    if changed && let Ok(text) = serde_json::to_string(&remembered) {
        let _ = crate::files::write_atomic(memory, text.as_bytes());
    }
    lines
}

/// A short digest of the problems' text.
fn digest_of(problems: &[String]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(problems.join("\n").as_bytes())
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Size, modification time and inode: a new version of the file changes one of them.
fn stamp_of(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some(format!("{}:{modified}:{inode}", meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn told_once_per_version_of_the_problems() {
        let dir = tempfile::tempdir().unwrap();
        let lessons = dir.path().join("lessons.json");
        let memory = dir.path().join("session/lesson-problems.json");
        let good = r#"{"scope": "*.py", "triggers": ["abcd"], "lesson": "l"}"#;
        let bad = r#"{"scope": "*.py", "lesson": "no trigger"}"#;
        std::fs::write(&lessons, format!(r#"{{"lessons": [{good}, {bad}]}}"#)).unwrap();
        let first = not_yet_mentioned(&[&lessons], &memory);
        assert_eq!(first.len(), 1);
        assert!(first[0].contains("lesson #2"), "{first:?}");
        assert!(not_yet_mentioned(&[&lessons], &memory).is_empty());
        // Rewritten with the same problem (a hit): not again.
        std::fs::write(&lessons, format!(r#"{{"lessons": [{bad}, {good}]}}"#)).unwrap();
        let moved = not_yet_mentioned(&[&lessons], &memory);
        assert_eq!(moved.len(), 1, "the problem moved to #1: {moved:?}");
        std::fs::write(&lessons, format!(r#"{{"lessons": [{bad},  {good}]}}"#)).unwrap();
        assert!(not_yet_mentioned(&[&lessons], &memory).is_empty());
        std::fs::write(&lessons, format!(r#"{{"lessons": [{good}]}}"#)).unwrap();
        assert!(not_yet_mentioned(&[&lessons], &memory).is_empty());
    }
}
