//! A team's lessons in git (issue 27): `car install` registers git's merge driver for the library
//! files, so two branches that each hit and learn lessons merge cleanly with `git merge`; a text
//! both branches changed stops the merge with both texts in the file; a clone without the driver
//! merges line by line until `car install` (or `git config`) registers it; `car lessons diff`
//! shows what a branch learned. All through the built binary and real git.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::TestProject;

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const CANDIDATES: &str = ".claude/claude-auto-review/lesson_candidates.json";
const ATTRIBUTES: &str = ".claude/claude-auto-review/.gitattributes";
const T0: i64 = 1_780_000_000;

/// `git ARGS…` in `dir`, with the built `car` on PATH (the driver car registers from a cargo build
/// is the plain name `car`; an installed car registers its absolute path).
fn git_at(dir: &Path, home: &Path, args: &[&str]) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("car");
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut command = std::process::Command::new("git");
    crate::support::isolate(&mut command, home)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap()
}

fn git(project: &TestProject, args: &[&str]) -> Output {
    git_at(project.path(), project.home(), args)
}

fn ok(output: &Output) {
    assert!(output.status.success(), "{}", said(output));
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn commit(project: &TestProject, message: &str) {
    ok(&git(project, &["add", "-A"]));
    ok(&git(project, &["commit", "-q", "-m", message]));
}

fn lesson(id: &str, trigger: &str, text: &str, weight: u32, hits: u64) -> Value {
    json!({"id": id, "scope": "*.py", "triggers": [trigger], "lesson": text,
           "weight": weight, "hits": hits, "team_note": {"owner": "core"}})
}

fn write_lessons(project: &TestProject, lessons: &[Value]) {
    project.write(
        LESSONS,
        &serde_json::to_string_pretty(&json!({ "lessons": lessons, "version": 3 })).unwrap(),
    );
}

fn by_id(project: &TestProject, id: &str) -> Option<Value> {
    project.read_json(LESSONS)["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|lesson| lesson["id"] == id)
        .cloned()
}

/// The committed lesson every test starts from, with its text and counters as a branch left them.
fn sleep(text: &str, weight: u32, hits: u64) -> Value {
    lesson("sleep", "time.sleep(", text, weight, hits)
}

/// Branch `alice` off main with `on_alice` committed, `on_main` committed on main, then
/// `git merge alice` on main: what git said.
fn merge_alice(project: &TestProject, on_alice: impl FnOnce(), on_main: impl FnOnce()) -> Output {
    ok(&git(project, &["checkout", "-q", "-b", "alice"]));
    on_alice();
    commit(project, "alice");
    ok(&git(project, &["checkout", "-q", "main"]));
    on_main();
    commit(project, "main");
    git(project, &["merge", "--no-edit", "alice"])
}

/// A repository on `main` with car installed and one committed lesson.
fn team_project() -> TestProject {
    let mut project = TestProject::new();
    project.at(T0);
    ok(&git(&project, &["checkout", "-q", "-b", "main"]));
    let install = project.run(&["install", "--non-interactive"]);
    assert_eq!(install.code, 0, "{install:?}");
    write_lessons(&project, &[sleep("Use the scheduler's backoff", 4, 1)]);
    project.write(
        "jobs/poll.py",
        "import time\n\n\ndef poll():\n    return None\n",
    );
    commit(&project, "base");
    project
}

/// One heeded warning of lesson `sleep` through the hook (warned, then the line changed), folded
/// into lessons.json at the session's end.
fn heed_sleep(project: &TestProject) {
    let edit = |old: &str, new: &str| {
        let content = project.read("jobs/poll.py");
        project.write("jobs/poll.py", &content.replacen(old, new, 1));
        let answer = project.hook(
            "post-tool-use",
            &project.edit_payload("jobs/poll.py", old, new),
        );
        assert_eq!(answer.code, 0, "{answer:?}");
        answer
    };
    let warned = edit("    return None\n", "    time.sleep(5)\n    return None\n");
    assert!(warned.context().contains("lesson (weight"), "{warned:?}");
    edit("    time.sleep(5)\n", "    backoff.wait()\n");
    edit("    backoff.wait()\n", "");
    assert_eq!(project.post_session_end().code, 0);
}

fn learn(project: &TestProject, trigger: &str, text: &str) -> String {
    let run = project.add_lesson("*.py", trigger, text);
    assert_eq!(run.code, 0, "{run:?}");
    run.stdout.trim().to_string()
}

#[test]
fn two_branches_that_hit_and_learn_merge_cleanly_with_combined_counters() {
    let project = team_project();
    ok(&git(&project, &["checkout", "-q", "-b", "alice"]));
    heed_sleep(&project);
    let alice = learn(&project, "fastjsonx", "Write `json`, not `fastjsonx`.");
    commit(&project, "alice learned");
    assert_eq!(by_id(&project, "sleep").unwrap()["hits"], 2);

    ok(&git(&project, &["checkout", "-q", "main"]));
    ok(&git(&project, &["checkout", "-q", "-b", "bob"]));
    heed_sleep(&project);
    heed_sleep(&project);
    let bob = learn(&project, "yaml.FullLoader", "Write `yaml.safe_load`.");
    commit(&project, "bob learned");
    assert_eq!(by_id(&project, "sleep").unwrap()["hits"], 3);

    ok(&git(&project, &["checkout", "-q", "alice"]));
    let merged = git(&project, &["merge", "--no-edit", "bob"]);
    ok(&merged);
    assert!(!said(&merged).contains("CONFLICT"), "{}", said(&merged));
    let sleep = by_id(&project, "sleep").unwrap();
    // hits: 1 at the base + 1 on alice + 2 on bob; weight: the larger (4 + 2 heeds on bob).
    assert_eq!(
        (&sleep["hits"], &sleep["heeded"], &sleep["weight"]),
        (&json!(4), &json!(3), &json!(6)),
        "{sleep}"
    );
    assert_eq!(sleep["team_note"], json!({"owner": "core"}));
    assert!(by_id(&project, &alice).is_some() && by_id(&project, &bob).is_some());
    assert_eq!(project.read_json(LESSONS)["version"], 3);
    let listed = project.run(&["lessons", "list", "--json"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&listed.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(
        String::from_utf8_lossy(&git(&project, &["status", "--porcelain"]).stdout)
            .trim()
            .is_empty(),
        "the merge is committed, nothing left over"
    );
}

#[test]
fn a_text_both_branches_changed_stops_the_merge_with_both_texts_readable() {
    let project = team_project();
    let merged = merge_alice(
        &project,
        || {
            write_lessons(
                &project,
                &[sleep("Use backoff.wait(), never time.sleep", 4, 1)],
            )
        },
        || {
            write_lessons(
                &project,
                &[sleep("Use the scheduler (jobs/backoff.py)", 5, 2)],
            )
        },
    );
    assert!(!merged.status.success(), "{}", said(&merged));
    let text = said(&merged);
    assert!(
        text.contains("CONFLICT in lesson sleep: both branches changed \"lesson\""),
        "{text}"
    );
    assert!(
        text.contains("Merge conflict in .claude/claude-auto-review/lessons.json"),
        "{text}"
    );
    // The file is valid JSON: ours in place, the three versions beside it; car keeps working.
    let sleep = by_id(&project, "sleep").unwrap();
    assert_eq!(sleep["lesson"], "Use the scheduler (jobs/backoff.py)");
    assert_eq!(
        sleep["merge_conflict"],
        json!({"lesson": {"base": "Use the scheduler's backoff",
                          "ours": "Use the scheduler (jobs/backoff.py)",
                          "theirs": "Use backoff.wait(), never time.sleep"}})
    );
    assert_eq!((&sleep["hits"], &sleep["weight"]), (&json!(2), &json!(5)));
    let listed = project.run(&["lessons", "list"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(
        listed
            .stderr
            .contains("warning: lesson sleep holds an unsettled merge conflict"),
        "{listed:?}"
    );
    let status =
        String::from_utf8_lossy(&git(&project, &["status", "--porcelain"]).stdout).into_owned();
    assert!(status.contains(&format!("UU {LESSONS}")), "{status}");
    // The documented way out: settle the text, drop the field, add, commit.
    let mut settled = sleep.clone();
    settled.as_object_mut().unwrap().remove("merge_conflict");
    settled["lesson"] = json!("Use backoff.wait() from jobs/backoff.py, never time.sleep");
    write_lessons(&project, &[settled]);
    commit(&project, "merged");
}

#[test]
fn a_lesson_removed_on_one_branch_stays_removed_and_the_candidate_pool_merges_too() {
    let project = team_project();
    let candidate = |trigger: &str, hits: u64, last_hit: i64| {
        json!({"scope": "*.py", "trigger": trigger, "lesson": "seen once", "hits": hits,
               "last_hit": last_hit, "created": "2026-05-28"})
    };
    let pool = |candidates: Vec<Value>| json!({ "candidates": candidates }).to_string();
    // The pool is local by default (git-ignored); a team that shares it adds it by force.
    project.write(CANDIDATES, &pool(vec![candidate("fastjsonx", 1, T0)]));
    ok(&git(&project, &["add", "-f", CANDIDATES]));
    commit(&project, "share the pool");

    let mut other = String::new();
    let merged = merge_alice(
        &project,
        || {
            let rm = project.run(&["lessons", "rm", "sleep"]);
            assert_eq!(rm.code, 0, "{rm:?}");
            project.write(
                CANDIDATES,
                &pool(vec![
                    candidate("fastjsonx", 2, T0 + 10),
                    candidate("orjsonx", 1, T0),
                ]),
            );
        },
        || {
            other = learn(&project, "os.system(", "Use subprocess.run with a list");
            project.write(CANDIDATES, &pool(vec![candidate("fastjsonx", 3, T0 + 20)]));
        },
    );
    ok(&merged);
    assert_eq!(
        by_id(&project, "sleep"),
        None,
        "removed on alice, untouched on main"
    );
    assert!(by_id(&project, &other).is_some());
    let pool = project.read_json(CANDIDATES);
    assert_eq!(pool["candidates"][0], candidate("fastjsonx", 4, T0 + 20));
    assert_eq!(pool["candidates"][1]["trigger"], "orjsonx");
}

#[test]
fn a_version_car_cannot_read_is_left_to_git_with_nothing_lost() {
    let project = team_project();
    let merged = merge_alice(
        &project,
        || {
            project.write(LESSONS, "{\"lessons\": [\n  {\"scope\": \"*.py\",,}\n]}\n");
        },
        || write_lessons(&project, &[sleep("Use the scheduler's backoff", 5, 2)]),
    );
    assert!(!merged.status.success());
    let text = said(&merged);
    assert!(text.contains("not valid JSON"), "{text}");
    assert!(text.contains("was not merged by car"), "{text}");
    let file = project.read(LESSONS);
    assert!(
        file.contains("<<<<<<< ours") && file.contains(">>>>>>> theirs"),
        "git's own conflict: {file}"
    );
    assert!(
        file.contains("\"hits\": 2") && file.contains(",,"),
        "{file}"
    );
}

#[test]
fn a_clone_without_the_driver_conflicts_until_car_install_registers_it() {
    let project = team_project();
    let clone = tempfile::tempdir().unwrap();
    let clone_dir = clone.path().join("clone");
    ok(&git(
        &project,
        &["clone", "-q", ".", clone_dir.to_str().unwrap()],
    ));
    // The attributes came with the clone; the driver did not (git config is not shared).
    assert!(clone_dir.join(ATTRIBUTES).exists());
    assert!(
        !git_at(
            &clone_dir,
            project.home(),
            &["config", "--get", "merge.car-lessons.driver"]
        )
        .status
        .success()
    );
    let write = |lessons: &[Value]| {
        std::fs::write(
            clone_dir.join(LESSONS),
            serde_json::to_string_pretty(&json!({ "lessons": lessons, "version": 3 })).unwrap(),
        )
        .unwrap();
    };
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["checkout", "-q", "-b", "alice"],
    ));
    write(&[sleep("Use the scheduler\'s backoff", 5, 2)]);
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["commit", "-qam", "alice hits"],
    ));
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["checkout", "-q", "main"],
    ));
    write(&[sleep("Use the scheduler\'s backoff", 6, 3)]);
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["commit", "-qam", "main hits"],
    ));
    let merged = git_at(&clone_dir, project.home(), &["merge", "--no-edit", "alice"]);
    assert!(
        !merged.status.success(),
        "git's line merge: {}",
        said(&merged)
    );
    ok(&git_at(&clone_dir, project.home(), &["merge", "--abort"]));

    // The documented fix, by hand: the same entry `car install` writes.
    ok(&git_at(
        &clone_dir,
        project.home(),
        &[
            "config",
            "merge.car-lessons.driver",
            "car lessons merge %O %A %B",
        ],
    ));
    let merged_counters = || {
        let merged: Value =
            serde_json::from_str(&std::fs::read_to_string(clone_dir.join(LESSONS)).unwrap())
                .unwrap();
        let sleep = &merged["lessons"][0];
        (sleep["hits"].clone(), sleep["weight"].clone())
    };
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["merge", "--no-edit", "alice"],
    ));
    // hits 1 + 1 + 2, the larger weight.
    assert_eq!(merged_counters(), (json!(4), json!(6)));

    // The other documented fix: `car install` in the clone.
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["reset", "-q", "--hard", "HEAD~1"],
    ));
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["config", "--remove-section", "merge.car-lessons"],
    ));
    let install = project.run(&[
        "-C",
        clone_dir.to_str().unwrap(),
        "install",
        "--non-interactive",
    ]);
    assert_eq!(install.code, 0, "{install:?}");
    assert!(install.stderr.contains("merge driver"), "{install:?}");
    ok(&git_at(
        &clone_dir,
        project.home(),
        &["merge", "--no-edit", "alice"],
    ));
    assert_eq!(merged_counters(), (json!(4), json!(6)));
}

