//! The review loop converges (seeds 001 and 002): round reflection from the second fix request,
//! known limits declared in the agent's words, stuck findings and challenges handed to a person.
//! Driven through `car hook stop` with real payloads and a scripted `command` reviewer.

use serde_json::{Value, json};

use crate::review_helpers::*;
use crate::support::TestProject;

fn p1() -> Value {
    json!({"id": "F1", "severity": "P1", "file": "src/app.py", "line": 3,
        "title": "load() swallows a missing file",
        "wrong_output": "load('missing.txt') returns None; render(load(p)) then raises TypeError",
        "suggestion": "let FileNotFoundError reach the caller"})
}

fn p2() -> Value {
    json!({"id": "F2", "severity": "P2", "file": "src/app.py", "line": 2,
        "title": "load() reads the whole file into memory",
        "wrong_output": "load('2GB.log') needs 2 GB of memory and the process is killed",
        "suggestion": "stream the file"})
}

/// The agent's versions of `src/app.py`, one per round.
const VERSIONS: [&str; 5] = [
    "def load(path):\n    try:\n        return open(path).read()\n    except FileNotFoundError:\n        return None\n",
    "def load(path):\n    try:\n        return open(path).read()\n    except FileNotFoundError:\n        return ''\n",
    "def load(path):\n    try:\n        return open(path).read()\n    except FileNotFoundError:\n        log.warning(path)\n        return ''\n",
    "def load(path):\n    try:\n        return open(path).read()\n    except FileNotFoundError as error:\n        raise LoadError(path) from error\n",
    "def load(path):\n    with open(path) as handle:\n        return handle.read()\n",
];

/// What the agent says at each stop of the worked example.
const SAID: [&str; 4] = [
    "load() now handles a missing file. All done.",
    "## Round reflection\nI hid the error instead of handling it. load() now returns '' for a missing file.\n\n- [KNOWN LIMIT] F2 — load() only reads config files under 10 KB",
    "## Round reflection\nReturning '' still hides the error. load() now logs the path and returns ''.",
    "## Round reflection\nLogging is not handling. load() now raises LoadError.",
];

