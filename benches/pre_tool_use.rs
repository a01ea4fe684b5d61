//! Whole-process benchmark of the PreToolUse hook against the PostToolUse hook on the same edit:
//! the agent waits for both, so stopping a write before it lands must cost no more than checking
//! it after. Each case is one Edit (a placeholder line replaced by the line shown) in a project of
//! 1,000 lessons: the PreToolUse call gets the edit before it ran (the file holds the
//! placeholder), the PostToolUse call after (a twin file holds the line, the payload carries the
//! original). Pre and post run next to each other in every round, so their ratio is paired. After
//! each timed PostToolUse call the twin file is edited back (the agent's own edit, its own
//! PostToolUse call, not timed), so every timed call sees a session in which only the agent wrote
//! the file: nothing looks like a person's correction to learn from.
//!
//! Cases: a 100-line TypeScript file (grammar in process), a 100-line Python file (one interpreter
//! start), a line that fires a lesson (weight 3: warned after, not stopped before), a Python
//! syntax error (stopped before; blocked after), and a 100-line JavaScript file no lesson's scope
//! covers (the look for the lessons of the file finds nothing). The TypeScript and Python files
//! have lessons (weight 3): their first PreToolUse call of the session gives them to the agent,
//! the later ones find them given. Where valgrind is installed, the instructions of
//! each hook (callgrind; the programs car starts are not counted).
//!
//! Then the pair as an agent runs it: one edit of one file, checked before (PreToolUse) and after
//! (PostToolUse) it lands, against the PostToolUse call alone on the same edit (another session, so
//! nothing PreToolUse kept can be reused), for a TypeScript, a Python and a Rust file of 100 lines;
//! the pair's time is the sum of its two calls, its ratio to the call alone paired round by round;
//! and the instructions of both (callgrind).
//!
//! Run: `cargo bench --bench pre_tool_use` (prints medians and paired ratios; no pass/fail);
//! `CAR_BENCH_CAR=BINARY` measures that car instead of cargo's release build.

mod common;
#[path = "pre_tool_use/pair.rs"]
mod pair;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use common::{
    HIT_LINE, NOW, instructions, median, paired_ratio, project, report, time_hook,
    valgrind_installed,
};

const RUNS: usize = 40;
const WARMUP: usize = 3;
/// The line each edit replaces.
const TS_PLACEHOLDER: &str = "  // placeholder";
const PY_PLACEHOLDER: &str = "    # placeholder";

/// One edit, timed before (PreToolUse) and after (PostToolUse) it lands.
struct Case {
    label: &'static str,
    pre: String,
    post: String,
    /// The edit back to the placeholder, and the files' two contents.
    back: String,
    after_file: std::path::PathBuf,
    with_placeholder: String,
    with_line: String,
    pre_times: Vec<Duration>,
    post_times: Vec<Duration>,
}

