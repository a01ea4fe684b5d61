//! Does car learn across sessions in a real project? A scripted agent works on a throwaway git
//! project (Python, TypeScript, Go, CI workflows, shell, JSON) for 20 sessions of 30 edits. It
//! has recurring mistakes of several kinds (`catalogue`) and writes correct look-alikes too. It
//! avoids a mistake once car's words in that session name it. A person corrects two mistakes per
//! session by hand and commits the session's work. Two arms with the same seed: without car and
//! with it (the real binary, every hook, a `command` reviewer).
//!
//! Printed per seed: a table per session, then mistakes landed in sessions 5–20 and the
//! reduction, false warnings and denies per correct write, which mistakes car learned and in
//! which session, what car refused to learn and why, and the hooks' wall time.
//!
//! Run: `cargo bench --bench learning` (options after `--`: `--seed N` (repeatable; default 1
//! and 2), `--sessions N`, `--edits N`, `--no-commit` (the person never commits), `--verbose`
//! (everything car said to the agent), `--keep` (keep the projects and say where), `--project
//! harbor` (the second catalogue: Rust, Python, shell, crate manifests, TypeScript, written after
//! the model as a check on mistakes it was not tuned on), `--project quarry` (the third, later
//! still: Java, Kotlin, Ruby, Kubernetes manifests, a Dockerfile, CSS), `--project beacon` (the
//! fourth: C firmware, a Swift app, HTML and plain JavaScript, shell)).
//! `CAR_BENCH_TRACE=1` prints every tool call and every stop's reason to stderr.

mod agent;
mod beacon;
mod catalogue;
mod harbor;
mod ledger;
mod plan;
mod projects;
mod quarry;
mod reviewer;
mod world;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use agent::{Agent, Stats, Timings};
use catalogue::{Lang, Place};
use projects::mistakes;
use world::Car;

/// The hooks' clock at the first session (each session a day later).
pub const T0: i64 = 1_800_000_000;
/// The argument that makes this benchmark car's reviewer.
pub const REVIEWER_FLAG: &str = "--car-bench-reviewer";
/// Landings are compared from this session on: by then car had its chance to learn.
const FROM_SESSION: usize = 5;

struct Options {
    seeds: Vec<u64>,
    sessions: usize,
    edits: usize,
    commit: bool,
    verbose: bool,
    keep: bool,
}

/// `--project NAME`: which catalogue runs.
fn project_option(args: &[String]) -> &'static str {
    let name = args
        .iter()
        .position(|arg| arg == "--project")
        .and_then(|at| args.get(at + 1))
        .map_or("ledger", String::as_str);
    projects::choose(name)
        .unwrap_or_else(|| {
            panic!("--project {name}: the projects are ledger, harbor, quarry and beacon")
        })
        .name
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = Options {
        seeds: Vec::new(),
        sessions: 20,
        edits: 30,
        commit: true,
        verbose: false,
        keep: false,
    };
    let mut index = 0;
    let value = |index: usize| -> u64 {
        args.get(index + 1)
            .and_then(|text| text.parse().ok())
            .unwrap_or_else(|| panic!("{} needs a number", args[index]))
    };
    while index < args.len() {
        match args[index].as_str() {
            "--seed" => {
                options.seeds.push(value(index));
                index += 1;
            }
            "--sessions" => {
                options.sessions = value(index) as usize;
                index += 1;
            }
            "--edits" => {
                options.edits = value(index) as usize;
                index += 1;
            }
            "--no-commit" => options.commit = false,
            "--verbose" => options.verbose = true,
            "--keep" => options.keep = true,
            "--project" => index += 1,
            _ => {} // cargo bench passes --bench
        }
        index += 1;
    }
    if options.seeds.is_empty() {
        options.seeds = vec![1, 2];
    }
    options
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == REVIEWER_FLAG) {
        projects::choose(&args[at + 2]).expect("a known catalogue");
        reviewer::run(Path::new(&args[at + 1]));
        return;
    }
    let options = options();
    let project = project_option(&args);
    println!("project {project}");
    for &seed in &options.seeds {
        run_seed(seed, &options);
    }
}

