//! The lesson engine through `car hook post-tool-use`: warnings (which write nothing), hits (a
//! heeded warning, appended to the hit log, live at once, folded into `lessons.json` at session
//! end), scope, added text only, regex engines, corrupt files, the user-wide layer, lock
//! contention, parallel hooks.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const HITS: &str = ".claude/claude-auto-review/lessons.json.hits";
const NOW: i64 = 1_780_000_000;

/// `car lessons list --json`: the live values.
fn listed(project: &TestProject) -> Value {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

/// The SessionEnd hook, which folds the hit log into `lessons.json`.
fn end_session(project: &TestProject) {
    let answer = project.post_session_end();
    assert_eq!(answer.code, 0);
    let message = answer.system_message();
    for failure in ["not folded", "maintenance skipped", "gave up"] {
        assert!(!message.contains(failure), "{answer:?}");
    }
}

/// A seed-format file from the Python tool: no ids, unknown fields, `last_decay_at`.
fn seed_lessons(scope: &str, trigger: &str) -> String {
    json!({"lessons": [
        {"scope": scope, "triggers": [trigger, "regex:(?<!_)re\\.compile"],
         "lesson": "use pathlib instead of os.path", "weight": 3, "hits": 2,
         "last_hit": NOW - 86_400, "last_decay_at": NOW - 3_600, "created": "2026-05-21",
         "zeta_custom": {"keep": true}, "alpha_custom": [1, 2]}
    ], "schema": "seed-003"})
    .to_string()
}

/// The session of the Edit fixture.
const FIXTURE_SESSION: &str = "3f1c2a9e-8d7b-4c1e-9a55-1b2c3d4e5f60";

const APP: &str = "import sys\n\n\ndef load(path):\n    import os.path\n    if not os.path.exists(path):\n        return None\n    return open(path).read()\n";

/// The agent of the Edit fixture's session heeds the `import os.path` warning: it rewrites the
/// warned line (an Edit through the hook).
fn heed(project: &TestProject) -> crate::support::HookAnswer {
    let fixed = APP.replace("    import os.path\n", "    from pathlib import Path\n");
    project.write("src/app.py", &fixed);
    let payload = project.edit_payload_as(
        FIXTURE_SESSION,
        "src/app.py",
        "    import os.path\n",
        "    from pathlib import Path\n",
    );
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.code, 0, "{answer:?}");
    answer
}

/// The Edit fixture: src/app.py gains lines 5–7, the first one `    import os.path`.
fn project_with_edit() -> TestProject {
    let mut project = TestProject::new();
    project.at(NOW);
    project.write("src/app.py", APP);
    project
}

