//! Where a checker's error waits for the agent's fix: the file, the line, the line as the agent
//! wrote it, and when; stored in the candidate (`pending_fix`).

use serde_json::{Value, json};

use super::{FIX_WINDOW_SECONDS, Signal};
use crate::edit::Edit;
use crate::lessons::model::PENDING_FIX;
use crate::lessons::provenance::Evidence;

/// Where an error waits for its fix: the file, the line, the line as the agent wrote it, and
/// when (0 in older pools: no fix of it counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) file: String,
    pub(super) line: usize,
    pub(super) text: String,
    pub(super) at: i64,
}

impl Place {
    pub(super) fn of(signal: &Signal, now: i64) -> Place {
        Place {
            file: signal.file.clone(),
            line: signal.line,
            text: signal.line_text.clone(),
            at: now,
        }
    }

    /// Whether a change at `now` can still be the fix of this error.
    pub(super) fn is_fresh(&self, now: i64) -> bool {
        self.at > 0 && now - self.at <= FIX_WINDOW_SECONDS
    }

    /// The places stored under [`PENDING_FIX`]: a list, or (older files) one object.
    pub(super) fn all_of(extra: &serde_json::Map<String, Value>) -> Vec<Place> {
        let read = |value: &Value| {
            Some(Place {
                file: value.get("file")?.as_str()?.to_string(),
                line: value.get("line").and_then(Value::as_u64).unwrap_or(0) as usize,
                text: value
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                at: value.get("at").and_then(Value::as_i64).unwrap_or(0),
            })
        };
        match extra.get(PENDING_FIX) {
            Some(Value::Array(list)) => list.iter().filter_map(read).collect(),
            Some(object) => read(object).into_iter().collect(),
            None => Vec::new(),
        }
    }

    pub(super) fn store(extra: &mut serde_json::Map<String, Value>, places: &[Place]) {
        if places.is_empty() {
            extra.remove(PENDING_FIX);
            return;
        }
        let list: Vec<Value> = places
            .iter()
            .map(|place| {
                json!({"file": place.file, "line": place.line, "text": place.text, "at": place.at})
            })
            .collect();
        extra.insert(PENDING_FIX.into(), Value::Array(list));
    }

    /// The evidence this place gives once `edit` fixed it.
    pub(super) fn fixed_by(&self, edit: &Edit, now: i64) -> Evidence {
        Evidence {
            session: String::new(),
            file: self.file.clone(),
            line: self.line,
            review: None,
            finding: None,
            bad: self.text.clone(),
            fixed: fixed_line(edit, self.line).0,
            at: now,
            url: None,
        }
    }
}

/// What the agent wrote instead of the line at `error_line`: the added line nearest to it, and
/// its line number; nothing when the edit only removed lines.
pub(super) fn fixed_line(edit: &Edit, error_line: usize) -> (String, usize) {
    edit.added
        .iter()
        .filter(|line| !line.text.trim().is_empty())
        .min_by_key(|line| line.line.abs_diff(error_line))
        .map(|line| (line.text.trim().to_string(), line.line))
        .unwrap_or_default()
}
