//! `car report`: the page through the built binary — every lesson and session on it, reviewer and
//! lesson text escaped, its size at 10,000 lessons and 100,000 events — and in a real browser
//! (headless Chromium): the DOM holds the lesson rows and the rendered page is not blank.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::review_helpers::*;
use crate::support::TestProject;

/// Text a reviewer or a lesson could carry that must never become markup.
const SCRIPT: &str = "<script>alert('car')</script>";

/// A project with a lesson whose text holds [`SCRIPT`], one warning of it, a stop the manual
/// review blocked, a review whose P1 finding's title holds [`SCRIPT`], and a P3 still offered.
fn reviewed_project() -> TestProject {
    let project = pinned_project();
    project.write(
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    project.commit_all();
    project.add_weighted_lesson(
        "*.py",
        "open(path).read()",
        &format!("close what you open {SCRIPT}"),
        3,
    );
    project.add_lesson("*.ts", "as any", "use a real type");
    write_file(
        &project,
        "src/app.py",
        "def load(path):\n    return open(path).read()\n\ndef again(path):\n    return open(path).read()\n",
    );
    assert!(stop(&project).is_block(), "the manual review is requested");
    let run = submit(
        &project,
        &json!({"findings": [
            finding("F1", "P1", "src/app.py", 2, &format!("leaks a handle {SCRIPT}")),
            finding("F2", "P3", "src/app.py", 4, "name it load_again")]}),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(stop(&project).is_block(), "the P1 blocks");
    project
}

fn report(project: &TestProject, out: &Path) -> String {
    let run = project.run(&["report", "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout.trim(),
        out.display().to_string(),
        "the path is printed"
    );
    std::fs::read_to_string(out).unwrap()
}

fn lesson_ids(project: &TestProject) -> Vec<String> {
    let list: serde_json::Value =
        serde_json::from_str(&project.run(&["lessons", "list", "--json"]).stdout).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|lesson| lesson["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_page_holds_every_lesson_and_session_with_data_escaped() {
    let project = reviewed_project();
    let out = project.path().join("report.html");
    let page = report(&project, &out);
    for id in lesson_ids(&project) {
        assert!(page.contains(&format!("<tr id=\"l-{id}\">")), "lesson {id}");
    }
    assert!(page.contains(&format!("<b>{SESSION}</b>")), "the session");
    for section in ["lessons", "let-go", "sessions", "deep-review"] {
        assert!(
            page.contains(&format!("<section id=\"{section}\">")),
            "{section}"
        );
    }
    let escaped = "&lt;script&gt;alert(&#39;car&#39;)&lt;/script&gt;";
    assert!(
        page.contains(&format!("leaks a handle {escaped}")),
        "the finding's title"
    );
    assert!(
        page.contains(&format!("close what you open {escaped}")),
        "the lesson's text"
    );
    assert_eq!(page.matches("<script").count(), 1, "only car's own script");
    assert!(!page.contains(SCRIPT));
    for fact in [
        "blocked: review requested",
        "blocked: open findings or checker errors",
        "name it load_again",
        "P3 offers still open",
        "<b>review</b>",
    ] {
        assert!(page.contains(fact), "{fact}");
    }
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "self-contained"
    );
}

#[test]
fn the_default_page_is_in_the_state_folder_and_git_ignored() {
    let project = reviewed_project();
    let run = project.run(&["report"]);
    assert_eq!(run.code, 0, "{run:?}");
    let path = PathBuf::from(run.stdout.trim());
    assert_eq!(
        path,
        project
            .path()
            .join(".claude/claude-auto-review/report.html")
    );
    assert!(path.is_file());
    assert!(
        !project.git_status().contains("report.html"),
        "{}",
        project.git_status()
    );
}

/// 10,000 lessons (each hit once in the pending log) and 100,000 events in 20 sessions: the page
/// stays under 5 MB and shows every lesson. The time is measured by `cargo bench --bench report`.
#[test]
fn ten_thousand_lessons_and_a_hundred_thousand_events_stay_under_five_megabytes() {
    let project = pinned_project();
    crate::bench_common::report_state(project.path(), 10_000, 100_000, NOW);
    let out = project.path().join("report.html");
    let page = report(&project, &out);
    let size = page.len();
    assert!(size < 5 * 1024 * 1024, "{size} bytes");
    assert_eq!(page.matches("<tr id=\"l-").count(), 10_000);
    assert!(
        page.contains("earlier entries not shown"),
        "long timelines are folded"
    );
}

/// Headless Chromium, or a failure saying how to get it (CI installs it: `.ci/run`).
fn chromium() -> &'static str {
    for name in ["chromium", "chromium-browser"] {
        if crate::support::is_installed(name) {
            return name;
        }
    }
    panic!(
        "the report's browser test needs Chromium: `apt-get install chromium` (.ci/run installs it)"
    );
}

fn headless(page: &Path, args: &[&str]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    std::process::Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap()
}

#[test]
fn a_real_browser_renders_the_lesson_rows() {
    let project = reviewed_project();
    let out = project.path().join("report.html");
    report(&project, &out);
    let dom = headless(&out, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    for id in lesson_ids(&project) {
        assert!(
            dom.contains(&format!("<tr id=\"l-{id}\">")),
            "lesson {id} in the DOM"
        );
    }
    assert!(
        dom.contains("leaks a handle &lt;script&gt;"),
        "the title is text in the DOM"
    );

    let shot = project.path().join("report.png");
    let run = headless(
        &out,
        &[
            "--window-size=1200,900",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    assert!(shot.is_file(), "{}", String::from_utf8_lossy(&run.stderr));
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let pixels = &pixels[..frame.buffer_size()];
    let step = frame.color_type.samples();
    let first = &pixels[..step];
    let differing = pixels.chunks(step).filter(|pixel| *pixel != first).count();
    assert!(
        differing > pixels.len() / step / 20,
        "the screenshot is (nearly) one colour: {differing} pixels differ"
    );
}

/// What car let go of stays on the page after the files forgot it: a candidate a maintenance run
/// let expire, a retired lesson with why, and a candidate still waiting.
#[test]
fn the_page_shows_what_car_let_go_of() {
    let project = pinned_project();
    let state = project.path().join(".claude/claude-auto-review");
    std::fs::create_dir_all(&state).unwrap();
    let day = 86_400;
    std::fs::write(
        state.join("lesson_candidates.json"),
        json!({"candidates": [
            {"scope": "*.py", "trigger": "import fastjsonx", "lesson": "no such module",
             "hits": 1, "last_hit": NOW - 40 * day},
            {"scope": "*.py", "trigger": "import yamlx", "lesson": "no such module either",
             "hits": 1, "last_hit": NOW - day}]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        state.join("retired-lessons.json"),
        json!({"lessons": [{"id": "r1", "scope": "*.py", "triggers": ["print("],
            "lesson": "use logging", "weight": 1, "ignored": 5,
            "retired_at": NOW - day, "retired_because": "warned 5 times and never heeded"}]})
        .to_string(),
    )
    .unwrap();
    assert_eq!(project.run(&["lessons", "maintain"]).code, 0);
    let page = report(&project, &project.path().join("report.html"));
    for fact in [
        "candidate expired (30 days without a second sighting) <code>import fastjsonx</code>",
        "Candidates waiting for a second sighting (1)",
        "<code>import yamlx</code>",
        "Retired lessons (1)",
        "warned 5 times and never heeded",
        "car lessons restore r1",
    ] {
        assert!(page.contains(fact), "{fact}");
    }
}

#[test]
fn a_damaged_log_of_ended_sessions_is_named_on_the_page() {
    let project = reviewed_project();
    assert_eq!(project.post_session_end().code, 0);
    let log = project
        .path()
        .join(".claude/claude-auto-review/state.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap_or_default();
    text.push_str("{\"ts\": 1, \"session\": \"torn\n");
    std::fs::write(&log, text).unwrap();
    let out = project.path().join("page.html");
    let page = report(&project, &out);
    assert!(
        page.contains("1 line of the log of ended sessions"),
        "{}",
        &page[page.find("id=\"sessions\"").unwrap_or(0)..][..400]
    );
    // Unreadable as a whole (a folder in its place): named too, and the page is still written.
    std::fs::remove_file(&log).unwrap();
    std::fs::create_dir(&log).unwrap();
    let page = report(&project, &out);
    assert!(
        page.contains("the log of ended sessions could not be read"),
        "{}",
        &page[page.find("id=\"sessions\"").unwrap_or(0)..][..400]
    );
}

#[test]
fn the_page_shows_the_newest_two_hundred_sessions_and_counts_the_rest() {
    let project = pinned_project();
    write_file(&project, "a.py", "a = 1\n");
    let clients = project.path().join(".claude/claude-auto-review/clients");
    let log = std::fs::read_to_string(clients.join(SESSION).join("events.jsonl")).unwrap();
    for index in 0..204 {
        let id = format!("session-{index:03}");
        std::fs::create_dir_all(clients.join(&id)).unwrap();
        std::fs::write(
            clients.join(&id).join("events.jsonl"),
            log.replace(SESSION, &id),
        )
        .unwrap();
    }
    let page = report(&project, &project.path().join("page.html"));
    assert_eq!(page.matches("<details class=\"session\"").count(), 200);
    assert!(
        page.contains(">5 older sessions are not shown"),
        "{}",
        &page[page.rfind("older").unwrap_or(0).saturating_sub(200)..]
    );
}

/// Issue 39, item 7: a blocked edit is counted once however often the stop checks the file again
/// (it used to count each re-check: "9 blocked edits" for 6); writes the PreToolUse hook stopped
/// are on the page and in `car status` (they were nowhere); identical stops in a row are one line.
#[test]
fn blocked_edits_count_once_stopped_writes_show_and_repeated_stops_are_grouped() {
    use crate::pre_tool_use::{CLAUDE, before_tool, denied};
    let project = pinned_project();
    for content in ["{\"a\": 1,}\n", "{\"a\": 2,}\n"] {
        let input = json!({"file_path": project.path().join("stopped.json"), "content": content});
        let mut payload: serde_json::Value =
            serde_json::from_str(&before_tool(&project, CLAUDE, "Write", input)).unwrap();
        payload["session_id"] = json!(SESSION);
        let answer = project.hook_as("claude", "pre-tool-use", &payload.to_string());
        assert!(
            denied(&answer).contains("this edit was not made"),
            "{answer:?}"
        );
    }
    let broken = write_file(&project, "config/app.json", "{\"name\": \"demo\",}\n");
    assert!(broken.is_block(), "{broken:?}");
    for _ in 0..3 {
        let answer = stop_saying(&project, "Should I use the cache or the database?");
        assert!(!answer.is_block(), "{answer:?}");
    }
    let out = project.path().join("report.html");
    let page = report(&project, &out);
    assert!(
        page.contains(" · 1 blocked edits · 2 writes stopped · "),
        "the summary line of the session"
    );
    assert!(page.contains("<b>1</b><span>edits blocked</span>"));
    assert!(page.contains("<b>2</b><span>writes stopped</span>"));
    assert!(page.contains("<h4>Writes stopped before they landed</h4>"));
    assert!(page.contains("<code>stopped.json</code>"));
    assert_eq!(page.matches("<li class=\"stop\">").count(), 1, "one line");
    assert!(page.contains("stop ×3 <span class=\"tag ok\">allowed: incomplete</span>"));
    let status = project.run(&["status"]);
    assert!(
        status
            .stdout
            .contains("writes stopped before they landed (PreToolUse): 2"),
        "{status:?}"
    );
    let json_status = project.run(&["status", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json_status.stdout).unwrap();
    assert_eq!(value["reviews"]["writes_stopped"], 2, "{value}");
}