fn main() {
    let car = &common::car_binary();
    let temp = tempfile::tempdir().expect("temp dir");
    let root = project(&temp.path().join("project"), 1_000);
    let typescript = typescript_file();
    let python = python_file();
    let javascript = typescript_file().replace(": number[]): number", ")");
    let mut cases = vec![
        case(
            &root,
            "TypeScript 100 lines",
            "ts",
            &typescript,
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
        case(
            &root,
            "Python 100 lines",
            "py",
            &python,
            "    total = sum(values)",
        ),
        case(
            &root,
            "TypeScript, fires a lesson (weight 3)",
            "ts",
            &typescript,
            HIT_LINE,
        ),
        case(
            &root,
            "Python syntax error (stopped / blocked)",
            "py",
            &python,
            "    total = sum(values",
        ),
        case(
            &root,
            "JavaScript 100 lines, no lesson of the file",
            "js",
            &javascript,
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
    ];
    for case in &cases {
        for _ in 0..WARMUP {
            time_hook(car, &root, "pre-tool-use", &case.pre, NOW);
            time_post(car, &root, case);
        }
    }
    for _ in 0..RUNS {
        for case in &mut cases {
            case.pre_times
                .push(time_hook(car, &root, "pre-tool-use", &case.pre, NOW));
            let time = time_post(car, &root, case);
            case.post_times.push(time);
        }
    }
    println!(
        "PreToolUse vs PostToolUse on the same edit, 1,000 lessons, {RUNS} paired runs (medians)"
    );
    for case in &cases {
        report(&format!("{}: before", case.label), &case.pre_times);
        report(&format!("{}: after", case.label), &case.post_times);
        println!(
            "{:<46} before/after {:.2} (paired median), {:.2} (of medians)",
            "",
            paired_ratio(&case.pre_times, &case.post_times),
            median(&case.pre_times).as_secs_f64() / median(&case.post_times).as_secs_f64()
        );
    }
    if valgrind_installed() {
        println!("instructions (callgrind), before / after:");
        for case in &cases {
            let count = |hook: &str, payload: &str| {
                instructions(
                    Command::new(car)
                        .args(["hook", hook])
                        .current_dir(&root)
                        .env("CAR_NOW", NOW.to_string()),
                    payload,
                )
            };
            let before = count("pre-tool-use", &case.pre);
            std::fs::write(&case.after_file, &case.with_line).expect("write");
            let after = count("post-tool-use", &case.post);
            std::fs::write(&case.after_file, &case.with_placeholder).expect("write");
            time_hook(car, &root, "post-tool-use", &case.back, NOW);
            println!("{:<46} {before} / {after}", case.label);
        }
    }
    println!();
    pair::run(car, &root);
}

/// The PostToolUse call of the edit (timed), then the edit back (not timed).
fn time_post(car: &str, root: &Path, case: &Case) -> Duration {
    std::fs::write(&case.after_file, &case.with_line).expect("write");
    let time = time_hook(car, root, "post-tool-use", &case.post, NOW);
    std::fs::write(&case.after_file, &case.with_placeholder).expect("write");
    time_hook(car, root, "post-tool-use", &case.back, NOW);
    time
}

/// The edit replacing the placeholder of `content` by `line`, in twin files of `root`:
/// `before-<label>.EXT` holds the placeholder (PreToolUse), `after-<label>.EXT` the line (PostToolUse).
fn case(root: &Path, label: &'static str, ext: &str, content: &str, line: &str) -> Case {
    let placeholder = if ext == "py" {
        PY_PLACEHOLDER
    } else {
        TS_PLACEHOLDER
    };
    let stem: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let before_file = root.join(format!("before-{stem}.{ext}"));
    let after_file = root.join(format!("after-{stem}.{ext}"));
    std::fs::write(&before_file, content).expect("write");
    let after = content.replacen(placeholder, line, 1);
    std::fs::write(&after_file, &after).expect("write");
    let input = |file: &Path| json!({"file_path": file, "old_string": placeholder, "new_string": line, "replace_all": false});
    let pre = json!({
        "session_id": "bench", "cwd": root, "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_input": input(&before_file),
    })
    .to_string();
    let post = json!({
        "session_id": "bench", "cwd": root, "hook_event_name": "PostToolUse",
        "tool_name": "Edit", "tool_input": input(&after_file),
        "tool_response": {"filePath": after_file, "oldString": placeholder, "newString": line,
                          "originalFile": content, "userModified": false},
    })
    .to_string();
    let back = json!({
        "session_id": "bench", "cwd": root, "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": after_file, "old_string": line, "new_string": placeholder, "replace_all": false},
        "tool_response": {"filePath": after_file, "oldString": line, "newString": placeholder,
                          "originalFile": after, "userModified": false},
    })
    .to_string();
    Case {
        label,
        pre,
        post,
        back,
        after_file,
        with_placeholder: content.to_string(),
        with_line: after,
        pre_times: Vec::with_capacity(RUNS),
        post_times: Vec::with_capacity(RUNS),
    }
}

/// About 100 lines of TypeScript with the placeholder in the middle.
fn typescript_file() -> String {
    let mut text = String::new();
    for index in 0..12 {
        text.push_str(&format!(
            "export function total{index}(values: number[]): number {{\n  let sum = 0;\n  for (const value of values) {{\n    sum += value * {index};\n  }}\n  return sum;\n}}\n\n"
        ));
        if index == 6 {
            text.push_str(&format!("export function edited(values: number[]): number {{\n{TS_PLACEHOLDER}\n  return 0;\n}}\n\n"));
        }
    }
    text
}

/// About 100 lines of Python with the placeholder (a comment) in the middle.
fn python_file() -> String {
    let mut text = String::from("import os\n\n\n");
    for index in 0..12 {
        text.push_str(&format!(
            "def total{index}(values):\n    result = 0\n    for value in values:\n        result += value * {index}\n    return result\n\n\n"
        ));
        if index == 6 {
            text.push_str(&format!(
                "def edited(values):\n{PY_PLACEHOLDER}\n    return 0\n\n\n"
            ));
        }
    }
    text
}
