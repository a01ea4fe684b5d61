//! What changed in a lesson library between two versions of it (`car lessons diff`): the lessons
//! learned, lost (or retired), reweighted, and those whose words changed — what a reviewer of a
//! pull request wants to see of the learned lessons it carries.
//!
//! Invariants: lessons are paired by id, then by scope and triggers (a file without stored ids);
//! a lesson that left the library and is in the retired file now is *retired*, not lost; each
//! lesson appears in at most one of learned / lost / retired, and in reweighted and changed only
//! when it is in both versions.

use std::collections::HashMap;

use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;

/// The difference between two versions of a library.
#[derive(Debug, Default)]
pub(crate) struct LibraryDiff {
    pub(crate) learned: Vec<Lesson>,
    pub(crate) lost: Vec<Lesson>,
    /// Left the library into the retired file.
    pub(crate) retired: Vec<Lesson>,
    pub(crate) reweighted: Vec<Reweighted>,
    pub(crate) changed: Vec<Changed>,
}

/// A lesson whose counters moved: each as (before, after).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reweighted {
    pub(crate) id: String,
    pub(crate) weight: (u32, u32),
    pub(crate) hits: (u64, u64),
    pub(crate) heeded: (u64, u64),
    pub(crate) ignored: (u64, u64),
}

/// A lesson whose scope, triggers or text changed: (field, before, after).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changed {
    pub(crate) id: String,
    pub(crate) fields: Vec<(&'static str, String, String)>,
}

impl LibraryDiff {
    /// From `before` to `after`; `retired` is the retired file that goes with `after`.
    pub(crate) fn between(
        before: &LessonFile,
        after: &LessonFile,
        retired: &LessonFile,
    ) -> LibraryDiff {
        let mut diff = LibraryDiff::default();
        let before_index = Pairing::of(before);
        let mut seen = vec![false; before_index.lessons.len()];
        for lesson in after.lessons() {
            let Some(position) = before_index.find(lesson) else {
                diff.learned.push(lesson.clone());
                continue;
            };
            seen[position] = true;
            let old = before_index.lessons[position];
            let counters = |l: &Lesson| (l.weight, l.hits, l.heeded, l.ignored);
            if counters(old) != counters(lesson) {
                diff.reweighted.push(Reweighted {
                    id: lesson.id.clone(),
                    weight: (old.weight, lesson.weight),
                    hits: (old.hits, lesson.hits),
                    heeded: (old.heeded, lesson.heeded),
                    ignored: (old.ignored, lesson.ignored),
                });
            }
            let fields = changed_fields(old, lesson);
            if !fields.is_empty() {
                diff.changed.push(Changed {
                    id: lesson.id.clone(),
                    fields,
                });
            }
        }
        for (position, lesson) in before_index.lessons.iter().enumerate() {
            if seen[position] {
                continue;
            }
            match retired.find(&lesson.id) {
                Some(gone) => diff.retired.push(gone.clone()),
                None => diff.lost.push((*lesson).clone()),
            }
        }
        diff
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.learned.is_empty()
            && self.lost.is_empty()
            && self.retired.is_empty()
            && self.reweighted.is_empty()
            && self.changed.is_empty()
    }
}

fn changed_fields(old: &Lesson, new: &Lesson) -> Vec<(&'static str, String, String)> {
    let mut fields = Vec::new();
    let mut compare = |name: &'static str, before: String, after: String| {
        if before != after {
            fields.push((name, before, after));
        }
    };
    compare(
        "scope",
        old.scope.as_str().to_string(),
        new.scope.as_str().to_string(),
    );
    compare(
        "triggers",
        old.trigger_texts().join(" | "),
        new.trigger_texts().join(" | "),
    );
    compare("lesson", old.text.clone(), new.text.clone());
    fields
}

/// The lessons of one version, found by id, then by scope and triggers.
struct Pairing<'a> {
    lessons: Vec<&'a Lesson>,
    by_id: HashMap<&'a str, usize>,
    by_key: HashMap<(String, Vec<String>), usize>,
}

impl<'a> Pairing<'a> {
    fn of(file: &'a LessonFile) -> Pairing<'a> {
        let lessons: Vec<&Lesson> = file.lessons().collect();
        let by_id = lessons
            .iter()
            .enumerate()
            .map(|(position, lesson)| (lesson.id.as_str(), position))
            .collect();
        let by_key = lessons
            .iter()
            .enumerate()
            .map(|(position, lesson)| (lesson.duplicate_key(), position))
            .collect();
        Pairing {
            lessons,
            by_id,
            by_key,
        }
    }

    fn find(&self, lesson: &Lesson) -> Option<usize> {
        self.by_id
            .get(lesson.id.as_str())
            .or_else(|| self.by_key.get(&lesson.duplicate_key()))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn file(text: &str) -> LessonFile {
        LessonFile::parse(Path::new("lessons.json"), text).unwrap()
    }

    #[test]
    fn learned_lost_retired_reweighted_and_changed() {
        let before = file(
            r#"{"lessons": [
            {"id": "keep", "scope": "*.py", "triggers": ["abcd1"], "lesson": "one", "weight": 2},
            {"id": "hit", "scope": "*.py", "triggers": ["abcd2"], "lesson": "two", "weight": 2},
            {"id": "gone", "scope": "*.py", "triggers": ["abcd3"], "lesson": "three"},
            {"id": "quiet", "scope": "*.py", "triggers": ["abcd4"], "lesson": "four"},
            {"scope": "*.ts", "triggers": ["abcd5"], "lesson": "five"}]}"#,
        );
        let after = file(
            r#"{"lessons": [
            {"id": "keep", "scope": "*.py", "triggers": ["abcd1"], "lesson": "one, better", "weight": 2},
            {"id": "hit", "scope": "*.py", "triggers": ["abcd2"], "lesson": "two", "weight": 3,
             "hits": 1, "heeded": 1},
            {"id": "new", "scope": "*.py", "triggers": ["abcd6"], "lesson": "six"},
            {"id": "stored-now", "scope": "*.ts", "triggers": ["abcd5"], "lesson": "five"}]}"#,
        );
        let retired = file(
            r#"{"lessons": [{"id": "quiet", "scope": "*.py", "triggers": ["abcd4"],
            "lesson": "four", "ignored": 5}]}"#,
        );
        let diff = LibraryDiff::between(&before, &after, &retired);
        let ids = |lessons: &[Lesson]| lessons.iter().map(|l| l.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&diff.learned), ["new"]);
        assert_eq!(ids(&diff.lost), ["gone"]);
        assert_eq!(ids(&diff.retired), ["quiet"]);
        assert_eq!(
            diff.reweighted,
            [Reweighted {
                id: "hit".into(),
                weight: (2, 3),
                hits: (0, 1),
                heeded: (0, 1),
                ignored: (0, 0)
            }]
        );
        assert_eq!(
            diff.changed,
            [Changed {
                id: "keep".into(),
                fields: vec![("lesson", "one".into(), "one, better".into())]
            }]
        );
        assert!(LibraryDiff::between(&after, &after, &retired).is_empty());
    }
}
