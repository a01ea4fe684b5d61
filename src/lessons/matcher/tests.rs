use proptest::prelude::*;
use serde_json::json;

use super::*;

fn lesson(scope: &str, triggers: &[&str]) -> Lesson {
    Lesson::from_value(&json!({"scope": scope, "triggers": triggers, "lesson": "l"})).unwrap()
}

fn added(lines: &[(usize, &str)]) -> Vec<AddedLine> {
    AddedLine::numbered(lines)
}

#[test]
fn literal_regex_scope_and_line() {
    let lessons = [
        lesson("*.swift", &["DankeTheme.secondaryText"]),
        lesson("*.py", &[r"regex:(?<!_)re\.compile"]),
        lesson("src/*.py", &["print("]),
    ];
    let refs: Vec<&Lesson> = lessons.iter().collect();
    let index = LessonIndex::new(&refs);
    let lines = added(&[
        (7, "x = _re.compile(a)"),
        (9, "y = re.compile(b); print(y)"),
    ]);
    let outcome = index.find("src/app.py", &lines, EDIT_BUDGET);
    assert_eq!(
        outcome.hits,
        vec![
            Hit {
                lesson: 1,
                trigger: 0,
                line: 9
            },
            Hit {
                lesson: 2,
                trigger: 0,
                line: 9
            }
        ]
    );
    assert!(index.find("lib/app.py", &lines, EDIT_BUDGET).hits.len() == 1);
    assert!(
        index
            .find("src/app.swift", &lines, EDIT_BUDGET)
            .hits
            .is_empty()
    );
}

#[test]
fn first_trigger_in_lesson_order_wins() {
    let lessons = [lesson("*", &["bbbb", "regex:a+aa", "cccc"])];
    let refs: Vec<&Lesson> = lessons.iter().collect();
    let lines = added(&[(1, "cccc aaa"), (2, "bbbb")]);
    let hits = LessonIndex::new(&refs).find("x", &lines, EDIT_BUDGET).hits;
    assert_eq!(
        hits,
        vec![Hit {
            lesson: 0,
            trigger: 0,
            line: 2
        }]
    );
    assert_eq!(hits, naive_hits(&refs, "x", &lines));
}

#[test]
fn pathological_regex_gives_up_and_the_linear_one_matches() {
    let lessons = [lesson("*", &["regex:^(a+)+$", r"regex:(?=a)(a+)+\1b"])];
    let refs: Vec<&Lesson> = lessons.iter().collect();
    let longest = "a".repeat(crate::lessons::trigger::REGEX_LINE_BYTES);
    let lines = added(&[(1, &longest)]);
    // The backtracking one gives up within its step limit (how fast: `cargo bench --bench
    // matching`); the linear one matches.
    let outcome = LessonIndex::new(&refs).find("x", &lines, EDIT_BUDGET);
    assert_eq!(outcome.hits.len(), 1, "the linear one matches");
    // A longer line is blank for regexes.
    let longer = added(&[(1, &"a".repeat(40_000))]);
    assert!(
        LessonIndex::new(&refs)
            .find("x", &longer, EDIT_BUDGET)
            .hits
            .is_empty()
    );
}

#[test]
fn one_costly_regex_cannot_hold_an_edit_past_the_budget() {
    // Exponential for the lazy DFA, so the linear engine falls back to its slow path: about
    // 50 ms on this text in a release build (most of a second unoptimised), past a 20 ms budget.
    let lessons = [
        lesson("*", &["regex:(?:a|b)*a(?:a|b){20}z"]),
        lesson("*", &["literal"]),
    ];
    let refs: Vec<&Lesson> = lessons.iter().collect();
    let mut state: u64 = 7;
    let mut random_line = || -> String {
        (0..1000)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                if (state >> 33) & 1 == 0 { 'a' } else { 'b' }
            })
            .collect()
    };
    // Distinct lines: a repeated one would let the lazy DFA reuse its states.
    let text: Vec<(usize, String)> = (1..=100).map(|n| (n, random_line())).collect();
    let mut lines: Vec<AddedLine> = text
        .iter()
        .map(|(line, text)| AddedLine {
            line: *line,
            text: text.clone(),
        })
        .collect();
    lines.push(AddedLine {
        line: 101,
        text: "a literal".into(),
    });
    // What the budget does, not how long it took (a loaded machine stretches any wall clock):
    // the costly regex is cut off and said so, the literal still fires.
    let budget = Duration::from_millis(20);
    let outcome = LessonIndex::new(&refs).find("x", &lines, budget);
    assert_eq!(outcome.hits.len(), 1, "the literal still fires");
    assert!(
        outcome.problems[0].contains("1 regex triggers were not tried"),
        "{:?}",
        outcome.problems
    );
}

