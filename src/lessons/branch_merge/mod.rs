//! Merging two branches' versions of a library file (`lessons.json`, `retired-lessons.json`, the
//! candidate pool) against their common base: what `car lessons merge`, git's merge driver for
//! these files, writes.
//!
//! Rules:
//! - Lessons are paired by id, then by scope and triggers; candidates by scope and trigger.
//! - Counters combine ([`entries`]): `hits`, `heeded`, `ignored` are summed over the base (base +
//!   what each branch added); `weight` and `last_hit` take the larger; `last_decay_at` goes with
//!   the weight it belongs to.
//! - Every other field merges three-way ([`value`]): a change on one side wins, lists keep both
//!   sides' additions; a field both sides changed differently is a conflict: ours stays in place,
//!   and the three versions go into the entry's `merge_conflict` field for a person to settle.
//! - New entries from both sides are kept (ours in their order, then theirs'). An entry one side
//!   removed stays removed when the other side changed at most its counters (a removal is a
//!   decision: `rm`, retirement, decay, maintain's merge); when the other side changed what it
//!   says, it is kept and the report says so.
//! - Unknown fields survive (they merge like any field); entries car cannot use are kept verbatim
//!   unless one side removed them.
//!
//! Invariants: each side is read by the store's own readers (`LessonFile::parse`,
//! `CandidateFile::parse`), so a side car cannot read is an error naming it and nothing is
//! merged; the result is rendered by the store's writers, editing ours' text minimally.

pub(crate) mod diff;
pub(crate) mod entries;
pub(crate) mod value;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::lessons::LessonsError;
use crate::lessons::store::{CandidateFile, LessonFile};
use entries::Mergeable;
use value::FieldConflict;

/// The field of a lesson or candidate (or of the file) that holds the versions of a conflict.
pub(crate) const CONFLICT_FIELD: &str = "merge_conflict";

/// Which of car's library files the three versions are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Library {
    /// `lessons.json` or `retired-lessons.json` (the same format).
    Lessons,
    /// `lesson_candidates.json`.
    Candidates,
}

impl Library {
    /// A candidate pool when any side has a `candidates` array and none a `lessons` one; else
    /// lessons (an empty or `{}` side says nothing).
    pub(crate) fn of(texts: [&str; 3]) -> Library {
        /// The top-level keys that tell the files apart; their values are skipped, not built.
        #[derive(serde::Deserialize)]
        struct Keys {
            lessons: Option<serde::de::IgnoredAny>,
            candidates: Option<serde::de::IgnoredAny>,
        }
        let keys: Vec<Keys> = texts
            .iter()
            .filter_map(|text| serde_json::from_str(text.trim_start_matches('\u{feff}')).ok())
            .collect();
        let has_candidates = keys.iter().any(|keys| keys.candidates.is_some());
        let has_lessons = keys.iter().any(|keys| keys.lessons.is_some());
        if has_candidates && !has_lessons {
            Library::Candidates
        } else {
            Library::Lessons
        }
    }

    /// What one entry of the file is called.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Library::Lessons => "lesson",
            Library::Candidates => "candidate",
        }
    }
}

/// One version of the file: where it is (for messages) and its text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side<'a> {
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
}

/// What a merge did besides its result.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct MergeReport {
    /// Entries (or the file's own fields, `entry: None`) that both sides changed differently.
    pub(crate) conflicts: Vec<EntryConflict>,
    /// Entries one side removed and the other changed: kept.
    pub(crate) kept_changed: Vec<String>,
    /// New entries from each side.
    pub(crate) added_ours: usize,
    pub(crate) added_theirs: usize,
    /// Entries one side removed that stay removed.
    pub(crate) removed: usize,
}

/// The fields of one entry both branches changed differently.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EntryConflict {
    /// The lesson's id or the candidate's trigger; `None` for the file's own fields.
    pub(crate) entry: Option<String>,
    pub(crate) fields: Vec<String>,
}

/// Merges three versions of a library file: the merged text and what happened.
pub(crate) fn merge(
    library: Library,
    base: Side<'_>,
    ours: Side<'_>,
    theirs: Side<'_>,
) -> Result<(String, MergeReport), LessonsError> {
    let mut report = MergeReport::default();
    let text = match library {
        Library::Lessons => {
            let [base, ours_file, theirs] =
                [base, ours, theirs].map(|side| LessonFile::parse(side.path, side.text));
            let (base, mut merged, theirs) = (base?, ours_file?, theirs?);
            merged.entries =
                merge_entries(&base.entries, &merged.entries, &theirs.entries, &mut report)?;
            merged.extra =
                merge_file_fields(&base.extra, &merged.extra, &theirs.extra, &mut report);
            merged.original = Some(ours.text.to_string());
            merged.text()
        }
        Library::Candidates => {
            let [base, ours_file, theirs] =
                [base, ours, theirs].map(|side| CandidateFile::parse(side.path, side.text));
            let (base, mut merged, theirs) = (base?, ours_file?, theirs?);
            merged.candidates = merge_entries(
                &base.candidates,
                &merged.candidates,
                &theirs.candidates,
                &mut report,
            )?;
            merged.unreadable =
                value::merge_lists(&base.unreadable, &merged.unreadable, &theirs.unreadable);
            merged.extra =
                merge_file_fields(&base.extra, &merged.extra, &theirs.extra, &mut report);
            merged.render()
        }
    };
    Ok((text, report))
}

