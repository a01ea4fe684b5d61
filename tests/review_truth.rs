//! Truth at stop time, and the commands that show it: errors fixed by another tool, reverted and
//! deleted files, `car review status` agreeing with the gate, `submit`'s promise, `prompt` and
//! `cancel`; the classifier's offers and plans; a failing reviewer. Driven through `car hook stop`
//! with real payloads.

use serde_json::json;

use crate::review_helpers::*;
use crate::support::TestProject;

fn git(project: &TestProject, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(project.path())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn a_json_error_fixed_by_another_tool_does_not_block() {
    for project in [TestProject::new(), TestProject::plain()] {
        let reviewer = ScriptedReviewer::install(&project, json!({}));
        let broken = write_file(&project, "config/app.json", "{\"name\": \"demo\",}\n");
        assert!(broken.is_block(), "the edit hook reports it: {broken:?}");
        // The agent fixes it with sed through its Bash tool: no edit event.
        project.write("config/app.json", "{\"name\": \"demo\"}\n");
        assert_eq!(
            bash_ran(&project, "sed -i 's/,}/}/' config/app.json").code,
            0
        );
        let answer = stop_saying(&project, "Fixed the trailing comma. Done.");
        assert_eq!(answer.json, json!({}), "{answer:?}");
        assert_eq!(reviewer.calls(), 1, "the fixed version is reviewed");
        let validated: Vec<_> = events(&project, SESSION)
            .into_iter()
            .filter(|event| event["event"] == "validated")
            .collect();
        assert_eq!(validated.len(), 2, "validated again from disk at stop");
        assert_eq!(validated[1]["errors"], json!([]));
        assert_eq!(status_row(&project)["validator_errors"], json!([]));
    }
}

#[test]
fn an_error_still_on_disk_keeps_blocking_after_another_tool_touched_the_file() {
    let project = TestProject::new();
    ScriptedReviewer::install(&project, json!({}));
    write_file(&project, "config/app.json", "{\"name\": \"demo\",}\n");
    project.write("config/app.json", "{\"name\": \"demo\",\n}\n");
    let answer = stop_saying(&project, "Reformatted. Done.");
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains("config/app.json:2:1"),
        "the error as it is now: {}",
        answer.reason()
    );
}

#[test]
fn a_reverted_file_drops_out_and_status_agrees_with_the_gate() {
    let project = TestProject::new();
    project.write("a.py", "a = 1\n");
    project.write("b.py", "b = 1\n");
    project.commit_all();
    write_file(&project, "a.py", "a = 2\n");
    write_file(&project, "b.py", "b = 2\n");
    git(&project, &["checkout", "b.py"]);
    bash_ran(&project, "git checkout b.py");
    let row = status_row(&project);
    assert_eq!(row["changed_files"], 1, "{row}");
    assert_eq!(row["unreviewed"], json!(["a.py"]), "{row}");
    let answer = stop(&project);
    assert!(
        answer.reason().contains("(1 changed file: a.py)"),
        "{}",
        answer.reason()
    );
    assert_eq!(status_row(&project)["pending_review"], "R1");
}

#[test]
fn status_never_shows_an_older_request_pending() {
    let project = TestProject::new();
    write_file(&project, "a.py", "a = 1\n");
    assert!(stop(&project).reason().contains("review R1"));
    write_file(&project, "a.py", "a = 2\n");
    assert!(stop(&project).reason().contains("review R2"));
    assert_eq!(status_row(&project)["pending_review"], "R2");
    let run = submit(&project, &json!({"findings": []}));
    assert!(run.stderr.contains("recorded review R2"), "{run:?}");
    let row = status_row(&project);
    assert_eq!(row["pending_review"], serde_json::Value::Null, "{row}");
    let text = project.run(&["review", "status"]).stdout;
    assert!(!text.contains("pending review"), "{text}");
    assert_eq!(stop(&project).json, json!({}));
}

#[test]
fn a_bash_rm_of_a_file_an_earlier_session_edited_is_reviewed_as_a_deletion() {
    for committed in [true, false] {
        let project = TestProject::new();
        project.write("README.md", "demo\n");
        project.commit_all();
        let mut earlier: serde_json::Value = serde_json::from_str(&project.write_payload(
            "lib/helper.py",
            "def helper():\n    return 1\n",
            None,
        ))
        .unwrap();
        earlier["session_id"] = json!("earlier");
        assert_eq!(project.hook("post-tool-use", &earlier.to_string()).code, 0);
        if committed {
            project.commit_all();
        }
        write_file(&project, "main.py", "print(1)\n");
        std::fs::remove_file(project.path().join("lib/helper.py")).unwrap();
        bash_ran(&project, "rm lib/helper.py");
        let answer = stop(&project);
        let reason = answer.what_the_agent_reads();
        assert!(
            reason.contains("### lib/helper.py (deleted)"),
            "committed={committed}: {reason}"
        );
        if committed {
            assert!(reason.contains("-def helper():"), "{reason}");
        }
    }
}

