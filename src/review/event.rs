//! The shape of every event car records about a session: one JSON object per line, with the time,
//! the session and a tagged `event`. Hooks write events; the stop gate reads them back into one
//! snapshot per stop attempt and never re-parses payloads.

use serde::{Deserialize, Serialize};

use crate::lessons::Warning;
use crate::validate::Diagnostic;

/// One line of a session's event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// Unix seconds (from the one clock).
    pub ts: i64,
    pub session: String,
    #[serde(flatten)]
    pub event: Event,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// An edit tool changed a file; `hash` is the SHA-256 of its content afterwards.
    EditTracked {
        file: String,
        tool: String,
        hash: String,
    },
    /// A tool deleted a file.
    FileDeleted { file: String },
    /// The validators ran on a file; an empty list means the file is clean now (this resolves the
    /// file's earlier errors).
    Validated {
        file: String,
        errors: Vec<Diagnostic>,
    },
    /// Lessons fired on what an edit added.
    LessonWarned {
        file: String,
        warnings: Vec<Warning>,
    },
}

/// SHA-256 of `bytes` as lower-case hex.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_as_flat_json() {
        let record = EventRecord {
            ts: 5,
            session: "s1".into(),
            event: Event::FileDeleted {
                file: "src/a.py".into(),
            },
        };
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(
            text,
            r#"{"ts":5,"session":"s1","event":"file_deleted","file":"src/a.py"}"#
        );
        assert_eq!(serde_json::from_str::<EventRecord>(&text).unwrap(), record);
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
