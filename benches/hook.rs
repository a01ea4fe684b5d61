//! Whole-process benchmark of the PostToolUse hook, the number an agent feels after every edit.
//! Every case spawns `car hook post-tool-use`, pipes an Edit payload and waits for the answer.
//! The cases run interleaved, one run of each per round, so the machine's drift (it is shared)
//! moves them alike and their ratios stay meaningful; each prints its median.
//!
//! - the floor: process start (`car --version`), an edit of a `.txt` file (no validator), a
//!   100-line TypeScript file and a 100-line Python file (one interpreter start), 1,000 lessons;
//!   Ruby, Go and YAML files of 100 lines show the cost of their checkers (`ruby -c`, `gofmt -e`,
//!   libyaml);
//! - lessons: an edit that fires no lesson (miss) and one that fires one (hit) at 100, 1,000 and
//!   10,000 lessons, on the same small TypeScript file;
//! - the first hook after 91 idle days (`CAR_NOW`) at 10,000 lessons, all due for decay, the
//!   daily maintenance not run for 91 days;
//! - then, apart: 24 sessions, each warned by one lesson of a 10,000-lesson library, heed it
//!   at once (24 hooks started together: a hit is a heeded warning), and the SessionEnd hook
//!   folds their hits into `lessons.json`. Checked, not only timed: exactly 24 hits recorded,
//!   and exactly those counters in the file afterwards, which stays valid seed-format JSON with
//!   its unknown fields;
//! - and, where valgrind is installed, the instructions each case's hook runs (callgrind): the
//!   figure that stays put on a noisy machine.
//!
//! Run: `cargo bench --bench hook` (prints medians; no pass/fail; `CAR_BENCH_CAR=BINARY` measures
//! another build of car, as `pre_tool_use` and `read_hook` do). `CAR_BENCH_DIR=DIR` builds
//! the projects in DIR and keeps them (with the payloads), to time single cases by other means.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::{
    DAY, HIT_LINE, LESSONS, MISS_LINE, NOW, edit_payload, median, paired_ratio, project, report,
    spawn_hook, time_hook,
};

const RUNS: usize = 60;
const WARMUP: usize = 3;

/// One timed hook call, repeated once per round.
struct Case {
    label: String,
    root: PathBuf,
    payload: String,
    now: i64,
    /// Runs before each call, outside the timing.
    before: Option<Box<dyn Fn()>>,
    times: Vec<Duration>,
}

fn main() {
    let car = &common::car_binary();
    let keep = std::env::var_os("CAR_BENCH_DIR").map(PathBuf::from);
    let temp = tempfile::tempdir().expect("temp dir");
    let base = keep.clone().unwrap_or_else(|| temp.path().to_path_buf());

    let mut cases = floor_cases(&base.join("floor"));
    for count in [100, 1_000, 10_000] {
        let root = project(&base.join(format!("lessons-{count}")), count);
        for (kind, line) in [("miss", MISS_LINE), ("hit", HIT_LINE)] {
            cases.push(case(
                &format!("{kind}, {count} lessons"),
                &root,
                "small.ts",
                line,
            ));
        }
    }
    cases.push(gap_case(&base.join("gap-91-days")));
    for case in &cases {
        warm(car, case);
    }
    if let Some(dir) = &keep {
        save_payloads(dir, &cases);
    }

    let version = time_version(car);
    for _ in 0..RUNS {
        for case in &mut cases {
            let time = run_case(car, case);
            case.times.push(time);
        }
    }
    println!("PostToolUse hook, whole process, {RUNS} interleaved runs each (medians)");
    report("process start only: car --version", &version);
    for case in &cases {
        report(&case.label, &case.times);
    }
    ratios(&cases);
    println!();
    instruction_counts(car, &cases);
    parallel_hits(car, &base.join("parallel-10000"));
    println!();
    report(
        "in-process TypeScript validation",
        &time_validation(&base.join("floor")),
    );
}

/// Instructions each case's hook runs, counted by `valgrind --tool=callgrind` (the figure that
/// stays put on a noisy machine, for "did this change make the hook slower"). The programs car
/// starts (an interpreter, `git`) are not counted. Skipped, with a line saying so, where valgrind
/// is not installed.
fn instruction_counts(car: &str, cases: &[Case]) {
    if !common::valgrind_installed() {
        println!();
        return;
    }
    println!("instructions per hook call (valgrind --tool=callgrind, car's own process)");
    for case in cases {
        if let Some(before) = &case.before {
            before();
        }
        let mut command = Command::new(car);
        command
            .args(["hook", "post-tool-use"])
            .current_dir(&case.root)
            .env("CAR_NOW", case.now.to_string());
        let collected = common::instructions(&mut command, &case.payload);
        println!("{:<46} {collected:>14}", case.label);
    }
    println!();
}

