//! The stop gate with the manual backend: every stage, driven through the binary. What the agent
//! is told is snapshotted (one review request in full, the others without the fixed rules and
//! answer format); the events and files each stage leaves are asserted.

use serde_json::json;

use crate::review_helpers::*;
use crate::support::HookAnswer;

#[test]
fn stop_without_edits_answers_empty_object_and_writes_nothing() {
    let project = pinned_project();
    let answer = project.hook("stop", &project.fixture("claude-stop.json"));
    assert_eq!(answer.code, 0);
    assert_eq!(answer.json, json!({}));
    assert!(!project.exists(".claude/claude-auto-review/clients"));
}

/// Many changed files: the reason names the first few and how many more (the saved request
/// names them all), so its size does not grow with the change.
#[test]
fn a_review_request_of_many_files_keeps_the_reason_short() {
    let project = pinned_project();
    for n in 0..40 {
        write_file(&project, &format!("src/module_{n:02}.py"), "VALUE = 1\n");
    }
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains("40 changed files: src/module_00.py, "),
        "{reason}"
    );
    assert!(reason.contains(" and 28 more)"), "{reason}");
    assert!(reason.len() < 900, "{} bytes: {reason}", reason.len());
    let request = answer.review_request();
    for n in 0..40 {
        assert!(
            request.contains(&format!("### src/module_{n:02}.py")),
            "{n}"
        );
    }
}