/// One arm's run over every session.
struct Arm {
    sessions: Vec<Stats>,
    /// Per catalogue entry: the session after which car's lessons first caught one of its shapes.
    learned: Vec<Option<usize>>,
    /// Per catalogue entry, at the last probe: how many of its shapes car's lessons catch, of how
    /// many.
    shapes_caught: Vec<(usize, usize)>,
    lessons: Vec<usize>,
    candidates: Vec<usize>,
    refused: Option<Value>,
    timings: Timings,
}

fn run_seed(seed: u64, options: &Options) {
    let plans = plan::generate(seed, options.sessions, options.edits);
    let without = run_arm(&plans, false, options);
    let with = run_arm(&plans, true, options);
    println!(
        "\nseed {seed}: {} sessions × {} edits, {}",
        options.sessions,
        options.edits,
        if options.commit {
            "the person commits after every session"
        } else {
            "nothing is ever committed"
        }
    );
    print_sessions(&without, &with);
    print_summary(&without, &with);
}

fn run_arm(plans: &[plan::SessionPlan], with_car: bool, options: &Options) -> Arm {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("ledger");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    let car = with_car.then(|| Car {
        program: PathBuf::from(env!("CARGO_BIN_EXE_car")),
        home,
        reviewer: std::env::current_exe().expect("this benchmark's path"),
    });
    world::create(&root, car.as_ref());
    let mut arm = Arm {
        sessions: Vec::new(),
        learned: vec![None; mistakes().len()],
        shapes_caught: vec![(0, 0); mistakes().len()],
        lessons: Vec::new(),
        candidates: Vec::new(),
        refused: None,
        timings: Timings::default(),
    };
    for (index, session_plan) in plans.iter().enumerate() {
        let number = index + 1;
        let mut agent = Agent::new(&root, car.as_ref(), number, &mut arm.timings);
        agent.run(session_plan);
        let stats = agent.stats;
        if options.verbose && with_car {
            println!("--- session {number}: what car said");
            for text in &stats.heard {
                println!("{text}\n");
            }
        }
        arm.sessions.push(stats);
        if options.commit {
            world::commit(&root, &format!("session {number}"));
        }
        if let Some(car) = &car {
            let now = T0 + number as i64 * 86_400 + 80_000;
            arm.shapes_caught = probe(car, &root, now);
            for (mistake, (caught, _)) in arm.shapes_caught.iter().enumerate() {
                if *caught > 0 && arm.learned[mistake].is_none() {
                    arm.learned[mistake] = Some(number);
                }
            }
            arm.lessons
                .push(count(car, &root, now, &["lessons", "list", "--json"]));
            arm.candidates
                .push(count(car, &root, now, &["lessons", "candidates", "--json"]));
        }
    }
    if let Some(car) = &car {
        arm.refused = car_json(
            car,
            &root,
            T0,
            &["lessons", "candidates", "--refused", "--json"],
        );
    }
    if options.keep {
        println!("kept {}", dir.keep().display());
    }
    arm
}

/// How many of each learnable mistake's shapes car's lessons catch now, of how many: one file
/// per shape holding it, checked with `car check` (read-only), then removed.
fn probe(car: &Car, root: &Path, now: i64) -> Vec<(usize, usize)> {
    let mut files: Vec<(usize, String)> = Vec::new();
    for (index, mistake) in mistakes().iter().enumerate() {
        if !mistake.is_learnable() {
            continue;
        }
        for (shape, template) in mistake.bad.iter().enumerate() {
            let id = format!("probe{index}s{shape}");
            let bad = template
                .replace("{v}", "probed_value")
                .replace("{r}", "probed_archive")
                .replace("{n}", "7");
            let mut lines = plan::file_head(mistake.lang, &id);
            if mistake.place == Place::Header {
                lines.push(bad.clone());
            }
            lines.extend(plan::file_opening(mistake.lang, &id));
            if mistake.place != Place::Header {
                lines.push(bad);
            }
            lines.push(plan::file_anchor(mistake.lang, &id));
            lines.extend(plan::file_tail(mistake.lang));
            let path = probe_path(mistake.lang, &id);
            world::write(root, &path, &(lines.join("\n") + "\n"));
            files.push((index, path));
        }
    }
    let output = car
        .command(root, now)
        .args(["check", "--format", "json"])
        .args(files.iter().map(|(_, path)| path))
        .output()
        .expect("car check runs");
    for (_, path) in &files {
        let _ = std::fs::remove_file(root.join(path));
    }
    let findings: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap_or_default();
    let mut caught = vec![(0, 0); mistakes().len()];
    for (index, path) in &files {
        caught[*index].1 += 1;
        let found = findings
            .iter()
            .any(|finding| finding["validator"] == "lesson" && finding["file"] == path.as_str());
        if found {
            caught[*index].0 += 1;
        }
    }
    caught
}

