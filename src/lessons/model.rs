//! The lesson and candidate files as stored (the seed format) and the validated [`Lesson`] the
//! engine works with.
//!
//! Invariants: raw serde types mirror the files exactly and keep every unknown field (`extra`, in
//! file order) so a rewrite loses nothing; a lesson is converted once into a [`Lesson`] with
//! parsed triggers and a compiled scope. An entry that cannot be converted is kept verbatim as an
//! [`Entry::Invalid`] and written back unchanged, so a bad trigger never costs the other lessons.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use sha2::Digest;

use crate::lessons::trigger::{Trigger, TriggerError};
use crate::scope::Scope;

/// The highest weight a lesson reaches.
pub(crate) const MAX_WEIGHT: u32 = 10;
/// Weight of a lesson promoted from a candidate, and of `car lessons add` by default.
pub(crate) const PROMOTED_WEIGHT: u32 = 2;
/// Field marking a candidate or lesson whose fix is not known yet (learning sets it, the index
/// lists the files it names).
pub(crate) const PENDING_FIX: &str = "pending_fix";

/// `lessons.json` as stored: `{"lessons": [...], …}`; `{}` is an empty file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct RawLessonFile {
    #[serde(default)]
    pub(crate) lessons: Vec<Value>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

/// One lesson as stored. Numbers are read leniently (the Python tool wrote floats sometimes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RawLesson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) scope: String,
    #[serde(default)]
    pub triggers: Vec<String>,
    #[serde(default)]
    pub(crate) lesson: String,
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) weight: Option<u64>,
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) hits: Option<u64>,
    #[serde(
        default,
        deserialize_with = "lenient_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) last_hit: Option<i64>,
    #[serde(
        default,
        deserialize_with = "lenient_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) last_decay_at: Option<i64>,
    /// Warnings the agent acted on ([`crate::lessons::counters::outcome`]).
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) heeded: Option<u64>,
    /// Warnings whose line survived a clean review.
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) ignored: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) created: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) examples: Option<Examples>,
    /// Triggers that silence the lesson when they match the file above the hit (`set -e` makes
    /// the `cd dir || exit 1` lesson moot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unless: Vec<String>,
    /// Literal triggers match whole identifiers only (see [`Matching`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) whole_identifiers: bool,
    /// Triggers match code only, never comments or the text of string literals.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) code_only: bool,
    /// A lesson learned from a checker's error fires only where the edit's checker reports this
    /// subject again (a module installed there, a name defined there, is no mistake there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error_subject: Option<String>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// Where a lesson's triggers may match. The seed's semantics (both false, what a file without
/// the fields means) is a plain substring anywhere in the added text; learned lessons and
/// `car lessons add` (unless asked otherwise) match as a person reads code: `shell=True` is no
/// repeat inside `use_shell=True` or in a docstring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Matching {
    /// A literal trigger that starts (ends) with an identifier character does not match where
    /// the text goes on with one before (after) it. Regex triggers say their own boundaries.
    pub(crate) whole_identifiers: bool,
    /// A match wholly inside a comment or a string literal's text does not count
    /// (`validate::prose`).
    pub(crate) code_only: bool,
}

impl Matching {
    /// What every learned lesson gets.
    pub(crate) const CODE: Matching = Matching {
        whole_identifiers: true,
        code_only: true,
    };

    /// The seed's plain substring semantics.
    pub(crate) fn is_substring(self) -> bool {
        self == Matching::default()
    }
}

/// Texts a lesson must and must not fire on (`car lessons test`, distill validation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Examples {
    #[serde(default, rename = "match")]
    pub(crate) should_match: Vec<String>,
    #[serde(default, rename = "no_match")]
    pub(crate) should_not_match: Vec<String>,
}

/// `lesson_candidates.json`: `{"candidates": [...]}`; `{}` is an empty pool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct RawCandidateFile {
    #[serde(default)]
    pub(crate) candidates: Vec<Value>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

/// An error seen once: `{"scope", "trigger", "lesson", "hits", "last_hit", "created", …}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Candidate {
    #[serde(default)]
    pub(crate) scope: String,
    #[serde(default)]
    pub(crate) trigger: String,
    #[serde(default)]
    pub(crate) lesson: String,
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) hits: Option<u64>,
    #[serde(
        default,
        deserialize_with = "lenient_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) last_hit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) created: Option<String>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

/// A validated lesson: parsed triggers, compiled scope, numbers with defaults applied.
#[derive(Debug, Clone)]
pub struct Lesson {
    pub(crate) id: String,
    pub(crate) scope: Scope,
    pub triggers: Vec<Trigger>,
    pub(crate) text: String,
    pub(crate) weight: u32,
    pub(crate) hits: u64,
    pub(crate) last_hit: Option<i64>,
    pub(crate) last_decay_at: Option<i64>,
    /// Warnings heeded and ignored ([`crate::lessons::counters::outcome`]).
    pub(crate) heeded: u64,
    pub(crate) ignored: u64,
    pub(crate) created: Option<String>,
    pub(crate) examples: Option<Examples>,
    /// A hit is dropped when one of these matches the file's lines above it.
    pub(crate) unless: Vec<Trigger>,
    pub(crate) matching: Matching,
    /// See [`RawLesson::error_subject`].
    pub(crate) error_subject: Option<String>,
    /// Whether `hits` was stored (a seed file may omit it; keep it omitted until it changes).
    pub(crate) has_stored_hits: bool,
    pub(crate) extra: Map<String, Value>,
}

