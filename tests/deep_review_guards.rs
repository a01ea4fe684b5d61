//! The six convergence guards of `car deep-review run`, each in a scenario of its own, with the
//! round state commands (`fixed`, `challenge`, `status`, `reset`) that feed them.

use serde_json::json;

use crate::deep_review_helpers::*;

fn p1(id: &str, title: &str) -> serde_json::Value {
    fx_finding(id, "P1", 2, title)
}

#[test]
fn guard_1_no_blocking_finding_passes() {
    let deep = Deep::new();
    deep.reviewer
        .answer_always(&findings(&[fx_finding("F1", "P3", 1, "Name it")]).to_string());
    let run = deep.run(&["run", "none"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (0, "PASS", "no_blocking"),
        "{run:?}"
    );
    assert_eq!(run.json["blocking"], json!([]));
}

#[test]
fn guard_2_a_fixed_finding_reported_again_is_stuck() {
    let deep = Deep::new();
    deep.reviewer
        .answer(1, &findings(&[p1("F1", "Multiplies by the rate")]));
    // Round 2: the same finding under another id (identity is file + normalised title).
    deep.reviewer
        .answer(2, &findings(&[p1("F7", "multiplies  by the RATE")]));
    assert_eq!(deep.run(&["run", "none"]).code, 1);
    let fixed = deep.project.run(&["deep-review", "fixed", "F1"]);
    assert_eq!(fixed.code, 0, "{fixed:?}");
    deep.edit("def to_usd(amount, rate_per_usd):\n    return amount * rate_per_usd * 1.0\n");
    let run = deep.run(&["run", "none"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "stuck"),
        "{run:?}"
    );
    assert_eq!(run.json["escalated"][0]["id"], "F7");
    assert_eq!(
        run.json["escalated"][0]["author"],
        "marked fixed in round 1"
    );
    assert!(deep.reviewer.prompt(2).contains("## Findings the author reports fixed\nCheck that each fix holds:\n- F1 (round 1): Multiplies by the rate"));
}

#[test]
fn guard_3_a_challenged_finding_reported_again_is_a_dispute_with_both_sides() {
    let deep = Deep::new();
    deep.reviewer
        .answer_always(&findings(&[p1("F1", "Multiplies by the rate")]).to_string());
    assert_eq!(deep.run(&["run", "none"]).code, 1);
    let reason = "rates in this table are quoted as USD per unit of local currency";
    let challenged = deep
        .project
        .run(&["deep-review", "challenge", "F1", "--reason", reason]);
    assert_eq!(challenged.code, 0, "{challenged:?}");
    deep.edit("def to_usd(amount, rate_per_usd):\n    # USD per local unit\n    return amount * rate_per_usd\n");
    let run = deep.run(&["run", "none"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "dispute"),
        "{run:?}"
    );
    assert!(
        deep.reviewer
            .prompt(2)
            .contains(&format!("author: {reason}")),
        "the reason goes into the next prompt"
    );
    insta::assert_snapshot!("deep_review_dispute_json", run.stdout.trim());
    assert!(
        run.stderr
            .contains(&format!("author: challenged in round 1: {reason}")),
        "{}",
        run.stderr
    );
}

#[test]
fn guard_4_the_same_blocking_set_on_an_unchanged_diff_is_no_progress() {
    let deep = Deep::new();
    deep.reviewer
        .answer_always(&findings(&[p1("F1", "Multiplies by the rate")]).to_string());
    assert_eq!(deep.run(&["run", "none", "--max-rounds", "5"]).code, 1);
    deep.edit("def to_usd(amount, rate_per_usd):\n    return rate_per_usd * amount\n");
    let changed = deep.run(&["run", "none", "--max-rounds", "5"]);
    assert_eq!(
        (changed.code, changed.guard()),
        (1, "null"),
        "a changed diff is progress: {changed:?}"
    );
    let run = deep.run(&["run", "none", "--max-rounds", "5"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "no_progress"),
        "{run:?}"
    );
    assert!(
        run.reason()
            .contains("the same 1 blocking finding as round 2"),
        "{}",
        run.reason()
    );
}

#[test]
fn guard_5_blocking_findings_growing_two_rounds_in_a_row_diverge() {
    let deep = Deep::new();
    deep.reviewer.answer(1, &findings(&[p1("F1", "A")]));
    deep.reviewer
        .answer(2, &findings(&[p1("F1", "B"), p1("F2", "C")]));
    deep.reviewer
        .answer(3, &findings(&[p1("F1", "D"), p1("F2", "E"), p1("F3", "F")]));
    for round in 1..=2 {
        assert_eq!(deep.run(&["run", "none", "--max-rounds", "5"]).code, 1);
        deep.edit(&format!("{FX_CHANGED}# round {round}\n"));
    }
    let run = deep.run(&["run", "none", "--max-rounds", "5"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "diverging"),
        "{run:?}"
    );
    assert!(run.reason().contains("(1 → 2 → 3)"), "{}", run.reason());
    assert_eq!(run.json["escalated"].as_array().unwrap().len(), 3);
}

#[test]
fn guard_6_the_round_cap_escalates_and_the_next_run_starts_over() {
    let deep = Deep::new();
    deep.reviewer.answer(1, &findings(&[p1("F1", "A")]));
    deep.reviewer.answer(2, &findings(&[p1("F1", "B")]));
    deep.reviewer
        .answer_always(&findings(&[p1("F1", "C")]).to_string());
    assert_eq!(deep.run(&["run", "none", "--max-rounds", "2"]).code, 1);
    deep.edit(&format!("{FX_CHANGED}# tried\n"));
    let run = deep.run(&["run", "none", "--max-rounds", "2"]);
    assert_eq!(
        (run.code, run.status(), run.guard()),
        (3, "ESCALATE", "round_cap"),
        "{run:?}"
    );
    assert!(run.reason().contains("round 2 of 2"), "{}", run.reason());
    let closed = deep.project.run(&["deep-review", "fixed", "F1"]);
    assert_eq!(closed.code, 2, "the loop ended: {closed:?}");
    assert!(
        closed.stderr.contains("ended with ESCALATE in round 2"),
        "{}",
        closed.stderr
    );
    let next = deep.run(&["run", "none", "--max-rounds", "2"]);
    assert_eq!(
        (next.code, next.json["round"].as_u64()),
        (1, Some(1)),
        "a new loop: {next:?}"
    );
}

#[test]
fn status_shows_the_rounds_and_reset_forgets_them() {
    let deep = Deep::new();
    deep.reviewer
        .answer_always(&findings(&[p1("F1", "Multiplies by the rate")]).to_string());
    assert_eq!(deep.run(&["run", "none"]).code, 1);
    let unknown = deep.project.run(&["deep-review", "fixed", "F9"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no finding \"F9\" in round 1"),
        "{}",
        unknown.stderr
    );
    let empty_reason = deep
        .project
        .run(&["deep-review", "challenge", "F1", "--reason", " "]);
    assert_eq!(empty_reason.code, 2);
    deep.project.run(&["deep-review", "fixed", "F1"]);
    let status = deep.project.run(&["deep-review", "status"]);
    assert_eq!(
        status.stdout,
        "deep review none: open after round 1\n  round 1: FAIL, 1 blocking of 1 finding\n  blocking: [P1] F1 fx.py:2: Multiplies by the rate\n  fixed: F1 (round 1): Multiplies by the rate\n"
    );
    let json = deep.project.run(&["deep-review", "status", "--json"]);
    let state: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        state["contexts"][0]["prev_blocking_ids"],
        json!(["fx.py|multiplies by the rate"])
    );
    assert_eq!(
        state["contexts"][0]["attempted_fixes"][0]["key"],
        "fx.py|multiplies by the rate"
    );
    let reset = deep.project.run(&["deep-review", "reset"]);
    assert!(
        reset
            .stderr
            .contains("reset the deep review of none (1 round forgotten)"),
        "{reset:?}"
    );
    let after = deep.project.run(&["deep-review", "status"]);
    assert_eq!(
        after.stdout.trim(),
        "no deep review has run in this project"
    );
}
