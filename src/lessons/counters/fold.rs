//! Folding the hit log into `lessons.json` in place: only the lessons that were hit are parsed and
//! re-rendered, the rest of the text is copied as it is.
//!
//! Why: the general rewrite (`library::with_lessons`) parses every lesson and compares the whole
//! document to keep the file's formatting; at 10,000 lessons that is most of SessionEnd's time.
//! A fold changes a few lessons' counters and nothing else.
//!
//! Invariants: the result is what the general rewrite gives for the same hits (unit-tested): the
//! hit lessons as `Lesson::to_value` renders them, edited minimally within their own text
//! (`json_edit`), everything else byte for byte. It applies only when every lesson carries its
//! own distinct `id` (as every file car wrote does): an id computed from scope and triggers
//! depends on the whole file, so a file without stored ids takes the general rewrite once, which
//! stores them.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::lessons::counters::hits::{self, Hit};
use crate::lessons::model::Lesson;

/// The lessons array of a lessons file, each lesson as its text; other fields skipped.
#[derive(Deserialize)]
struct Outline<'a> {
    #[serde(borrow, default)]
    lessons: Vec<&'a RawValue>,
}

/// A lesson's stored id, the other fields skipped.
#[derive(Deserialize)]
struct StoredId {
    #[serde(default)]
    id: Option<String>,
}

/// The file's text with `pending` applied, and the lessons that changed (their new values);
/// `None` when the in-place fold does not apply (see the module invariants).
pub(crate) fn fold_text(text: &str, pending: &[Hit]) -> Option<(String, Vec<Lesson>)> {
    let outline: Outline<'_> = serde_json::from_str(text).ok()?;
    let mut positions: HashMap<String, usize> = HashMap::with_capacity(outline.lessons.len());
    for (position, raw) in outline.lessons.iter().enumerate() {
        let id = serde_json::from_str::<StoredId>(raw.get()).ok()?.id?;
        if id.trim().is_empty() || positions.insert(id, position).is_some() {
            return None;
        }
    }
    // Hits of lessons no longer in the file are dropped, as the general rewrite drops them.
    let hit: BTreeMap<usize, &str> = pending
        .iter()
        .filter_map(|hit| Some((*positions.get(&hit.id)?, hit.id.as_str())))
        .collect();
    let mut out = String::with_capacity(text.len() + 64 * hit.len());
    let mut copied = 0;
    let mut changed = Vec::with_capacity(hit.len());
    for position in hit.keys() {
        let raw = outline.lessons[*position].get();
        let value: Value = serde_json::from_str(raw).ok()?;
        let mut lesson = Lesson::from_value(&value).ok()?;
        hits::apply(std::iter::once(&mut lesson), pending);
        if lesson.is_retired() {
            // A retired lesson leaves the file: the general rewrite moves it.
            return None;
        }
        let start = raw.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + raw.len();
        // With the indentation of its line, so what the edit inserts lines up with the rest.
        let line_start = text[..start].rfind('\n').map_or(0, |index| index + 1);
        let from = if text[line_start..start].trim().is_empty() {
            line_start
        } else {
            start
        };
        out.push_str(&text[copied..from]);
        out.push_str(&crate::json_edit::rewrite_text(
            Some(&text[from..end]),
            &serde_json::to_value(lesson.to_raw()).ok()?,
        ));
        copied = end;
        changed.push(lesson);
    }
    out.push_str(&text[copied..]);
    Some((out, changed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::store::LessonFile;
    use std::path::Path;

    fn hit(id: &str, at: i64) -> Hit {
        Hit::new(id, at, crate::lessons::counters::outcome::Outcome::Heeded)
    }

    /// What the general rewrite writes for the same hits.
    fn general(text: &str, pending: &[Hit]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        std::fs::write(&path, text).unwrap();
        let mut file = LessonFile::load(&path).unwrap();
        hits::apply(file.lessons_mut(), pending);
        file.save().unwrap();
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn the_in_place_fold_writes_what_the_general_rewrite_writes() {
        let pretty = r#"{
  "lessons": [
    {
      "id": "a1",
      "scope": "*.py",
      "triggers": ["import os.path"],
      "lesson": "pathlib",
      "weight": 3,
      "last_decay_at": 5,
      "team": {"keep": true}
    },
    {
      "id": "b2",
      "scope": "*.ts",
      "triggers": ["moment("],
      "lesson": "date-fns",
      "weight": 10,
      "hits": 7,
      "last_hit": 100
    },
    {"id": "c3", "scope": "*", "triggers": ["abcd"], "lesson": "untouched", "weight": 2}
  ],
  "version": 3
}
"#;
        let compact = r#"{"lessons":[{"id":"a1","scope":"*.py","triggers":["import os.path"],"lesson":"pathlib","weight":3},{"id":"b2","scope":"*.ts","triggers":["moment("],"lesson":"date-fns","weight":1,"hits":0}]}"#;
        let pending = [
            hit("a1", 200),
            hit("gone", 250),
            hit("b2", 300),
            hit("a1", 400),
        ];
        for text in [pretty, compact] {
            let (folded, changed) = fold_text(text, &pending).unwrap();
            assert_eq!(folded, general(text, &pending));
            assert_eq!(changed.len(), 2);
            let value: Value = serde_json::from_str(&folded).unwrap();
            assert_eq!(value["lessons"][0]["hits"], 2);
            assert_eq!(value["lessons"][0]["last_hit"], 400);
            assert!(value["lessons"][0].get("last_decay_at").is_none());
        }
        // A lesson no hit touched stays byte for byte, even where car would write it otherwise.
        let float = pretty.replace(r#""weight": 2}"#, r#""weight": 2.0}"#);
        let (folded, _) = fold_text(&float, &pending).unwrap();
        assert!(folded.contains(r#""lesson": "untouched", "weight": 2.0}"#));
    }

    #[test]
    fn files_without_stored_or_distinct_ids_take_the_general_rewrite() {
        let pending = [hit("a1", 1)];
        let without = r#"{"lessons": [{"scope": "*", "triggers": ["abcd"], "lesson": "x"}]}"#;
        assert!(fold_text(without, &pending).is_none());
        let twice = r#"{"lessons": [{"id": "a1", "scope": "*", "triggers": ["abcd"], "lesson": "x"},
            {"id": "a1", "scope": "*", "triggers": ["efgh"], "lesson": "y"}]}"#;
        assert!(fold_text(twice, &pending).is_none());
        assert!(fold_text("{\"lessons\": [,]}", &pending).is_none());
        let parsed = LessonFile::parse(Path::new("l.json"), without).unwrap();
        assert_eq!(parsed.lessons().count(), 1);
    }
}
