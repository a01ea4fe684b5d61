//! A person decides what car learns (issue "Learn from the team's review history, and let a
//! person decide what car learns", part 2), through the binary: the setting `learning` —
//! `approve` makes a learned lesson wait as a proposal, `observe` also keeps every lesson quiet —
//! and `car lessons review` (driven at a real terminal in tmux, and piped), `car lessons review
//! --json`, `car lessons accept|reject ID`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::learn_model::{reviewed_fix, reviewer_flagging};
use crate::learn_review_history::{fixture, shop};
use crate::learn_signals::{T0, agent_edit, lessons};
use crate::pre_tool_use::write as pre_write;
use crate::session_start::session_start;
use crate::support::{HookAnswer, TestProject};

const DAY: i64 = 86_400;
const PROPOSALS: &str = ".claude/claude-auto-review/lesson_proposals.json";
const REJECTED: &str = ".claude/claude-auto-review/rejected_lessons.json";

/// Sets car's setting `key` in the project's settings, keeping the others.
fn set(project: &TestProject, key: &str, value: Value) {
    let path = ".claude/settings.json";
    let mut settings: Value = if project.exists(path) {
        serde_json::from_str(&project.read(path)).unwrap()
    } else {
        json!({})
    };
    settings["claude-auto-review"][key] = value;
    project.write(path, &settings.to_string());
}

fn proposed(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "review", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    value["proposed"].as_array().unwrap().clone()
}

