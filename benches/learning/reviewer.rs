//! The reviewer car runs at the stop (`reviewerBackend: command`): this benchmark started with
//! [`crate::REVIEWER_FLAG`]. It reads the review prompt, looks at the files the session changed
//! (what git would commit) and reports every catalogue mistake a review catches as a P1 or P2
//! finding with its place. Like a real reviewer it misses some: a line it misses once it always
//! misses (the verdict is a hash of the line), so such a mistake lands and is committed.

use std::io::Read;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::catalogue::Teacher;
use crate::projects::mistakes;

/// Of a hundred mistakes a review could catch, how many it catches.
const CATCHES: u64 = 60;

pub fn run(root: &Path) {
    let mut prompt = String::new();
    let _ = std::io::stdin().read_to_string(&mut prompt);
    let status = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "-z"])
        .current_dir(root)
        .output()
        .expect("git status");
    let listing = String::from_utf8_lossy(&status.stdout).into_owned();
    let mut findings = Vec::new();
    for entry in listing.split('\0').filter(|entry| entry.len() > 3) {
        let path = &entry[3..];
        if path.starts_with(".claude/") || path.contains("node_modules/") {
            continue;
        }
        let Ok(content) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        for (index, line) in content.lines().enumerate() {
            for mistake in mistakes() {
                let Teacher::Review {
                    severity,
                    title,
                    wrong_output,
                    suggestion,
                } = mistake.teacher
                else {
                    continue;
                };
                if !mistake.bad.iter().any(|shape| shape_matches(shape, line))
                    || fnv(line) % 100 >= CATCHES
                {
                    continue;
                }
                findings.push(json!({
                    "id": format!("F{}", findings.len() + 1),
                    "severity": severity,
                    "file": path,
                    "line": index + 1,
                    "title": title,
                    "wrong_output": wrong_output,
                    "suggestion": suggestion,
                }));
            }
        }
    }
    println!("{}", json!({"findings": findings}));
}

/// Whether `line` is the first line of the mistake's template, whatever names fill it.
pub fn shape_matches(template: &str, line: &str) -> bool {
    let first = template.lines().next().unwrap_or_default();
    let mut pattern = String::from("^");
    let mut rest = first;
    while let Some(start) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..start]));
        let hole = &rest[start..];
        let (replacement, skip) = if hole.starts_with("{v}") || hole.starts_with("{r}") {
            (r"\w+", 3)
        } else if hole.starts_with("{n}") {
            (r"\d+", 3)
        } else {
            (r"\{", 1)
        };
        pattern.push_str(replacement);
        rest = &rest[start + skip..];
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).is_ok_and(|re| re.is_match(line))
}

/// FNV-1a: the reviewer's deterministic "did I notice this line".
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
