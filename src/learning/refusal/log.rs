//! The refusal log, `lesson_refusals.json` in the state folder: every signal car refused to learn
//! from, with its reason, where it came from and a few of its examples, counted per kind, scope
//! and subject. `car lessons candidates --refused` and `car report` show it; a refusal that holds
//! back a candidate, repeated [`TELL_AFTER`] times, is told to the person once (*never refuse
//! silently*).
//!
//! Invariants: one place writes it ([`record`], under the file's lock, from the learning door);
//! bounded ([`MAX_ENTRIES`] entries, the least recently seen dropped first; [`MAX_EXAMPLES`]
//! examples each); local runtime state like the candidates (git-ignored); a log that cannot be
//! read is read as empty and a failed write is a note, never a hook's failure.

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};
use crate::learning::refusal::Refused;
use crate::lessons::provenance::Evidence;
use crate::project::Project;

/// Entries kept.
const MAX_ENTRIES: usize = 300;
/// Examples kept per entry (the latest).
const MAX_EXAMPLES: usize = 3;
/// After this many times the person is told once.
pub(crate) const TELL_AFTER: u64 = 3;
/// The log's size bound when read.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// One kind of refusal of one subject, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) kind: String,
    pub(crate) reason: String,
    pub(crate) source: String,
    pub(crate) scope: String,
    pub(crate) subject: String,
    pub(crate) count: u64,
    pub(crate) first_seen: i64,
    pub(crate) last_seen: i64,
    /// The person was told about it.
    #[serde(default)]
    pub(crate) told: bool,
    #[serde(default)]
    pub(crate) evidence: Vec<Evidence>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct RefusalFile {
    #[serde(default)]
    refusals: Vec<Entry>,
}

fn path(project: &Project) -> std::path::PathBuf {
    project
        .state_dir()
        .join(crate::state::names::LESSON_REFUSALS)
}

/// Records `refused` at `now`; returns a line for the person for each refusal repeated
/// [`TELL_AFTER`] times and not told before.
pub(crate) fn record(
    project: &Project,
    now: i64,
    refused: &[Refused],
) -> Result<Vec<String>, FileError> {
    if refused.is_empty() {
        return Ok(Vec::new());
    }
    files::update_json(&path(project), MAX_BYTES, |file: &mut RefusalFile| {
        let mut tell = Vec::new();
        for item in refused {
            let kind = item.refusal.kind();
            let found = file.refusals.iter_mut().find(|entry| {
                entry.kind == kind && entry.scope == item.scope && entry.subject == item.subject
            });
            let entry = match found {
                Some(entry) => {
                    entry.count += 1;
                    entry.last_seen = now;
                    entry.reason = item.refusal.to_string();
                    entry
                }
                None => {
                    file.refusals.push(Entry {
                        kind: kind.to_string(),
                        reason: item.refusal.to_string(),
                        source: item.source.as_str().to_string(),
                        scope: item.scope.clone(),
                        subject: item.subject.clone(),
                        count: 1,
                        first_seen: now,
                        last_seen: now,
                        told: false,
                        evidence: Vec::new(),
                    });
                    file.refusals.last_mut().expect("just pushed")
                }
            };
            for example in &item.evidence {
                if !entry.evidence.contains(example) {
                    entry.evidence.push(example.clone());
                }
            }
            let excess = entry.evidence.len().saturating_sub(MAX_EXAMPLES);
            entry.evidence.drain(..excess);
            if entry.count >= TELL_AFTER && !entry.told && item.refusal.holds_back_a_candidate() {
                entry.told = true;
                tell.push(format!(
                    "car refused {} times to learn `{}` ({}): {}; `car lessons candidates --refused` lists what car did not learn and why; if it is a real mistake, add it with `car lessons add`",
                    entry.count, entry.subject, entry.scope, entry.reason
                ));
            }
        }
        if file.refusals.len() > MAX_ENTRIES {
            file.refusals
                .sort_by_key(|entry| std::cmp::Reverse(entry.last_seen));
            file.refusals.truncate(MAX_ENTRIES);
        }
        tell
    })
}

/// Every recorded refusal, most recently seen first.
pub(crate) fn load(project: &Project) -> Vec<Entry> {
    let mut file: RefusalFile = files::read_text_or_none(&path(project), MAX_BYTES)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    file.refusals
        .sort_by_key(|entry| std::cmp::Reverse(entry.last_seen));
    file.refusals
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::refusal::Refusal;
    use crate::learning::synthesis::NoPattern;
    use crate::lessons::provenance::Source;

    fn refused(subject: &str) -> Refused {
        Refused {
            refusal: Refusal::NoPattern(NoPattern::NoCommonPattern(subject.into())),
            source: Source::Review,
            scope: "*.py".into(),
            subject: subject.into(),
            evidence: vec![Evidence {
                session: "s1".into(),
                file: "a.py".into(),
                line: 1,
                review: None,
                finding: None,
                bad: subject.into(),
                fixed: "y".into(),
                at: 1,
                url: None,
            }],
        }
    }

    #[test]
    fn refusals_are_counted_and_told_once() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        for round in 1..=4 {
            let told = record(&project, round, &[refused("x = 1")]).unwrap();
            assert_eq!(
                told.len(),
                usize::from(round == 3),
                "round {round}: {told:?}"
            );
        }
        record(&project, 9, &[refused("y = 2")]).unwrap();
        let entries = load(&project);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].subject, "y = 2", "most recent first");
        assert_eq!(entries[1].count, 4);
        assert_eq!(entries[1].kind, "no-common-pattern");
        assert_eq!(entries[1].evidence.len(), 1, "the same example once");
    }
}