fn refused_kinds(project: &TestProject) -> Vec<String> {
    let run = project.run(&["lessons", "candidates", "--refused", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let value: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    value
        .iter()
        .map(|item| item["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Three services that read request bodies; the reviewer flags `pickle.loads` as a P1.
fn pickle_project() -> (TestProject, crate::review_helpers::FakeClis) {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["orders", "refunds", "audit", "billing"] {
        project.write(
            &format!("src/{name}.py"),
            "import json\nimport pickle\n\n\ndef handle(body):\n    return body\n",
        );
    }
    project.commit_all();
    let reviewer = reviewer_flagging(
        &project,
        "pickle\\.loads",
        None,
        "Untrusted bytes deserialised with pickle",
    );
    (project, reviewer)
}

/// The agent writes `pickle.loads` in `file` in `session`; the review blocks; the agent fixes it.
fn pickle_fixed(project: &TestProject, session: &str, file: &str) -> HookAnswer {
    reviewed_fix(
        project,
        session,
        file,
        ("    return body\n", "    return pickle.loads(body)\n"),
        ("return pickle.loads(body)", "return json.loads(body)"),
    )
}

/// `approve`: the second independent sighting proposes the lesson instead of making it; the
/// proposal never warns; `car lessons accept` makes it a lesson that warns.
#[test]
fn under_approve_a_learned_lesson_waits_for_a_person_and_warns_once_accepted() {
    let (mut project, _reviewer) = pickle_project();
    set(&project, "learning", json!("approve"));
    pickle_fixed(&project, "session-one", "src/orders.py");
    project.at(T0 + DAY);
    let second = pickle_fixed(&project, "session-two", "src/refunds.py");
    assert!(
        second.system_message().contains("proposed a lesson")
            && second.system_message().contains("car lessons review"),
        "{second:?}"
    );
    assert!(lessons(&project).is_empty(), "{:?}", lessons(&project));
    let waiting = proposed(&project);
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let proposal = &waiting[0];
    assert_eq!(proposal["triggers"], json!(["pickle.loads"]));
    assert_eq!(proposal["source"], "review");
    assert_eq!(proposal["scope"], "*.py");
    let files: Vec<&str> = proposal["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["src/orders.py", "src/refunds.py"]);
    assert_eq!(
        proposal["evidence"][0]["bad"], "return pickle.loads(body)",
        "{proposal}"
    );
    assert!(
        proposal["evidence"][0]["seen"]
            .as_str()
            .unwrap()
            .contains("session-one"),
        "{proposal}"
    );
    assert_eq!(proposal["matches_now"], json!([]), "{proposal}");
    // A proposal speaks to no agent.
    project.at(T0 + 2 * DAY);
    let quiet = agent_edit(
        &project,
        "session-three",
        "src/audit.py",
        "    return body\n",
        "    return pickle.loads(body)\n",
    );
    assert!(!quiet.context().contains("lesson"), "{quiet:?}");
    // The code now holds a copy of the mistake: the proposal shows it.
    let waiting = proposed(&project);
    assert_eq!(
        waiting[0]["matches_now"][0]["file"], "src/audit.py",
        "{waiting:?}"
    );
    let id = waiting[0]["id"].as_str().unwrap().to_string();
    let accepted = project.run(&["lessons", "accept", &id[..6]]);
    assert_eq!(accepted.code, 0, "{accepted:?}");
    assert!(accepted.stderr.contains("now warns"), "{accepted:?}");
    assert!(proposed(&project).is_empty());
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0]["id"], id.as_str());
    assert_eq!(learned[0]["source"], "review");
    assert!(learned[0].get("proposed_at").is_none(), "{learned:?}");
    let warned = agent_edit(
        &project,
        "session-four",
        "src/billing.py",
        "    return body\n",
        "    return pickle.loads(body)\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
}

/// A rejected proposal is remembered: the same mistake fixed again in later sessions is not
/// proposed again, and each time says why (recorded, never silent).
#[test]
fn a_rejected_proposal_is_never_proposed_again_and_says_why() {
    let (mut project, _reviewer) = pickle_project();
    set(&project, "learning", json!("approve"));
    pickle_fixed(&project, "session-one", "src/orders.py");
    project.at(T0 + DAY);
    pickle_fixed(&project, "session-two", "src/refunds.py");
    let id = proposed(&project)[0]["id"].as_str().unwrap().to_string();
    let rejected = project.run(&[
        "lessons",
        "reject",
        &id,
        "--reason",
        "we pickle only our own cache files",
    ]);
    assert_eq!(rejected.code, 0, "{rejected:?}");
    assert!(
        rejected.stderr.contains("not propose it again"),
        "{rejected:?}"
    );
    let file: Value = serde_json::from_str(&project.read(REJECTED)).unwrap();
    assert_eq!(file["lessons"][0]["id"], id.as_str());
    assert_eq!(
        file["lessons"][0]["rejected_because"],
        "we pickle only our own cache files"
    );
    // Also when the person switches back to `auto`.
    set(&project, "learning", json!("auto"));
    for (day, (session, file)) in [
        ("session-three", "src/audit.py"),
        ("session-four", "src/billing.py"),
    ]
    .into_iter()
    .enumerate()
    {
        project.at(T0 + (2 + day as i64) * DAY);
        let again = pickle_fixed(&project, session, file);
        assert!(
            !again.system_message().contains("learned a lesson")
                && !again.system_message().contains("proposed a lesson"),
            "{again:?}"
        );
    }
    assert!(proposed(&project).is_empty());
    assert!(lessons(&project).is_empty(), "{:?}", lessons(&project));
    assert!(
        refused_kinds(&project)
            .iter()
            .any(|kind| kind == "rejected-by-a-person"),
        "{:?}",
        refused_kinds(&project)
    );
}

/// `observe`: car records and proposes, and no lesson speaks — no deny before the write, no
/// warning after it, no briefing at the session's start. The same project under `auto` does all
/// three.
#[test]
fn under_observe_no_lesson_warns_denies_or_briefs() {
    let project = TestProject::new();
    project.write("README.md", "x\n");
    project.commit_all();
    project.add_weighted_lesson(
        "*.py",
        "yaml.load(",
        "Use yaml.safe_load: yaml.load runs arbitrary constructors.",
        7,
    );
    // A new file each time: the same write sent again goes through on purpose.
    let speaks = |project: &TestProject, name: &str| -> (bool, bool, bool) {
        let file = format!("{name}.py");
        let content = "import yaml\n\ndata = yaml.load(text)\n";
        let pre = pre_write(project, &file, content);
        let denied = pre.json["hookSpecificOutput"]["permissionDecision"] == "deny";
        let post = project.hook(
            "post-tool-use",
            &project.write_payload(&file, content, None),
        );
        let warned = format!("{}{}", post.context(), post.reason()).contains("yaml.safe_load");
        let start = project.hook_as(
            "claude",
            "session-start",
            &session_start(project, "claude-code-2.1.332", "04-Stop.json", "startup"),
        );
        let briefed = start.context().contains("yaml.safe_load");
        (denied, warned, briefed)
    };
    assert_eq!(
        speaks(&project, "auto"),
        (true, true, true),
        "auto: every moment speaks"
    );
    set(&project, "learning", json!("observe"));
    assert_eq!(
        speaks(&project, "observe"),
        (false, false, false),
        "observe: none does"
    );
    let status = project.run(&["status"]);
    assert!(status.stdout.contains("observe"), "{status:?}");
}

/// `approve` through the review-history import: the fixture's two lessons a senior engineer
/// keeps (see `learn_review_history`) are proposed, nothing is a lesson yet, and neither
/// proposal fires on the shop's correct code.
#[test]
fn imported_review_history_is_proposed_under_approve() {
    let project = shop();
    set(&project, "learning", json!("approve"));
    let run = project.run(&["lessons", "learn-from-reviews", &fixture(), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let summary: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(summary["lessons"], json!([]), "{summary}");
    assert_eq!(
        summary["proposed"].as_array().unwrap().len(),
        2,
        "{summary}"
    );
    let waiting = proposed(&project);
    let mut triggers: Vec<String> = waiting
        .iter()
        .map(|proposal| proposal["triggers"][0].as_str().unwrap().to_string())
        .collect();
    triggers.sort();
    assert!(triggers[0].contains("ioutil.ReadAll"), "{triggers:?}");
    assert!(triggers[1].contains("requests\\.get"), "{triggers:?}");
    for proposal in &waiting {
        assert_eq!(proposal["source"], "review-history");
        assert_eq!(proposal["matches_now"], json!([]), "{proposal}");
        let urls: Vec<&str> = proposal["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|item| item["url"].as_str())
            .collect();
        assert_eq!(urls.len(), 2, "{proposal}");
        assert!(
            urls.iter()
                .all(|url| url.starts_with("https://github.com/")),
            "{urls:?}"
        );
    }
    assert!(lessons(&project).is_empty());
    // Read again: nothing new is proposed.
    let again = project.run(&["lessons", "learn-from-reviews", &fixture(), "--json"]);
    let summary: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(summary["proposed"], json!([]), "{summary}");
    assert_eq!(proposed(&project).len(), 2);
}

/// Bad input is a usage error that names what is wrong, and changes nothing.
#[test]
fn bad_ids_and_bad_rewordings_are_refused_clearly() {
    let project = shop();
    set(&project, "learning", json!("approve"));
    let run = project.run(&["lessons", "learn-from-reviews", &fixture()]);
    assert_eq!(run.code, 0, "{run:?}");
    let before = project.read(PROPOSALS);
    let unknown = project.run(&["lessons", "accept", "no-such-id"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown
            .stderr
            .contains("no proposed lesson has the id \"no-such-id\""),
        "{unknown:?}"
    );
    let short = project.run(&["lessons", "reject", "a"]);
    assert_eq!(short.code, 2, "{short:?}");
    let id = proposed(&project)[0]["id"].as_str().unwrap().to_string();
    let empty = project.run(&["lessons", "accept", &id, "--lesson", "  "]);
    assert_eq!(empty.code, 2, "{empty:?}");
    assert!(
        empty.stderr.contains("must say what to remember"),
        "{empty:?}"
    );
    let bad_scope = project.run(&["lessons", "accept", &id, "--scope", "[oops"]);
    assert_eq!(bad_scope.code, 2, "{bad_scope:?}");
    assert!(bad_scope.stderr.contains("[oops"), "{bad_scope:?}");
    assert_eq!(project.read(PROPOSALS), before);
    assert!(lessons(&project).is_empty());
    // A value of the setting car does not know is named, and `auto` stands in.
    set(&project, "learning", json!("sometimes"));
    let status = project.run(&["status"]);
    assert!(
        status.stdout.contains("sometimes") && status.stdout.contains("auto, approve, observe"),
        "{status:?}"
    );
}

/// Piped answers: the review reads one answer a line; the end of input decides nothing more.
#[test]
fn review_reads_answers_from_a_pipe() {
    let project = shop();
    set(&project, "learning", json!("approve"));
    project.run(&["lessons", "learn-from-reviews", &fixture()]);
    let first = proposed(&project)[0]["id"].as_str().unwrap().to_string();
    let mut child = project
        .car_std()
        .args(["lessons", "review"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(b"a\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("Proposed lesson 1 of 2"), "{stdout}");
    assert!(stdout.contains("accepted: lesson"), "{stdout}");
    assert!(
        stderr.contains("1 accepted, 0 rejected, 0 skipped; 1 still waits"),
        "{stderr}"
    );
    assert_eq!(lessons(&project)[0]["id"], first.as_str());
    assert_eq!(proposed(&project).len(), 1);
}

/// The terminal UI in a real terminal (tmux): the person reads the first proposal, rewords it
/// and accepts it, then rejects the second with a reason.
#[test]
fn review_walks_the_proposals_in_a_terminal() {
    if !crate::support::is_installed("tmux") {
        panic!("tmux is needed for this test (apt install tmux)");
    }
    let project = shop();
    set(&project, "learning", json!("approve"));
    project.run(&["lessons", "learn-from-reviews", &fixture()]);
    let ids: Vec<String> = proposed(&project)
        .iter()
        .map(|proposal| proposal["id"].as_str().unwrap().to_string())
        .collect();
    let tmux = Tmux::start(&project);
    tmux.wait_for("[a]ccept  [e]dit  [r]eject  [s]kip  [q]uit >");
    let screen = tmux.screen();
    assert!(screen.contains("Proposed lesson 1 of 2"), "{screen}");
    assert!(screen.contains("review comment on pull/"), "{screen}");
    assert!(screen.contains("written"), "{screen}");
    tmux.keys("e");
    tmux.wait_for("lesson text (empty keeps it):");
    tmux.keys("Reviewers ask for this on every pull request.");
    tmux.wait_for("scope (empty keeps it):");
    tmux.keys("");
    tmux.wait_for("lesson    Reviewers ask for this on every pull request.");
    tmux.keys("a");
    tmux.wait_for("Proposed lesson 2 of 2");
    tmux.wait_for("[a]ccept  [e]dit  [r]eject  [s]kip  [q]uit >");
    tmux.keys("r");
    tmux.wait_for("why (optional, Enter to skip):");
    tmux.keys("too noisy for us");
    tmux.wait_for("1 accepted, 1 rejected, 0 skipped; 0 still wait");
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0]["id"], ids[0].as_str());
    assert_eq!(
        learned[0]["lesson"],
        "Reviewers ask for this on every pull request."
    );
    let rejected: Value = serde_json::from_str(&project.read(REJECTED)).unwrap();
    assert_eq!(rejected["lessons"][0]["id"], ids[1].as_str());
    assert_eq!(
        rejected["lessons"][0]["rejected_because"],
        "too noisy for us"
    );
    assert!(proposed(&project).is_empty());
}

/// A tmux session running `car lessons review` in the project, killed on drop.
struct Tmux {
    name: String,
}

impl Tmux {
    fn start(project: &TestProject) -> Tmux {
        let name = format!("car-review-{}", std::process::id());
        let car = assert_cmd::cargo::cargo_bin("car");
        let home = project.home();
        let script = format!(
            "env -u CAR_NOW HOME={home} XDG_CONFIG_HOME={home}/.config XDG_CACHE_HOME={home}/.cache \
             XDG_DATA_HOME={home}/.local/share XDG_STATE_HOME={home}/.local/state NO_COLOR=1 \
             {car} lessons review; echo '[review ended]'; sleep 60",
            home = shell_quote(home),
            car = shell_quote(&car),
        );
        let status = Command::new("tmux")
            .env_remove("TMUX")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "160",
                "-y",
                "60",
                "-c",
            ])
            .arg(project.path())
            .arg(script)
            .status()
            .unwrap();
        assert!(status.success(), "tmux new-session failed");
        Tmux { name }
    }

    fn screen(&self) -> String {
        let output = Command::new("tmux")
            .args(["capture-pane", "-p", "-S", "-200", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Types `text` and Enter.
    fn keys(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "Enter"])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits until the screen shows `text` (a loaded machine may be slow: a generous bound, and
    /// the test asserts what it shows, not how fast).
    fn wait_for(&self, text: &str) {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            let seen = screen.matches(text).count();
            if seen > 0 && self.is_newest(&screen, text) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the terminal never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether `text` appears after the last prompt answered (a prompt shown again later is
    /// the newest one when it ends the screen's text).
    fn is_newest(&self, screen: &str, text: &str) -> bool {
        let trimmed = screen.trim_end();
        trimmed.ends_with(text.trim_end()) || !text.ends_with(['>', ':'])
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}
