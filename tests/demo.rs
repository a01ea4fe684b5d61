//! The README's first command runs `examples/demo.sh`: it must show the product (a blocked edit
//! and its fix, a lesson warning, a lesson learned from a repeated mistake, the review gate, the
//! P3 offer list) with the `car` the tests built on PATH, and honour `--json` and `--keep`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn demo(args: &[&str]) -> (String, String, i32) {
    let car = assert_cmd::cargo::cargo_bin("car");
    let bin_dir = car.parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo.sh");
    let mut bash = Command::new("bash");
    let output = crate::support::isolate(&mut bash, home.path())
        .arg(script)
        .args(args)
        .env("PATH", path)
        .env_remove("CI")
        .env_remove("CAR_NOW")
        .output()
        .expect("bash runs the demo");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

/// The section of the demo's output under the heading that starts with `## {number}.`.
fn section<'a>(out: &'a str, number: &str) -> &'a str {
    let start = out
        .find(&format!("## {number}."))
        .unwrap_or_else(|| panic!("no step {number} in:\n{out}"));
    let rest = &out[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |at| at + 3);
    &rest[..end]
}

#[test]
fn the_demo_shows_each_step_of_the_product() {
    let (out, err, code) = demo(&[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let expectations = [
        ("1", "BLOCKED: car tells the agent"),
        ("1", "config/settings.json:4:1: trailing comma [json]"),
        ("2", "OK: {} (nothing to say; the agent goes on)"),
        ("3", "WARNING for the agent (it goes on)"),
        ("3", "lesson (weight 2): A bare `except:`"),
        ("4", "No module named 'fastjsonx' [python]"),
        ("4", "new lesson candidate: `fastjsonx` in *.py"),
        ("6", "learned a lesson (weight 2) from a repeated error"),
        ("6", "Write `json`, not `fastjsonx`"),
        ("6", "remove it: car lessons rm"),
        ("7", "review R1 required before stopping"),
        ("8", "0 P1, 0 P2, 1 P3; 0 blocking"),
        ("9", "P3 offers (2; not fixed, you decide):"),
        ("9", "lesson (weight 2): A bare `except:`"),
        ("9", "retries could be documented"),
        ("10", "enabled: yes (Claude Code)"),
        ("11", "the report: /"),
        ("11", ".claude/claude-auto-review/report.html"),
    ];
    for (step, text) in expectations {
        assert!(
            section(&out, step).contains(text),
            "step {step} lacks {text:?}:\n{out}"
        );
    }
    assert!(
        !section(&out, "8").contains("findings.json"),
        "the demo's findings are no file of the project: {out}"
    );
}

#[test]
fn the_demo_prints_raw_answers_and_keeps_its_project_on_request() {
    let (out, err, code) = demo(&["--json", "--keep"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let blocked = section(&out, "1")
        .lines()
        .find(|line| line.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON answer in step 1:\n{out}"));
    let answer: serde_json::Value = serde_json::from_str(blocked).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");

    let kept = out
        .lines()
        .find_map(|line| line.strip_prefix("The demo project is kept in "))
        .unwrap_or_else(|| panic!("no kept project named:\n{out}"));
    let kept = PathBuf::from(kept.trim());
    let page = kept.join(".claude/claude-auto-review/report.html");
    assert!(
        section(&out, "11").contains(&format!("the report: {}", page.display())),
        "{out}"
    );
    assert!(page.is_file(), "{}", page.display());
    assert!(
        kept.join(".claude/claude-auto-review/lessons.json")
            .is_file(),
        "{}",
        kept.display()
    );
    std::fs::remove_dir_all(&kept).unwrap();
}

#[test]
fn the_demo_refuses_an_unknown_option() {
    let (_, err, code) = demo(&["--fast"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown option --fast"), "{err}");
}
