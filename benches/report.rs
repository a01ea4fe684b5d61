//! Whole-process benchmark of `car report` (DESIGN.md: every command is linear in lessons and
//! events; the bound: 10,000 lessons and 100,000 events in under 2 s, a page under 5 MB):
//!
//! - `car report -o FILE` on a project with 10,000 lessons (each with a pending outcome in the hit
//!   log) and 100,000 events in 20 sessions, against one with 1,000 lessons and 10,000 events,
//!   interleaved; the median of each, their ratio (about 10× when linear), and the page's size.
//!
//! Run: `cargo bench --bench report` (prints medians; no pass/fail).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{NOW, median, report, report_state};

const RUNS: usize = 11;

fn main() {
    let car = env!("CARGO_BIN_EXE_car");
    let temp = tempfile::tempdir().expect("temp dir");
    let sizes = [(1_000, 10_000), (10_000, 100_000)];
    let projects: Vec<_> = sizes
        .iter()
        .map(|&(lessons, events)| {
            let root = temp.path().join(format!("report-{lessons}"));
            std::fs::create_dir_all(&root).expect("project dir");
            let status = Command::new("git")
                .args(["init", "-q"])
                .current_dir(&root)
                .status()
                .expect("git runs");
            assert!(status.success());
            report_state(&root, lessons, events, NOW);
            root
        })
        .collect();
    let mut times = vec![Vec::new(), Vec::new()];
    for _ in 0..RUNS {
        for (root, times) in projects.iter().zip(&mut times) {
            times.push(time_report(car, root));
        }
    }
    for ((lessons, events), times) in sizes.iter().zip(&times) {
        report(
            &format!("car report, {lessons} lessons, {events} events"),
            times,
        );
    }
    let ratio = median(&times[1]).as_secs_f64() / median(&times[0]).as_secs_f64();
    println!("10× the lessons and events cost {ratio:.1}× the time");
    for ((lessons, _), root) in sizes.iter().zip(&projects) {
        let size = std::fs::metadata(root.join("report.html")).map_or(0, |meta| meta.len());
        println!(
            "page at {lessons} lessons: {:.2} MB",
            size as f64 / 1024.0 / 1024.0
        );
    }
}

fn time_report(car: &str, root: &Path) -> Duration {
    let started = Instant::now();
    let output = Command::new(car)
        .args(["report", "-o", "report.html"])
        .current_dir(root)
        .env("CAR_NOW", NOW.to_string())
        .output()
        .expect("car runs");
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{output:?}");
    elapsed
}