#[test]
fn submit_never_promises_a_stop_that_validator_errors_will_block() {
    let project = TestProject::new();
    write_file(&project, "config/app.json", "{\"name\": \"demo\",}\n");
    assert!(stop(&project).is_block());
    let run = submit(&project, &json!({"findings": []}));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        !run.stderr.contains("will let the agent stop"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "fix the validator errors, which block the stop by themselves: config/app.json:1:"
        ),
        "{}",
        run.stderr
    );
    assert!(stop(&project).is_block(), "and the gate agrees");
    project.write("config/app.json", "{\"name\": \"demo\"}\n");
    let row = status_row(&project);
    assert_eq!(row["validator_errors"], json!([]), "{row}");
    assert_eq!(row["unreviewed"], json!(["config/app.json"]), "{row}");
}

#[test]
fn prompt_prints_the_pending_request_and_cancel_drops_it() {
    let project = TestProject::new();
    let none = project.run(&["review", "cancel"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr
            .contains("no session has a pending review request"),
        "{none:?}"
    );
    write_file(&project, "a.py", "a = 1\n");
    assert!(stop(&project).is_block());
    let prompt = project.run(&["review", "prompt"]);
    assert_eq!(prompt.code, 0, "{prompt:?}");
    let saved =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    assert_eq!(prompt.stdout.trim_end(), saved.trim_end());
    assert!(
        prompt
            .stderr
            .contains("car review submit --session test-session FILE")
    );
    let cancel = project.run(&["review", "cancel", "--session", SESSION]);
    assert_eq!(cancel.code, 0, "{cancel:?}");
    assert!(
        cancel
            .stderr
            .contains("cancelled review R1 of session test-session")
            && cancel.stderr.contains("1 changed file stay unreviewed"),
        "{}",
        cancel.stderr
    );
    let row = status_row(&project);
    assert_eq!(row["pending_review"], serde_json::Value::Null);
    assert_eq!(row["blocked_stops_in_a_row"], 0);
    let after = project.run(&["review", "prompt", "--session", SESSION]);
    assert_eq!(after.code, 2);
    assert!(
        after
            .stderr
            .contains("session test-session has no pending review request"),
        "{after:?}"
    );
    assert!(stop(&project).reason().contains("review R2"), "asked again");
}

#[test]
fn finished_work_followed_by_an_offer_is_reviewed() {
    let project = TestProject::new();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer
        .always(&json!({"findings": [finding("F1", "P1", "a.py", 1, "Loop skips the last row")]}));
    write_file(
        &project,
        "a.py",
        "for i in range(len(rows) - 1):\n    use(rows[i])\n",
    );
    let answer = stop_saying(
        &project,
        "Done: the loop now covers every row. Want me to also add a test?",
    );
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("[P1] F1 a.py:1"));
    assert_eq!(reviewer.calls(), 1);
    let classified = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "classifier_result")
        .unwrap();
    assert_eq!(classified["verdict"], "complete", "{classified}");
}

#[test]
fn a_plan_not_carried_out_postpones_and_session_end_names_the_pending_edits() {
    let project = TestProject::new();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    write_file(&project, "a.py", "a = 1\n");
    let answer = stop_saying(
        &project,
        "I read the loader. Next I will rewrite the cache.",
    );
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains("review postponed: car's built-in classifier judged the agent to be waiting for the user (its last message announces work it has not done yet (\"next i will\")); these changes stay pending: a.py"),
        "{answer:?}"
    );
    assert_eq!(reviewer.calls(), 0);
    let mut end = project.fixture_json("claude-session-end.json");
    end["session_id"] = json!(SESSION);
    let answer = project.hook("session-end", &end.to_string());
    assert!(
        answer
            .system_message()
            .contains("changes no review covered: a.py"),
        "{answer:?}"
    );
}

#[test]
fn a_failing_reviewer_never_tells_the_agent_to_review_itself() {
    let project = TestProject::new();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.fail(1, 3, "model overloaded");
    reviewer.fail(2, 3, "model overloaded");
    write_file(&project, "a.py", "a = 1\n");
    let answer = stop_saying(&project, "Done.");
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason().to_lowercase();
    assert!(reason.contains("model overloaded"), "{reason}");
    for forbidden in ["manual", "self-review", "review it yourself", "car config"] {
        assert!(!reason.contains(forbidden), "{forbidden:?} in {reason}");
    }
    assert!(
        answer
            .system_message()
            .contains("or choose another reviewer: car config --backend"),
        "the person gets the choice: {answer:?}"
    );
}