fn probe_path(lang: Lang, id: &str) -> String {
    match lang {
        Lang::Rs => format!("src/{id}.rs"),
        Lang::Toml => format!("crates/{id}/Cargo.toml"),
        Lang::Py => format!("app/{id}.py"),
        Lang::Ts => format!("web/src/{id}.ts"),
        Lang::Go => format!("svc/{id}.go"),
        Lang::Yml => format!(".github/workflows/{id}.yml"),
        Lang::Sh => format!("scripts/{id}.sh"),
        Lang::Json => format!("config/{id}.json"),
        Lang::Java => format!("api/src/main/java/com/quarry/stock/{id}.java"),
        Lang::Kt => format!("app/src/main/java/com/quarry/app/{id}.kt"),
        Lang::Rb => format!("tasks/{id}.rb"),
        Lang::Kube => format!("deploy/k8s/{id}.yaml"),
        Lang::Docker => format!("docker/{id}/Dockerfile"),
        Lang::Css => format!("web/styles/{id}.css"),
        Lang::C => format!("firmware/src/{id}.c"),
        Lang::Swift => format!("ios/Beacon/{id}.swift"),
        Lang::Html => format!("web/{id}.html"),
        Lang::Js => format!("web/js/{id}.js"),
    }
}

fn car_json(car: &Car, root: &Path, now: i64, args: &[&str]) -> Option<Value> {
    let output = car.command(root, now).args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| serde_json::from_slice(&output.stdout).ok())
        .flatten()
}

fn count(car: &Car, root: &Path, now: i64, args: &[&str]) -> usize {
    match car_json(car, root, now, args) {
        Some(Value::Array(items)) => items.len(),
        Some(Value::Object(map)) => map.values().find_map(Value::as_array).map_or(0, Vec::len),
        _ => 0,
    }
}

fn sum(values: &[usize]) -> usize {
    values.iter().sum()
}

fn print_sessions(without: &Arm, with: &Arm) {
    println!(
        "{:>7} | {:>9} | {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} | {:>6} {:>6} | {:>7} {:>10}",
        "session",
        "no car:",
        "written",
        "avoided",
        "denied",
        "fixed",
        "review",
        "person",
        "landed",
        "",
        "false",
        "false",
        "lessons",
        "candidates"
    );
    println!(
        "{:>7} | {:>9} | {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} | {:>6} {:>6} | {:>7} {:>10}",
        "", "landed", "", "", "", "at edit", "fixed", "fixed", "", "", "warns", "denies", "", ""
    );
    for (index, (bare, stats)) in without.sessions.iter().zip(&with.sessions).enumerate() {
        println!(
            "{:>7} | {:>9} | {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} | {:>6} {:>6} | {:>7} {:>10}",
            index + 1,
            sum(&bare.landed),
            sum(&stats.written),
            sum(&stats.avoided),
            stats.denied,
            stats.fixed_after_edit,
            stats.fixed_after_review,
            stats.person_fixed,
            sum(&stats.landed),
            "",
            stats.false_warnings,
            stats.false_denies,
            with.lessons.get(index).copied().unwrap_or(0),
            with.candidates.get(index).copied().unwrap_or(0),
        );
    }
}