/// The agent runs car's commands through its own shell, whose PATH may not have car (Codex's
/// login shell resets it): a car installed outside a cargo build folder names itself by its
/// absolute path, one shell word even with a space in it, and the command it gives works.
#[test]
fn the_review_command_names_an_installed_car_by_its_path() {
    let project = pinned_project();
    write_file(&project, "src/app.py", "VALUE = 1\n");
    let program = project.home().join("my tools/car");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    // Copied by `cp`, so no file descriptor open for writing it is ever in this process, where a
    // test running beside this one could inherit it through a fork and make the exec fail with
    // "text file busy".
    let copied = std::process::Command::new("cp")
        .arg(assert_cmd::cargo::cargo_bin("car"))
        .arg(&program)
        .status()
        .unwrap();
    assert!(copied.success());
    let payload = stop_payload(&project, SESSION, Some("Done."));
    let output = assert_cmd::Command::from_std(project.car_std_at(&program))
        .args(["hook", "stop"])
        .write_stdin(payload)
        .output()
        .unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let reason = answer["reason"].as_str().unwrap_or_default();
    let quoted = format!("'{}'", program.canonicalize().unwrap().display());
    let submit = format!("{quoted} review submit --session {SESSION} -");
    assert!(reason.contains(&submit), "{reason}");
    let findings = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(findings.path(), r#"{"findings": []}"#).unwrap();
    let line = format!(
        "cd '{}' && {submit} < '{}'",
        project.path().display(),
        findings.path().display()
    );
    let mut shell = std::process::Command::new("sh");
    let shell = crate::support::isolate(&mut shell, project.home())
        .args(["-c", &line])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(
        shell.status.success(),
        "{}",
        String::from_utf8_lossy(&shell.stderr)
    );
    assert_eq!(stop(&project).json, json!({}));
}

#[test]
fn manual_review_blocks_with_request_then_submit_lets_the_agent_stop() {
    let project = pinned_project();
    write_file(
        &project,
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    // The reason is short (an agent puts it into its next request, Claude Code twice): what to
    // do, the command, where the request is saved, the changed files. The saved request holds
    // the rules, the session diff and the findings contract.
    let reason = answer.reason();
    assert!(reason.len() < 600, "{} bytes: {reason}", reason.len());
    assert!(!reason.contains("# Review rules"), "{reason}");
    let mut whole = answer.redacted(&project);
    whole["request"] = json!(answer.review_request());
    insta::assert_json_snapshot!("manual_review_request", whole);
    let prompt =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    assert!(prompt.contains("# Review rules"));
    assert_eq!(
        stages(&project, SESSION),
        [
            "enabled=yes",
            "changes=pending",
            "breaker=closed",
            "reuse=none",
            "review=requested"
        ]
    );
    let run = submit(&project, &json!({"findings": []}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("recorded review R1"), "{}", run.stderr);
    let answer = stop(&project);
    assert_eq!(answer.json, json!({}), "{answer:?}");
    let lifecycle = project.read(".claude/claude-auto-review/state.jsonl");
    let kinds: Vec<String> = lifecycle
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "review_requested",
            "stop_blocked",
            "review_completed",
            "stop_allowed"
        ]
    );
}

#[test]
fn blocking_findings_block_without_p3_and_defer_is_refused_for_p1() {
    let project = pinned_project();
    write_file(&project, "src/app.py", "def load(path):\n    return None\n");
    assert!(stop(&project).is_block());
    let findings = json!({"findings": [
        finding("F1", "P1", "src/app.py", 2, "Loader returns None"),
        finding("F2", "P2", "src/app.py", 1, "Reads whole file"),
        finding("F3", "P3", "src/app.py", 1, "Name path better"),
    ]});
    assert_eq!(submit(&project, &findings).code, 0);
    let answer = stop(&project);
    assert!(answer.is_block());
    // P1 and P2 with their wrong output; the P3 is never in a fix request.
    insta::assert_json_snapshot!("fix_request", answer.redacted(&project));
    let refused = project.run(&[
        "review",
        "defer",
        "F1",
        "--reason",
        "later",
        "--session",
        SESSION,
    ]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains("P1 can never be deferred"),
        "{}",
        refused.stderr
    );
    let deferred = project.run(&[
        "review",
        "defer",
        "F2",
        "--reason",
        "sensitivity-only rows",
        "--session",
        SESSION,
    ]);
    assert_eq!(deferred.code, 0, "{deferred:?}");
    let answer = stop(&project);
    assert!(answer.is_block());
    insta::assert_json_snapshot!("fix_request_after_deferral", answer.redacted(&project));
    // The agent fixes the file: a new review round is asked for, then passes.
    write_file(
        &project,
        "src/app.py",
        "def load(path):\n    with open(path) as f:\n        return f.read()\n",
    );
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("second_review_request", request_view(&answer, &project));
    let prompt =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R2.prompt.md");
    assert!(
        prompt.contains("Known limits") && prompt.contains("sensitivity-only rows"),
        "{prompt}"
    );
    submit(&project, &json!({"findings": []}));
    let answer = stop(&project);
    assert!(!answer.is_block());
    insta::assert_json_snapshot!(
        "allowed_with_offers_and_known_limits",
        answer.redacted(&project)
    );
}

#[test]
fn p3_offers_are_shown_once_and_listed_any_time() {
    let project = pinned_project();
    write_file(&project, "lib/util.py", "def f(x):\n    return x\n");
    stop(&project);
    submit(
        &project,
        &json!({"findings": [finding("F1", "P3", "lib/util.py", 1, "Name f better")]}),
    );
    let first = stop(&project);
    assert!(!first.is_block());
    insta::assert_json_snapshot!("p3_offers", first.redacted(&project));
    let second = stop(&project);
    assert_eq!(second.json, json!({}), "offers are shown once");
    let offers = project.run(&["review", "offers"]);
    assert_eq!(offers.code, 0);
    assert!(
        offers.stdout.contains("lib/util.py:1: Name f better"),
        "{offers:?}"
    );
    let listed = project.run(&["review", "offers", "--json", "--session", SESSION]);
    let value: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(value["offers"][0]["location"], "lib/util.py:1");
}

#[test]
fn vague_p1_is_downgraded_and_offered_instead_of_blocking() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    stop(&project);
    let vague = json!({"findings": [{"id": "F1", "severity": "P1", "file": "a.py", "line": 1,
        "title": "Might be wrong", "wrong_output": "may cause issues"}]});
    let run = submit(&project, &vague);
    assert!(
        run.stderr
            .contains("F1 does not block (shown to the person instead)"),
        "{}",
        run.stderr
    );
    let answer = stop(&project);
    assert!(!answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("vague_p1_offered", answer.redacted(&project));
}

#[test]
fn submitted_known_limit_for_a_p1_is_refused() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    stop(&project);
    let findings = json!({"findings": [finding("F1", "P1", "a.py", 1, "Crash")],
        "known_limits": [{"finding": "F1", "reason": "not now"}]});
    let run = submit(&project, &findings);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(!event_names(&project, SESSION).contains(&"review_completed".to_string()));
}

