//! Whole-process benchmark of the lesson library at 10,000 lessons where hardening round 2 found
//! it stalling: hooks queueing behind one another for a missing index, and a quadratic import.
//!
//! - a cold index under a burst: 100 `car hook post-tool-use` started together right after
//!   `lessons.json.index` was removed (one hook builds it, the others match in memory), against
//!   the same burst with the index in place; start to last answer, and counted, not only timed:
//!   how many hooks warned and how many answered "gave up" (must be none; before the fix 76 of 100
//!   gave up after 20 s, and the burst took 13–14 s);
//! - one hook alone with the index removed, against one with it;
//! - `car lessons import` of a 10,000-lesson seed file into an empty library, against 1,000 (a
//!   linear import costs about 10×; it was 130–180×), checked: every lesson imported;
//! - and, where valgrind is installed, the instructions of one import of each size (callgrind):
//!   their ratio is the linearity figure that stays put on a noisy machine.
//!
//! Run: `cargo bench --bench lesson_library` (prints medians; no pass/fail).

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    HIT_LINE, LESSONS, NOW, edit_payload, median, paired_ratio, project, report, spawn_hook,
    time_hook,
};

const LESSON_COUNT: usize = 10_000;
const HOOKS: usize = 100;
const BURST_ROUNDS: usize = 5;
const SINGLE_RUNS: usize = 20;
const IMPORT_ROUNDS: usize = 11;

fn main() {
    let car = env!("CARGO_BIN_EXE_car");
    let temp = tempfile::tempdir().expect("temp dir");
    bursts(car, &temp.path().join("burst"));
    println!();
    imports(car, &temp.path().join("import"));
    println!();
    briefings(car, &temp.path().join("briefing"));
}

/// `car hook session-start` (the baseline and the lesson briefing) at 100 and at 10,000 lessons,
/// interleaved (DESIGN.md target: at most 10 ms at 10,000).
fn briefings(car: &str, root: &Path) {
    let sizes = [100, LESSON_COUNT];
    let projects: Vec<_> = sizes
        .iter()
        .map(|&count| project(&root.join(format!("briefing-{count}")), count))
        .collect();
    let mut times = vec![Vec::new(), Vec::new()];
    for run in 0..SINGLE_RUNS {
        for (dir, times) in projects.iter().zip(&mut times) {
            let payload = format!(
                r#"{{"session_id":"start-{run}","cwd":{},"hook_event_name":"SessionStart","source":"startup"}}"#,
                serde_json::json!(dir)
            );
            times.push(time_hook(car, dir, "session-start", &payload, NOW));
        }
    }
    println!("session-start: the baseline and the briefing of the project's lessons");
    for (count, times) in sizes.iter().zip(&times) {
        report(&format!("{count} lessons"), times);
    }
    println!(
        "{:<46} {:>6.2}",
        "ratio 10,000 / 100 lessons (paired medians)",
        paired_ratio(&times[1], &times[0])
    );
}

/// Cold and warm bursts, interleaved round by round, then single hooks the same way.
fn bursts(car: &str, root: &Path) {
    let root = project(root, LESSON_COUNT);
    let index = root.join(format!("{LESSONS}.index"));
    let payloads: Vec<String> = (0..HOOKS)
        .map(|hook| edit_payload(&root, &format!("burst-{hook}"), "small.ts", HIT_LINE))
        .collect();
    // Every session's first hook records its baseline (`git status`) and builds the index; the
    // rounds after time what a burst of edits in running sessions costs.
    let mut first = Counts::default();
    let first_time = burst(car, &root, &payloads, &mut first);
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let (mut cold_counts, mut warm_counts) = (Counts::default(), Counts::default());
    for _ in 0..BURST_ROUNDS {
        std::fs::remove_file(&index).expect("the index was built");
        cold.push(burst(car, &root, &payloads, &mut cold_counts));
        assert!(index.is_file(), "the burst rebuilt the index");
        warm.push(burst(car, &root, &payloads, &mut warm_counts));
    }
    println!(
        "{HOOKS} edit hooks started at once, {LESSON_COUNT} lessons, {BURST_ROUNDS} rounds \
         (hooks that warned / gave up, over all rounds)"
    );
    report(
        &format!("first edit of {HOOKS} new sessions {first}"),
        &[first_time],
    );
    report(&format!("index removed {cold_counts}"), &cold);
    report(&format!("index in place {warm_counts}"), &warm);
    println!(
        "{:<46} {:>6.2}  ({:.2})",
        "ratio cold / warm burst: per round (medians)",
        paired_ratio(&cold, &warm),
        median(&cold).as_secs_f64() / median(&warm).as_secs_f64()
    );

    let (mut alone_cold, mut alone_warm) = (Vec::new(), Vec::new());
    for _ in 0..SINGLE_RUNS {
        std::fs::remove_file(&index).expect("the index was built");
        alone_cold.push(time_hook(car, &root, "post-tool-use", &payloads[0], NOW));
        alone_warm.push(time_hook(car, &root, "post-tool-use", &payloads[0], NOW));
    }
    report("one hook, the index removed (it builds it)", &alone_cold);
    report("one hook, the index in place", &alone_warm);
}

