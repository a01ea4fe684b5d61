//! Whole-process benchmark of the PostToolUse hook, the number an agent feels after every edit:
//! an Edit of a 100-line (~6 KB) TypeScript file in a project with 1,000 lessons, and the same
//! for a Python file (one interpreter start). Also measures the floor (start-up + payload + state
//! on a file no validator checks) so car's own overhead can be read off.
//!
//! Ruby, Go and YAML files of 100 lines show the cost of their checkers (`ruby -c`, `gofmt -e`,
//! libyaml).
//!
//! Run: `cargo bench --bench hook` (prints medians; no pass/fail).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const RUNS: usize = 60;

fn main() {
    let car = env!("CARGO_BIN_EXE_car");
    let project = tempfile::tempdir().expect("temp dir");
    let root = project.path();
    run(Command::new("git").args(["init", "-q"]).current_dir(root));
    write_lessons(root, 1_000);

    let typescript = typescript_file(100);
    let python = python_file(100);
    std::fs::write(root.join("notes.txt"), "plain text\n".repeat(100)).expect("write");
    std::fs::write(root.join("app.ts"), &typescript).expect("write");
    std::fs::write(root.join("app.py"), &python).expect("write");
    for (name, unit) in OTHER_FILES {
        std::fs::write(root.join(name), repeat_to_lines(unit, 100)).expect("write");
    }

    println!("PostToolUse hook, whole process, {RUNS} runs each, 1,000 lessons in the project");
    report("process start only: car --version", &time_version(car));
    for (label, file, line) in [
        ("floor: .txt edit (no validator)", "notes.txt", "plain text"),
        (
            "TypeScript 100 lines",
            "app.ts",
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
        ("Python 100 lines", "app.py", "    total = sum(values)"),
        ("Ruby 100 lines", "app.rb", "    total = values.sum"),
        ("Go 100 lines", "main.go", "\ttotal := len(values)"),
        ("YAML 100 lines", "ci.yml", "      - run: make test"),
    ] {
        let payload = edit_payload(root, file, line);
        let times = time_hook(car, root, &payload);
        report(label, &times);
    }
    println!("TypeScript size: {} bytes", typescript.len());
    report(
        "in-process TypeScript validation",
        &time_validation(root, &typescript),
    );
}

fn time_hook(car: &str, root: &Path, payload: &str) -> Vec<Duration> {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS + 3 {
        let started = Instant::now();
        let mut child = Command::new(car)
            .args(["hook", "post-tool-use"])
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("car runs");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(payload.as_bytes())
            .expect("payload written");
        child.wait().expect("car finishes");
        times.push(started.elapsed());
    }
    times.drain(..3); // warm-up: page cache, interpreter cache
    times
}

/// The floor every process pays: exec, dynamic linking, argument parsing.
fn time_version(car: &str) -> Vec<Duration> {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let status = Command::new(car)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .expect("car runs");
        assert!(status.success());
        times.push(started.elapsed());
    }
    times
}

/// The tree-sitter parse of the TypeScript file inside car, without the process around it.
fn time_validation(root: &Path, typescript: &str) -> Vec<Duration> {
    let project = car::Project::at(root);
    let settings = car::settings::Settings::default();
    let validators = car::validate::Validators::load(&project, &settings);
    let path = root.join("app.ts");
    let source = car::validate::Source {
        path: &path,
        display_path: "app.ts",
        content: typescript,
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

fn report(label: &str, times: &[Duration]) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    let p90 = sorted[sorted.len() * 9 / 10];
    println!(
        "{label:<34} median {:>6.2} ms   p90 {:>6.2} ms   min {:>6.2} ms",
        ms(median),
        ms(p90),
        ms(sorted[0])
    );
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

fn run(command: &mut Command) {
    let status = command.status().expect("command runs");
    assert!(status.success());
}

fn edit_payload(root: &Path, file: &str, line: &str) -> String {
    json!({
        "session_id": "bench",
        "cwd": root,
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": root.join(file), "old_string": "", "new_string": line},
        "tool_response": {"filePath": root.join(file), "success": true}
    })
    .to_string()
}

/// 1,000 lessons in the seed format: mostly literal triggers, some regexes, spread over scopes.
fn write_lessons(root: &Path, count: usize) {
    let scopes = ["*.ts", "*.py", "*.rs", "*.go", "src/**/*.swift"];
    let lessons: Vec<_> = (0..count)
        .map(|index| {
            let trigger = if index % 10 == 0 {
                format!("regex:(?<!_)legacyHelper{index}\\(")
            } else {
                format!("deprecatedCall{index}(")
            };
            json!({
                "scope": scopes[index % scopes.len()],
                "triggers": [trigger, format!("OldThing{index}.value")],
                "lesson": format!("lesson number {index}: use the new API"),
                "weight": 3, "hits": 1, "last_hit": 1_779_300_000, "created": "2026-05-21"
            })
        })
        .collect();
    let dir = root.join(".claude/claude-auto-review");
    std::fs::create_dir_all(&dir).expect("state dir");
    std::fs::write(
        dir.join("lessons.json"),
        serde_json::to_string_pretty(&json!({"lessons": lessons})).expect("json"),
    )
    .expect("lessons written");
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

/// A repeated unit per language; the edited line is in every unit.
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