#[test]
fn stop_hook_active_still_rereviews_after_fixes() {
    let project = pinned_project();
    write_file(&project, "src/app.py", "v = 1\n");
    stop(&project);
    submit(
        &project,
        &json!({"findings": [finding("F1", "P1", "src/app.py", 1, "Wrong value")]}),
    );
    assert!(stop(&project).is_block());
    write_file(&project, "src/app.py", "v = 2\n");
    let mut payload = project.fixture_json("claude-stop-active.json");
    payload["session_id"] = json!(SESSION);
    let answer = project.hook("stop", &payload.to_string());
    assert!(
        answer.is_block(),
        "stop_hook_active does not end the loop: {answer:?}"
    );
    insta::assert_json_snapshot!("stop_hook_active_review", request_view(&answer, &project));
}

#[test]
fn breaker_releases_after_max_stop_passes_and_reuses_the_pending_request() {
    let project = pinned_project();
    set_settings(&project, json!({"maxStopPasses": 2}));
    write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    let second = stop(&project);
    assert!(second.is_block());
    assert!(stages(&project, SESSION).contains(&"reuse=pending request".to_string()));
    let third = stop(&project);
    assert!(!third.is_block(), "{third:?}");
    insta::assert_json_snapshot!(
        "breaker",
        json!({"reused request": request_view(&second, &project),
               "released": third.redacted(&project)})
    );
    assert!(stages(&project, SESSION).contains(&"breaker=breaker".to_string()));
    // The count starts again after an allowed stop; the edits are still pending.
    assert!(stop(&project).is_block());
}

/// Gemini CLI sends `stop_hook_active: false` on every AfterAgent in headless mode, even after
/// car blocked: car's own count of blocked stops ends the loop (maxStopPasses), not the flag.
#[test]
fn gemini_loops_end_by_cars_own_count_whatever_stop_hook_active_says() {
    const GEMINI: &str = "captured/gemini-cli-0.61.0";
    let project = pinned_project();
    set_settings(&project, json!({"maxStopPasses": 3}));
    project.write("app.py", "def load(path):\n    return 1\n");
    let mut write = project.fixture_json(&format!("{GEMINI}/01-AfterTool-write_file.json"));
    write["tool_input"]["content"] = json!("def load(path):\n    return 1\n");
    project.hook_as("gemini", "post-tool-use", &write.to_string());
    let after_agent = project.fixture(&format!("{GEMINI}/03-AfterAgent.json"));
    assert!(after_agent.contains("\"stop_hook_active\": false"));
    let answers: Vec<HookAnswer> = (0..4)
        .map(|_| project.hook_as("gemini", "stop", &after_agent))
        .collect();
    let held: Vec<bool> = answers.iter().map(HookAnswer::holds_back).collect();
    assert_eq!(held, [true, true, true, false], "{answers:?}");
    assert!(
        answers[3]
            .system_message()
            .contains("3 stops in a row were blocked (maxStopPasses 3)"),
        "{}",
        answers[3].stdout
    );
}

#[test]
fn no_progress_guard_allows_when_nothing_changed_and_findings_are_the_same() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    stop(&project);
    submit(
        &project,
        &json!({"findings": [finding("F1", "P2", "a.py", 1, "Slow path")]}),
    );
    assert!(stop(&project).is_block());
    let answer = stop(&project);
    assert!(!answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("no_progress", answer.redacted(&project));
    assert!(stages(&project, SESSION).contains(&"breaker=no_progress".to_string()));
}

