//! The pair an agent runs for every write: PreToolUse before it lands, PostToolUse after, on the
//! same file, against the PostToolUse call alone on the same edit. The call alone runs in a
//! session of its own, so nothing the pair's PreToolUse kept can serve it. Each round runs, for
//! each case, the call alone and the pair next to each other; the file is edited back between
//! calls (the agent's own edit, its PostToolUse call, not timed), so every timed call sees the
//! same file and the same kind of session.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::common::{
    NOW, instructions, median, paired_ratio, report, time_hook, valgrind_installed,
};

const RUNS: usize = 30;
const WARMUP: usize = 3;

/// The session of the pairs, and the one of the calls alone.
const PAIR_SESSION: &str = "pair";
const ALONE_SESSION: &str = "alone";

/// One edit of one file, timed as a pair and alone.
struct Pair {
    label: &'static str,
    file: PathBuf,
    with_placeholder: String,
    with_line: String,
    pre: String,
    /// The PostToolUse payload of the edit and of the edit back, for each session.
    post: [String; 2],
    back: [String; 2],
    pair_times: Vec<Duration>,
    alone_times: Vec<Duration>,
}

/// Times and counts the pairs in the project at `root`.
pub fn run(car: &str, root: &Path) {
    let mut pairs = vec![
        pair(
            root,
            "TypeScript 100 lines",
            "pair.ts",
            &crate::typescript_file(),
            crate::TS_PLACEHOLDER,
            "  const total = values.reduce((a, b) => a + b, 0);",
        ),
        pair(
            root,
            "Python 100 lines",
            "pair.py",
            &crate::python_file(),
            crate::PY_PLACEHOLDER,
            "    total = sum(values)",
        ),
        pair(
            root,
            "Rust 100 lines",
            "pair.rs",
            &rust_file(),
            RS_PLACEHOLDER,
            "    let total: i64 = values.iter().sum();",
        ),
    ];
    for pair in &pairs {
        for _ in 0..WARMUP {
            time_alone(car, root, pair);
            time_pair(car, root, pair);
        }
    }
    for _ in 0..RUNS {
        for pair in &mut pairs {
            let alone = time_alone(car, root, pair);
            pair.alone_times.push(alone);
            let both = time_pair(car, root, pair);
            pair.pair_times.push(both);
        }
    }
    println!(
        "PreToolUse + PostToolUse on the same edit against PostToolUse alone, 1,000 lessons, {RUNS} paired runs (medians)"
    );
    for pair in &pairs {
        report(
            &format!("{}: PostToolUse alone", pair.label),
            &pair.alone_times,
        );
        report(&format!("{}: the pair", pair.label), &pair.pair_times);
        println!(
            "{:<46} pair/alone {:.2} (paired median), {:.2} (of medians)",
            "",
            paired_ratio(&pair.pair_times, &pair.alone_times),
            median(&pair.pair_times).as_secs_f64() / median(&pair.alone_times).as_secs_f64()
        );
    }
    if valgrind_installed() {
        count_instructions(car, root, &pairs);
    }
}

/// Instructions of the call alone, and of the pair's two calls (callgrind; the programs car starts
/// are not counted).
fn count_instructions(car: &str, root: &Path, pairs: &[Pair]) {
    let count = |hook: &str, payload: &str| -> u64 {
        let counted = instructions(
            Command::new(car)
                .args(["hook", hook])
                .current_dir(root)
                .env("CAR_NOW", NOW.to_string()),
            payload,
        );
        counted.replace(',', "").parse().unwrap_or(0)
    };
    println!("instructions (callgrind): PostToolUse alone / PreToolUse + PostToolUse = the pair");
    for pair in pairs {
        std::fs::write(&pair.file, &pair.with_line).expect("write");
        let alone = count("post-tool-use", &pair.post[1]);
        edit_back(car, root, pair, 1);
        let pre = count("pre-tool-use", &pair.pre);
        std::fs::write(&pair.file, &pair.with_line).expect("write");
        let post = count("post-tool-use", &pair.post[0]);
        edit_back(car, root, pair, 0);
        let both = pre + post;
        println!(
            "{:<46} {alone} / {pre} + {post} = {both} ({:.2})",
            pair.label,
            both as f64 / alone.max(1) as f64
        );
    }
}

