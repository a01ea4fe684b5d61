//! `car deep-review run` through the binary with a scripted reviewer: the verdict comes from the
//! findings, every way of not reviewing is STOPPED (exit 2) with its reason, and the prompt holds
//! the diff limited to `--paths`, the context file, the focus words and the lessons' pitfalls.

use serde_json::json;

use crate::deep_review_helpers::*;
use crate::review_helpers::{FakeClis, set_settings};

#[test]
fn only_minor_findings_pass() {
    let deep = Deep::new();
    let mut vague = fx_finding("F2", "P1", 2, "Something is off");
    vague["wrong_output"] = json!("may cause issues");
    deep.reviewer.answer_always(
        &findings(&[
            fx_finding("F1", "P3", 1, "Name the rate rate_per_usd"),
            vague,
        ])
        .to_string(),
    );
    let run = deep.run(&["run", "none", "--base", "HEAD"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("deep_review_pass_json", run.stdout.trim());
    insta::assert_snapshot!(
        "deep_review_pass_summary",
        redact_commits(run.stderr.trim())
    );
}

#[test]
fn a_p1_fails_even_when_the_model_says_pass() {
    let deep = Deep::new();
    let mut answer = findings(&[
        fx_finding("F1", "P1", 2, "Multiplies by the rate"),
        fx_finding("F2", "P3", 1, "Name the rate"),
    ]);
    answer["verdict"] = json!("PASS");
    deep.reviewer.answer_always(&answer.to_string());
    let run = deep.run(&["run", "none"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.status(), "FAIL");
    assert_eq!(run.json["blocking"], json!(["F1"]));
    assert_eq!(run.json["round"], 1);
    assert_eq!(
        run.json["findings"][0]["key"],
        "fx.py|multiplies by the rate"
    );
    assert!(
        run.stderr
            .contains("[P1] F1 fx.py:2: Multiplies by the rate")
    );
    assert!(
        run.stderr.contains("car deep-review fixed ID"),
        "{}",
        run.stderr
    );
    let contract = [
        "status",
        "reason",
        "round",
        "guard",
        "findings",
        "blocking",
        "escalated",
        "context",
    ];
    let keys: Vec<&String> = run.json.as_object().unwrap().keys().collect();
    assert_eq!(keys, contract, "the contract's fields, in order");
}

#[test]
fn missing_reviewer_cli_is_stopped() {
    let deep = Deep::new();
    set_settings(&deep.project, json!({}));
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    let run = deep.run_with_env(&["run", "none"], &[("PATH", &path)]);
    assert_stopped(&run, "the reviewer CLI `codex` is not on PATH");
    assert!(run.stderr.contains("deepReviewBackend"), "{}", run.stderr);
}

#[test]
fn missing_context_file_is_stopped_naming_where_it_looked() {
    let deep = Deep::new();
    let run = deep.run(&["run", "fx"]);
    assert_stopped(&run, "no context file \"fx\"");
    assert!(run.reason().contains(".claude/review-contexts/fx.md"));
    assert!(
        run.stderr.contains("car deep-review init fx"),
        "{}",
        run.stderr
    );
    assert_eq!(deep.reviewer.calls(), 0);
}

#[test]
fn invalid_ref_is_stopped() {
    let deep = Deep::new();
    assert_stopped(
        &deep.run(&["run", "none", "--base", "no-such-branch"]),
        "invalid ref \"no-such-branch\"",
    );
    assert_stopped(&deep.run(&["run", "none", "--base=-x"]), "invalid ref");
}

#[test]
fn empty_and_unparseable_answers_are_stopped() {
    let deep = Deep::new();
    deep.reviewer.answer_always("");
    assert_stopped(&deep.run(&["run", "none"]), "printed nothing");
    deep.reviewer.answer_always("LGTM, verdict: PASS");
    let run = deep.run(&["run", "none"]);
    assert_stopped(&run, "the reviewer's answer is unusable");
    assert!(
        run.reason().contains("round-1.answer.txt"),
        "{}",
        run.reason()
    );
    let status = deep.project.run(&["deep-review", "status"]);
    assert!(
        status.stdout.contains("no deep review has run"),
        "a stopped run uses no round: {status:?}"
    );
}

#[test]
fn a_timeout_is_stopped() {
    let deep = Deep::new();
    deep.reviewer.sleep();
    let started = std::time::Instant::now();
    let run = deep.run(&["run", "none", "--timeout", "1"]);
    assert_stopped(&run, "did not answer within 1 s");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(run.stderr.contains("--timeout SECONDS"), "{}", run.stderr);
}

#[test]
fn an_empty_diff_is_stopped_unless_skipping_is_allowed() {
    let deep = Deep::new();
    deep.project.commit_all();
    assert_stopped(
        &deep.run(&["run", "none"]),
        "nothing to review: no change against",
    );
    let skipped = deep.run(&["run", "none", "--allow-skipped"]);
    assert_eq!(skipped.code, 0, "{skipped:?}");
    assert_eq!(skipped.status(), "PASS");
    assert_eq!(skipped.reason(), "nothing to review");
    assert_eq!(deep.reviewer.calls(), 0);
}

#[test]
fn manual_is_refused_with_a_hint() {
    let deep = Deep::new();
    set_settings(&deep.project, json!({"reviewerBackend": "manual"}));
    let run = deep.run(&["run", "none"]);
    assert_stopped(&run, "\"manual\"");
    assert!(
        run.stderr.contains("hint: set \"deepReviewBackend\""),
        "{}",
        run.stderr
    );
}

#[test]
fn fail_open_exits_zero_but_stays_stopped() {
    let deep = Deep::new();
    deep.reviewer.answer_always("");
    let run = deep.run(&["run", "none", "--fail-open"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.status(), "STOPPED");
    assert!(
        run.stderr.contains("warning: no deep review happened"),
        "{}",
        run.stderr
    );
}

#[test]
fn paths_keep_other_files_out_of_the_prompt() {
    let deep = Deep::new();
    deep.project
        .write("src/report.py", "print('untracked and unrelated')\n");
    deep.project.write("notes/todo.md", "- ship it\n");
    let run = deep.run(&["run", "none", "--paths", "*.py", "--paths", "notes/"]);
    assert_eq!(run.code, 0, "{run:?}");
    let prompt = deep.reviewer.prompt(1);
    assert!(prompt.contains("### fx.py\n") && prompt.contains("+    return amount * rate_per_usd"));
    assert!(
        prompt.contains("### src/report.py (new)"),
        "untracked files are part of the change"
    );
    assert!(
        prompt.contains("### notes/todo.md (new)"),
        "a folder means everything in it"
    );
    assert!(!prompt.contains(".claude/settings.json"));
    let limited = deep.run(&["run", "none", "--paths", "src/**"]);
    assert_eq!(limited.code, 0);
    let prompt = deep.reviewer.prompt(2);
    assert!(prompt.contains("### src/report.py"), "{prompt}");
    assert!(
        !prompt.contains("fx.py") && !prompt.contains("todo.md"),
        "{prompt}"
    );
    assert!(prompt.contains("limited to src/**"));
}

#[test]
fn context_file_and_focus_words_reach_the_prompt() {
    let deep = Deep::new();
    deep.project.write(
        ".claude/review-contexts/fx.md",
        "# Review context: fx\nRates are quoted per USD: divide local amounts by the rate.\n",
    );
    let run = deep.run(&["run", "fx.md", "rate", "direction"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json["context"],
        json!({"name": "fx", "file": ".claude/review-contexts/fx.md"})
    );
    let prompt = deep.reviewer.prompt(1);
    assert!(
        prompt.contains("## Domain context (.claude/review-contexts/fx.md)"),
        "{prompt}"
    );
    assert!(prompt.contains("divide local amounts by the rate"));
    assert!(prompt.contains("Look hardest at: rate direction"));
    assert!(prompt.contains("must name the specific wrong output"));

    // `car status` names the context files, the deep reviewer and the loop's state.
    let status = deep.project.run(&["status"]);
    for line in [
        "deep review\n  reviewer: command\n  context files: fx\n",
        "  fx: ended with PASS in round 1",
    ] {
        assert!(status.stdout.contains(line), "{line}\n{}", status.stdout);
    }
    let json: serde_json::Value =
        serde_json::from_str(&deep.project.run(&["status", "--json"]).stdout).unwrap();
    assert_eq!(
        json["deep_review"],
        json!({"backend": "command", "missing_cli": null, "contexts": ["fx"],
               "rounds": [{"context": "fx", "round": 1, "closed": "PASS"}]})
    );
}

#[test]
fn a_context_in_the_home_folder_is_found_after_the_project() {
    let deep = Deep::new();
    let dir = deep.project.home().join(".claude/review-contexts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("units.md"),
        "Distances are in metres, never feet.\n",
    )
    .unwrap();
    let run = deep.run(&["run", "units"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(deep.reviewer.prompt(1).contains("never feet"));
}

#[test]
fn lesson_warnings_of_the_changed_lines_are_known_pitfalls() {
    let deep = Deep::new();
    let added = deep.project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "amount * rate",
        // Any `rate…` name: a substring, not a whole identifier.
        "--substring",
        "--lesson",
        "rates are quoted per USD: divide, never multiply",
        "--weight",
        "5",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    deep.project.commit_all();
    deep.edit("def to_usd(amount, rate_per_usd):\n    return round(amount * rate_per_usd, 2)\n");
    let run = deep.run(&["run", "none", "--base", "HEAD"]);
    assert_eq!(run.code, 0, "{run:?}");
    let prompt = deep.reviewer.prompt(1);
    assert!(prompt.contains("## Known pitfalls to verify"), "{prompt}");
    assert!(prompt.contains("rates are quoted per USD: divide, never multiply at fx.py:2"));
    let lessons = deep.project.run(&["lessons", "list", "--json"]);
    assert!(
        lessons.stdout.contains("\"hits\": 0"),
        "a deep review records no hit: {}",
        lessons.stdout
    );
}

#[test]
fn codex_is_the_default_reviewer_read_only_with_the_schema() {
    let deep = Deep::new();
    set_settings(&deep.project, json!({}));
    let fakes = FakeClis::new();
    fakes.answer(r#"{"findings": [], "known_limits": []}"#);
    let run = deep.run_with_env(&["run", "none"], &[("PATH", &fakes.path_env())]);
    assert_eq!(run.code, 0, "{run:?}");
    let argv = fakes.argv("codex");
    assert_eq!(
        &argv[..4],
        ["exec", "--sandbox", "read-only", "--skip-git-repo-check"]
    );
    let schema = &argv[argv
        .iter()
        .position(|arg| arg == "--output-schema")
        .unwrap()
        + 1];
    assert!(
        schema.ends_with("deep-review/none/round-1.schema.json"),
        "{schema}"
    );
    assert_eq!(fakes.nested("codex"), "1");
    assert!(
        fakes
            .stdin("codex")
            .contains("+    return amount * rate_per_usd")
    );
}

#[test]
fn init_writes_the_template_and_lists_it_once_in_claude_md() {
    let deep = Deep::new();
    deep.project.write(
        "CLAUDE.md",
        "# Project\n\n## Active review contexts\n- `units.md` — units\n\n## Style\nShort.\n",
    );
    let first = deep.project.run(&[
        "deep-review",
        "init",
        "fx",
        "--description",
        "currency conversion",
    ]);
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.stdout.trim(), ".claude/review-contexts/fx.md");
    let template = deep.project.read(".claude/review-contexts/fx.md");
    for section in [
        "## Domain",
        "## Units and conversions",
        "## Invariants",
        "## Known pitfalls",
        "## Data contracts",
        "## What a wrong output looks like",
    ] {
        assert!(template.contains(section), "{section} missing");
    }
    assert_eq!(
        deep.project.read("CLAUDE.md"),
        "# Project\n\n## Active review contexts\n- `units.md` — units\n- `fx.md` — currency conversion\n\n## Style\nShort.\n"
    );
    let again = deep.project.run(&["deep-review", "init", "fx"]);
    assert_eq!(again.code, 0);
    assert!(
        again.stderr.contains("already lists `fx.md`"),
        "{}",
        again.stderr
    );
    assert_eq!(deep.project.read("CLAUDE.md").matches("`fx.md`").count(), 1);
    let refused = deep.project.run(&["deep-review", "init", "../x"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    let reviewed = deep.run(&["run", "fx"]);
    assert_eq!(reviewed.code, 0, "the new context is found: {reviewed:?}");
}

#[test]
fn the_plugin_ships_a_deep_review_command() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/deep-review.md");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("---\n"), "front matter first");
    assert!(text.contains("car deep-review run $ARGUMENTS"), "{text}");
}

#[test]
fn outside_git_is_stopped() {
    let project = crate::support::TestProject::plain();
    let run = project.run(&["deep-review", "run", "none"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stdout.contains("not a git repository"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_shipped_example_context_is_the_documented_one_and_reaches_the_prompt() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = root.join("examples/review-contexts/cost-fx.md");
    let text = std::fs::read_to_string(&example).unwrap();
    let page = std::fs::read_to_string(root.join("docs/deep-review.md")).unwrap();
    assert!(
        page.contains(&format!("```markdown\n{text}```")),
        "docs/deep-review.md and the example drifted apart"
    );
    let deep = Deep::new();
    let run = deep.run(&["run", &example.display().to_string()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json["context"]["name"], "cost-fx");
    assert!(
        deep.reviewer
            .prompt(1)
            .contains("Multiplied by the rate: 359,190 instead of 3.81.")
    );
}

#[test]
fn claude_and_opencode_review_too() {
    let deep = Deep::new();
    let fakes = FakeClis::new();
    let answer = findings(&[fx_finding("F1", "P1", 2, "Multiplies by the rate")]);
    set_settings(
        &deep.project,
        json!({"reviewerBackend": "manual", "deepReviewBackend": "claude"}),
    );
    let envelope = json!({"type": "result", "is_error": false, "result": answer.to_string()});
    fakes.answer(&envelope.to_string());
    let run = deep.run_with_env(&["run", "none"], &[("PATH", &fakes.path_env())]);
    assert_eq!((run.code, run.status()), (1, "FAIL"), "{run:?}");
    assert_eq!(
        &fakes.argv("claude")[..4],
        ["-p", "--output-format", "json", "--allowedTools"]
    );
    set_settings(&deep.project, json!({"deepReviewBackend": "opencode"}));
    fakes.answer(&format!("Reviewed the diff.\n{answer}\nDone."));
    let run = deep.run_with_env(&["run", "none"], &[("PATH", &fakes.path_env())]);
    assert_eq!(run.json["round"], 2, "{run:?}");
    assert_eq!(&fakes.argv("opencode")[..3], ["run", "--agent", "plan"]);
    assert!(
        fakes
            .stdin("opencode")
            .contains("+    return amount * rate_per_usd")
    );
}

#[test]
fn cars_own_files_stay_out_of_the_diff_unless_named() {
    let deep = Deep::new();
    let init = deep.project.run(&["deep-review", "init", "fx"]);
    assert_eq!(init.code, 0, "{init:?}");
    deep.project.write(
        ".claude/review-contexts/fx.md",
        "# Review context: fx\nRates are quoted per USD.\n",
    );
    deep.project.write(
        ".claude/settings.json",
        &format!(
            "{}\n",
            json!({"claude-auto-review": {"reviewerBackend": "command",
                "reviewerCommand": [deep.reviewer.path("reviewer")], "maxStopPasses": 4}})
        ),
    );
    let run = deep.run(&["run", "fx"]);
    assert_eq!(run.code, 0, "{run:?}");
    let prompt = deep.reviewer.prompt(1);
    assert!(prompt.contains("### fx.py"), "{prompt}");
    for own in [
        "### CLAUDE.md",
        "### .claude/settings.json",
        "### .claude/review-contexts",
    ] {
        assert!(
            !prompt.contains(own),
            "{own} went to the reviewer:\n{prompt}"
        );
    }
    assert!(
        run.stderr.contains(
            "left out car's own files: .claude/review-contexts/fx.md, .claude/settings.json, \
             CLAUDE.md (name them in --paths to review them)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("unfilled template"),
        "a filled context draws no warning: {}",
        run.stderr
    );

    // Named, they are reviewed; a glob that happens to match them is not a name.
    let named = deep.run(&["run", "fx", "--paths", "CLAUDE.md", "--paths", "*.py"]);
    assert_eq!(named.code, 0, "{named:?}");
    let prompt = deep.reviewer.prompt(2);
    assert!(prompt.contains("### CLAUDE.md (new)"), "{prompt}");
    assert!(!prompt.contains("### .claude/settings.json"), "{prompt}");
    let globbed = deep.run(&["run", "fx", "--paths", "*.md"]);
    assert_stopped(&globbed, "no change");
    assert!(
        globbed
            .reason()
            .contains("car's own files left out: .claude/review-contexts/fx.md, CLAUDE.md"),
        "{globbed:?}"
    );
}

#[test]
fn the_unfilled_template_is_named_when_it_is_the_context() {
    let deep = Deep::new();
    assert_eq!(deep.project.run(&["deep-review", "init", "fx"]).code, 0);
    let run = deep.run(&["run", "fx"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains(
            "warning: .claude/review-contexts/fx.md is the unfilled template from `car \
             deep-review init`: the reviewer got no domain knowledge"
        ),
        "{}",
        run.stderr
    );
    let template = deep.project.read(".claude/review-contexts/fx.md");
    deep.project.write(
        ".claude/review-contexts/fx.md",
        &template.replace(
            "What must always hold (totals add up, shares sum to 1, one row per key, no double counting).",
            "Every amount converts to USD exactly once.",
        ),
    );
    let partly = deep.run(&["run", "fx"]);
    assert!(
        !partly.stderr.contains("unfilled template"),
        "{}",
        partly.stderr
    );
    assert!(
        partly.stderr.contains(
            ".claude/review-contexts/fx.md still holds the template's placeholder under Domain, \
             Units and conversions, Known pitfalls, Data contracts, What a wrong output looks like"
        ),
        "{}",
        partly.stderr
    );
}
