//! `car lessons learn-from-reviews` through the binary (issue "Learn from the team's review
//! history"), on `tests/fixtures/review-history/acme-shop.json`: fifteen review comments of a
//! shop's pull requests in the shape `gh api repos/OWNER/REPO/pulls/comments --paginate` prints
//! (two pages, one after the other), over a project whose committed code is correct.
//!
//! What a senior engineer keeps from that history, and what car keeps:
//! - `requests.get` without a timeout, suggested on pull 12 (api/client.py) and pull 15
//!   (jobs/sync.py, an outdated comment: the suggestion was committed): a lesson — a request
//!   without a timeout hangs forever, and two reviewers asked for it in two places.
//! - `ioutil.ReadAll` → `io.ReadAll`, suggested on pull 13 and pull 18: a lesson — `ioutil` is
//!   deprecated, and the project's code already uses `io.ReadAll`.
//! - Not kept: `JSON.parse(raw) as Cart` (one pull request: a candidate until it recurs); the
//!   `get_usr` rename (one suggestion: a candidate); `log.info` → `log.debug` on two pull requests
//!   (a taste call for two messages, not a rule: the two suggestions share no pattern beyond the
//!   call, and the project logs with `log.info` on purpose); a formatter bot's suggestion on two
//!   pull requests (a tool's fix, not the team's judgement); `==` → `===` twice in one file of
//!   one pull request (one place; and car cannot yet tell an operator from its longer
//!   neighbour, so it says so); the free-text comment, the reply and the thread's later
//!   refinement (no verifiable change of their own).

use serde_json::{Value, json};

use crate::support::TestProject;