#[test]
fn hit_warns_with_file_line_and_records_weight_hits_last_hit() {
    let project = project_with_edit();
    project.write(LESSONS, &seed_lessons("*.py", "import os.path"));
    let answer = project.post_fixture("claude-post-edit.json");
    assert_eq!(answer.code, 0);
    // The live weight, the file and line, the trigger that fired.
    insta::assert_json_snapshot!("hit_warning", answer.redacted(&project));
    // A warning shown writes nothing and counts nothing.
    let seed = seed_lessons("*.py", "import os.path");
    assert_eq!(project.read(LESSONS), seed);
    assert!(!project.exists(HITS), "a warning is not a hit");
    assert_eq!(
        (&listed(&project)[0]["weight"], &listed(&project)[0]["hits"]),
        (&json!(3), &json!(2))
    );
    // The agent heeds it: the hit is one appended line; the library is not rewritten, yet every
    // reader sees it.
    heed(&project);
    assert_eq!(
        project.read(LESSONS),
        seed,
        "a hit never rewrites lessons.json"
    );
    assert_eq!(project.read(HITS).lines().count(), 1);
    assert_eq!(listed(&project)[0]["heeded"], 1);
    let live = &listed(&project)[0];
    assert_eq!((&live["weight"], &live["hits"]), (&json!(4), &json!(3)));
    assert_eq!(
        (&live["last_hit"], &live["last_decay_at"]),
        (&json!(NOW), &Value::Null)
    );
    let exported: Value =
        serde_json::from_str(&project.run(&["lessons", "export"]).stdout).unwrap();
    assert_eq!(exported["lessons"][0]["hits"], 3);
    end_session(&project);
    assert!(!project.exists(HITS), "folded at session end");
    let file = project.read_json(LESSONS);
    let lesson = &file["lessons"][0];
    assert_eq!(lesson["weight"], 4);
    assert_eq!(lesson["hits"], 3);
    assert_eq!(lesson["last_hit"], NOW);
    assert!(lesson.get("last_decay_at").is_none(), "{lesson}");
    assert_eq!(lesson["zeta_custom"], json!({"keep": true}));
    assert_eq!(file["schema"], "seed-003");
    let keys: Vec<&String> = lesson.as_object().unwrap().keys().collect();
    let zeta = keys.iter().position(|k| *k == "zeta_custom").unwrap();
    let alpha = keys.iter().position(|k| *k == "alpha_custom").unwrap();
    assert!(zeta < alpha, "unknown fields keep their order: {keys:?}");
    assert!(lesson["id"].as_str().is_some_and(|id| id.len() == 10));
}

#[test]
fn weight_never_exceeds_ten() {
    let project = project_with_edit();
    let text = seed_lessons("*.py", "import os.path").replace("\"weight\":3", "\"weight\":10");
    project.write(LESSONS, &text);
    let answer = project.post_fixture("claude-post-edit.json");
    insta::assert_json_snapshot!("hit_at_weight_ten", answer.redacted(&project));
    assert_eq!(listed(&project)[0]["weight"], 10);
    end_session(&project);
    assert_eq!(project.read_json(LESSONS)["lessons"][0]["weight"], 10);
}

#[test]
fn out_of_scope_lessons_stay_silent_and_the_file_is_not_rewritten() {
    let project = project_with_edit();
    for scope in ["*.swift", "tests/*.py", "lib/**/*.py"] {
        let original = seed_lessons(scope, "import os.path");
        project.write(LESSONS, &original);
        let answer = project.post_fixture("claude-post-edit.json");
        assert_eq!(answer.context(), "", "scope {scope}: {answer:?}");
        assert_eq!(
            project.read(LESSONS),
            original,
            "no hit, no write ({scope})"
        );
    }
    project.write(LESSONS, &seed_lessons("src/*.py", "import os.path"));
    let answer = project.post_fixture("claude-post-edit.json");
    insta::assert_json_snapshot!("hit_in_path_scope", answer.redacted(&project));
}

#[test]
fn only_added_text_is_matched() {
    let project = project_with_edit();
    // `import sys` and `return open(path)` are in the file but were not added by this edit.
    let original = json!({"lessons": [
        {"scope": "*.py", "triggers": ["import sys"], "lesson": "not added", "weight": 2},
        {"scope": "*.py", "triggers": ["return open(path)"], "lesson": "context line", "weight": 2},
        {"scope": "*.py", "triggers": ["return None"], "lesson": "added line 7", "weight": 2}
    ]})
    .to_string();
    project.write(LESSONS, &original);
    let answer = project.post_fixture("claude-post-edit.json");
    // Only the lesson on an added line: neither `import sys` nor the context line fires.
    insta::assert_json_snapshot!("hit_on_added_line_only", answer.redacted(&project));
}