#[test]
fn install_registers_the_driver_once_and_uninstall_removes_exactly_it() {
    let project = TestProject::new();
    project.write(".claude/settings.json", "{\"model\": \"opus\"}\n");
    let first = project.run(&["install", "--non-interactive"]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.stderr.contains("merge driver"), "{first:?}");
    let attributes = project.read(ATTRIBUTES);
    assert!(
        attributes.contains("lessons.json merge=car-lessons\n"),
        "{attributes}"
    );
    assert!(attributes.contains("lesson_candidates.json merge=car-lessons\n"));
    assert!(attributes.contains("retired-lessons.json merge=car-lessons\n"));
    let driver = git(&project, &["config", "--get", "merge.car-lessons.driver"]);
    assert_eq!(
        String::from_utf8_lossy(&driver.stdout).trim(),
        "car lessons merge %O %A %B",
        "a cargo build names itself `car`; an installed one its absolute path"
    );
    // The attributes file is shared through git, beside the lessons.
    let status = project.git_status();
    assert!(status.contains(".gitattributes"), "{status}");
    let config = std::fs::read(project.path().join(".git/config")).unwrap();
    let second = project.run(&["install", "--non-interactive"]);
    assert_eq!(second.code, 0);
    assert!(!second.stderr.contains("merge driver"), "{second:?}");
    assert_eq!(
        std::fs::read(project.path().join(".git/config")).unwrap(),
        config
    );

    let removed = project.run(&["uninstall"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(removed.stderr.contains("merge.car-lessons"), "{removed:?}");
    assert!(!project.exists(ATTRIBUTES));
    assert!(
        !git(&project, &["config", "--get-regexp", "merge\\."])
            .status
            .success()
    );
}

#[test]
fn lessons_diff_shows_what_a_branch_learned_lost_and_reweighted() {
    let project = team_project();
    ok(&git(&project, &["checkout", "-q", "-b", "alice"]));
    heed_sleep(&project);
    let learned = learn(&project, "fastjsonx", "Write `json`, not `fastjsonx`.");
    commit(&project, "alice learned");
    // Default REV: where this branch left main.
    let run = project.run(&["lessons", "diff"]);
    assert_eq!(run.code, 0, "{run:?}");
    // A lesson a person added (`car lessons add`) is "added", not "learned": only a lesson car
    // learned from the project's own mistakes is.
    assert!(
        run.stdout
            .contains("0 learned, 1 added, 0 lost, 0 retired, 1 reweighted, 0 changed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("added       {learned}  weight 2")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("reweighted  sleep  weight 4 → 5, hits 1 → 2, heeded 0 → 1"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("where this branch left main"),
        "{}",
        run.stdout
    );
    let json = project.run(&["lessons", "diff", "main", "--json"]);
    assert_eq!(json.code, 0, "{json:?}");
    let diff: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(diff["learned"], json!([]));
    assert_eq!(diff["added"][0]["id"], learned.as_str());
    assert_eq!(
        diff["reweighted"][0]["weight"],
        json!({"before": 4, "after": 5})
    );
    assert_eq!(diff["lost"], json!([]));
    // Removing a lesson in the working tree: lost against HEAD.
    assert_eq!(project.run(&["lessons", "rm", &learned]).code, 0);
    let run = project.run(&["lessons", "diff", "HEAD", "--json"]);
    let diff: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(diff["lost"][0]["id"], learned.as_str());
    let bad = project.run(&["lessons", "diff", "no-such-branch"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("not a revision"), "{bad:?}");
}

#[test]
fn lessons_retired_on_both_branches_all_land_in_the_retired_file() {
    let project = team_project();
    const RETIRED: &str = ".claude/claude-auto-review/retired-lessons.json";
    let noisy = lesson("noisy", "abcd.noisy", "warns on correct code", 1, 0);
    let quiet = lesson("quiet", "abcd.quiet", "never heeded", 1, 0);
    let base = sleep("Use the scheduler's backoff", 4, 1);
    write_lessons(&project, &[base.clone(), noisy.clone(), quiet.clone()]);
    commit(&project, "three lessons");
    let retire = |gone: &Value, kept: &Value| {
        let mut retired = gone.clone();
        retired["ignored"] = json!(5);
        retired["retired_because"] = json!("warned 5 times and never heeded");
        write_lessons(&project, &[base.clone(), kept.clone()]);
        project.write(RETIRED, &json!({ "lessons": [retired] }).to_string());
    };
    let merged = merge_alice(
        &project,
        || retire(&noisy, &quiet),
        || retire(&quiet, &noisy),
    );
    ok(&merged);
    let ids = |file: &str| -> Vec<Value> {
        project.read_json(file)["lessons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|lesson| lesson["id"].clone())
            .collect()
    };
    assert_eq!(ids(LESSONS), [json!("sleep")]);
    assert_eq!(ids(RETIRED), [json!("quiet"), json!("noisy")]);
}

/// Issue 38 item 6: a version over car's 64 MiB read bound made the driver exit 2 with OURS
/// untouched, so git showed a clean-looking file and `git add` dropped the other branch's
/// lessons. It is a version car cannot read like any other: git's line merge in OURS, exit 1.
#[test]
fn a_version_over_the_read_bound_is_left_to_git_with_nothing_lost() {
    let project = TestProject::new();
    let versions = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = versions.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let document = |lessons: &[Value]| {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({ "lessons": lessons })).unwrap()
        )
    };
    let base = write("base", &document(&[]));
    let ours = write(
        "ours",
        &document(&[lesson("l1", "ours_call(", "ours", 3, 1)]),
    );
    let huge = "x".repeat(65 << 20);
    let theirs = write(
        "theirs",
        &document(&[lesson("l2", "theirs_call(", &huge, 3, 1)]),
    );
    let run = project.run(&[
        "lessons",
        "merge",
        base.to_str().unwrap(),
        ours.to_str().unwrap(),
        theirs.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("theirs: larger than") && run.stderr.contains("was not merged by car"),
        "{}",
        run.stderr
    );
    let merged = std::fs::read_to_string(&ours).unwrap();
    assert!(
        merged.contains("<<<<<<< ours")
            && merged.contains("ours_call(")
            && merged.contains("theirs_call(")
            && merged.contains(">>>>>>> theirs"),
        "git's own conflict, both sides kept ({} bytes)",
        merged.len()
    );
}
