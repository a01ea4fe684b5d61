//! Replay budget: 50 scenarios (each a throwaway project, four hook steps (a warning, its heed,
//! two quiet edits) and one maintenance step, 20 lessons with examples) must run in under 1 s, because the PostToolUse hook runs the
//! project's scenarios whenever the agent edits car's configuration.
//!
//! `cargo bench --bench replay` prints the median and worst of 7 runs.

use std::time::{Duration, Instant};

use car::replay::suite::{self, Case};

const SCENARIOS: usize = 50;
const RUNS: usize = 7;

fn lessons() -> serde_json::Value {
    let lessons: Vec<serde_json::Value> = (0..20)
        .map(|index| {
            serde_json::json!({
                "id": format!("l{index}"),
                "scope": if index % 2 == 0 { "*.ts" } else { "src/**/*.swift" },
                "triggers": [format!("legacyCall{index}("), format!("regex:(?<!_)old{index}\\.api")],
                "lesson": format!("lesson number {index}"),
                "weight": 3, "hits": 1, "last_hit": 1_779_000_000,
                "examples": {"match": [format!("x = legacyCall{index}(1)")], "no_match": ["x = 1"]}
            })
        })
        .collect();
    serde_json::json!({"lessons": lessons})
}

fn scenario(index: usize) -> String {
    let lesson = (index * 2) % 20;
    serde_json::json!({
        "lessons": lessons(),
        "files": {"web/app.ts": "export const a = 1;\n"},
        "steps": [
            {"now": "2026-05-21T00:00:00Z",
             "edit": {"file": "web/app.ts", "before": "export const a = 1;",
                      "after": format!("export const a = legacyCall{lesson}(1);")},
             "expect": {"block": false, "warnings": 1,
                        "lessons": [{"id": format!("l{lesson}"), "hits": 1}]}},
            {"edit": {"file": "web/app.ts", "before": format!("legacyCall{lesson}(1)"),
                      "after": "currentCall(1)"},
             "expect": {"warnings": 0,
                        "lessons": [{"id": format!("l{lesson}"), "hits": 2, "heeded": 1, "last_hit": "now"}]}},
            {"edit": {"file": "web/app.ts", "before": "export const a", "after": "export const b = 2;\nexport const a"},
             "expect": {"warnings": 0}},
            {"write": {"file": "src/ui/View.swift", "content": "let v = 1\n"},
             "expect": {"warnings": 0}},
            {"now": "+91d", "maintain": true,
             "expect": {"lessons": [{"id": "l1", "weight": 2}]}}
        ]
    })
    .to_string()
}

fn main() {
    let cases: Vec<Case> = (0..SCENARIOS)
        .map(|index| suite::scenario_case(&format!("bench{index}.json"), &scenario(index), None))
        .collect();
    let mut times: Vec<Duration> = Vec::new();
    let mut last = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        let results = suite::run_all(&cases, &|_, _| {});
        times.push(started.elapsed());
        last = Some(results);
    }
    times.sort();
    let results = last.expect("at least one run");
    println!(
        "replay: {SCENARIOS} scenarios ({}), median {:.0} ms, worst {:.0} ms over {RUNS} runs on {} threads",
        results.summary(),
        times[RUNS / 2].as_secs_f64() * 1000.0,
        times[RUNS - 1].as_secs_f64() * 1000.0,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    for failure in results.failures.iter().take(3) {
        println!("  {failure}");
    }
}