/// Moving a function or wrapping it in an `if` re-adds its lines in the diff, but the agent did
/// not write them: no warning and no hit. A copy, and a new line, are written: they warn.
#[test]
fn moved_or_reindented_lines_do_not_warn_copies_and_new_lines_do() {
    let mut project = TestProject::new();
    project.at(NOW);
    project.write(LESSONS, &seed_lessons("*.py", "yaml.load("));
    let before = "import yaml\n\ndef load(path):\n    return yaml.load(path)\n\nLIMIT = 3\n";
    project.write("conf.py", before);
    project.commit_all();
    let cases = [
        (
            "moved",
            "import yaml\n\nLIMIT = 3\n\ndef load(path):\n    return yaml.load(path)\n",
            false,
        ),
        (
            "re-indented",
            "import yaml\n\nif LIMIT:\n    def load(path):\n        return yaml.load(path)\n\nLIMIT = 3\n",
            false,
        ),
        (
            "copied",
            "import yaml\n\ndef load(path):\n    return yaml.load(path)\n\ndef again(path):\n    return yaml.load(path)\n\nLIMIT = 3\n",
            true,
        ),
        (
            "new",
            "import yaml\n\ndef load(path):\n    return yaml.load(path)\n\nLIMIT = 3\nextra = yaml.load(open('x'))\n",
            true,
        ),
    ];
    for (what, after, warns) in cases {
        let payload = project.write_payload("conf.py", after, Some(before));
        let answer = project.hook("post-tool-use", &payload);
        assert_eq!(
            answer.context().contains("yaml.load("),
            warns,
            "{what}: {answer:?}"
        );
        project.write("conf.py", before);
    }
    let hits = listed(&project)[0]["hits"].clone();
    assert_eq!(hits, json!(2), "warnings shown count nothing: {hits}");
}

#[test]
fn lookbehind_trigger_runs_on_fancy_regex() {
    let mut project = TestProject::new();
    project.at(NOW);
    project.write(LESSONS, &seed_lessons("*.py", "never-added-text"));
    let content = "import re\nx = _re.compile('a')\n";
    project.write("m.py", content);
    let payload = project.edit_payload("m.py", "import re\n", content);
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.context(), "", "_re.compile is excluded by (?<!_)");
    let content = "import re\nx = _re.compile('a')\ny = re.compile('b')\n";
    project.write("m.py", content);
    let payload = project.edit_payload(
        "m.py",
        "x = _re.compile('a')\n",
        "x = _re.compile('a')\ny = re.compile('b')\n",
    );
    let answer = project.hook("post-tool-use", &payload);
    insta::assert_json_snapshot!("lookbehind_hit", answer.redacted(&project));
}

#[test]
fn pathological_regexes_are_stopped_and_reported() {
    let mut project = TestProject::new();
    project.at(NOW);
    let lessons = json!({"lessons": [
        {"scope": "*.txt", "triggers": ["regex:^(a+)+$"], "lesson": "nested quantifier", "weight": 2},
        {"scope": "*.txt", "triggers": ["regex:(?=a)(a+)+\\1b"], "lesson": "backtracking", "weight": 2}
    ]})
    .to_string();
    project.write(LESSONS, &lessons);
    // Lines as long as a regex sees (a longer line is blank for regexes).
    let content = format!("{}!\n", "a".repeat(1023)).repeat(40);
    let payload = project.write_payload("big.txt", &content, None);
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.code, 0);
    // Neither pattern matches, and the backtracking one is stopped and reported: by its
    // backtrack limit, or, on a machine too loaded to reach that limit within the edit's time
    // budget, by the budget. Which of the two depends on the machine, never whether it is said.
    // (How fast these patterns give up is timed by `cargo bench --bench matching`.)
    assert_eq!(answer.context(), "", "{answer:?}");
    let message = answer.system_message();
    let gave_up = "car: lesson 3ea29a1947: trigger `regex:(?=a)(a+)+\\1b`: gave up on this text \
                   (Error executing regex: Max limit for backtracking count exceeded)";
    let out_of_time = regex::Regex::new(
        r"^car: lesson matching stopped after \d+ ms; [12] regex triggers were not tried$",
    )
    .unwrap();
    assert!(
        message == gave_up || out_of_time.is_match(&message),
        "{message}"
    );
    assert_eq!(project.read(LESSONS), lessons);
}

