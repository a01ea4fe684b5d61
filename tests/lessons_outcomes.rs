//! Every lesson is measured by what its warnings did (issue: noise reinforced itself): a warning
//! counts only once heeded; a warned line a clean review passed is ignored; three ignores with no
//! heed demote a lesson, five retire it into `retired-lessons.json`, from where `car lessons
//! restore` brings it back. All through the `car` binary and real hook payloads.

use serde_json::{Value, json};

use crate::review_helpers::{SESSION, stop, submit};
use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const RETIRED: &str = ".claude/claude-auto-review/retired-lessons.json";

fn project_with_lesson() -> TestProject {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [
            {"id": "sleep", "scope": "*.py", "triggers": ["time.sleep("],
             "lesson": "Use the scheduler's backoff, not time.sleep", "weight": 4},
            {"id": "other", "scope": "*.py", "triggers": ["os.system("],
             "lesson": "Use subprocess.run with a list", "weight": 3}
        ]})
        .to_string(),
    );
    project.write(
        "jobs/poll.py",
        "import time\n\n\ndef poll():\n    return None\n",
    );
    project.commit_all();
    project
}

/// The lesson as `car lessons list --json` shows it (live counters).
fn listed(project: &TestProject, id: &str) -> Option<Value> {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let list: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    list.into_iter().find(|lesson| lesson["id"] == id)
}

fn counts(project: &TestProject, id: &str) -> (u64, u64, u64, u64) {
    let lesson = listed(project, id).expect("lesson listed");
    let get = |field: &str| lesson[field].as_u64().unwrap_or(0);
    (get("weight"), get("hits"), get("heeded"), get("ignored"))
}

/// An Edit of `file` through the hook, `old` replaced by `new` on disk first.
fn edit(project: &TestProject, file: &str, old: &str, new: &str) -> crate::support::HookAnswer {
    let content = project.read(file);
    assert!(content.contains(old), "{file} lacks {old:?}");
    project.write(file, &content.replacen(old, new, 1));
    let answer = project.hook("post-tool-use", &project.edit_payload(file, old, new));
    assert_eq!(answer.code, 0, "{answer:?}");
    answer
}

/// A stop that asks for a review, the review submitted with `findings`, and the stop again.
fn reviewed_stop(project: &TestProject, findings: Value) -> crate::support::HookAnswer {
    let first = stop(project);
    assert!(first.is_block(), "the gate asks for a review: {first:?}");
    let submitted = submit(project, &json!({ "findings": findings }));
    assert_eq!(submitted.code, 0, "{submitted:?}");
    stop(project)
}

#[test]
fn a_warning_counts_only_once_the_agent_heeds_it() {
    let project = project_with_lesson();
    let warned = edit(
        &project,
        "jobs/poll.py",
        "    return None\n",
        "    time.sleep(5)\n    return None\n",
    );
    assert!(warned.context().contains("lesson (weight 4)"), "{warned:?}");
    assert_eq!(
        counts(&project, "sleep"),
        (4, 0, 0, 0),
        "shown is not counted"
    );
    // An edit elsewhere in the file keeps the warned line: nothing yet.
    edit(&project, "jobs/poll.py", "def poll():", "def poll(job):");
    assert_eq!(counts(&project, "sleep"), (4, 0, 0, 0));
    // The agent changes the warned line: heeded, and now it counts.
    edit(
        &project,
        "jobs/poll.py",
        "    time.sleep(5)\n",
        "    scheduler.backoff(job)\n",
    );
    assert_eq!(counts(&project, "sleep"), (5, 1, 1, 0));
    assert_eq!(counts(&project, "other"), (3, 0, 0, 0));
}

#[test]
fn the_offer_list_shows_what_still_stands_with_the_weight_it_has_now() {
    let project = TestProject::new();
    project.write(
        LESSONS,
        &json!({"lessons": [
            {"id": "sleep", "scope": "*.py", "triggers": ["time.sleep("],
             "lesson": "Use the scheduler's backoff, not time.sleep", "weight": 1},
            {"id": "other", "scope": "*.py", "triggers": ["os.system("],
             "lesson": "Use subprocess.run with a list", "weight": 2}
        ]})
        .to_string(),
    );
    for file in ["jobs/poll.py", "jobs/push.py", "jobs/run.py"] {
        project.write(file, "import time\n\n\ndef poll():\n    return None\n");
    }
    project.commit_all();
    for file in ["jobs/poll.py", "jobs/push.py"] {
        let warned = edit(
            &project,
            file,
            "    return None\n",
            "    time.sleep(5)\n    return None\n",
        );
        assert!(warned.context().contains("lesson (weight 1)"), "{warned:?}");
    }
    let warned = edit(
        &project,
        "jobs/run.py",
        "    return None\n",
        "    os.system(cmd)\n",
    );
    assert!(warned.context().contains("lesson (weight 2)"), "{warned:?}");
    // The agent heeds the warning in poll.py: its first hit, weight 1 -> 2.
    edit(
        &project,
        "jobs/poll.py",
        "    time.sleep(5)\n",
        "    scheduler.backoff()\n",
    );
    assert_eq!(counts(&project, "sleep"), (2, 1, 1, 0));
    let answer = reviewed_stop(&project, json!([]));
    assert!(!answer.is_block(), "{answer:?}");
    let offered = answer.system_message();
    // push.py's warning stands, and shows the weight the lesson has now, not the one it was
    // shown with; poll.py's was heeded: not offered.
    assert!(
        offered.contains("- jobs/push.py:5: lesson (weight 2): Use the scheduler's backoff"),
        "{offered}"
    );
    assert!(!offered.contains("jobs/poll.py"), "{offered}");
    assert!(!offered.contains("weight 1"), "{offered}");
    assert!(
        offered.contains("- jobs/run.py:5: lesson (weight 2): Use subprocess.run"),
        "{offered}"
    );
    // `car review offers` says the same.
    let listed = project.run(&["review", "offers"]);
    assert!(
        listed.stdout.contains("jobs/push.py:5: lesson (weight 2)")
            && !listed.stdout.contains("jobs/poll.py"),
        "{listed:?}"
    );
    // A lesson removed since is offered no more.
    assert_eq!(project.run(&["lessons", "rm", "other"]).code, 0);
    let listed = project.run(&["review", "offers"]);
    assert!(
        listed.stdout.contains("jobs/push.py:5") && !listed.stdout.contains("jobs/run.py"),
        "{listed:?}"
    );
}