fn project_with_loader() -> TestProject {
    let project = TestProject::new();
    project.write(
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    project.commit_all();
    project
}

#[test]
fn worked_example_reflection_known_limit_and_a_stuck_finding_handed_to_the_person() {
    let mut project = project_with_loader();
    project.at(1_800_000_000);
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.always(&json!({"findings": [p1(), p2()]}));
    let mut answers = Vec::new();
    for (round, said) in SAID.iter().enumerate() {
        write_file(&project, "src/app.py", VERSIONS[round]);
        answers.push(stop_saying(&project, said));
    }
    insta::assert_snapshot!("loop_round_1", answers[0].stdout.trim());
    insta::assert_snapshot!("loop_round_2", answers[1].stdout.trim());
    insta::assert_snapshot!("loop_round_3", answers[2].stdout.trim());
    insta::assert_snapshot!("loop_handed_to_person", answers[3].stdout.trim());
    assert_eq!(reviewer.calls(), 4);
    for answer in &answers[..3] {
        assert!(answer.is_block(), "{answer:?}");
    }
    assert!(!answers[0].reason().contains("Round reflection"));
    assert!(
        answers[1]
            .reason()
            .contains("Round 2: before you fix anything")
    );
    assert!(
        !answers[1].reason().contains("[P2] F2")
            && answers[1].reason().contains(
                "Recorded as a known limit from your reply (no longer blocks): F2 src/app.py"
            ),
        "the declared known limit no longer blocks: {}",
        answers[1].reason()
    );
    let handed = &answers[3];
    assert!(!handed.is_block(), "stuck after 3 attempts: {handed:?}");
    let message = handed.system_message();
    assert!(message.contains("car: handed to you"), "{message}");
    assert!(message.contains("[P1] F1 src/app.py:3: load() swallows a missing file"));
    assert!(message.contains("still reported after 3 fix attempts"));
    assert!(
        message.contains("R2: \"I hid the error instead of handling it."),
        "{message}"
    );
    assert!(message.contains("Known limits") && message.contains("under 10 KB"));
    let row = status_row(&project);
    assert_eq!(row["open_findings"], json!([]), "{row}");
    let escalated = row["escalated"][0].as_str().unwrap();
    assert!(escalated.contains("[P1] F1 src/app.py:3"), "{row}");
    let status = project.run(&["review", "status"]);
    assert!(
        status
            .stdout
            .contains("escalated to you: [P1] F1 src/app.py:3"),
        "{status:?}"
    );
    insta::assert_snapshot!("loop_status", status.stdout.trim());
    // Not requested again in this session: the next round reports it again and nothing blocks.
    write_file(&project, "src/app.py", VERSIONS[4]);
    let after = stop_saying(&project, "Rewrote load() with a context manager. Done.");
    assert!(!after.is_block(), "{after:?}");
    assert!(
        !after.system_message().contains("handed to you"),
        "shown once: {after:?}"
    );
    let prompt = reviewer.prompt(5);
    assert!(
        prompt.contains("## Handed to a person (do not report them again)\n- src/app.py:3: load() swallows a missing file"),
        "{prompt}"
    );
    let kinds = stages(&project, SESSION);
    assert!(kinds.contains(&"guards=escalated".to_string()), "{kinds:?}");
}

#[test]
fn the_next_round_is_told_the_earlier_findings_and_a_known_limit() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.always(&json!({"findings": [p1(), p2()]}));
    write_file(&project, "src/app.py", VERSIONS[0]);
    assert!(stop_saying(&project, SAID[0]).is_block());
    write_file(&project, "src/app.py", VERSIONS[1]);
    stop_saying(&project, SAID[1]);
    let prompt = reviewer.prompt(2);
    assert!(
        prompt.contains("## Findings of earlier rounds")
            && prompt.contains("- [P1] src/app.py:3: load() swallows a missing file"),
        "{prompt}"
    );
    assert!(
        prompt.contains("## Known limits") && prompt.contains("under 10 KB"),
        "{prompt}"
    );
    let deferred = events(&project, SESSION)
        .into_iter()
        .find(|event| event["event"] == "finding_deferred")
        .unwrap();
    assert_eq!(deferred["finding"], "F2");
    assert_eq!(deferred["review"], "R1");
}

#[test]
fn a_known_limit_line_for_a_p1_is_refused_and_the_stop_stays_blocked() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.always(&json!({"findings": [p1()]}));
    write_file(&project, "src/app.py", VERSIONS[0]);
    assert!(stop_saying(&project, SAID[0]).is_block());
    // Nothing changed: only the declaration. The no-progress guard must not swallow the refusal.
    let answer = stop_saying(
        &project,
        "## Round reflection\nThe reviewer is too strict.\n\n- [BEKANNTE GRENZE] F1 — callers check the path first",
    );
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains("[KNOWN LIMIT] F1 refused")
            && reason.contains("a P1 can never be deferred"),
        "{reason}"
    );
    assert!(reason.contains("[P1] F1 src/app.py:3"), "{reason}");
    assert!(
        !event_names(&project, SESSION).contains(&"finding_deferred".to_string()),
        "nothing was deferred"
    );
    assert_eq!(reviewer.calls(), 1, "nothing changed: no new review");
}