/// Files git ignores (build output, `.env`) are no part of any commit: an agent's writes to them
/// ask for no review, and their content never reaches the reviewer's prompt. `car review status`
/// agrees with the gate.
#[test]
fn git_ignored_files_are_not_reviewed_nor_sent_to_the_reviewer() {
    let project = TestProject::new();
    project.write(".gitignore", "dist/\n.env\n");
    project.commit_all();
    for (file, content) in [
        ("dist/bundle.js", "console.log('built');\n"),
        (".env", "API_KEY=car-secret-zz\n"),
    ] {
        let answer = project.hook("post-tool-use", &project.write_payload(file, content, None));
        assert_eq!(answer.code, 0, "{answer:?}");
    }
    let stop = |message: &str| {
        project.hook(
            "stop",
            &stop_payload(&project, "test-session", Some(message)),
        )
    };
    let answer = stop("Built the bundle and set the key. Done.");
    assert!(!answer.is_block(), "only ignored files changed: {answer:?}");

    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("src/app.py", "KEY_NAME = 'API_KEY'\n", None),
    );
    assert_eq!(answer.code, 0, "{answer:?}");
    let answer = stop("Read the key's name in the app. Done.");
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(reason.contains("(1 changed file: src/app.py)"), "{reason}");
    assert!(
        !reason.contains("car-secret-zz") && !reason.contains("dist/bundle.js"),
        "{reason}"
    );
    let status = project.run(&["review", "status", "--json"]);
    assert!(
        status.stdout.contains("src/app.py") && !status.stdout.contains("dist/bundle.js"),
        "{status:?}"
    );
}

#[test]
fn questions_to_the_person_and_unfinished_work_postpone_finished_turns_are_reviewed() {
    let waiting = [
        "Should I use A or B? Please decide.",
        "I added the endpoint. Should it return 404 or 410 for deleted items? Let me know.",
        "I'm not done yet; I still need to update the callers",
    ];
    let reviewed = [
        "Done. Any questions?",
        "All done — let me know if you want changes.",
        "Why did the loader crash? It read the file before checking it exists. load() now checks first.",
    ];
    for (message, is_waiting) in waiting
        .iter()
        .map(|message| (message, true))
        .chain(reviewed.iter().map(|message| (message, false)))
    {
        let project = TestProject::new();
        let reviewer = ScriptedReviewer::install(&project, json!({}));
        reviewer.always(&json!({"findings": [finding("F1", "P1", "a.py", 1, "Crash")]}));
        write_file(&project, "a.py", "a = 1\n");
        let answer = stop_saying(&project, message);
        assert_eq!(answer.is_block(), !is_waiting, "{message}: {answer:?}");
        assert_eq!(reviewer.calls(), usize::from(!is_waiting), "{message}");
        if is_waiting {
            assert!(
                answer.system_message().contains("review postponed"),
                "{message}: {answer:?}"
            );
        }
    }
}

/// Issue 39, item 3: the model classifier's postponement says what was decided and by whom (it
/// used to read "the agent's last message the reviewer model's answer").
#[test]
fn a_model_classifier_postponement_names_the_model_and_its_answer() {
    let project = TestProject::new();
    let reviewer = ScriptedReviewer::install(&project, json!({"classifierBackend": "model"}));
    std::fs::write(reviewer.dir.path().join("answer"), "INCOMPLETE\n").unwrap();
    write_file(&project, "a.py", "a = 1\n");
    let answer = stop_saying(&project, "I changed the loader. All done.");
    assert!(!answer.is_block(), "{answer:?}");
    let message = answer.system_message();
    assert!(
        message.contains(
            "car: review postponed: the classifier model (`reviewer`) judged the agent to be waiting for the user (it answered INCOMPLETE); these changes stay pending: a.py."
        ),
        "{message}"
    );
    assert!(reviewer.prompt(1).contains("Answer with exactly one word"));
    let result = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "classifier_result")
        .unwrap();
    assert_eq!(
        (&result["source"], &result["reason"]),
        (&json!("model"), &json!("answered INCOMPLETE"))
    );
}

/// Issue 39, item 6: a finding's `fix` is read as its `suggestion` (agents write either), and a
/// field the findings format does not have is named in the answer instead of dropped silently.
#[test]
fn submit_reads_fix_as_suggestion_and_names_unknown_fields() {
    let project = TestProject::new();
    write_file(&project, "a.py", "def load(path):\n    return None\n");
    assert!(stop_saying(&project, "Done.").is_block());
    let run = submit(
        &project,
        &json!({"findings": [
            {"id": "F1", "severity": "P1", "file": "a.py", "line": 2,
             "title": "Loader returns None",
             "wrong_output": "load('a.txt') returns None instead of the file's text",
             "fix": "return open(path).read()", "confidence": 0.9, "category": "bug"}]}),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains(
            "note: finding F1: fields \"category\", \"confidence\" ignored (a finding has id, severity, file, line, title, wrong_output, suggestion (or fix))"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("\"fix\""),
        "fix is read: {}",
        run.stderr
    );
    let completed = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "review_completed")
        .unwrap();
    assert_eq!(
        completed["findings"][0]["suggestion"], "return open(path).read()",
        "{completed}"
    );
    let blocked = stop_saying(&project, "Done.");
    assert!(
        blocked.reason().contains("return open(path).read()"),
        "the agent is told the fix: {}",
        blocked.reason()
    );
}