#[test]
fn classifier_incomplete_allows_without_review_and_keeps_edits_pending() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    let payload = stop_payload(
        &project,
        SESSION,
        Some("I found two ways to do it. Should I use the cache or the database?"),
    );
    let answer = project.hook("stop", &payload);
    assert!(!answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("review_postponed", answer.redacted(&project));
    let names = event_names(&project, SESSION);
    assert!(names.contains(&"classifier_result".to_string()));
    assert!(!names.contains(&"review_requested".to_string()));
    let answer = stop(&project);
    assert!(answer.is_block(), "the edits stayed pending: {answer:?}");
}

#[test]
fn classifier_reads_the_transcript_when_the_payload_has_no_message() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    let transcript = project.write(
        "transcript.jsonl",
        concat!(
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done with step one."}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Should the migration keep the old records, or drop them?"}]}}"#,
            "\n"
        ),
    );
    let mut payload: serde_json::Value =
        serde_json::from_str(&stop_payload(&project, SESSION, None)).unwrap();
    payload["transcript_path"] = json!(transcript);
    let answer = project.hook("stop", &payload.to_string());
    assert!(!answer.is_block(), "{answer:?}");
    let classifier = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "classifier_result")
        .unwrap();
    assert_eq!(classifier["verdict"], "incomplete");
}

#[test]
fn unresolved_validator_errors_block_whatever_the_review_says() {
    let project = pinned_project();
    let answer = write_file(&project, "config/settings.json", "{\"name\": \"demo\",}\n");
    assert!(
        answer.is_block(),
        "the JSON validator reports the edit: {answer:?}"
    );
    let validated = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "validated")
        .unwrap();
    assert!(
        !validated["errors"].as_array().unwrap().is_empty(),
        "{validated}"
    );
    let request = stop(&project);
    // The validator errors come first, before the review request.
    insta::assert_json_snapshot!(
        "request_with_validator_errors",
        request_view(&request, &project)
    );
    let prompt =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    assert!(
        prompt.contains("validator error still present: config/settings.json:1:"),
        "{prompt}"
    );
    submit(&project, &json!({"findings": []}));
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    insta::assert_json_snapshot!("unresolved_validator_errors", answer.redacted(&project));
    // Fixing the file resolves the error; the new version is reviewed and the stop allowed.
    let answer = write_file(&project, "config/settings.json", "{\"name\": \"demo\"}\n");
    assert!(!answer.is_block(), "{answer:?}");
    assert!(stop(&project).is_block());
    submit(&project, &json!({"findings": []}));
    assert!(!stop(&project).is_block());
}

#[test]
fn disabled_gate_and_subagent_stop_allow() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    let mut subagent = project.fixture_json("claude-subagent-stop.json");
    subagent["session_id"] = json!(SESSION);
    assert_eq!(project.hook("stop", &subagent.to_string()).json, json!({}));
    set_settings(&project, json!({"enabled": false}));
    assert_eq!(stop(&project).json, json!({}));
    set_settings(&project, json!({"enabled": true}));
    assert!(
        stop(&project).is_block(),
        "settings are re-read on every call"
    );
}

#[test]
fn other_agents_get_their_own_block_shapes() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    let mut codex = project.fixture_json("codex-stop.json");
    codex["session_id"] = json!(SESSION);
    let codex_answer = project.hook("stop", &codex.to_string());
    let mut cursor = project.fixture_json("cursor-stop.json");
    cursor["conversation_id"] = json!(SESSION);
    let cursor_answer = project.hook("stop", &cursor.to_string());
    let gemini = json!({"session_id": SESSION, "cwd": project.path(), "hook_event_name": "AfterAgent",
        "prompt_response": "Done."});
    let gemini_answer = project.hook("stop", &gemini.to_string());
    // Codex blocks, Cursor follows up, Gemini denies: each with the same pending request.
    insta::assert_json_snapshot!(
        "other_agents_block_shapes",
        json!({"codex": request_view(&codex_answer, &project),
               "cursor": request_view(&cursor_answer, &project),
               "gemini": request_view(&gemini_answer, &project)})
    );
}