pub(crate) fn fixture() -> String {
    format!(
        "{}/tests/fixtures/review-history/acme-shop.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The shop's committed code: correct everywhere the lessons look. It vendors a stub of the
/// `requests` package its Python imports, so the test needs no Python package installed.
pub(crate) fn shop() -> TestProject {
    let project = TestProject::new();
    project.write("requests/__init__.py", "");
    project.write(
        "api/client.py",
        "import logging\n\nimport requests\n\nlog = logging.getLogger(__name__)\n\n\n\
         def fetch_orders(url):\n    log.debug(\"fetching %s\", url)\n    \
         r = requests.get(url, timeout=10)\n    r.raise_for_status()\n    return r.json()\n",
    );
    project.write(
        "jobs/sync.py",
        "import logging\n\nimport requests\n\nlog = logging.getLogger(__name__)\nRETRIES = 3\n\n\n\
         def sync(url, payload):\n    log.info(\"syncing %s\", url)\n    \
         r = requests.get(url + \"/state\", timeout=10)\n    return r.status_code\n",
    );
    project.write(
        "store/http.go",
        "package store\n\nimport (\n\t\"io\"\n\t\"net/http\"\n)\n\n\
         func fetch(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\t\
         if err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n\t\
         return io.ReadAll(resp.Body)\n}\n",
    );
    project.write(
        "web/src/cart.ts",
        "export function isEmpty(cart: Cart): boolean {\n  return cart.items.length === 0;\n}\n\
         export function parseCart(raw: string): Cart {\n  return CartSchema.parse(JSON.parse(raw));\n}\n",
    );
    project.commit_all();
    project
}

fn learn(project: &TestProject, files: &[&str]) -> (Value, String) {
    let mut args = vec!["lessons", "learn-from-reviews", "--json"];
    args.extend_from_slice(files);
    let run = project.run(&args);
    assert_eq!(run.code, 0, "{run:?}");
    (serde_json::from_str(&run.stdout).unwrap(), run.stderr)
}

fn lessons(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn the_shops_history_teaches_the_two_lessons_a_senior_engineer_keeps() {
    let project = shop();
    let (summary, stderr) = learn(&project, &[&fixture()]);
    assert_eq!(summary["comments"], 15, "{summary}");
    assert_eq!(summary["suggestions"], 10, "{summary}");
    assert_eq!(summary["outdated"], 1, "{summary}");
    assert_eq!(
        summary["skipped"],
        json!({"free-text": 1, "reply": 1, "later-in-thread": 1, "bot": 2}),
        "{summary}"
    );
    let learned = lessons(&project);
    let kept: Vec<(&str, &str)> = learned
        .iter()
        .map(|lesson| {
            (
                lesson["scope"].as_str().unwrap(),
                lesson["triggers"][0].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}\n{stderr}");
    assert!(
        kept.iter().any(|(scope, trigger)| *scope == "*.py"
            && trigger.contains("requests\\.get")
            && trigger.contains("timeout")),
        "{kept:?}"
    );
    assert!(kept.contains(&("*.go", "ioutil.ReadAll")), "{kept:?}");
    let stored = project.read_json(".claude/claude-auto-review/lessons.json");
    for lesson in stored["lessons"].as_array().unwrap() {
        assert_eq!(lesson["source"], "review-history", "{lesson}");
        let places = lesson["learned_from"].as_array().unwrap();
        assert_eq!(places.len(), 2, "two pull requests: {lesson}");
        assert_ne!(places[0]["session"], places[1]["session"]);
        for place in places {
            let url = place["url"].as_str().unwrap();
            assert!(
                url.starts_with("https://github.com/acme/shop/pull/"),
                "{url}"
            );
        }
    }
    let python = learned.iter().find(|l| l["scope"] == "*.py").unwrap();
    assert!(
        python["lesson"]
            .as_str()
            .unwrap()
            .starts_with("Always pass a timeout: requests waits forever on a dead server."),
        "the reviewer's words are the reason: {python}"
    );

    // None fires on the project's correct code.
    let check = project.run(&["check", "."]);
    assert_eq!(check.code, 0, "{check:?}");
    assert!(check.stdout.contains("0 warnings"), "{check:?}");

    // What is not a lesson is a candidate or a refusal, never silence.
    assert_eq!(summary["candidates"], 6, "{summary}");
    let refused = summary["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 3, "{summary}");
    let subject = |item: &Value| item["subject"].as_str().unwrap().to_string();
    assert_eq!(
        refused
            .iter()
            .filter(|item| subject(item).contains("=="))
            .count(),
        2,
        "{summary}"
    );
    // The two `log.info` → `log.debug` suggestions took away the same name but share no
    // pattern: said, not left as two candidates seen once.
    assert!(
        refused
            .iter()
            .any(|item| subject(item).contains("log.info") && item["kind"] == "no-common-pattern"),
        "{summary}"
    );
    let candidates = project.run(&["lessons", "candidates"]);
    assert!(
        candidates.stdout.contains(
            "seen as review comment on pull/14 (web/src/cart.ts:14) \
             https://github.com/acme/shop/pull/14#discussion_r1007"
        ),
        "{}",
        candidates.stdout
    );
    assert!(
        !candidates.stdout.contains("RETRIES"),
        "a bot's suggestion is no candidate: {}",
        candidates.stdout
    );
}

#[test]
fn a_learned_lesson_warns_the_agent_and_names_the_pull_requests() {
    let project = shop();
    learn(&project, &[&fixture()]);
    let payload = project.write_payload(
        "jobs/report.py",
        "import requests\n\n\ndef report(url):\n    return requests.get(url).json()\n",
        None,
    );
    let answer = project.hook("post-tool-use", &payload);
    let context = answer.context();
    assert!(context.contains("Always pass a timeout"), "{context}");
    let id = lessons(&project)
        .iter()
        .find(|l| l["scope"] == "*.py")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = project.run(&["lessons", "show", &id]);
    assert!(
        shown.stdout.contains(
            "learned   review comment on pull/12 (api/client.py:4) \
             https://github.com/acme/shop/pull/12#discussion_r1001 and 1 more"
        ),
        "{}",
        shown.stdout
    );
}

#[test]
fn reading_the_same_history_again_learns_nothing_twice() {
    let project = shop();
    learn(&project, &[&fixture()]);
    let before = project.read(".claude/claude-auto-review/lessons.json");
    let (again, _) = learn(&project, &[&fixture()]);
    assert_eq!(again["lessons"], json!([]), "{again}");
    assert_eq!(again["candidates"], 0, "{again}");
    assert_eq!(again["known"], 8, "{again}");
    assert_eq!(
        project.read(".claude/claude-auto-review/lessons.json"),
        before
    );
}

#[test]
fn one_pull_request_is_no_lesson_and_a_second_one_later_makes_it() {
    let project = shop();
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture())
            .unwrap()
            .replace("]\n[", ","),
    )
    .unwrap();
    let only_pull = |number: u64| -> Vec<Value> {
        all.as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["pull_request_url"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("/pulls/{number}"))
            })
            .cloned()
            .collect()
    };
    project.write("pull-13.json", &json!(only_pull(13)).to_string());
    let (first, _) = learn(&project, &["pull-13.json"]);
    assert_eq!(first["lessons"], json!([]), "{first}");
    assert_eq!(first["candidates"], 1, "{first}");
    project.write("pull-18.json", &json!(only_pull(18)).to_string());
    let (second, _) = learn(&project, &["pull-18.json"]);
    assert_eq!(second["lessons"].as_array().unwrap().len(), 1, "{second}");
    assert_eq!(second["skipped"], json!({"bot": 1}), "{second}");
}

#[test]
fn bad_input_is_a_clear_error_and_changes_nothing() {
    let project = shop();
    let cases = [
        ("page.html", "<html>API rate limit exceeded</html>".to_string(), "page.html: not JSON at line 1, column 1"),
        (
            "cut.json",
            std::fs::read_to_string(fixture()).unwrap()[..2000].to_string(),
            "cut.json: cut off at line",
        ),
        (
            "issues.json",
            json!([{"id": 1, "body": "LGTM", "html_url": "https://github.com/acme/shop/issues/3#issuecomment-1",
                    "user": {"login": "dana", "type": "User"}}])
            .to_string(),
            "issues.json: item 1 is not a pull-request review comment: no \"path\"",
        ),
    ];
    for (name, text, error) in cases {
        project.write(name, &text);
        let run = project.run(&["lessons", "learn-from-reviews", &fixture(), name]);
        assert_eq!(run.code, 2, "{name}: {run:?}");
        assert!(run.stderr.contains(error), "{name}: {}", run.stderr);
        assert!(
            !project.exists(".claude/claude-auto-review/lessons.json")
                && !project.exists(".claude/claude-auto-review/candidates.json"),
            "{name}: a bad file changes nothing"
        );
    }
    let missing = project.run(&["lessons", "learn-from-reviews", "nowhere.json"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("nowhere.json"),
        "{}",
        missing.stderr
    );
    let none = project.run(&["lessons", "learn-from-reviews"]);
    assert_eq!(none.code, 2, "{none:?}");
}

/// A review comment in words on one line of `path`, in the REST API's shape.
fn comment_in_words(id: u64, pull: u64, path: &str, hunk: &str, line: u64, body: &str) -> Value {
    json!({
        "id": id, "diff_hunk": hunk, "path": path, "body": body,
        "commit_id": "9f2c1e0b7d4a3c2e1f0a9b8c7d6e5f4a3b2c1d0e",
        "original_commit_id": "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
        "user": {"login": "dana", "type": "User"},
        "created_at": format!("2026-04-0{}T10:00:00Z", id % 9 + 1),
        "html_url": format!("https://github.com/acme/shop/pull/{pull}#discussion_r{id}"),
        "pull_request_url": format!("https://api.github.com/repos/acme/shop/pulls/{pull}"),
        "line": line, "original_line": line, "start_line": null, "original_start_line": null,
        "side": "RIGHT", "subject_type": "line", "in_reply_to_id": null
    })
}

/// `--with-model`: comments in words go to the reviewer (a scripted `command` reviewer here),
/// which answers with the line as written and as fixed. What it says is kept only when its line
/// is one of the commented lines, and then goes through the same synthesis and verification:
/// the same change read on two pull requests is a lesson; an answer about a line that is not
/// there, a comment that asks for nothing concrete, and a reply are not evidence. Without the
/// flag the reviewer is never asked.
#[test]
fn with_model_comments_in_words_teach_only_what_the_lines_back() {
    let project = shop();
    let reviewer = crate::review_helpers::scripted_reviewer(
        &project,
        r#"#!/bin/sh
prompt=$(cat)
echo asked >> "$(dirname "$0")/calls"
case "$prompt" in
  *"yaml.load("*)
    line=$(printf '%s\n' "$prompt" | grep -m1 'yaml.load(' | sed 's/^ *//')
    good=$(printf '%s\n' "$line" | sed 's/yaml.load(/yaml.safe_load(/')
    printf 'Here you go:\n{"change": true, "bad": "%s", "good": "%s"}\n' "$line" "$good" ;;
  *"shell=True"*)
    echo '{"change": true, "bad": "subprocess.run(cmd, check=True)", "good": "subprocess.run(args)"}' ;;
  *) echo '{"change": false}' ;;
esac
"#,
    );
    let hunk = |line: &str| format!("@@ -1,3 +1,4 @@\n import yaml\n \n def load(text):\n+{line}");
    let comments = json!([
        comment_in_words(
            2001,
            21,
            "config/load.py",
            &hunk("    data = yaml.load(text)"),
            4,
            "yaml.load runs arbitrary constructors on untrusted input; use the safe loader."
        ),
        comment_in_words(
            2002,
            22,
            "plugins/read.py",
            &hunk("    cfg = yaml.load(raw)"),
            4,
            "Same as before: never yaml.load what came from outside."
        ),
        comment_in_words(
            2003,
            23,
            "tools/run.py",
            &hunk("    subprocess.run(cmd, shell=True)"),
            4,
            "shell=True with a user's string is an injection; pass a list."
        ),
        comment_in_words(
            2004,
            23,
            "tools/run.py",
            &hunk("    print(len(items))"),
            4,
            "Why do we print here?"
        ),
    ]);
    project.write("words.json", &comments.to_string());
    let without = project.run(&["lessons", "learn-from-reviews", "words.json", "--json"]);
    assert_eq!(without.code, 0, "{without:?}");
    let summary: Value = serde_json::from_str(&without.stdout).unwrap();
    assert_eq!(summary["skipped"], json!({"free-text": 4}), "{summary}");
    assert!(
        !reviewer.path("calls").exists(),
        "asked without --with-model"
    );
    let run = project.run(&[
        "lessons",
        "learn-from-reviews",
        "words.json",
        "--with-model",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("asking the command reviewer"),
        "{run:?}"
    );
    let summary: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        std::fs::read_to_string(reviewer.path("calls"))
            .unwrap()
            .lines()
            .count(),
        4
    );
    assert_eq!(summary["by_model"], 2, "{summary}");
    assert_eq!(
        summary["skipped"],
        json!({"model-no-change": 1, "model-unverified": 1}),
        "{summary}"
    );
    assert_eq!(summary["lessons"].as_array().unwrap().len(), 1, "{summary}");
    let learned = crate::learn_signals::lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0]["source"], "review-history");
    assert!(
        learned[0]["triggers"][0]
            .as_str()
            .unwrap()
            .contains("yaml.load"),
        "{learned:?}"
    );
    assert!(
        learned[0]["lesson"]
            .as_str()
            .unwrap()
            .starts_with("yaml.load runs arbitrary constructors"),
        "{learned:?}"
    );
    // The reviewer is `manual`: --with-model says how to choose one, reads nothing.
    let manual = shop();
    manual.write("words.json", &comments.to_string());
    let refused = manual.run(&[
        "lessons",
        "learn-from-reviews",
        "words.json",
        "--with-model",
    ]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains("car config --backend"),
        "{refused:?}"
    );
}