/// Pairs and merges the entries of the three versions (see the module's rules).
fn merge_entries<E: Mergeable>(
    base: &[E],
    ours: &[E],
    theirs: &[E],
    report: &mut MergeReport,
) -> Result<Vec<E>, LessonsError> {
    let base_index = Index::of(base);
    let theirs_index = Index::of(theirs);
    let mut paired = vec![false; theirs.len()];
    let mut merged = Vec::with_capacity(ours.len() + theirs.len());
    for o in ours {
        let t = theirs_index.find(o, &paired);
        if let Some(position) = t {
            paired[position] = true;
        }
        let t = t.map(|position| &theirs[position]);
        let b = base_index
            .find(o, &[])
            .or_else(|| t.and_then(|t| base_index.find(t, &[])))
            .map(|position| &base[position]);
        match (b, t) {
            (b, Some(t)) => {
                let mut conflicts = Vec::new();
                merged.push(E::combine(b, o, t, &mut conflicts)?);
                if !conflicts.is_empty() {
                    report.conflicts.push(EntryConflict {
                        entry: Some(o.name()),
                        fields: conflicts.into_iter().map(|c| c.field).collect(),
                    });
                }
            }
            (Some(b), None) => keep_unless_removed(b, o, &mut merged, report),
            (None, None) => {
                report.added_ours += 1;
                merged.push(o.clone());
            }
        }
    }
    for (position, t) in theirs.iter().enumerate() {
        if paired[position] {
            continue;
        }
        match base_index.find(t, &[]) {
            Some(b) => keep_unless_removed(&base[b], t, &mut merged, report),
            None => {
                report.added_theirs += 1;
                merged.push(t.clone());
            }
        }
    }
    Ok(merged)
}

/// An entry the other side removed: it stays removed unless `survivor` changed what it says.
fn keep_unless_removed<E: Mergeable>(
    base: &E,
    survivor: &E,
    merged: &mut Vec<E>,
    report: &mut MergeReport,
) {
    if survivor.content() == base.content() {
        report.removed += 1;
    } else {
        report.kept_changed.push(survivor.name());
        merged.push(survivor.clone());
    }
}

/// The file's own top-level fields, merged; a conflict goes into the file's `merge_conflict`.
fn merge_file_fields(
    base: &Map<String, Value>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    report: &mut MergeReport,
) -> Map<String, Value> {
    let mut conflicts = Vec::new();
    let mut merged = value::merge_maps("", base, ours, theirs, &mut conflicts);
    if !conflicts.is_empty() {
        report.conflicts.push(EntryConflict {
            entry: None,
            fields: conflicts.iter().map(|c| c.field.clone()).collect(),
        });
        record_conflicts(&mut merged, conflicts);
    }
    merged
}

/// Puts the versions of each conflicting field under [`CONFLICT_FIELD`] (added to any there).
pub(crate) fn record_conflicts(fields: &mut Map<String, Value>, conflicts: Vec<FieldConflict>) {
    if conflicts.is_empty() {
        return;
    }
    let mut record = match fields.remove(CONFLICT_FIELD) {
        Some(Value::Object(record)) => record,
        _ => Map::new(),
    };
    for conflict in conflicts {
        record.insert(conflict.field.clone(), conflict.versions());
    }
    fields.insert(CONFLICT_FIELD.into(), Value::Object(record));
}

/// Where each entry of one version is, by id and by key.
struct Index {
    by_id: HashMap<String, usize>,
    by_key: HashMap<String, usize>,
}

impl Index {
    fn of<E: Mergeable>(entries: &[E]) -> Index {
        let mut index = Index {
            by_id: HashMap::with_capacity(entries.len()),
            by_key: HashMap::with_capacity(entries.len()),
        };
        for (position, entry) in entries.iter().enumerate() {
            if let Some(id) = entry.id() {
                index.by_id.entry(id.to_string()).or_insert(position);
            }
            index.by_key.entry(entry.key()).or_insert(position);
        }
        index
    }

    /// The position of `entry`'s counterpart (by id, then by key), skipping those `taken`.
    fn find<E: Mergeable>(&self, entry: &E, taken: &[bool]) -> Option<usize> {
        let free = |position: &usize| !taken.get(*position).copied().unwrap_or(false);
        entry
            .id()
            .and_then(|id| self.by_id.get(id))
            .copied()
            .filter(free)
            .or_else(|| self.by_key.get(&entry.key()).copied().filter(free))
    }
}

#[cfg(test)]
mod tests;
