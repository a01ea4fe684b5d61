//! Lesson matching cost against the lesson count: 100, 1,000 and 10,000 lessons (80 % literal
//! triggers, 20 % regex triggers, five scopes), one typical edit (30 added lines of a TypeScript
//! file). Prints the median of each step the hook pays (parse the file, build the index, match)
//! and the 10k/100 ratios, then the path the hook really takes (the on-disk index, `cache`), and
//! how long two pathological regex triggers take to give up on the longest lines a regex sees
//! (the integration test only checks that they are stopped and reported).
//! No pass/fail; figures go into docs/lessons.md.
//!
//! Run: `cargo bench --bench matching`.

use std::path::Path;
use std::time::{Duration, Instant};

use car::edit::AddedLine;
use car::lessons::cache;
use car::lessons::keyword::required_literals;
use car::lessons::matcher::{EDIT_BUDGET, LessonIndex};
use car::lessons::model::Lesson;
use car::lessons::store::LessonFile;
use serde_json::{Value, json};

const SCOPES: [&str; 5] = ["*.ts", "*.py", "*.rs", "*.swift", "src/**/*.tsx"];

fn lessons_json(count: usize) -> String {
    let lessons: Vec<Value> = (0..count)
        .map(|i| {
            let trigger = if i % 5 == 4 {
                format!("regex:(?<!_)client{i}\\.fetch\\w*\\(")
            } else if i % 5 == 3 {
                format!("regex:\\bTheme{i}\\.(?:primary|secondary)Text\\b")
            } else {
                format!("Module{i}.attribute{}", i % 17)
            };
            json!({"scope": SCOPES[i % SCOPES.len()], "triggers": [trigger, format!("legacyName{i}(")],
                   "lesson": format!("lesson number {i}: use the new name"), "weight": 2,
                   "hits": 1, "last_hit": 1_780_000_000, "created": "2026-05-21"})
        })
        .collect();
    json!({ "lessons": lessons }).to_string()
}

/// 30 added lines of ordinary TypeScript; one hits lesson 0 (`Module0.attribute0`).
fn typical_edit() -> Vec<AddedLine> {
    let mut lines: Vec<String> = (0..29)
        .map(|i| format!("  const value{i} = await client.fetchItems(ids[{i}], {{ retries: 3 }});"))
        .collect();
    lines.insert(12, "  render(Module0.attribute0);".to_string());
    lines
        .into_iter()
        .enumerate()
        .map(|(index, text)| AddedLine {
            line: 40 + index,
            text,
        })
        .collect()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut work: impl FnMut() -> T) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(work());
            started.elapsed()
        })
        .collect();
    median(samples)
}

struct Row {
    count: usize,
    /// What the hook pays per edit: read the fresh on-disk index, read the shortlisted lessons,
    /// index them, match.
    indexed: Duration,
    /// Rebuilding the on-disk index after the lessons file changed (once per change).
    rebuild: Duration,
    parse: Duration,
    build: Duration,
    find: Duration,
    /// The part of `build` spent extracting regex keywords.
    keywords: Duration,
}

fn measure(count: usize) -> Row {
    let text = lessons_json(count);
    let path = Path::new("lessons.json");
    let added = typical_edit();
    let runs = if count >= 10_000 { 15 } else { 60 };
    let parse = time(runs, || LessonFile::parse(path, &text).expect("valid"));
    let file = LessonFile::parse(path, &text).expect("valid");
    let lessons: Vec<&Lesson> = file.lessons().collect();
    let build = time(runs, || LessonIndex::new(&lessons));
    let keywords = time(runs, || {
        lessons
            .iter()
            .flat_map(|lesson| lesson.triggers.iter())
            .filter_map(|trigger| trigger.pattern().map(required_literals))
            .count()
    });
    let index = LessonIndex::new(&lessons);
    let hits = index.find("web/app.ts", &added, EDIT_BUDGET).hits.len();
    assert_eq!(hits, 1, "the edit hits exactly lesson 0");
    let find = time(runs.max(200), || {
        index.find("web/app.ts", &added, EDIT_BUDGET)
    });
    let (indexed, rebuild) = measure_indexed(&text, &added, runs);
    Row {
        count,
        indexed,
        rebuild,
        parse,
        build,
        find,
        keywords,
    }
}

