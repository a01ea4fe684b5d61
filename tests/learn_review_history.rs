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

/// The shop's committed code: correct everywhere the lessons look.
pub(crate) fn shop() -> TestProject {
    let project = TestProject::new();
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
    assert_eq!(refused.len(), 2, "{summary}");
    assert!(
        refused
            .iter()
            .all(|item| item["subject"].as_str().unwrap().contains("==")),
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