fn print_summary(without: &Arm, with: &Arm) {
    let landed = |arm: &Arm| -> usize {
        arm.sessions
            .iter()
            .skip(FROM_SESSION - 1)
            .map(|stats| sum(&stats.landed))
            .sum()
    };
    let (bare, helped) = (landed(without), landed(with));
    let reduction = if bare == 0 {
        0.0
    } else {
        100.0 * (bare as f64 - helped as f64) / bare as f64
    };
    println!(
        "mistakes landed in sessions {FROM_SESSION}–{}: without car {bare}, with car {helped}: {reduction:.0}% fewer",
        with.sessions.len()
    );
    let total = |get: fn(&Stats) -> usize| with.sessions.iter().map(get).sum::<usize>();
    let correct = total(|s| s.correct_writes);
    println!(
        "false warnings {} and false denies {} over {correct} correct writes ({:.3} per correct write); false checker blocks {}; true warnings {}",
        total(|s| s.false_warnings),
        total(|s| s.false_denies),
        (total(|s| s.false_warnings) + total(|s| s.false_denies)) as f64 / correct.max(1) as f64,
        total(|s| s.false_blocks),
        total(|s| s.true_warnings),
    );
    let mut false_by: std::collections::BTreeMap<&str, usize> = Default::default();
    for trigger in with.sessions.iter().flat_map(|s| &s.false_warned_by) {
        *false_by.entry(trigger.as_str()).or_default() += 1;
    }
    for (trigger, count) in false_by {
        println!("  false warnings from the lesson with {trigger}: {count}");
    }
    println!("learned (the session after which car's lessons caught one of its shapes):");
    for (index, mistake) in mistakes().iter().enumerate() {
        let landed_without: usize = without.sessions.iter().map(|s| s.landed[index]).sum();
        let landed_with: usize = with.sessions.iter().map(|s| s.landed[index]).sum();
        let written: usize = with.sessions.iter().map(|s| s.written[index]).sum();
        let verdict = match (mistake.is_learnable(), with.learned[index]) {
            (false, _) => "a syntax slip: caught every time, nothing to learn".to_string(),
            (true, Some(session)) => {
                let (caught, shapes) = with.shapes_caught[index];
                if shapes > 1 {
                    format!(
                        "learned after session {session} (now catches {caught} of its {shapes} shapes)"
                    )
                } else {
                    format!("learned after session {session}")
                }
            }
            (true, None) => "NOT learned".to_string(),
        };
        // When the agent makes it at all (the arm without car: nothing is avoided there), and
        // when car saw it made (caught: what it can learn from).
        let sessions = |arm: &Arm, count: fn(&Stats, usize) -> usize| -> String {
            let list: Vec<String> = arm
                .sessions
                .iter()
                .enumerate()
                .filter(|(_, stats)| count(stats, index) > 0)
                .map(|(number, _)| (number + 1).to_string())
                .take(4)
                .collect();
            list.join(", ")
        };
        println!(
            "  {:<24} {verdict}; written {written}, landed {landed_with} (without car {landed_without}); made in sessions {}…, caught in {}…",
            mistake.id,
            sessions(without, |stats, index| stats.written[index]),
            sessions(with, |stats, index| stats.caught[index]),
        );
    }
    print_refusals(with.refused.as_ref());
    println!("hook wall time (median / p90 / calls):");
    let mut events: Vec<_> = with.timings.0.iter().collect();
    events.sort_by_key(|(event, _)| *event);
    for (event, times) in events {
        let mut times = times.clone();
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "  {event:<14} {:>7.1} ms {:>7.1} ms {:>5}",
            ms(at(0.5)),
            ms(at(0.9)),
            times.len()
        );
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Refusals by reason, from `car lessons candidates --refused --json`.
fn print_refusals(refused: Option<&Value>) {
    let Some(Value::Array(items)) = refused else {
        println!("refusals: this car cannot list them (`car lessons candidates --refused --json`)");
        return;
    };
    let mut by_reason: std::collections::BTreeMap<String, u64> = Default::default();
    for item in items {
        let reason = item["reason_kind"]
            .as_str()
            .or_else(|| item["reason"].as_str())
            .unwrap_or("unknown")
            .to_string();
        *by_reason.entry(reason).or_default() += item["count"].as_u64().unwrap_or(1);
    }
    println!("refusals by reason ({} refused signals):", items.len());
    for (reason, count) in by_reason {
        println!("  {count:>4}  {reason}");
    }
}