/// How many hooks warned and how many gave up (the hook's time budget ran out).
#[derive(Default)]
struct Counts {
    warned: usize,
    gave_up: usize,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "({} / {})", self.warned, self.gave_up)
    }
}

/// Starts every hook at once and waits for the last answer, counting what they answered.
fn burst(car: &str, root: &Path, payloads: &[String], counts: &mut Counts) -> Duration {
    let started = Instant::now();
    let children: Vec<Child> = payloads
        .iter()
        .map(|payload| spawn_hook(car, root, "post-tool-use", payload, NOW))
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|child| child.wait_with_output().expect("car finishes"))
        .collect();
    let elapsed = started.elapsed();
    for output in outputs {
        let answer = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{output:?}");
        counts.gave_up += usize::from(answer.contains("gave up"));
        counts.warned += usize::from(answer.contains("OldThing0.value"));
    }
    elapsed
}

/// `car lessons import` of 1,000 and of 10,000 lessons into an empty library, interleaved.
fn imports(car: &str, root: &Path) {
    let sizes = [1_000, LESSON_COUNT];
    let projects: Vec<_> = sizes
        .iter()
        .map(|&count| {
            let dir = project(&root.join(format!("import-{count}")), 0);
            std::fs::write(dir.join("seed.json"), common::seed(count)).expect("seed written");
            dir
        })
        .collect();
    let mut times = vec![Vec::new(), Vec::new()];
    for _ in 0..IMPORT_ROUNDS {
        for ((dir, &count), times) in projects.iter().zip(&sizes).zip(&mut times) {
            empty_library(dir);
            let started = Instant::now();
            let output = import(car, dir).output().expect("car runs");
            times.push(started.elapsed());
            let said = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{said}");
            assert!(said.contains(&format!("imported {count}")), "{said}");
        }
    }
    println!("car lessons import into an empty library, {IMPORT_ROUNDS} interleaved rounds");
    report("1,000 lessons", &times[0]);
    report("10,000 lessons", &times[1]);
    println!(
        "{:<46} {:>6.2}  ({:.2})",
        "ratio 10,000 / 1,000: per round (medians)",
        paired_ratio(&times[1], &times[0]),
        median(&times[1]).as_secs_f64() / median(&times[0]).as_secs_f64()
    );
    if common::valgrind_installed() {
        println!("instructions per import (valgrind --tool=callgrind)");
        for (dir, count) in projects.iter().zip(sizes) {
            empty_library(dir);
            let collected = common::instructions(&mut import(car, dir), "");
            println!("{:<46} {collected:>14}", format!("{count} lessons"));
        }
    }
}

/// The project's library as `git init` left it: no lessons file, no index.
fn empty_library(dir: &Path) {
    for name in [LESSONS.to_string(), format!("{LESSONS}.index")] {
        let _ = std::fs::remove_file(dir.join(name));
    }
}

fn import(car: &str, dir: &Path) -> Command {
    let mut command = Command::new(car);
    command
        .args(["lessons", "import", "seed.json"])
        .current_dir(dir)
        .env("CAR_NOW", NOW.to_string())
        .stdout(Stdio::null());
    command
}
