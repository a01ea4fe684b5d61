//! One lesson that fired on an edit, as every layer passes it on: the lesson engine makes it, the
//! session log records it, the gate, the report and learning read it back. A plain record: how it
//! reads to the agent ([`Warning::render`]) is the lesson library's, `lessons/`.

use serde::{Deserialize, Serialize};

/// One lesson that fired on an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Warning {
    pub(crate) lesson_id: String,
    /// The lesson's live weight (a warning shown does not change it; a heeded one does).
    pub(crate) weight: u32,
    pub(crate) lesson: String,
    /// The trigger that matched, as written in the lesson file.
    pub(crate) trigger: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// 1-based line of the matching added line; 0 when unknown.
    pub(crate) line: usize,
    /// Where the lesson came from (`review R3 of session …`); `None` for a lesson written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<String>,
}
