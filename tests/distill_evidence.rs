//! `car lessons distill --dry-run` from evidence: the reviewer CLI sees what the scope's lessons and
//! candidates were learned from (bad and fixed text) and proposes one general rule; a proposal
//! survives only if it matches every bad example of what it replaces, no fixed example and no
//! file of the project.

use serde_json::{Value, json};

use crate::review_helpers::{FakeClis, set_settings};
use crate::support::TestProject;

const CANDIDATES: &str = ".claude/claude-auto-review/lesson_candidates.json";
const LESSONS: &str = ".claude/claude-auto-review/lessons.json";

fn evidence(bad: &str, fixed: &str) -> Value {
    json!([{"session": "s1", "file": "src/a.ts", "line": 3, "review": "R1", "finding": "F1",
            "bad": bad, "fixed": fixed, "at": 1_800_000_000}])
}

pub fn shell_evidence_project() -> TestProject {
    let project = TestProject::new();
    project.write("src/a.ts", "export const a = spawn(program, args);\n");
    project.write(
        "src/legacy.ts",
        "// runs through the shell on purpose\nexec(script);\n",
    );
    project.commit_all();
    let candidates: Vec<Value> = [
        (
            "shell: true",
            "spawn(cmd, { shell: true })",
            "spawn(program, args)",
        ),
        (
            "shell: 'bash'",
            "spawn(cmd, { shell: 'bash' })",
            "spawn(program, args)",
        ),
        (
            "shell: '/bin/sh'",
            "spawn(c, { shell: '/bin/sh' })",
            "spawn(program, args)",
        ),
        (
            "execSync(cmd",
            "execSync(cmd)",
            "execFileSync(program, args)",
        ),
        ("exec(script", "exec(script)", "execFile(program, args)"),
    ]
    .iter()
    .map(|(trigger, bad, fixed)| {
        json!({"scope": "*.ts", "trigger": trigger, "lesson": "no shell strings", "hits": 1,
               "source": "review", "learned_from": evidence(bad, fixed)})
    })
    .collect();
    project.write(
        CANDIDATES,
        &serde_json::to_string_pretty(&json!({"candidates": candidates})).unwrap(),
    );
    project
}

#[test]
fn the_reviewer_proposes_from_evidence_and_only_precise_rules_survive() {
    let project = shell_evidence_project();
    let shells = [
        "candidate:shell: true",
        "candidate:shell: 'bash'",
        "candidate:shell: '/bin/sh'",
    ];
    let answer = json!({"proposals": [
        {"triggers": ["regex:shell: (?:true|'[^']+')"], "lesson": "spawn programs with an argument list",
         "replaces": shells},
        {"triggers": ["regex:\\w+\\("], "lesson": "careful with calls", "replaces": shells},
        {"triggers": ["regex:spawn\\("], "lesson": "no spawn", "replaces": ["candidate:shell: true"]},
        {"triggers": ["regex:\\bexec\\(script"], "lesson": "no exec of a script", "replaces": ["candidate:exec(script"]},
        {"triggers": ["regex:\\bexecSync\\("], "lesson": "no execSync at all", "replaces": ["candidate:execSync(cmd"]},
        {"triggers": ["shell: true"], "lesson": "too narrow", "replaces": shells},
        {"triggers": ["regex:shell: (?:true|'[^']+')"], "lesson": "Check before editing.", "replaces": shells}
    ]});
    // Correct code the project holds: an execSync of a fixed command.
    project.write("src/cleanup.ts", "execSync(cleanupCommand);\n");
    let fakes = FakeClis::new();
    std::fs::write(fakes.path("answer.txt"), answer.to_string()).unwrap();
    set_settings(
        &project,
        json!({"reviewerBackend": "command", "reviewerCommand": [fakes.path("reviewer")]}),
    );
    let before = project.read(CANDIDATES);
    let run = project.run(&["lessons", "distill", "--dry-run", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["scopes"], json!(["*.ts"]));
    let kept = report["proposals"].as_array().unwrap();
    assert_eq!(kept.len(), 2, "{report:#}");
    assert_eq!(
        kept[0]["triggers"],
        json!(["regex:shell: (?:true|'[^']+')"])
    );
    // The committed `exec(script)` is a copy of the candidate's mistake: evidence, not a refusal.
    assert_eq!(kept[1]["triggers"], json!(["regex:\\bexec\\(script"]));
    let reasons: Vec<&str> = report["discarded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert!(reasons[0].contains("is generic"), "{reasons:?}");
    assert!(
        reasons[1].contains("matches \"spawn(program, args)\", a fixed example of *.ts"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].contains("fires on src/cleanup.ts:1, a file of the project"),
        "{reasons:?}"
    );
    assert!(
        reasons[3].contains("does not match \"spawn(cmd, { shell: 'bash' })\""),
        "{reasons:?}"
    );
    assert!(reasons[4].contains("is generic advice"), "{reasons:?}");
    let asked = fakes.stdin("reviewer");
    assert!(asked.contains("Propose ONE more general rule"), "{asked}");
    assert!(
        asked.contains("\"fixed\"") && asked.contains("execFileSync(program, args)"),
        "the evidence is in the question: {asked}"
    );
    assert_eq!(project.read(CANDIDATES), before, "a dry run writes nothing");
    assert!(!project.exists(LESSONS));

    project.write(".claude/settings.json", "{}");
    let manual = project.run(&["lessons", "distill", "--dry-run"]);
    assert_eq!(manual.code, 0, "{manual:?}");
    assert!(
        manual.stderr.contains("no reviewer CLI is configured"),
        "{manual:?}"
    );
    assert!(manual.stdout.contains("no proposals"), "{manual:?}");
}

/// Issue "The gate and the lesson commands tell the truth", item 4: five hand-added
/// `DankeTheme.*` lessons without examples made the deterministic path propose
/// `DankeTheme\.\w+Text`, which fires on any valid use the project does not hold yet, and a
/// reviewer's proposal saying only "Check before editing." was kept. Proposals are verified as
/// learned lessons are: nothing to check against is a discard, and so is generic advice.
#[test]
fn distill_keeps_only_what_it_can_verify_and_what_says_something() {
    let project = TestProject::new();
    project.write("ios/Card.swift", "let color = 0\n");
    project.commit_all();
    for name in ["secondary", "primary", "tertiary", "accent", "muted"] {
        let run = project.run(&[
            "lessons",
            "add",
            "--scope",
            "*.swift",
            "--trigger",
            &format!("DankeTheme.{name}Text"),
            "--lesson",
            &format!("DankeTheme.{name}Text does not exist"),
        ]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let answer = json!({"proposals": [
        {"triggers": ["regex:DankeTheme\\.(?:secondary|primary|tertiary|accent|muted)Text"],
         "lesson": "Check before editing.", "replaces": []}
    ]});
    let fakes = FakeClis::new();
    std::fs::write(fakes.path("answer.txt"), answer.to_string()).unwrap();
    set_settings(
        &project,
        json!({"reviewerBackend": "command", "reviewerCommand": [fakes.path("reviewer")]}),
    );
    let run = project.run(&["lessons", "distill", "--dry-run", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["proposals"], json!([]), "{report:#}");
    let reasons: Vec<&str> = report["discarded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("nothing to check it against")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("is generic advice")),
        "{reasons:?}"
    );
}