fn literal_strategy() -> impl Strategy<Value = String> {
    prop::string::string_regex("[abk_.]{1,4}").unwrap()
}

fn regex_strategy() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        prop::string::string_regex("[abk]{1,4}").unwrap(),
        Just(r"\w".to_string()),
        Just(r"[ab]".to_string()),
        Just(".".to_string()),
        Just(r"\.".to_string()),
    ];
    let piece = (atom, prop_oneof![Just(""), Just("+"), Just("*"), Just("?")])
        .prop_map(|(atom, repeat)| format!("(?:{atom}){repeat}"));
    let sequence = prop::collection::vec(piece, 1..4).prop_map(|pieces| pieces.concat());
    (
        sequence.clone(),
        prop::option::of(sequence),
        prop_oneof![
            Just(""),
            Just("(?i)"),
            Just("(?<!_)"),
            Just("(?=a)"),
            Just("^")
        ],
    )
        .prop_map(|(first, second, prefix)| match second {
            Some(second) => format!("regex:{prefix}(?:{first}|{second})ab"),
            None => format!("regex:{prefix}{first}"),
        })
}

fn lessons_strategy() -> impl Strategy<Value = Vec<Lesson>> {
    let trigger = prop_oneof![literal_strategy(), regex_strategy()];
    let scope = prop_oneof![Just("*"), Just("*.py"), Just("src/*.py"), Just("*.rs")];
    let one = (scope, prop::collection::vec(trigger, 1..4)).prop_map(|(scope, triggers)| {
        let refs: Vec<&str> = triggers.iter().map(String::as_str).collect();
        lesson(scope, &refs)
    });
    prop::collection::vec(one, 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn indexed_matcher_agrees_with_naive(
        lessons in lessons_strategy(),
        lines in prop::collection::vec(prop::string::string_regex("[abkK_. \u{212A}]{0,12}").unwrap(), 1..4),
        path in prop_oneof![Just("src/a.py"), Just("a.py"), Just("lib/x.rs")],
    ) {
        let refs: Vec<&Lesson> = lessons.iter().collect();
        let added: Vec<AddedLine> = lines
            .iter()
            .enumerate()
            .map(|(index, text)| AddedLine { line: index * 2 + 1, text: text.clone() })
            .collect();
        let indexed = LessonIndex::new(&refs).find(path, &added, Duration::from_secs(60)).hits;
        prop_assert_eq!(indexed, naive_hits(&refs, path, &added));
    }
}

#[test]
fn the_time_budget_stops_further_regexes_and_says_so() {
    let lessons = [
        lesson("*", &[r"regex:\d+x"]),
        lesson("*", &[r"regex:\d+y"]),
        lesson("*", &["literal1"]),
    ];
    let refs: Vec<&Lesson> = lessons.iter().collect();
    let lines = added(&[(1, "12x 34y literal1")]);
    let outcome = LessonIndex::new(&refs).find("a.txt", &lines, Duration::ZERO);
    assert_eq!(
        outcome.hits,
        vec![Hit {
            lesson: 2,
            trigger: 0,
            line: 1
        }],
        "literals still hit"
    );
    assert!(
        outcome.problems[0].contains("2 regex triggers were not tried"),
        "{:?}",
        outcome.problems
    );
    let unlimited = LessonIndex::new(&refs).find("a.txt", &lines, EDIT_BUDGET);
    assert_eq!(unlimited.hits.len(), 3);
}