/// The hook's path through `lessons.json.index` in a temporary folder.
fn measure_indexed(text: &str, added: &[AddedLine], runs: usize) -> (Duration, Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("lessons.json");
    std::fs::write(&path, text).expect("write lessons");
    let joined: String = added
        .iter()
        .map(|line| format!("{}\n", line.text))
        .collect();
    let rebuild = time(runs.min(15), || {
        let _ = std::fs::remove_file(cache::index_path(&path));
        cache::shortlist(&path, &joined).expect("valid")
    });
    let indexed = time(runs.max(200), || {
        let shortlist = cache::shortlist(&path, &joined).expect("valid");
        let lessons: Vec<&Lesson> = shortlist.lessons.iter().collect();
        let hits = LessonIndex::new(&lessons)
            .find("web/app.ts", added, EDIT_BUDGET)
            .hits;
        assert_eq!(hits.len(), 1);
        hits
    });
    (indexed, rebuild)
}

fn micros(duration: Duration) -> String {
    format!("{:>9.1} µs", duration.as_secs_f64() * 1e6)
}

fn main() {
    println!("lesson matching, one edit of 30 added TypeScript lines (medians)");
    println!(
        "{:>8} {:>12} {:>12} {:>12} {:>12} {:>14}",
        "lessons", "parse", "build index", "match", "total", "(keywords)"
    );
    let rows: Vec<Row> = [100, 1_000, 10_000].into_iter().map(measure).collect();
    for row in &rows {
        println!(
            "{:>8} {} {} {} {}  {}",
            row.count,
            micros(row.parse),
            micros(row.build),
            micros(row.find),
            micros(row.parse + row.build + row.find),
            micros(row.keywords)
        );
    }
    let ratio =
        |f: fn(&Row) -> Duration| f(&rows[2]).as_secs_f64() / f(&rows[0]).as_secs_f64().max(1e-9);
    println!("10k/100 ratio, match only:  {:.2}", ratio(|r| r.find));
    println!(
        "10k/100 ratio, parse+build+match: {:.2}",
        ratio(|r| r.parse + r.build + r.find)
    );
    println!();
    println!("the hook's path: fresh on-disk index → shortlisted lessons → index → match");
    println!(
        "{:>8} {:>12} {:>16}",
        "lessons", "per edit", "index rebuild"
    );
    for row in &rows {
        println!(
            "{:>8} {} {}",
            row.count,
            micros(row.indexed),
            micros(row.rebuild)
        );
    }
    println!("10k/100 ratio, per edit: {:.2}", ratio(|r| r.indexed));
    println!();
    println!(
        "pathological regexes, 40 lines of 1,023 `a` and a `!` (median): {}",
        micros(pathological())
    );
}

/// `^(a+)+$` (linear engine) and a backtracking look-ahead with a backreference (its backtrack
/// limit stops it): the time to match both, budget unlimited, so the figure is the engines' own.
fn pathological() -> Duration {
    let text = json!({"lessons": [
        {"scope": "*.txt", "triggers": ["regex:^(a+)+$"], "lesson": "nested quantifier", "weight": 2},
        {"scope": "*.txt", "triggers": ["regex:(?=a)(a+)+\\1b"], "lesson": "backtracking", "weight": 2}
    ]})
    .to_string();
    let file = LessonFile::parse(Path::new("lessons.json"), &text).expect("valid");
    let lessons: Vec<&Lesson> = file.lessons().collect();
    let index = LessonIndex::new(&lessons);
    let added: Vec<AddedLine> = (1..=40)
        .map(|line| AddedLine {
            line,
            text: format!("{}!", "a".repeat(1023)),
        })
        .collect();
    time(15, || {
        let outcome = index.find("big.txt", &added, Duration::from_secs(3600));
        assert!(outcome.hits.is_empty(), "neither pattern matches");
        outcome
    })
}
