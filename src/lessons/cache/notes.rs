//! The index's notes section: what a reader needs besides the lessons, computed when the index is
//! built from the whole file: the files with a learned lesson waiting for its fix, and the
//! entries car cannot use (so the hook can tell them without parsing the library again).
//!
//! Invariant: a fold of hits changes neither (it only rewrites the counters of valid lessons), so
//! the index patch keeps this section as it is.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{IndexReader, Section, Stamp, index_path};
use crate::lessons::model::{Lesson, PENDING_FIX};

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct IndexNotes {
    pub(super) pending_fix_files: Vec<String>,
    pub(super) problems: Vec<String>,
}

/// The unusable entries of `lessons_file` as its fresh index recorded them; `None` when there is
/// no fresh index (the caller parses the file instead).
pub(crate) fn problems_of(lessons_file: &Path) -> Option<Vec<String>> {
    let stamp = Stamp::of(lessons_file)?;
    let reader = IndexReader::open(&index_path(lessons_file), stamp)?;
    read(reader.head_section(Section::Pending)).map(|notes| notes.problems)
}

pub(super) fn read(section: &[u8]) -> Option<IndexNotes> {
    serde_json::from_slice(section).ok()
}

/// The file a learned lesson waits to see fixed, when it waits.
pub(super) fn pending_file(lesson: &Lesson) -> Option<String> {
    lesson
        .extra
        .get(PENDING_FIX)?
        .get("file")?
        .as_str()
        .map(String::from)
}
