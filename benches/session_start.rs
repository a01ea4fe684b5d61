//! Whole-process benchmark of SessionStart under load, where hardening round 3 found it failing
//! silently: 100 `car hook session-start` started together on a 50,000-file repository (1,000
//! lessons, a few hundred dirty files). Each start's answer is timed from its own spawn to its
//! exit, and counted, not only timed: how many held a baseline afterwards, how many said they
//! could not take one, how many gave up at the budget, and how many did neither (must be none:
//! before the fix 78 of 100 gave up, none held a baseline, and answers came up to 16.7 s after
//! their start against a 4 s budget).
//!
//! Run: `cargo bench --bench session_start` (prints figures; no pass/fail). Building the
//! repository takes a minute; `SESSION_START_FILES=5000` makes a smaller one, and
//! `SESSION_START_CAR=/path/to/car` measures another build of car (an older one, to compare).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{NOW, median, ms, spawn_hook};

const STARTS: usize = 100;
const ROUNDS: usize = 3;
const LESSON_COUNT: usize = 1_000;
const DIRTY: usize = 300;

fn main() {
    let car =
        std::env::var("SESSION_START_CAR").unwrap_or_else(|_| env!("CARGO_BIN_EXE_car").into());
    let car = car.as_str();
    let files = std::env::var("SESSION_START_FILES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(50_000);
    let temp = tempfile::tempdir().expect("temp dir");
    let root = temp.path().join("repo");
    big_repository(&root, files);
    println!(
        "{STARTS} session starts at once on a {files}-file repository ({DIRTY} dirty files, \
         {LESSON_COUNT} lessons), {ROUNDS} rounds; budget 4 s from each hook's start"
    );
    for round in 0..ROUNDS {
        let outcome = burst(car, &root, round);
        println!("round {}: {outcome}", round + 1);
    }
}

/// A committed repository of `files` files in folders of 100, with some of them changed and
/// some untracked, and a lesson library.
fn big_repository(root: &Path, files: usize) {
    common::project(root, LESSON_COUNT);
    for index in 0..files {
        let folder = root.join(format!("src/m{:03}", index / 100));
        if index % 100 == 0 {
            std::fs::create_dir_all(&folder).expect("folder");
        }
        let text = format!("export const value{index} = {index};\n");
        std::fs::write(folder.join(format!("f{index}.ts")), text).expect("file");
    }
    common::commit_all(root, "big");
    for index in (0..files).step_by((files / DIRTY).max(1)).take(DIRTY / 2) {
        let file = root.join(format!("src/m{:03}/f{index}.ts", index / 100));
        std::fs::write(file, format!("export const value{index} = -1;\n")).expect("change");
    }
    for index in 0..DIRTY / 2 {
        std::fs::write(root.join(format!("src/new{index}.ts")), "export {};\n").expect("new");
    }
}

/// What the starts of one burst did.
#[derive(Default)]
struct Outcome {
    times: Vec<Duration>,
    held_baseline: usize,
    said_no_baseline: usize,
    gave_up: usize,
    silent_without_baseline: usize,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let max = self.times.iter().max().copied().unwrap_or_default();
        write!(
            formatter,
            "answer after its start: median {:.0} ms, max {:.0} ms; baseline held {} / said none \
             {} / gave up {} / silent without one {}",
            ms(median(&self.times)),
            ms(max),
            self.held_baseline,
            self.said_no_baseline,
            self.gave_up,
            self.silent_without_baseline
        )
    }
}

/// Starts every session at once; each is timed from its spawn to its exit.
fn burst(car: &str, root: &Path, round: usize) -> Outcome {
    let sessions: Vec<String> = (0..STARTS)
        .map(|start| format!("start-{round}-{start}"))
        .collect();
    let waiting: Vec<_> = sessions
        .iter()
        .map(|session| {
            let payload = serde_json::json!({
                "session_id": session, "cwd": root,
                "hook_event_name": "SessionStart", "source": "startup"
            })
            .to_string();
            let spawned = Instant::now();
            let child = spawn_hook(car, root, "session-start", &payload, NOW);
            std::thread::spawn(move || {
                let output = child.wait_with_output().expect("car finishes");
                (spawned.elapsed(), output)
            })
        })
        .collect();
    let mut outcome = Outcome::default();
    for (session, waiter) in sessions.iter().zip(waiting) {
        let (took, output) = waiter.join().expect("waiter");
        assert!(output.status.success(), "{output:?}");
        let answer = String::from_utf8_lossy(&output.stdout);
        let held = root
            .join(".claude/claude-auto-review/clients")
            .join(session)
            .join("start-baseline.json")
            .is_file();
        let said = answer.contains("no baseline");
        let gave_up = answer.contains("gave up");
        outcome.times.push(took);
        outcome.held_baseline += usize::from(held);
        outcome.said_no_baseline += usize::from(said);
        outcome.gave_up += usize::from(gave_up);
        outcome.silent_without_baseline += usize::from(!held && !said && !gave_up);
    }
    outcome
}
