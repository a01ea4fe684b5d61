use std::path::Path;

use proptest::prelude::*;

use serde_json::json;

use super::*;

fn file_of(lessons: serde_json::Value) -> LessonFile {
    LessonFile::parse(
        Path::new("l.json"),
        &json!({ "lessons": lessons }).to_string(),
    )
    .unwrap()
}

const T0: i64 = 1_780_000_000;

#[test]
fn decays_once_per_window_then_removes() {
    let mut file = file_of(json!([
        {"scope": "*.py", "triggers": ["aaaa"], "lesson": "a", "weight": 2, "last_hit": T0},
        {"scope": "*.py", "triggers": ["bbbb"], "lesson": "b", "weight": 2, "last_hit": T0 + 80 * DAY}
    ]));
    let mut report = Report::default();
    decay_and_remove(&mut file, T0 + 91 * DAY, &mut report);
    assert_eq!(report.decayed.len(), 1);
    let weights: Vec<u32> = file.lessons().map(|l| l.weight).collect();
    assert_eq!(weights, vec![1, 2]);
    let mut again = Report::default();
    decay_and_remove(&mut file, T0 + 100 * DAY, &mut again);
    assert!(again.is_empty(), "same window: {again:?}");
    decay_and_remove(&mut file, T0 + 182 * DAY, &mut again);
    assert_eq!(again.removed.len(), 1);
    assert_eq!(again.removed[0].lesson, "a");
    let summary = again.summary();
    assert!(
        summary.starts_with("2 decayed, 1 removed (decayed "),
        "{summary}"
    );
    assert!(summary.ends_with("(weight 0): a)"), "{summary}");
}

#[test]
fn merges_same_scope_with_two_shared_triggers() {
    let mut file = file_of(json!([
        {"scope": "*.swift", "triggers": ["Theme.a1", "Theme.b2"], "lesson": "Use textPrimary.", "weight": 3, "hits": 2},
        {"scope": "*.swift", "triggers": ["Theme.b2", "Theme.a1", "Theme.c3"], "lesson": "grep first", "weight": 5, "hits": 4},
        {"scope": "*.py", "triggers": ["Theme.a1", "Theme.b2"], "lesson": "other scope", "weight": 1},
        {"scope": "*.swift", "triggers": ["Theme.a1", "Theme.zz"], "lesson": "one shared", "weight": 1}
    ]));
    let mut report = Report::default();
    merge(&mut file, &mut report);
    let lessons: Vec<&Lesson> = file.lessons().collect();
    assert_eq!(lessons.len(), 3);
    assert_eq!(
        lessons[0].trigger_texts(),
        vec!["Theme.a1", "Theme.b2", "Theme.c3"]
    );
    assert_eq!((lessons[0].weight, lessons[0].hits), (5, 6));
    assert_eq!(lessons[0].text, "Use textPrimary. grep first");
    assert_eq!(report.merged.len(), 1);
    assert_eq!(join_texts("same", "same"), "same");
}

#[test]
fn candidates_expire_after_30_days() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(
        &path,
        json!({"candidates": [
            {"scope": "*.py", "trigger": "old1", "lesson": "x", "hits": 1, "last_hit": T0},
            {"scope": "*.py", "trigger": "new1", "lesson": "y", "hits": 1, "last_hit": T0 + 20 * DAY}
        ]})
        .to_string(),
    )
    .unwrap();
    let mut pool = CandidateFile::load(&path).unwrap();
    let mut report = Report::default();
    expire_candidates(&mut pool, T0 + 31 * DAY, &mut report);
    assert_eq!(pool.candidates.len(), 1);
    assert_eq!(report.expired[0].trigger, "old1");
}

/// The pairwise merge the indexed one replaced: for each lesson, the first earlier lesson of the
/// same scope sharing two triggers absorbs it, and the scan resumes right after that lesson.
fn naive_merge(file: &mut LessonFile, report: &mut Report) {
    let overlaps = |a: &Lesson, b: &Lesson| {
        let theirs = b.trigger_texts();
        a.scope.as_str() == b.scope.as_str()
            && a.trigger_texts()
                .iter()
                .filter(|trigger| theirs.contains(trigger))
                .count()
                >= 2
    };
    let mut index = 0;
    while index < file.entries.len() {
        let target = match &file.entries[index] {
            Entry::Valid(lesson) => (0..index).find(|earlier| {
                matches!(&file.entries[*earlier], Entry::Valid(other) if overlaps(other, lesson))
            }),
            Entry::Invalid { .. } => None,
        };
        let Some(target) = target else {
            index += 1;
            continue;
        };
        let Entry::Valid(absorbed) = file.entries.remove(index) else {
            continue;
        };
        if let Entry::Valid(kept) = &mut file.entries[target] {
            absorb(kept, &absorbed);
            record_merge(report, kept, &absorbed.id);
        }
        index = target + 1;
    }
}

fn library_strategy() -> impl Strategy<Value = serde_json::Value> {
    let lesson = (
        prop::sample::select(vec!["*.py", "*.ts"]),
        prop::collection::vec(prop::sample::select(vec!["aaaa", "bbbb", "cccc", "dddd", "eeee"]), 1..4),
        0u32..10,
    )
        .prop_map(|(scope, triggers, n)| {
            json!({"scope": scope, "triggers": triggers, "lesson": format!("l{n}"), "weight": n % 5 + 1, "hits": n})
        });
    prop::collection::vec(lesson, 0..12).prop_map(serde_json::Value::Array)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn indexed_merge_agrees_with_pairwise_merge(lessons in library_strategy()) {
        let mut indexed = file_of(lessons.clone());
        let mut naive = file_of(lessons);
        let (mut indexed_report, mut naive_report) = (Report::default(), Report::default());
        merge(&mut indexed, &mut indexed_report);
        naive_merge(&mut naive, &mut naive_report);
        prop_assert_eq!(indexed.render(), naive.render());
        prop_assert_eq!(indexed_report.lines(), naive_report.lines());
    }
}