#[test]
fn lesson_warnings_feed_the_prompt_or_the_offer_list_by_weight() {
    let project = pinned_project();
    write_file(
        &project,
        "src/theme.swift",
        "let c = DankeTheme.secondaryText\n",
    );
    // What the edit hook records when lessons fire (the lesson engine is another module's).
    let warning = |id: &str, weight: u32, line: u32, lesson: &str| {
        json!({"lesson_id": id, "weight": weight, "lesson": lesson, "trigger": "DankeTheme.secondaryText",
               "file": "src/theme.swift", "line": line})
    };
    let event = json!({"ts": 2, "session": SESSION, "event": "lesson_warned", "file": "src/theme.swift",
        "warnings": [warning("L1", 5, 1, "The property is textSecondary"), warning("L2", 2, 1, "Prefer semantic colours")]});
    let log = project
        .path()
        .join(".claude/claude-auto-review/clients/test-session/events.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(&format!("{event}\n"));
    std::fs::write(&log, text).unwrap();
    // The lessons as the project's file holds them (a warning of a lesson removed since is not
    // offered).
    let lesson = |id: &str, weight: u32, text: &str| {
        json!({"id": id, "scope": "*.swift", "triggers": ["DankeTheme.secondaryText"],
               "lesson": text, "weight": weight})
    };
    project.write(
        ".claude/claude-auto-review/lessons.json",
        &json!({"lessons": [lesson("L1", 5, "The property is textSecondary"),
                            lesson("L2", 2, "Prefer semantic colours")]})
        .to_string(),
    );
    assert!(stop(&project).is_block());
    let prompt =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    assert!(
        prompt.contains("lesson (weight 5): The property is textSecondary at src/theme.swift:1"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("Prefer semantic colours"),
        "light lessons go to the offers: {prompt}"
    );
    submit(&project, &json!({"findings": []}));
    let answer = stop(&project);
    assert!(!answer.is_block());
    insta::assert_json_snapshot!("light_lesson_offered", answer.redacted(&project));
}

#[test]
fn real_lesson_hits_reach_the_prompt_and_the_offer_list() {
    let project = pinned_project();
    for (trigger, lesson, weight) in [
        (
            "DankeTheme.secondaryText",
            "The property is textSecondary",
            "5",
        ),
        (
            "legacyColor(",
            "Prefer semantic colours over legacyColor",
            "1",
        ),
    ] {
        let run = project.run(&[
            "lessons",
            "add",
            "--scope",
            "*.swift",
            "--trigger",
            trigger,
            "--lesson",
            lesson,
            "--weight",
            weight,
        ]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let answer = write_file(
        &project,
        "src/theme.swift",
        "let c = DankeTheme.secondaryText\nlet d = legacyColor(3)\n",
    );
    insta::assert_json_snapshot!("lesson_warnings_on_edit", answer.redacted(&project));
    assert!(stop(&project).is_block());
    let prompt =
        project.read(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    assert!(
        prompt.contains("The property is textSecondary at src/theme.swift:1"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("Prefer semantic colours"),
        "light lessons are offers: {prompt}"
    );
    submit(&project, &json!({"findings": []}));
    let answer = stop(&project);
    insta::assert_json_snapshot!("real_light_lesson_offered", answer.redacted(&project));
}

#[test]
fn an_edit_back_to_a_reviewed_version_is_marked_reviewed_and_needs_no_new_review() {
    let project = pinned_project();
    write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    submit(&project, &json!({"findings": []}));
    assert_eq!(stop(&project).json, json!({}));
    write_file(&project, "a.py", "x = 2\n");
    write_file(&project, "a.py", "x = 1\n");
    let flags: Vec<bool> = events(&project, SESSION)
        .iter()
        .filter(|event| event["event"] == "edit_tracked")
        .map(|event| event["reviewed"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, [false, false, true]);
    assert_eq!(
        stop(&project).json,
        json!({}),
        "the reviewed version needs no new review"
    );
}