/// The floor cases: 1,000 lessons, none of which fires.
fn floor_cases(root: &Path) -> Vec<Case> {
    let root = project(root, 1_000);
    std::fs::write(root.join("notes.txt"), "plain text\n".repeat(100)).expect("write");
    std::fs::write(root.join("app.ts"), typescript_file(100)).expect("write");
    std::fs::write(root.join("ui.ts"), everyday_typescript_file(100)).expect("write");
    std::fs::write(root.join("app.py"), python_file(100)).expect("write");
    for (name, unit) in OTHER_FILES {
        std::fs::write(root.join(name), repeat_to_lines(unit, 100)).expect("write");
    }
    vec![
        case(
            "floor: .txt edit (no validator)",
            &root,
            "notes.txt",
            "plain text",
        ),
        case(
            "TypeScript 100 lines",
            &root,
            "app.ts",
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
        case(
            "TypeScript 100 lines, the rewrites' words",
            &root,
            "ui.ts",
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
        case(
            "Python 100 lines",
            &root,
            "app.py",
            "    total = sum(values)",
        ),
        case("Ruby 100 lines", &root, "app.rb", "    total = values.sum"),
        case("Go 100 lines", &root, "main.go", "\ttotal := len(values)"),
        case("YAML 100 lines", &root, "ci.yml", "      - run: make test"),
    ]
}

const OTHER_FILES: [(&str, &str); 3] = [
    (
        "app.rb",
        "def summarize(rows, threshold)\n  rows.select { |row| row[:tags].include?('active') }.map do |row|\n    values = row[:values].select { |value| value > threshold }\n    total = values.sum\n    [row[:name], total]\n  end.to_h\nend\n\n",
    ),
    (
        "main.go",
        "func summarize(rows []Row, threshold int) map[string]int {\n\tout := map[string]int{}\n\tfor _, row := range rows {\n\t\tvalues := row.Values\n\t\ttotal := len(values)\n\t\tout[row.Name] = total + threshold\n\t}\n\treturn out\n}\n\n",
    ),
    (
        "ci.yml",
        "  job:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n      - run: make lint\n",
    ),
];

/// The unit repeated to about `lines` lines, with a header the language needs (numbered names
/// for Ruby and Go, so the file stays valid).
fn repeat_to_lines(unit: &str, lines: usize) -> String {
    let mut text = match unit {
        _ if unit.starts_with("func") => {
            "package main\n\ntype Row struct {\n\tName   string\n\tValues []int\n}\n\n".to_string()
        }
        _ if unit.starts_with("  job") => "on: push\njobs:\n".to_string(),
        _ => String::new(),
    };
    let mut index = 0;
    while text.lines().count() + unit.lines().count() <= lines {
        text.push_str(
            &unit
                .replacen("summarize", &format!("summarize{index}"), 1)
                .replacen("  job:", &format!("  job{index}:"), 1),
        );
        index += 1;
    }
    text
}

/// The first hook after 91 idle days: every lesson is due for decay and the daily maintenance
/// marker is 91 days old (restored before each call). The session is the same one, so the figure
/// is the lessons' part (a new session's first edit also records `git status`, lessons or not).
fn gap_case(root: &Path) -> Case {
    let root = project(root, 10_000);
    let state = root.join(".claude/claude-auto-review");
    let marker = state.join("lessons-maintained");
    let mut gap = case(
        "first hook after 91 idle days, 10,000 lessons",
        &root,
        "small.ts",
        MISS_LINE,
    );
    gap.now = NOW + 91 * DAY;
    gap.before = Some(Box::new(move || {
        std::fs::write(&marker, NOW.to_string()).expect("marker");
    }));
    gap
}

fn case(label: &str, root: &Path, file: &str, line: &str) -> Case {
    Case {
        label: label.to_string(),
        root: root.to_path_buf(),
        payload: edit_payload(root, "bench", file, line),
        now: NOW,
        before: None,
        times: Vec::with_capacity(RUNS),
    }
}

/// Warm-up runs, not counted: they build the lesson index and fill the page cache.
fn warm(car: &str, case: &Case) {
    for _ in 0..WARMUP {
        run_case(car, case);
    }
}

fn run_case(car: &str, case: &Case) -> Duration {
    if let Some(before) = &case.before {
        before();
    }
    time_hook(car, &case.root, "post-tool-use", &case.payload, case.now)
}

/// 24 sessions heeding a warning of one lesson of 10,000 at once (a hit is a heeded warning),
/// then SessionEnd; ten rounds, each checked.
fn parallel_hits(car: &str, root: &Path) {
    const HOOKS: usize = 24;
    let root = project(root, 10_000);
    let end = json!({"session_id": "bench", "cwd": root, "hook_event_name": "SessionEnd",
        "reason": "other"})
    .to_string();
    let miss = edit_payload(&root, "bench", "small.ts", MISS_LINE);
    time_hook(car, &root, "post-tool-use", &miss, NOW); // builds the index
    let marker = root.join(".claude/claude-auto-review/lessons-maintained");
    let file = |index: usize| format!("heed_{index}.ts");
    let session = |index: usize| format!("bench-{index}");
    let (mut bursts, mut folds, mut maintained) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..10 {
        // Even rounds end the session with the day's maintenance due, odd ones without.
        if round % 2 == 0 {
            let _ = std::fs::remove_file(&marker);
        }
        // Each session writes the warned line into its own file and is warned (not timed).
        for index in 0..HOOKS {
            std::fs::write(root.join(file(index)), format!("{HIT_LINE}\n")).expect("write");
            let payload = session_edit(&root, &session(index), &file(index), "", HIT_LINE);
            let output = spawn_hook(car, &root, "post-tool-use", &payload, NOW)
                .wait_with_output()
                .expect("car finishes");
            assert!(String::from_utf8_lossy(&output.stdout).contains("OldThing0.value"));
        }
        let before = lesson_zero(&root);
        let started = Instant::now();
        let children: Vec<_> = (0..HOOKS)
            .map(|index| {
                std::fs::write(root.join(file(index)), format!("{MISS_LINE}\n")).expect("write");
                let payload =
                    session_edit(&root, &session(index), &file(index), HIT_LINE, MISS_LINE);
                spawn_hook(car, &root, "post-tool-use", &payload, NOW)
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().expect("car finishes");
            let answer = String::from_utf8_lossy(&output.stdout);
            assert!(!answer.contains("not recorded"), "{answer}");
        }
        bursts.push(started.elapsed());
        let log = std::fs::read_to_string(root.join(format!("{LESSONS}.hits"))).expect("hit log");
        assert_eq!(log.lines().count(), HOOKS, "exactly one line per heed");
        let ending = time_hook(car, &root, "session-end", &end, NOW);
        if round % 2 == 0 {
            maintained.push(ending);
        } else {
            folds.push(ending);
        }
        let after = lesson_zero(&root);
        assert_eq!(
            after["hits"],
            before["hits"].as_u64().unwrap_or(0) + HOOKS as u64
        );
        assert_eq!(after["weight"], 10);
        assert_eq!(after["team"], "web", "unknown fields are kept");
        assert!(!root.join(format!("{LESSONS}.hits")).exists(), "log folded");
    }
    println!(
        "{HOOKS} sessions heeding one lesson of 10,000 at once, then SessionEnd (10 rounds, checked)"
    );
    report(
        &format!("all {HOOKS} heeding hooks, start to last answer"),
        &bursts,
    );
    report("SessionEnd folding the 24 hits", &folds);
    report("SessionEnd, the same + daily maintenance", &maintained);
}

/// An Edit of `file` by `session`: `old` replaced by `new` (the file already holds `new`).
fn session_edit(root: &Path, session: &str, file: &str, old: &str, new: &str) -> String {
    json!({
        "session_id": session,
        "cwd": root,
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": root.join(file), "old_string": old, "new_string": new},
        "tool_response": {"filePath": root.join(file), "success": true}
    })
    .to_string()
}

/// Lesson 0 as `lessons.json` holds it (the file must be valid seed-format JSON).
fn lesson_zero(root: &Path) -> Value {
    let text = std::fs::read_to_string(root.join(LESSONS)).expect("lessons file");
    let file: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(file["lessons"].as_array().map(Vec::len), Some(10_000));
    file["lessons"][0].clone()
}

/// The ratios the issue asks for: the median of the per-round ratios (the two runs of a round are
/// next to each other, so a slow spell of the shared machine hits both), beside the ratio of the
/// medians above.
fn ratios(cases: &[Case]) {
    let times_of = |label: &str| {
        &cases
            .iter()
            .find(|case| case.label == label)
            .expect(label)
            .times
    };
    let rows = [
        (
            "hit 10,000 / hit 100",
            "hit, 10000 lessons",
            "hit, 100 lessons",
        ),
        (
            "hit 1,000 / miss 1,000",
            "hit, 1000 lessons",
            "miss, 1000 lessons",
        ),
        (
            "miss 10,000 / miss 100",
            "miss, 10000 lessons",
            "miss, 100 lessons",
        ),
    ];
    println!("ratios: median of per-round ratios (ratio of the medians)");
    for (label, a, b) in rows {
        let (a, b) = (times_of(a), times_of(b));
        let of_medians = median(a).as_secs_f64() / median(b).as_secs_f64();
        println!("{label:<34} {:>6.2}  ({of_medians:.2})", paired_ratio(a, b));
    }
}

/// The floor every process pays: exec, dynamic linking, argument parsing.
fn time_version(car: &str) -> Vec<Duration> {
    (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let status = Command::new(car)
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .expect("car runs");
            assert!(status.success());
            started.elapsed()
        })
        .collect()
}

/// The tree-sitter parse of the TypeScript file inside car, without the process around it.
fn time_validation(root: &Path) -> Vec<Duration> {
    let typescript = typescript_file(100);
    let project = car::Project::at(root);
    let settings = car::settings::Settings::default();
    let validators = car::validate::Validators::load(&project, &settings);
    let path = root.join("app.ts");
    let source = car::validate::Source {
        path: &path,
        display_path: "app.ts",
        content: &typescript,
        language: None,
        added: &[],
    };
    (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let report = validators.check(&source, None);
            assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
            started.elapsed()
        })
        .collect()
}

/// Each case's payload as `<project>/<label>.json`, with its clock in the file name's sibling
/// `<label>.now`, for timing one case alone.
fn save_payloads(dir: &Path, cases: &[Case]) {
    for case in cases {
        let name: String = case
            .label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        std::fs::write(dir.join(format!("{name}.json")), &case.payload).expect("payload");
        std::fs::write(dir.join(format!("{name}.now")), case.now.to_string()).expect("now");
    }
}

fn typescript_file(lines: usize) -> String {
    let mut text = String::from(
        "export interface Row { id: number; name: string; values: number[]; tags: string[] }\n\n",
    );
    let mut index = 0;
    while text.lines().count() < lines - 1 {
        text.push_str(&format!(
            "/** Summarizes rows by name for report {index}; rows without the active tag are skipped. */\nexport function summarizeRowsByName{index}(rows: readonly Row[], threshold = {index}): Map<string, number> {{\n  const summary = new Map<string, number>(); // one entry per row name and tag\n  for (const row of rows.filter((candidate) => candidate.tags.includes(\"active\"))) {{\n    const aboveThreshold = row.values.filter((value) => value > threshold);\n    summary.set(`${{row.name}}-${{row.id}}-{index}`, aboveThreshold.length);\n  }}\n  return summary;\n}}\n\n"
        ));
        index += 1;
    }
    text.push_str("  const total = values.reduce((a, b) => a + b, 0);\n");
    text
}

/// TypeScript that holds the words the misread rewrites look for (`margin:`, `abstract`,
/// `export default function`, `({`, an indented `<`, `in`), none of it a misread: their scans
/// must turn it away before any pattern is compiled.
fn everyday_typescript_file(lines: usize) -> String {
    let mut text = String::from(
        "export default function App(props: { title: string }) {\n  return render({ title: props.title, key: 'app' });\n}\n\n",
    );
    let mut index = 0;
    while text.lines().count() < lines - 1 {
        text.push_str(&format!(
            "export abstract class Panel{index} {{\n  style = {{ margin: {index}, padding: 2, within: true }};\n  keys(row: Record<string, number>): string[] {{\n    const out: string[] = [];\n    for (const key in row) out.push(key);\n    return out.filter((key) => key.length > {index});\n  }}\n  abstract draw(): void;\n}}\n\n"
        ));
        index += 1;
    }
    text.push_str("  const total = values.reduce((a, b) => a + b, 0);\n");
    text
}

fn python_file(lines: usize) -> String {
    let mut text = String::from("import json\nimport os\n\n");
    let mut index = 0;
    while text.lines().count() < lines - 2 {
        text.push_str(&format!(
            "def summarize_{index}(rows):\n    out = {{}}\n    for row in rows:\n        out[row['name']] = len([v for v in row['values'] if v > {index}])\n    return out\n\n"
        ));
        index += 1;
    }
    text.push_str("def total(values):\n    total = sum(values)\n    return total\n");
    text
}