/// One element of the `lessons` array.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // almost every entry is valid; boxing would cost an allocation each
pub(crate) enum Entry {
    Valid(Lesson),
    /// Kept verbatim and written back unchanged; `problem` says why it is not used.
    Invalid {
        raw: Value,
        problem: String,
    },
}

/// Why one stored lesson cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LessonProblem {
    #[error("not a lesson object: {0}")]
    Shape(String),
    #[error("has no triggers")]
    NoTriggers,
    #[error(transparent)]
    Trigger(#[from] TriggerError),
    #[error("scope {scope:?}: {source}")]
    Scope {
        scope: String,
        source: globset::Error,
    },
}

impl Lesson {
    /// Converts a stored lesson; triggers are parsed (regexes compile lazily, see `trigger`).
    pub(crate) fn from_raw(raw: RawLesson) -> Result<Lesson, LessonProblem> {
        if raw.triggers.is_empty() {
            return Err(LessonProblem::NoTriggers);
        }
        let triggers = raw
            .triggers
            .iter()
            .map(|text| Trigger::parse(text))
            .collect::<Result<Vec<_>, _>>()?;
        let unless = raw
            .unless
            .iter()
            .map(|text| Trigger::parse(text))
            .collect::<Result<Vec<_>, _>>()?;
        let scope = Scope::parse(&raw.scope).map_err(|source| LessonProblem::Scope {
            scope: raw.scope.clone(),
            source,
        })?;
        let id = raw
            .id
            .clone()
            .filter(|id| !id.trim().is_empty())
            .unwrap_or_else(|| lesson_id(&raw.scope, &raw.triggers));
        Ok(Lesson {
            has_stored_hits: raw.hits.is_some(),
            id,
            scope,
            triggers,
            text: raw.lesson,
            weight: raw.weight.unwrap_or(1).min(u64::from(MAX_WEIGHT)) as u32,
            hits: raw.hits.unwrap_or(0),
            last_hit: raw.last_hit,
            last_decay_at: raw.last_decay_at,
            heeded: raw.heeded.unwrap_or(0),
            ignored: raw.ignored.unwrap_or(0),
            created: raw.created,
            examples: raw.examples,
            unless,
            matching: Matching {
                whole_identifiers: raw.whole_identifiers,
                code_only: raw.code_only,
            },
            error_subject: raw.error_subject,
            extra: raw.extra,
        })
    }

    /// Converts a JSON element of the `lessons` array.
    pub(crate) fn from_value(value: &Value) -> Result<Lesson, LessonProblem> {
        let raw = RawLesson::deserialize(value)
            .map_err(|error| LessonProblem::Shape(error.to_string()))?;
        Lesson::from_raw(raw)
    }

    /// The stored form. car always writes the `id` so references stay stable.
    pub(crate) fn to_raw(&self) -> RawLesson {
        RawLesson {
            id: Some(self.id.clone()),
            scope: self.scope.as_str().to_string(),
            triggers: self.trigger_texts(),
            lesson: self.text.clone(),
            weight: Some(u64::from(self.weight)),
            hits: (self.has_stored_hits || self.hits > 0).then_some(self.hits),
            last_hit: self.last_hit,
            last_decay_at: self.last_decay_at,
            heeded: (self.heeded > 0).then_some(self.heeded),
            ignored: (self.ignored > 0).then_some(self.ignored),
            created: self.created.clone(),
            examples: self.examples.clone(),
            unless: self.unless.iter().map(|t| t.as_str().to_string()).collect(),
            whole_identifiers: self.matching.whole_identifiers,
            code_only: self.matching.code_only,
            error_subject: self.error_subject.clone(),
            extra: self.extra.clone(),
        }
    }

    /// The triggers as written in the file.
    pub(crate) fn trigger_texts(&self) -> Vec<String> {
        self.triggers
            .iter()
            .map(|t| t.as_str().to_string())
            .collect()
    }

    /// Whether an `unless` trigger matches the lines of `content` above 1-based `line` (the
    /// context that makes the lesson moot: `set -euo pipefail` before a bare `cd`).
    pub(crate) fn is_silenced(&self, content: &str, line: usize) -> bool {
        if self.unless.is_empty() {
            return false;
        }
        let above: Vec<&str> = content.split('\n').take(line.saturating_sub(1)).collect();
        let above = above.join("\n");
        self.unless.iter().any(|trigger| trigger.is_match(&above))
    }

