use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::edit::AddedLine;
use crate::lessons::matcher::naive_hits;

fn write_lessons(dir: &Path, lessons: &[(String, Vec<String>)]) -> PathBuf {
    let list: Vec<Value> = lessons
        .iter()
        .map(|(scope, triggers)| json!({"scope": scope, "triggers": triggers, "lesson": "l"}))
        .collect();
    let path = dir.join("lessons.json");
    std::fs::write(&path, json!({ "lessons": list }).to_string()).unwrap();
    path
}

fn fired_ids(lessons: &[&Lesson], text: &str) -> Vec<(String, usize, usize)> {
    let added: Vec<AddedLine> = text
        .split('\n')
        .enumerate()
        .map(|(index, line)| AddedLine {
            line: index + 1,
            text: line.to_string(),
        })
        .collect();
    let mut ids: Vec<(String, usize, usize)> = naive_hits(lessons, "src/a.py", &added)
        .into_iter()
        .map(|hit| (lessons[hit.lesson].id.clone(), hit.trigger, hit.line))
        .collect();
    ids.sort();
    ids
}

fn check_agreement(lessons: &[(String, Vec<String>)], text: &str) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_lessons(dir.path(), lessons);
    let full = LessonFile::load(&path).unwrap();
    let all: Vec<&Lesson> = full.lessons().collect();
    // First call builds the index, the second reads it.
    let built = shortlist(&path, text).unwrap();
    prop_assert!(index_path(&path).exists());
    let read = shortlist(&path, text).unwrap();
    for list in [&built, &read] {
        let subset: Vec<&Lesson> = list.lessons.iter().collect();
        prop_assert_eq!(fired_ids(&subset, text), fired_ids(&all, text));
    }
    Ok(())
}

#[test]
fn stale_or_damaged_index_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let lessons = vec![("*.py".to_string(), vec!["os.path.join".to_string()])];
    let path = write_lessons(dir.path(), &lessons);
    assert_eq!(
        shortlist(&path, "x = os.path.join(a)")
            .unwrap()
            .lessons
            .len(),
        1
    );
    assert_eq!(shortlist(&path, "x = 1").unwrap().lessons.len(), 0);
    let stamp = Stamp::of(&path).unwrap();
    let from_index = read_shortlist(&index_path(&path), stamp, b"x = os.path.join(a)").unwrap();
    assert_eq!(from_index.lessons.len(), 1, "answered from the index");
    let other = vec![(
        "*.py".to_string(),
        vec!["pathlib.Path(".to_string(), "xyzw".to_string()],
    )];
    std::thread::sleep(std::time::Duration::from_millis(5));
    write_lessons(dir.path(), &other);
    let found = shortlist(&path, "p = pathlib.Path('a')").unwrap();
    assert_eq!(found.lessons[0].trigger_texts()[0], "pathlib.Path(");
    std::fs::write(index_path(&path), b"CARIDX03garbage").unwrap();
    assert_eq!(
        shortlist(&path, "p = pathlib.Path('a')")
            .unwrap()
            .lessons
            .len(),
        1
    );
    let mut truncated = std::fs::read(index_path(&path)).unwrap();
    truncated.truncate(truncated.len() - 3);
    std::fs::write(index_path(&path), truncated).unwrap();
    assert_eq!(
        shortlist(&path, "p = pathlib.Path('a')")
            .unwrap()
            .lessons
            .len(),
        1
    );
}

#[test]
fn short_and_unkeyed_triggers_are_always_shortlisted() {
    let lessons = vec![
        ("*".to_string(), vec!["ab".to_string()]),
        ("*".to_string(), vec![r"regex:^(a+)+$".to_string()]),
        (
            "*".to_string(),
            vec!["regex:(?i)Kelvin".to_string(), "longer_name".to_string()],
        ),
    ];
    check_agreement(&lessons, "ab\naaaa\n\u{212A}elvin").unwrap();
}

fn trigger_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::string::string_regex("[abkK_.]{1,7}").unwrap(),
        prop::string::string_regex("[abk]{3,6}")
            .unwrap()
            .prop_map(|s| format!("regex:{s}\\w*")),
        prop::string::string_regex("[abk]{2,5}")
            .unwrap()
            .prop_map(|s| format!("regex:(?i){s}.b")),
        prop::string::string_regex("[ab]{4,6}")
            .unwrap()
            .prop_map(|s| format!("regex:(?<!_)(?:{s}|bbbb)")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn index_shortlist_gives_the_same_hits_as_all_lessons(
        lessons in prop::collection::vec(
            (prop_oneof![Just("*".to_string()), Just("*.py".to_string()), Just("*.rs".to_string())],
             prop::collection::vec(trigger_strategy(), 1..3)),
            1..10),
        text in prop::string::string_regex("[abkK_. \n\u{212A}]{0,40}").unwrap(),
    ) {
        check_agreement(&lessons, &text)?;
    }
}

/// Regression: the hook told unusable entries by parsing the whole library whenever its file
/// changed, so after every fold of hits 24 parallel edits each parsed 10,000 lessons (seconds
/// instead of 0.1 s). The index records them when it is built, and a fold's patch keeps them.
#[test]
fn the_index_records_unusable_entries_and_a_patch_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lessons.json");
    let text = |hits: u32| {
        json!({"lessons": [
            {"id": "a", "scope": "*.py", "triggers": ["import os.path"], "lesson": "x", "hits": hits},
            {"id": "bad", "scope": "*.py", "lesson": "no trigger"}
        ]})
        .to_string()
    };
    std::fs::write(&path, text(1)).unwrap();
    assert_eq!(problems_of(&path), None, "no index yet");
    let previous = Stamp::of(&path).unwrap();
    refresh(&LessonFile::load(&path).unwrap());
    let problems = problems_of(&path).expect("a fresh index");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("lesson #2"), "{problems:?}");
    std::thread::sleep(std::time::Duration::from_millis(10));
    std::fs::write(&path, text(2)).unwrap();
    let file = LessonFile::load(&path).unwrap();
    let changed: Vec<&Lesson> = file.lessons().collect();
    assert!(patch(&path, previous, &changed));
    assert_eq!(problems_of(&path), Some(problems));
}