#[test]
fn corrupt_lessons_file_is_reported_and_left_byte_identical() {
    let project = project_with_edit();
    let broken =
        "{\"lessons\": [\n  {\"scope\": \"*.py\", \"triggers\": [\"import os.path\"],,\n]}\n";
    project.write(LESSONS, broken);
    let answer = project.post_fixture("claude-post-edit.json");
    assert_eq!(answer.code, 0);
    insta::assert_json_snapshot!("corrupt_lessons_file", answer.redacted(&project));
    assert_eq!(project.read(LESSONS), broken);
    let run = project.run(&["lessons", "list"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("lessons.json:2:"), "{run:?}");
    assert_eq!(project.read(LESSONS), broken);
}

#[test]
fn user_wide_lessons_fire_but_are_never_written() {
    let project = project_with_edit();
    let user_file = project.home().join(".config/car/lessons.json");
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    let user_text = json!({"lessons": [
        {"scope": "*.py", "triggers": ["os.path.exists"], "lesson": "user-wide: prefer Path.exists()", "weight": 5}
    ]})
    .to_string();
    std::fs::write(&user_file, &user_text).unwrap();
    let answer = project.post_fixture("claude-post-edit.json");
    insta::assert_json_snapshot!("user_wide_hit", answer.redacted(&project));
    assert_eq!(std::fs::read_to_string(&user_file).unwrap(), user_text);
    let config_files: Vec<_> = std::fs::read_dir(user_file.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(
        config_files,
        ["lessons.json"],
        "nothing is written beside the user's file"
    );
    // A second edit reads the user layer through its index (in the cache folder) and agrees.
    let again = project.post_fixture("claude-post-edit.json");
    assert_eq!(again.redacted(&project), answer.redacted(&project));
    let listed: Value =
        serde_json::from_str(&project.run(&["lessons", "list", "--json"]).stdout).unwrap();
    assert_eq!(listed[0]["origin"], "user");
}

#[test]
fn a_held_lock_skips_the_write_and_says_so() {
    let project = project_with_edit();
    let original = seed_lessons("*.py", "import os.path");
    project.write(LESSONS, &original);
    let lock_path = project.path().join(format!("{LESSONS}.lock"));
    let lock = std::fs::File::create(&lock_path).unwrap();
    lock.lock().unwrap();
    // A warning takes no lock.
    let warned = project.post_fixture("claude-post-edit.json");
    assert!(warned.context().contains("lesson (weight 3)"), "{warned:?}");
    assert_eq!(warned.system_message(), "", "{warned:?}");
    // The heed waits for the lock, then says its outcome was not recorded (after how long a wait
    // varies: redacted).
    let answer = heed(&project);
    lock.unlock().unwrap();
    let mut shown = answer.redacted(&project);
    let message = shown["systemMessage"].as_str().unwrap_or_default();
    let waited = regex::Regex::new(r"after \d+ ms").unwrap();
    shown["systemMessage"] = json!(waited.replace(message, "after [N] ms"));
    insta::assert_json_snapshot!("hit_not_recorded", shown);
    assert_eq!(project.read(LESSONS), original);
    assert!(!project.exists(HITS), "nothing recorded");
}

/// A seed-format library of `count` lessons as car writes it (each with its `id`): the first
/// fires on the Edit fixture, the rest are filler that never fires; every lesson carries unknown
/// fields.
fn library(count: usize) -> String {
    let mut lessons = vec![json!({"id": "pathlib-1", "scope": "*.py",
        "triggers": ["import os.path"], "lesson": "pathlib", "weight": 1, "hits": 0,
        "team_note": {"keep": true}})];
    lessons.extend((1..count).map(|index| {
        json!({"id": format!("filler-{index}"), "scope": "*.py",
            "triggers": [format!("legacy_call_{index}(")], "lesson": format!("filler {index}"),
            "weight": 3, "hits": 1, "last_hit": NOW - 86_400, "created": "2026-05-21",
            "owner": index})
    }));
    json!({"lessons": lessons, "schema": "seed-003"}).to_string()
}

#[test]
fn twenty_four_parallel_heeds_add_exactly_twenty_four_hits() {
    const LIBRARY: usize = 10_000;
    let project = project_with_edit();
    project.write(LESSONS, &library(LIBRARY));
    // Today's maintenance already ran: this session end folds the hits (in place) and nothing
    // else, as most do (the daily run at 10,000 lessons is timed by `cargo bench --bench hook`).
    project.write(
        ".claude/claude-auto-review/lessons-maintained",
        &NOW.to_string(),
    );
    // 24 sessions each write the warned line into a file of their own: each is warned.
    let file = |index: usize| format!("src/job_{index}.py");
    for index in 0..24 {
        let content = format!("def job_{index}():\n    import os.path\n");
        project.write(&file(index), &content);
        let payload = project.edit_payload_as(&format!("s{index}"), &file(index), "", &content);
        let answer = project.hook("post-tool-use", &payload);
        assert!(answer.context().contains("lesson (weight 1)"), "{answer:?}");
    }
    // Then all 24 heed their warning at once: every outcome is appended, none lost.
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24)
            .map(|index| {
                let project = &project;
                let file = file(index);
                scope.spawn(move || {
                    let fixed = format!("def job_{index}():\n    from pathlib import Path\n");
                    project.write(&file, &fixed);
                    let payload = project.edit_payload_as(
                        &format!("s{index}"),
                        &file,
                        "    import os.path\n",
                        "    from pathlib import Path\n",
                    );
                    project.hook("post-tool-use", &payload)
                })
            })
            .collect();
        for handle in handles {
            let answer = handle.join().unwrap();
            assert_eq!(answer.code, 0);
            assert!(
                !answer.system_message().contains("not recorded"),
                "{answer:?}"
            );
        }
    });
    assert_eq!(project.read(HITS).lines().count(), 24);
    assert_eq!(listed(&project)[0]["hits"], 24);
    assert_eq!(listed(&project)[0]["heeded"], 24);
    // The hits are folded by `car lessons maintain`, the same fold a session end runs: the
    // SessionEnd hook has a wall-clock budget (900 ms) that a loaded machine can spend on a
    // 10,000-lesson file, and a hook that gives up leaves the hits pending. How long that fold
    // takes at the end of a session is timed by `cargo bench --bench hook`.
    let maintained = project.run(&["lessons", "maintain"]);
    assert_eq!(maintained.code, 0, "{maintained:?}");
    let file = project.read_json(LESSONS);
    assert_eq!(file["schema"], "seed-003");
    let lessons = file["lessons"].as_array().unwrap();
    assert_eq!(lessons.len(), LIBRARY);
    assert_eq!(
        (&lessons[0]["hits"], &lessons[0]["weight"]),
        (&json!(24), &json!(10))
    );
    assert_eq!(lessons[0]["last_hit"], NOW);
    assert_eq!(lessons[0]["team_note"], json!({"keep": true}));
    let untouched = lessons[1..]
        .iter()
        .all(|l| l["hits"] == 1 && l["weight"] == 3 && l["owner"].is_u64());
    assert!(
        untouched,
        "the other lessons keep their counters and fields"
    );
    assert!(!project.exists(HITS));
}

