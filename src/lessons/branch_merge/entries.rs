//! How one lesson or candidate of two branches combines: which fields are counters and how each
//! counter adds up; everything else merges three-way as stored ([`super::value`]).
//!
//! Why "summed over the base": both branches started from the base's counts, so the merged count
//! is the base plus what each branch added (`ours + theirs − base`); adding the two sides would
//! count the base twice. The weight is not a count but a level each branch moved on its own: the
//! larger one stands, and the decay stamp that goes with it.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::lessons::LessonsError;
use crate::lessons::model::{Candidate, Entry, Lesson, MAX_WEIGHT};

use super::record_conflicts;
use super::value::{self, FieldConflict};

/// A lesson's counters: combined by their own rules, never three-way.
const LESSON_COUNTERS: [&str; 6] = [
    "weight",
    "hits",
    "heeded",
    "ignored",
    "last_hit",
    "last_decay_at",
];

/// A candidate's counters.
const CANDIDATE_COUNTERS: [&str; 2] = ["hits", "last_hit"];

/// One entry of a library file, as the merge sees it.
pub(crate) trait Mergeable: Clone {
    /// The stored id, when the entry has one (pairs first).
    fn id(&self) -> Option<&str>;
    /// What else pairs two versions of an entry (a lesson's scope and sorted triggers, a
    /// candidate's scope and trigger).
    fn key(&self) -> String;
    /// The name the report gives the entry.
    fn name(&self) -> String;
    /// Every stored field but the counters: what the entry says.
    fn content(&self) -> Map<String, Value>;
    /// Ours and theirs combined over base (`None`: both added it); conflicts appended.
    fn combine(
        base: Option<&Self>,
        ours: &Self,
        theirs: &Self,
        conflicts: &mut Vec<FieldConflict>,
    ) -> Result<Self, LessonsError>;
}

/// `ours + theirs − base`, never below 0.
fn summed(base: u64, ours: u64, theirs: u64) -> u64 {
    ours.saturating_add(theirs).saturating_sub(base)
}

/// The stored fields of `value` without `counters`.
fn fields_without(
    value: Result<Value, serde_json::Error>,
    counters: &[&str],
) -> Map<String, Value> {
    let mut fields = match value {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    for counter in counters {
        fields.remove(*counter);
    }
    fields
}

/// The three-way merge of what the entries say; conflicts recorded in the result.
fn merged_content<E: Mergeable>(
    base: Option<&E>,
    ours: &E,
    theirs: &E,
    conflicts: &mut Vec<FieldConflict>,
) -> Value {
    let base = base.map(Mergeable::content).unwrap_or_default();
    let mut found = Vec::new();
    let mut fields = value::merge_maps("", &base, &ours.content(), &theirs.content(), &mut found);
    conflicts.extend(found.iter().cloned());
    record_conflicts(&mut fields, found);
    Value::Object(fields)
}

impl Mergeable for Entry {
    fn id(&self) -> Option<&str> {
        match self {
            Entry::Valid(lesson) => Some(&lesson.id),
            Entry::Invalid { .. } => None,
        }
    }

    fn key(&self) -> String {
        match self {
            // Invalid entries pair only with the very same entry.
            Entry::Invalid { raw, .. } => format!("\u{1}{raw}"),
            Entry::Valid(lesson) => {
                let (scope, triggers) = lesson.duplicate_key();
                format!("{scope}\u{0}{}", triggers.join("\u{0}"))
            }
        }
    }

    fn name(&self) -> String {
        match self {
            Entry::Valid(lesson) => lesson.id.clone(),
            Entry::Invalid { raw, .. } => raw.to_string(),
        }
    }

    fn content(&self) -> Map<String, Value> {
        match self {
            Entry::Valid(lesson) => {
                let mut fields =
                    fields_without(serde_json::to_value(lesson.to_raw()), &LESSON_COUNTERS);
                fields.remove("id");
                fields
            }
            Entry::Invalid { raw, .. } => Map::from_iter([("raw".to_string(), raw.clone())]),
        }
    }

    fn combine(
        base: Option<&Entry>,
        ours: &Entry,
        theirs: &Entry,
        conflicts: &mut Vec<FieldConflict>,
    ) -> Result<Entry, LessonsError> {
        let (Entry::Valid(o), Entry::Valid(t)) = (ours, theirs) else {
            // Paired by their very text: the same entry on both sides.
            return Ok(ours.clone());
        };
        let b = match base {
            Some(Entry::Valid(b)) => Some(b),
            _ => None,
        };
        if ours.content() == theirs.content() {
            // Most lessons say the same on both sides: only their counters move, and ours is
            // already a valid lesson (no second parse of its scope and triggers).
            let mut lesson = o.clone();
            combine_lesson_counters(b, o, t, &mut lesson);
            return Ok(Entry::Valid(lesson));
        }
        let content = merged_content(base, ours, theirs, conflicts);
        let mut lesson = Lesson::from_value(&content).map_err(|problem| {
            LessonsError::Invalid(format!(
                "lesson {}: the two branches' versions combine into a lesson car cannot use \
                 ({problem})",
                o.id
            ))
        })?;
        lesson.id = o.id.clone();
        combine_lesson_counters(b, o, t, &mut lesson);
        Ok(Entry::Valid(lesson))
    }
}

fn combine_lesson_counters(
    base: Option<&Lesson>,
    ours: &Lesson,
    theirs: &Lesson,
    merged: &mut Lesson,
) {
    let count = |get: fn(&Lesson) -> u64| summed(base.map_or(0, get), get(ours), get(theirs));
    merged.hits = count(|lesson| lesson.hits);
    merged.heeded = count(|lesson| lesson.heeded);
    merged.ignored = count(|lesson| lesson.ignored);
    merged.has_stored_hits = ours.has_stored_hits || theirs.has_stored_hits;
    merged.weight = ours.weight.max(theirs.weight).min(MAX_WEIGHT);
    merged.last_hit = ours.last_hit.max(theirs.last_hit);
    merged.last_decay_at = if ours.weight != theirs.weight {
        // The stamp of the side whose weight stands: a decay the other side's hit undid is gone.
        if ours.weight > theirs.weight {
            ours.last_decay_at
        } else {
            theirs.last_decay_at
        }
    } else if ours.last_decay_at == base.and_then(|base| base.last_decay_at) {
        theirs.last_decay_at
    } else {
        ours.last_decay_at
    };
}

impl Mergeable for Candidate {
    fn id(&self) -> Option<&str> {
        None
    }

    fn key(&self) -> String {
        format!("{}\u{0}{}", self.scope, self.trigger)
    }

    fn name(&self) -> String {
        self.trigger.clone()
    }

    fn content(&self) -> Map<String, Value> {
        fields_without(serde_json::to_value(self), &CANDIDATE_COUNTERS)
    }

    fn combine(
        base: Option<&Candidate>,
        ours: &Candidate,
        theirs: &Candidate,
        conflicts: &mut Vec<FieldConflict>,
    ) -> Result<Candidate, LessonsError> {
        let content = merged_content(base, ours, theirs, conflicts);
        let mut candidate = Candidate::deserialize(&content).map_err(|error| {
            LessonsError::Invalid(format!(
                "candidate {:?}: the two branches' versions do not combine ({error})",
                ours.trigger
            ))
        })?;
        let hits = summed(base.map_or(0, Candidate::hits), ours.hits(), theirs.hits());
        candidate.hits = (ours.hits.is_some() || theirs.hits.is_some()).then_some(hits);
        candidate.last_hit = ours.last_hit.max(theirs.last_hit);
        Ok(candidate)
    }
}