#[test]
fn a_challenged_finding_the_reviewer_reports_again_goes_to_a_person() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.always(&json!({"findings": [p2()]}));
    write_file(&project, "src/app.py", VERSIONS[4]);
    assert!(stop_saying(&project, "Done.").is_block());
    let run = project.run(&[
        "review",
        "challenge",
        "F2",
        "--reason",
        "load() only reads config files under 10 KB",
        "--session",
        SESSION,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("F2 (src/app.py:2"), "{}", run.stderr);
    let twice = project.run(&["review", "challenge", "F2", "--reason", "again"]);
    assert_eq!(twice.code, 2, "{twice:?}");
    assert!(
        twice.stderr.contains("already challenged"),
        "{}",
        twice.stderr
    );
    // No file changed, yet the challenge is judged by a new review with the reason in its prompt.
    let answer = stop_saying(&project, "I challenged F2: see my reason.");
    assert_eq!(reviewer.calls(), 2);
    let prompt = reviewer.prompt(2);
    assert!(
        prompt.contains("## Challenged by the agent")
            && prompt.contains("the agent's reason: load() only reads config files under 10 KB"),
        "{prompt}"
    );
    // Regression: the section's sentence once carried runs of ten spaces from a broken literal.
    assert!(
        prompt.contains(
            "The agent holds these findings of an earlier round to be false positives. Judge \
each again with its reason: if it still holds, report it again with the same file and title (a \
person then decides); if the reason convinces you, leave it out.\n"
        ),
        "{prompt}"
    );
    assert!(
        !answer.is_block(),
        "re-reported after a challenge: {answer:?}"
    );
    let message = answer.system_message();
    assert!(
        message.contains("car: handed to you")
            && message.contains("[P2] F2 src/app.py:2")
            && message.contains("challenged it as a false positive"),
        "{message}"
    );
    assert!(
        status_row(&project)["escalated"][0]
            .as_str()
            .unwrap()
            .contains("F2")
    );
}

#[test]
fn a_challenge_the_reviewer_accepts_drops_a_p2_but_a_p1_still_goes_to_a_person() {
    for (finding, expect_person) in [(p2(), false), (p1(), true)] {
        let project = project_with_loader();
        let reviewer = ScriptedReviewer::install(&project, json!({}));
        reviewer.answer(1, &json!({"findings": [finding]}));
        write_file(&project, "src/app.py", VERSIONS[4]);
        assert!(stop_saying(&project, "Done.").is_block());
        let id = finding["id"].as_str().unwrap();
        let run = project.run(&["review", "challenge", id, "--reason", "a false positive"]);
        assert_eq!(run.code, 0, "{run:?}");
        let answer = stop_saying(&project, "Challenged it.");
        assert!(!answer.is_block(), "{answer:?}");
        assert_eq!(
            answer.system_message().contains("handed to you"),
            expect_person,
            "{id}: {answer:?}"
        );
        if expect_person {
            assert!(
                answer
                    .system_message()
                    .contains("a P1 is never dropped without a person"),
                "{answer:?}"
            );
        }
    }
}

#[test]
fn challenge_and_defer_name_the_finding_and_session_in_their_errors() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({}));
    reviewer.always(&json!({"findings": [p1(), {"id": "F3", "severity": "P3",
        "file": "src/app.py", "line": 1, "title": "name the parameter file_path"}]}));
    write_file(&project, "src/app.py", VERSIONS[0]);
    stop_saying(&project, "Done.");
    let p3 = project.run(&["review", "challenge", "F3", "--reason", "x"]);
    assert_eq!(p3.code, 2);
    assert!(
        p3.stderr.contains("session test-session: R1/F3") && p3.stderr.contains("it is a P3"),
        "{}",
        p3.stderr
    );
    let unknown = project.run(&["review", "challenge", "F9", "--reason", "x"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no open finding \"F9\""),
        "{}",
        unknown.stderr
    );
    let no_reason = project.run(&["review", "challenge", "F1", "--reason", " "]);
    assert!(
        no_reason.stderr.contains("--reason must say"),
        "{}",
        no_reason.stderr
    );
    let p1 = project.run(&["review", "defer", "R1/F1", "--reason", "later"]);
    assert_eq!(p1.code, 2);
    assert!(
        p1.stderr.contains("session test-session: R1/F1 is a P1")
            && p1.stderr.contains("a P1 can never be deferred"),
        "{}",
        p1.stderr
    );
    let missing = project.run(&[
        "review",
        "defer",
        "F1",
        "--reason",
        "x",
        "--session",
        "nope",
    ]);
    assert!(
        missing.stderr.contains("no session \"nope\""),
        "{}",
        missing.stderr
    );
    for command in ["challenge", "prompt", "cancel"] {
        let help = project.run(&["review", command, "--help"]);
        assert!(
            help.stdout.contains("--session <ID>"),
            "{command}: {help:?}"
        );
    }
    let help = project.run(&["review", "challenge", "--help"]);
    assert!(
        help.stdout.contains("goes into the next review prompt"),
        "{help:?}"
    );
}