#[test]
fn the_on_disk_index_is_used_and_follows_every_change_of_the_lessons_file() {
    let project = project_with_edit();
    let index = format!("{LESSONS}.index");
    project.write(LESSONS, &seed_lessons("*.swift", "import os.path"));
    assert_eq!(project.post_fixture("claude-post-edit.json").context(), "");
    assert!(project.exists(&index), "the first hook builds the index");
    // A hand edit of the lessons file (same size would not matter: mtime and inode change too).
    std::thread::sleep(Duration::from_millis(20));
    project.write(LESSONS, &seed_lessons("*.py", "import os.path"));
    let after_hand_edit = project.post_fixture("claude-post-edit.json");
    // A damaged index is rebuilt, never trusted.
    std::fs::write(project.path().join(&index), b"CARIDX03 not an index").unwrap();
    let after_damage = project.post_fixture("claude-post-edit.json");
    assert_eq!(listed(&project)[0]["hits"], 2);
    heed(&project);
    assert_eq!(listed(&project)[0]["hits"], 3);
    project.write("src/app.py", APP);
    // The fold at session end rewrites the file and its index together: the next edit uses it.
    end_session(&project);
    let stamp_before = std::fs::metadata(project.path().join(&index))
        .unwrap()
        .modified()
        .unwrap();
    let after_fold = project.post_fixture("claude-post-edit.json");
    // Each answer warns with the live weight: the stale and the damaged index were not used.
    insta::assert_json_snapshot!(
        "hits_through_the_index",
        json!({"after a hand edit": after_hand_edit.redacted(&project),
               "after the index was damaged": after_damage.redacted(&project),
               "after the fold": after_fold.redacted(&project)})
    );
    let stamp_after = std::fs::metadata(project.path().join(&index))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(stamp_before, stamp_after, "no rebuild after the fold");
    end_session(&project);
    assert_eq!(project.read_json(LESSONS)["lessons"][0]["hits"], 3);
}