    /// Records one hit: weight +1 (max 10), hits +1, last_hit = now, clears last_decay_at.
    pub(crate) fn record_hit(&mut self, now: i64) {
        self.weight = (self.weight + 1).min(MAX_WEIGHT);
        self.hits += 1;
        self.last_hit = Some(now);
        self.last_decay_at = None;
    }

    /// Same scope and the same set of triggers (a duplicate for `add` and `import`).
    pub(crate) fn is_duplicate_of(&self, scope: &str, triggers: &[String]) -> bool {
        self.duplicate_key() == duplicate_key(scope, triggers.to_vec())
    }

    /// What makes two lessons duplicates: the scope and the set of triggers (a key to look up).
    pub(crate) fn duplicate_key(&self) -> (String, Vec<String>) {
        duplicate_key(self.scope.as_str(), self.trigger_texts())
    }
}

fn duplicate_key(scope: &str, mut triggers: Vec<String>) -> (String, Vec<String>) {
    triggers.sort();
    triggers.dedup();
    (scope.to_string(), triggers)
}

/// A stable short id: the first 10 hex digits of SHA-256 over scope and sorted triggers.
pub(crate) fn lesson_id(scope: &str, triggers: &[String]) -> String {
    let mut sorted: Vec<&String> = triggers.iter().collect();
    sorted.sort();
    sorted.dedup();
    let mut hasher = sha2::Sha256::new();
    hasher.update(scope.as_bytes());
    for trigger in sorted {
        hasher.update([0u8]);
        hasher.update(trigger.as_bytes());
    }
    let digest = hasher.finalize();
    digest
        .iter()
        .take(5)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

impl Candidate {
    pub(crate) fn hits(&self) -> u64 {
        self.hits.unwrap_or(0)
    }

    /// The last time this error was seen: `last_hit`, else the `created` date.
    pub(crate) fn last_seen(&self) -> Option<i64> {
        self.last_hit
            .or_else(|| self.created.as_deref().and_then(crate::clock::parse_date))
    }
}

fn lenient_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Ok(lenient_i64(deserializer)?.map(|value| value.max(0) as u64))
}

/// Accepts integers, floats and numeric strings; `null` is absent.
fn lenient_i64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let value = Option::<Value>::deserialize(deserializer)?;
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => number
            .as_i64()
            .or_else(|| number.as_f64().map(|float| float as i64))
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("{number} is not a number car uses"))),
        Some(Value::String(text)) => text
            .trim()
            .parse::<f64>()
            .map(|float| Some(float as i64))
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a number"))),
        Some(other) => Err(serde::de::Error::custom(format!("{other} is not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seed_lesson_round_trips_with_unknown_fields_in_order() {
        let value = json!({"scope": "*.swift", "triggers": ["DankeTheme.secondaryText"],
            "lesson": "use textSecondary", "weight": 3, "hits": 2, "last_hit": 1779300000,
            "zeta": 1, "alpha": {"x": [1]}, "created": "2026-05-21"});
        let lesson = Lesson::from_value(&value).unwrap();
        assert_eq!(lesson.weight, 3);
        assert_eq!(
            lesson.id,
            lesson_id("*.swift", &["DankeTheme.secondaryText".into()])
        );
        let written = serde_json::to_value(lesson.to_raw()).unwrap();
        let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
        let zeta = keys.iter().position(|k| *k == "zeta").unwrap();
        let alpha = keys.iter().position(|k| *k == "alpha").unwrap();
        assert!(zeta < alpha);
        assert_eq!(written["alpha"], json!({"x": [1]}));
        assert_eq!(written["last_hit"], json!(1779300000));
    }

    #[test]
    fn ids_ignore_trigger_order_and_differ_by_scope() {
        let a = lesson_id("*.py", &["x1".into(), "y2".into()]);
        assert_eq!(a, lesson_id("*.py", &["y2".into(), "x1".into()]));
        assert_ne!(a, lesson_id("*.rs", &["x1".into(), "y2".into()]));
        assert_eq!(a.len(), 10);
    }

    #[test]
    fn hits_cap_weight_and_clear_decay() {
        let mut lesson = Lesson::from_value(&json!({"scope": "*", "triggers": ["abcd"],
            "lesson": "l", "weight": 10, "last_decay_at": 5}))
        .unwrap();
        lesson.record_hit(100);
        assert_eq!(
            (lesson.weight, lesson.hits, lesson.last_hit),
            (10, 1, Some(100))
        );
        assert_eq!(lesson.last_decay_at, None);
    }

    #[test]
    fn lenient_numbers() {
        let lesson = Lesson::from_value(&json!({"scope": "*.py", "triggers": ["abcd"],
            "lesson": "l", "weight": 2.0, "last_hit": "1779300000"}))
        .unwrap();
        assert_eq!((lesson.weight, lesson.last_hit), (2, Some(1_779_300_000)));
        assert!(Lesson::from_value(&json!({"scope": "*", "triggers": []})).is_err());
        assert!(Lesson::from_value(&json!({"triggers": "abcd"})).is_err());
    }
}
