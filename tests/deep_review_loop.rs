//! `car deep-review loop`: a scripted fixer gets the fix request (blocking findings only) on
//! stdin, and the loop runs until PASS, ESCALATE or STOPPED.

use crate::deep_review_helpers::*;

/// Reviews `fx.py`: a P1 while it multiplies, plus a P3 every time.
const DOMAIN_REVIEWER: &str = r#"#!/bin/sh
dir=$(dirname "$0")
cat > "$dir/last-prompt"
if grep -q 'amount \* rate' fx.py; then
  cat "$dir/p1-answer"
else
  cat "$dir/p3-answer"
fi
"#;

/// Divides instead of multiplying (and rounds to cents), and records its argv and stdin.
const GOOD_FIXER: &str = r#"#!/bin/sh
dir=$(dirname "$0")
printf '%s\n' "$@" > "$dir/fixer.argv"
cat > "$dir/fixer.stdin"
sed -i 's/amount \* rate_per_usd/round(amount \/ rate_per_usd, 2)/' fx.py
echo "Fixed F1."
"#;

/// Changes something unrelated and challenges nothing.
const USELESS_FIXER: &str = r##"#!/bin/sh
dir=$(dirname "$0")
cat >> "$dir/fixer.stdin"
echo "# touched" >> fx.py
"##;

fn setup(fixer: &str) -> (Deep, String) {
    let deep = Deep::new();
    let reviewer = deep.reviewer.write_executable("reviewer", DOMAIN_REVIEWER);
    assert!(reviewer.exists());
    let p1 = findings(&[
        fx_finding("F1", "P1", 2, "Multiplies by the rate"),
        fx_finding("F2", "P3", 1, "Rename rate_per_usd"),
    ]);
    std::fs::write(deep.reviewer.path("p1-answer"), p1.to_string()).unwrap();
    let p3 = findings(&[fx_finding("F1", "P3", 1, "Rename rate_per_usd")]);
    std::fs::write(deep.reviewer.path("p3-answer"), p3.to_string()).unwrap();
    let fixer = deep.reviewer.write_executable("fixer", fixer);
    (deep, fixer.display().to_string())
}

#[test]
fn the_loop_drives_a_fixer_to_pass() {
    let (deep, fixer) = setup(GOOD_FIXER);
    let run = deep.run(&["loop", "none", "--fixer", &fixer, "-p", "--model", "sonnet"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (0, "PASS", "no_blocking"),
        "{run:?}"
    );
    assert_eq!(run.json["round"], 2);
    assert!(
        deep.project
            .read("fx.py")
            .contains("round(amount / rate_per_usd, 2)")
    );
    let argv = std::fs::read_to_string(deep.reviewer.path("fixer.argv")).unwrap();
    assert_eq!(
        argv, "-p\n--model\nsonnet\n",
        "everything after --fixer is its argv"
    );
    let request = std::fs::read_to_string(deep.reviewer.path("fixer.stdin")).unwrap();
    assert!(
        request.contains("- [P1] F1 fx.py:2: Multiplies by the rate"),
        "{request}"
    );
    assert!(
        !request.contains("Rename rate_per_usd"),
        "a P3 never reaches the fixer: {request}"
    );
    assert!(request.contains("regression test"));
    assert!(run.stderr.contains("fixer: fixed F1"), "{}", run.stderr);
    let prompt = std::fs::read_to_string(deep.reviewer.path("last-prompt")).unwrap();
    assert!(
        prompt.contains("- F1 (round 1): Multiplies by the rate"),
        "round 2 verifies the fix"
    );
}

#[test]
fn a_fix_that_undoes_the_whole_change_leaves_nothing_to_review() {
    let (deep, fixer) = setup("#!/bin/sh\ncat > /dev/null\ngit checkout -q -- fx.py\n");
    let run = deep.run(&["loop", "none", "--fixer", &fixer]);
    assert_eq!((run.code, run.status()), (0, "PASS"), "{run:?}");
    assert!(
        run.reason()
            .starts_with("nothing left to review: the change reviewed in round 1 is gone"),
        "{}",
        run.reason()
    );
    let again = deep.run(&["run", "none"]);
    assert_eq!(
        again.status(),
        "STOPPED",
        "the loop ended; a new empty diff is suspicious again"
    );
}

#[test]
fn the_loop_escalates_when_the_fix_does_not_hold() {
    let (deep, fixer) = setup(USELESS_FIXER);
    let run = deep.run(&["loop", "none", "--max-rounds", "3", "--fixer", &fixer]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "stuck"),
        "{run:?}"
    );
    assert_eq!(run.json["round"], 2);
    assert_eq!(
        run.json["escalated"][0]["author"],
        "marked fixed in round 1"
    );
}