#[test]
fn max_fix_attempts_is_a_setting() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({"maxFixAttempts": 1}));
    reviewer.always(&json!({"findings": [p1()]}));
    write_file(&project, "src/app.py", VERSIONS[0]);
    assert!(stop_saying(&project, SAID[0]).is_block());
    write_file(&project, "src/app.py", VERSIONS[1]);
    let answer = stop_saying(&project, "Fixed it.");
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains("still reported after 1 fix attempt "),
        "{answer:?}"
    );
    set_settings(&project, json!({"maxFixAttempts": 0}));
    let status = project.run(&["status"]);
    assert!(status.stdout.contains("maxFixAttempts"), "{status:?}");
}

/// With the default `maxStopPasses` (5): a request the agent answered with `car review submit`
/// does not count for the breaker, so four rounds (eight blocked stops) reach the stuck guard.
#[test]
fn with_the_manual_backend_submit_and_the_gate_agree_on_a_stuck_finding() {
    let project = project_with_loader();
    let findings = json!({"findings": [p1()]});
    for (round, version) in VERSIONS[..4].iter().enumerate() {
        write_file(&project, "src/app.py", version);
        let request = stop_saying(&project, "Changed load(). Done.");
        assert!(
            request.reason().contains(&format!("review R{}", round + 1)),
            "{request:?}"
        );
        let run = submit(&project, &findings);
        assert_eq!(run.code, 0, "{run:?}");
        let answer = stop_saying(&project, "Submitted the review.");
        if round < 3 {
            assert!(
                run.stderr.contains("fix the 1 blocking finding"),
                "{}",
                run.stderr
            );
            assert!(answer.is_block(), "round {round}: {answer:?}");
        } else {
            assert!(
                run.stderr
                    .contains("stop again: the gate will let the agent stop"),
                "submit computes the guards like the gate: {}",
                run.stderr
            );
            assert!(!answer.is_block(), "{answer:?}");
            assert!(
                answer.system_message().contains("car: handed to you"),
                "{answer:?}"
            );
        }
    }
}

/// Issue 39, item 1: a reviewer that always reports the same P1 and an agent that changes
/// nothing. Once car let the agent stop because nothing changed, every later stop with nothing
/// changed is let go the same way (it used to alternate: block "Round 2", allow, block "Round 3");
/// the round counts fix attempts, so the first real fix is round 2.
#[test]
fn a_stop_that_changed_nothing_is_let_go_every_time_and_rounds_count_fixes() {
    let project = project_with_loader();
    let reviewer = ScriptedReviewer::install(&project, json!({"maxStopPasses": 3}));
    reviewer.always(&json!({"findings": [p1()]}));
    write_file(&project, "src/app.py", VERSIONS[0]);
    let first = stop_saying(&project, SAID[0]);
    assert!(first.is_block(), "{first:?}");
    assert!(!first.reason().contains("Round"), "{}", first.reason());
    let later: Vec<_> = (0..4)
        .map(|_| stop_saying(&project, "load() handles a missing file. Done."))
        .collect();
    let held: Vec<bool> = later.iter().map(|answer| answer.is_block()).collect();
    assert_eq!(held, [false; 4], "{later:?}");
    assert!(
        later[0]
            .system_message()
            .contains("nothing changed since the last blocked stop"),
        "{}",
        later[0].stdout
    );
    for answer in &later[1..] {
        let message = answer.system_message();
        assert!(
            message.contains("nothing changed since car last let the agent stop")
                && message.contains("[P1] F1 src/app.py:3"),
            "{message}"
        );
    }
    assert_eq!(reviewer.calls(), 1, "nothing changed: no new review");
    write_file(&project, "src/app.py", VERSIONS[1]);
    let fixed = stop_saying(&project, SAID[2]);
    assert!(fixed.is_block(), "{fixed:?}");
    assert!(
        fixed.reason().contains("Round 2: before you fix anything"),
        "the first fix attempt is round 2: {}",
        fixed.reason()
    );
    assert_eq!(reviewer.calls(), 2);
}