/// The PostToolUse call alone (timed), then the edit back (not timed).
fn time_alone(car: &str, root: &Path, pair: &Pair) -> Duration {
    std::fs::write(&pair.file, &pair.with_line).expect("write");
    let time = time_hook(car, root, "post-tool-use", &pair.post[1], NOW);
    edit_back(car, root, pair, 1);
    time
}

/// PreToolUse on the file as it is, the write, PostToolUse (both timed), then the edit back.
fn time_pair(car: &str, root: &Path, pair: &Pair) -> Duration {
    let before = time_hook(car, root, "pre-tool-use", &pair.pre, NOW);
    std::fs::write(&pair.file, &pair.with_line).expect("write");
    let after = time_hook(car, root, "post-tool-use", &pair.post[0], NOW);
    edit_back(car, root, pair, 0);
    before + after
}

/// The agent's edit back to the placeholder, in session `index` (0 the pair's, 1 alone's).
fn edit_back(car: &str, root: &Path, pair: &Pair, index: usize) {
    std::fs::write(&pair.file, &pair.with_placeholder).expect("write");
    time_hook(car, root, "post-tool-use", &pair.back[index], NOW);
}

/// The Edit replacing `placeholder` by `line` in `root/name`, which holds `content`, with the
/// payloads Claude Code sends (`structuredPatch` included).
fn pair(
    root: &Path,
    label: &'static str,
    name: &str,
    content: &str,
    placeholder: &str,
    line: &str,
) -> Pair {
    let file = root.join(name);
    std::fs::write(&file, content).expect("write");
    let with_line = content.replacen(placeholder, line, 1);
    let at = content
        .lines()
        .position(|text| text == placeholder)
        .expect("the placeholder is a line")
        + 1;
    let input = |old: &str, new: &str| json!({"file_path": file, "old_string": old, "new_string": new, "replace_all": false});
    let post = |session: &str, old: &str, new: &str, original: &str| {
        json!({
            "session_id": session, "cwd": root, "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": input(old, new),
            "tool_response": {"filePath": file, "oldString": old, "newString": new,
                              "originalFile": original, "userModified": false, "replaceAll": false,
                              "structuredPatch": [{"oldStart": at, "oldLines": 1, "newStart": at,
                                                   "newLines": 1, "lines": [format!("-{old}"), format!("+{new}")]}]},
        })
        .to_string()
    };
    let pre = json!({
        "session_id": PAIR_SESSION, "cwd": root, "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_input": input(placeholder, line),
    })
    .to_string();
    Pair {
        label,
        pre,
        post: [PAIR_SESSION, ALONE_SESSION]
            .map(|session| post(session, placeholder, line, content)),
        back: [PAIR_SESSION, ALONE_SESSION]
            .map(|session| post(session, line, placeholder, &with_line)),
        file,
        with_placeholder: content.to_string(),
        with_line,
        pair_times: Vec::with_capacity(RUNS),
        alone_times: Vec::with_capacity(RUNS),
    }
}

const RS_PLACEHOLDER: &str = "    // placeholder";

/// About 100 lines of Rust with the placeholder (a comment) in the middle.
fn rust_file() -> String {
    let mut text = String::from("use std::collections::HashMap;\n\n");
    for index in 0..12 {
        text.push_str(&format!(
            "pub fn total{index}(values: &[i64]) -> i64 {{\n    let mut sum = 0;\n    for value in values {{\n        sum += value * {index};\n    }}\n    sum\n}}\n\n"
        ));
        if index == 6 {
            text.push_str(&format!(
                "pub fn edited(values: &[i64]) -> HashMap<String, i64> {{\n{RS_PLACEHOLDER}\n    HashMap::new()\n}}\n\n"
            ));
        }
    }
    text
}
