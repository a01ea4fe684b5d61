use std::path::Path;

use serde_json::{Value, json};

use super::*;

fn lesson(id: &str, trigger: &str, text: &str, weight: u32, hits: u64) -> Value {
    json!({"id": id, "scope": "*.py", "triggers": [trigger], "lesson": text,
           "weight": weight, "hits": hits})
}

fn file(lessons: &[Value]) -> String {
    serde_json::to_string_pretty(&json!({ "lessons": lessons })).unwrap()
}

fn merged(library: Library, base: &str, ours: &str, theirs: &str) -> (Value, MergeReport) {
    let side = |name: &'static str, text| Side {
        path: Path::new(name),
        text,
    };
    let (text, report) = merge(
        library,
        side("base", base),
        side("ours", ours),
        side("theirs", theirs),
    )
    .unwrap();
    (serde_json::from_str(&text).unwrap(), report)
}

fn ids(value: &Value) -> Vec<&Value> {
    value["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["id"])
        .collect()
}

fn by_id<'a>(value: &'a Value, id: &str) -> &'a Value {
    value["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|lesson| lesson["id"] == id)
        .unwrap_or_else(|| panic!("no lesson {id} in {value}"))
}

#[test]
fn counters_sum_over_the_base_and_new_lessons_of_both_sides_are_kept() {
    let base = file(&[lesson("a1", "import os.path", "use pathlib", 3, 2)]);
    let mut hit = lesson("a1", "import os.path", "use pathlib", 4, 3);
    hit["heeded"] = json!(1);
    hit["last_hit"] = json!(100);
    let ours = file(&[hit, lesson("o1", "fastjsonx", "use json", 2, 0)]);
    let mut hit = lesson("a1", "import os.path", "use pathlib", 5, 4);
    hit["heeded"] = json!(2);
    hit["last_hit"] = json!(200);
    hit["team_note"] = json!({"keep": true});
    let theirs = file(&[hit, lesson("t1", "yaml.FullLoader", "use safe_load", 2, 0)]);
    let (value, report) = merged(Library::Lessons, &base, &ours, &theirs);
    let a1 = by_id(&value, "a1");
    assert_eq!(
        (&a1["hits"], &a1["heeded"], &a1["weight"], &a1["last_hit"]),
        (&json!(5), &json!(3), &json!(5), &json!(200)),
        "hits 2 + 1 + 2, heeded 0 + 1 + 2, the larger weight and last hit"
    );
    assert_eq!(
        a1["team_note"],
        json!({"keep": true}),
        "unknown fields survive"
    );
    assert_eq!(ids(&value), [&json!("a1"), &json!("o1"), &json!("t1")]);
    assert_eq!((report.added_ours, report.added_theirs), (1, 1));
    assert!(report.conflicts.is_empty());
}

#[test]
fn a_lesson_removed_on_one_side_stays_removed_unless_the_other_changed_what_it_says() {
    let base = file(&[
        lesson("gone", "abcd1", "one", 2, 0),
        lesson("hit", "abcd2", "two", 2, 0),
        lesson("edited", "abcd3", "three", 2, 0),
    ]);
    let ours = file(&[]);
    let theirs = file(&[
        lesson("gone", "abcd1", "one", 2, 0),
        lesson("hit", "abcd2", "two", 3, 1),
        lesson("edited", "abcd3", "three, said better", 2, 0),
    ]);
    let (value, report) = merged(Library::Lessons, &base, &ours, &theirs);
    assert_eq!(ids(&value), [&json!("edited")]);
    assert_eq!(report.removed, 2);
    assert_eq!(report.kept_changed, ["edited"]);
    // The same from the other side.
    let (value, _) = merged(Library::Lessons, &base, &theirs, &ours);
    assert_eq!(value["lessons"].as_array().unwrap().len(), 1);
}