/// A team keeps its lessons in a shared folder and links them in: the fold at session end writes
/// through the link, keeps the file's mode, and the link stays a link.
#[cfg(unix)]
#[test]
fn a_symlinked_lessons_file_is_folded_through_the_link_with_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let project = project_with_edit();
    let shared = project.write("team/lessons.json", &seed_lessons("*.py", "import os.path"));
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = project.path().join(LESSONS);
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&shared, &link).unwrap();
    project.post_fixture("claude-post-edit.json");
    heed(&project);
    assert_eq!(
        listed(&project)[0]["hits"],
        3,
        "the hit counts through the link"
    );
    end_session(&project);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let folded: Value = serde_json::from_str(&std::fs::read_to_string(&shared).unwrap()).unwrap();
    assert_eq!(folded["lessons"][0]["hits"], 3);
    assert_eq!(folded["schema"], "seed-003");
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    // The next fold takes the in-place path (the file now stores its ids): still through the link.
    project.write("src/app.py", APP);
    project.post_fixture("claude-post-edit.json");
    heed(&project);
    end_session(&project);
    let folded: Value = serde_json::from_str(&std::fs::read_to_string(&shared).unwrap()).unwrap();
    assert_eq!(folded["lessons"][0]["hits"], 4);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

/// An agent without a SessionEnd hook: once the hit log passes its bound, the next hit folds it.
/// (Lines without an outcome are plain hits, as car wrote them before outcomes.)
#[test]
fn a_hit_log_past_its_bound_is_folded_by_the_next_hit() {
    let project = project_with_edit();
    project.write(LESSONS, &seed_lessons("*.py", "import os.path"));
    let id = listed(&project)[0]["id"].as_str().unwrap().to_string();
    let line = format!("{{\"id\":\"{id}\",\"at\":{}}}\n", NOW - 60);
    let pending = 64 * 1024 / line.len() + 1;
    project.write(HITS, &line.repeat(pending));
    assert_eq!(
        listed(&project)[0]["hits"],
        2 + pending as u64,
        "pending hits are live"
    );
    let answer = project.post_fixture("claude-post-edit.json");
    insta::assert_json_snapshot!("hit_after_a_long_hit_log", answer.redacted(&project));
    assert!(project.exists(HITS), "a warning writes nothing");
    heed(&project);
    assert!(!project.exists(HITS), "folded by the hook");
    let lesson = &project.read_json(LESSONS)["lessons"][0];
    assert_eq!(lesson["hits"], 2 + pending as u64 + 1);
    assert_eq!(lesson["last_hit"], NOW);
}