#[test]
fn a_finding_at_the_warned_line_is_no_ignore_and_a_heed_at_the_stop_counts() {
    let project = project_with_lesson();
    edit(
        &project,
        "jobs/poll.py",
        "    return None\n",
        "    time.sleep(5)\n    return None\n",
    );
    // The review finds something at the warned line: the warning was not wrong.
    let answer = reviewed_stop(
        &project,
        json!([{"id": "F1", "severity": "P3", "file": "jobs/poll.py", "line": 5,
                "title": "blocking sleep in the poller"}]),
    );
    assert!(!answer.is_block(), "{answer:?}");
    assert_eq!(counts(&project, "sleep"), (4, 0, 0, 0));
    // The person's fix after the stop is not seen until the next stop: then it is heeded.
    project.write(
        "jobs/poll.py",
        "import time\n\n\ndef poll():\n    return None\n",
    );
    let again = project.hook(
        "stop",
        &crate::review_helpers::stop_payload(&project, SESSION, Some("Done.")),
    );
    assert_eq!(again.code, 0);
    assert_eq!(counts(&project, "sleep").2, 1, "heeded at the stop");
}

#[test]
fn ignored_three_times_demotes_five_times_retires_and_restore_brings_it_back() {
    let project = project_with_lesson();
    for round in 1..=5 {
        let warned = edit(
            &project,
            "jobs/poll.py",
            "    return None\n",
            &format!("    time.sleep({round})\n    return None\n"),
        );
        assert!(
            warned.context().contains("time.sleep("),
            "round {round}: {warned:?}"
        );
        let answer = reviewed_stop(&project, json!([]));
        assert!(!answer.is_block(), "round {round}: {answer:?}");
        let message = answer.system_message();
        match round {
            3 => assert!(
                message.contains("lesson sleep was ignored 3 times and never heeded")
                    && message.contains("demoted to weight 1"),
                "{message}"
            ),
            5 => assert!(
                message.contains("lesson sleep was retired")
                    && message.contains("car lessons restore sleep"),
                "{message}"
            ),
            _ => assert!(!message.contains("lesson sleep"), "{message}"),
        }
        if round < 5 {
            let (weight, hits, heeded, ignored) = counts(&project, "sleep");
            assert_eq!((hits, heeded, ignored), (0, 0, round), "round {round}");
            assert_eq!(weight, if round < 3 { 4 } else { 1 }, "round {round}");
        }
    }
    // The fold at the session's end moves it out of lessons.json, whole.
    let end = project.post_session_end();
    assert_eq!(end.code, 0);
    assert!(listed(&project, "sleep").is_none());
    assert!(listed(&project, "other").is_some());
    let retired = project.read_json(RETIRED);
    let lesson = &retired["lessons"][0];
    assert_eq!(lesson["id"], "sleep");
    assert_eq!(lesson["ignored"], 5);
    assert!(
        lesson["retired_because"]
            .as_str()
            .unwrap()
            .contains("never heeded"),
        "{lesson}"
    );
    // Retired, it warns no more; list and show tell where it went.
    let quiet = edit(
        &project,
        "jobs/poll.py",
        "    return None\n",
        "    time.sleep(9)\n    return None\n",
    );
    assert!(!quiet.context().contains("lesson"), "{quiet:?}");
    let list = project.run(&["lessons", "list"]);
    assert!(list.stdout.contains("retired (1 lesson"), "{}", list.stdout);
    assert!(
        list.stdout.contains("car lessons restore sleep"),
        "{}",
        list.stdout
    );
    let show = project.run(&["lessons", "show", "sleep", "--json"]);
    assert_eq!(show.code, 0, "{show:?}");
    let shown: Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(shown["origin"], "retired");
    assert_eq!(shown["restore"], "car lessons restore sleep");
    // Restored: back in the library with fresh outcome counts and a learned lesson's weight.
    let restored = project.run(&["lessons", "restore", "sle"]);
    assert_eq!(restored.code, 0, "{restored:?}");
    assert_eq!(counts(&project, "sleep"), (2, 0, 0, 0));
    assert!(
        project.read_json(RETIRED)["lessons"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let unknown = project.run(&["lessons", "restore", "nope"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown
            .stderr
            .contains("no retired lesson with id \"nope\""),
        "{unknown:?}"
    );
}

#[test]
fn a_corrupt_retired_file_is_named_and_left_as_it_is() {
    let project = project_with_lesson();
    let broken = "{\"lessons\": [oops\n";
    project.write(RETIRED, broken);
    let run = project.run(&["lessons", "restore", "sleep"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("retired-lessons.json"), "{run:?}");
    let list = project.run(&["lessons", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert!(
        list.stdout.contains("retired lessons: not read"),
        "{}",
        list.stdout
    );
    assert_eq!(project.read(RETIRED), broken);
}