#[test]
fn both_sides_editing_a_lessons_text_keep_both_texts_and_say_so() {
    let base = file(&[lesson("a1", "import os.path", "use pathlib", 3, 2)]);
    let ours = file(&[lesson("a1", "import os.path", "use pathlib.Path", 4, 3)]);
    let theirs = file(&[lesson("a1", "import os.path", "prefer pathlib", 3, 2)]);
    let (value, report) = merged(Library::Lessons, &base, &ours, &theirs);
    let a1 = by_id(&value, "a1");
    assert_eq!(a1["lesson"], "use pathlib.Path", "ours stays in place");
    assert_eq!(
        a1[CONFLICT_FIELD],
        json!({"lesson": {"base": "use pathlib", "ours": "use pathlib.Path",
                          "theirs": "prefer pathlib"}})
    );
    assert_eq!((&a1["hits"], &a1["weight"]), (&json!(3), &json!(4)));
    assert_eq!(
        report.conflicts,
        [EntryConflict {
            entry: Some("a1".into()),
            fields: vec!["lesson".into()]
        }]
    );
}

#[test]
fn lessons_pair_by_scope_and_triggers_when_ids_differ_and_triggers_union() {
    let mut base_lesson = lesson("a1", "abcd", "t", 2, 0);
    base_lesson.as_object_mut().unwrap().remove("id");
    let base = file(&[base_lesson.clone()]);
    let mut ours_lesson = base_lesson.clone();
    ours_lesson["hits"] = json!(1);
    let mut theirs_lesson = base_lesson;
    theirs_lesson["id"] = json!("custom");
    theirs_lesson["hits"] = json!(2);
    let (value, report) = merged(
        Library::Lessons,
        &base,
        &file(&[ours_lesson]),
        &file(&[theirs_lesson]),
    );
    assert_eq!(value["lessons"].as_array().unwrap().len(), 1, "{value}");
    assert_eq!(value["lessons"][0]["hits"], 3);
    assert!(report.conflicts.is_empty(), "{report:?}");
}

#[test]
fn entries_car_cannot_use_and_unknown_top_level_fields_are_kept() {
    let broken = json!({"scope": "*", "triggers": [], "lesson": "no trigger"});
    let base = r#"{"lessons": [], "version": 3}"#;
    let ours = serde_json::to_string(&json!({"lessons": [broken], "version": 3})).unwrap();
    let theirs = r#"{"lessons": [], "version": 3, "team": "core"}"#;
    let (value, _) = merged(Library::Lessons, base, &ours, theirs);
    assert_eq!(value["lessons"], json!([broken]));
    assert_eq!(
        (&value["version"], &value["team"]),
        (&json!(3), &json!("core"))
    );
}

#[test]
fn an_unreadable_side_is_an_error_naming_it() {
    let error = merge(
        Library::Lessons,
        Side {
            path: Path::new("base"),
            text: "{}",
        },
        Side {
            path: Path::new("ours"),
            text: "{\"lessons\": [,]}",
        },
        Side {
            path: Path::new("theirs"),
            text: "{}",
        },
    )
    .unwrap_err();
    assert!(error.to_string().starts_with("ours:1:"), "{error}");
}

#[test]
fn candidates_pair_by_scope_and_trigger_and_their_sightings_add_up() {
    let candidate = |hits: u64, last_hit: i64, evidence: Value| {
        json!({"scope": "*.py", "trigger": "fastjsonx", "lesson": "use json", "hits": hits,
               "last_hit": last_hit, "evidence": evidence})
    };
    let pool = |candidates: Vec<Value>| json!({ "candidates": candidates }).to_string();
    let base = pool(vec![candidate(1, 10, json!(["a.py"]))]);
    let ours = pool(vec![candidate(2, 20, json!(["a.py", "b.py"]))]);
    let theirs = pool(vec![
        candidate(2, 30, json!(["a.py", "c.py"])),
        json!({"scope": "*.ts", "trigger": "moment(", "lesson": "date-fns", "hits": 1}),
    ]);
    assert_eq!(Library::of([&base, &ours, &theirs]), Library::Candidates);
    let (value, report) = merged(Library::Candidates, &base, &ours, &theirs);
    assert_eq!(
        value["candidates"][0],
        candidate(3, 30, json!(["a.py", "b.py", "c.py"]))
    );
    assert_eq!(value["candidates"][1]["trigger"], "moment(");
    assert_eq!(report.added_theirs, 1);
    assert!(report.conflicts.is_empty());
}

#[test]
fn the_kind_of_file_is_read_from_its_content() {
    assert_eq!(
        Library::of(["", "{}", "{\"lessons\": []}"]),
        Library::Lessons
    );
    assert_eq!(Library::of(["", "", ""]), Library::Lessons);
    assert_eq!(
        Library::of(["{\"candidates\": []}", "not json", ""]),
        Library::Candidates
    );
}