#[test]
fn a_challenge_from_the_fixer_goes_to_the_next_prompt_and_then_to_a_human() {
    let challenger = r#"#!/bin/sh
cat > /dev/null
echo "CHALLENGE F1: rates here are USD per local unit, so multiplying is right"
"#;
    let (deep, fixer) = setup(challenger);
    let run = deep.run(&["loop", "none", "--fixer", &fixer]);
    assert_eq!((run.code, run.guard()), (3, "dispute"), "{run:?}");
    let prompt = std::fs::read_to_string(deep.reviewer.path("last-prompt")).unwrap();
    assert!(
        prompt.contains("author: rates here are USD per local unit"),
        "{prompt}"
    );
    assert!(
        run.json["escalated"][0]["author"]
            .as_str()
            .unwrap()
            .contains("multiplying is right")
    );
}

#[test]
fn a_failing_fixer_stops_the_loop() {
    let (deep, fixer) = setup("#!/bin/sh\ncat > /dev/null\necho 'not logged in' >&2\nexit 4\n");
    let run = deep.run(&["loop", "none", "--fixer", &fixer]);
    assert_stopped_keeping_findings(&run);
    assert!(
        run.reason().contains("failed (exit 4): not logged in"),
        "{}",
        run.reason()
    );
}

#[track_caller]
fn assert_stopped_keeping_findings(run: &DeepRun) {
    assert_eq!((run.code, run.status()), (2, "STOPPED"), "{run:?}");
    assert_eq!(
        run.json["blocking"],
        serde_json::json!(["F1"]),
        "what was found stays visible"
    );
}

/// The loop's state file of the `none` context.
fn loop_state(deep: &Deep) -> serde_json::Value {
    deep.project
        .read_json(".claude/claude-auto-review/deep-review/none/state.json")
}

#[test]
fn nothing_left_needs_the_loops_base_and_paths_else_the_loop_stays_open() {
    let deep = Deep::new();
    let p1 = findings(&[fx_finding("F1", "P1", 2, "Multiplies by the rate")]);
    deep.reviewer.answer_always(&p1.to_string());
    let failed = deep.run(&["run", "none", "--paths", "fx.py"]);
    assert_eq!((failed.code, failed.status()), (1, "FAIL"), "{failed:?}");

    // No change under other paths says nothing about the change the loop reviewed.
    let other = deep.run(&["run", "none", "--paths", "docs/**"]);
    assert_stopped(&other, "nothing to review: no change against");
    assert!(
        other.stderr.contains("the open loop's round 1 against")
            && other.stderr.contains("limited to fx.py stays open"),
        "{}",
        other.stderr
    );
    let skipped = deep.run(&["run", "none", "--paths", "docs/**", "--allow-skipped"]);
    assert_eq!(
        (skipped.code, skipped.status(), skipped.reason()),
        (0, "PASS", "nothing to review"),
        "{skipped:?}"
    );
    assert!(
        skipped.stderr.contains("the open loop stays open"),
        "{}",
        skipped.stderr
    );
    let state = loop_state(&deep);
    assert!(state["closed"].is_null(), "{state}");
    assert_eq!(state["round"], 1);
    assert_eq!(state["paths"], serde_json::json!(["fx.py"]));
    assert_eq!(deep.reviewer.calls(), 1, "no round was used");

    // The same base and the same paths with the change undone: the loop's change is gone.
    deep.edit(FX_COMMITTED);
    let gone = deep.run(&["run", "none", "--paths", "fx.py"]);
    assert_eq!((gone.code, gone.status()), (0, "PASS"), "{gone:?}");
    assert!(
        gone.reason()
            .starts_with("nothing left to review: the change reviewed in round 1 is gone"),
        "{}",
        gone.reason()
    );
    assert_eq!(loop_state(&deep)["closed"], "PASS");
}

#[test]
fn nothing_left_against_another_base_is_no_pass() {
    let deep = Deep::new();
    let p1 = findings(&[fx_finding("F1", "P1", 2, "Multiplies by the rate")]);
    deep.reviewer.answer_always(&p1.to_string());
    assert_eq!(deep.run(&["run", "none"]).status(), "FAIL");
    // Committed, the change is no longer in the diff against HEAD, but it is not gone.
    deep.project.commit_all();
    assert_stopped(
        &deep.run(&["run", "none"]),
        "nothing to review: no change against",
    );
    assert!(loop_state(&deep)["closed"].is_null());
    let again = deep.run(&["run", "none", "--base", "HEAD~1"]);
    assert_ne!(again.status(), "PASS", "{again:?}");
    assert_eq!(again.json["round"], 2, "the open loop goes on: {again:?}");
}
