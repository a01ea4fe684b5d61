//! Regression tests for issue 38 item 8, the smaller faults: a `git` printing bytes that are not
//! UTF-8 made the stop's reconciliation panic (caught, but a panic is a bug); reviewer output of
//! binary garbage around `{"findings":[]}` counted as a clean review; a 20 kB finding title made
//! a 20 kB `systemMessage`. (The Codex patch without its envelope is in
//! `pre_tool_use_hostile`.)

use serde_json::json;

use crate::review_helpers::{SESSION, finding, scripted_reviewer, stop_payload, write_file};
use crate::security_reads::make_executable;
use crate::support::TestProject;

/// A `git` that answers `status` with bytes that are not UTF-8 where the status letters go, and
/// hands every other command to the real git.
fn garbling_git() -> tempfile::TempDir {
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().join("git");
    std::fs::write(
        &git,
        format!(
            "#!/bin/sh\nfor arg in \"$@\"; do\n  if [ \"$arg\" = status ]; then printf 'M\\377\\377app.py\\000\\377\\000 M a.py\\000'; exit 0; fi\ndone\nexec {real} \"$@\"\n"
        ),
    )
    .unwrap();
    make_executable(&git);
    dir
}

#[test]
fn a_git_printing_bytes_that_are_not_utf8_makes_no_hook_panic() {
    let project = TestProject::new();
    project.write("README.md", "x\n");
    project.commit_all();
    let git = garbling_git();
    let path = format!(
        "{}:{}",
        git.path().display(),
        std::env::var("PATH").unwrap()
    );
    let started = project.hook_with_env(
        "session-start",
        &json!({"session_id": SESSION, "cwd": project.path(), "hook_event_name": "SessionStart",
                "source": "startup"})
        .to_string(),
        &[("PATH", path.as_str())],
    );
    assert!(!started.stdout.contains("panicked"), "{}", started.stdout);
    write_file(&project, "a.py", "x = 1\n");
    let stop = project.hook_with_env(
        "stop",
        &stop_payload(&project, SESSION, Some("Done.")),
        &[("PATH", path.as_str())],
    );
    let said = format!("{}{}", stop.stdout, stop.stderr);
    assert!(!said.contains("internal error"), "{said}");
    assert!(stop.is_block(), "the review is asked for: {}", stop.stdout);
}

#[test]
fn binary_garbage_around_an_empty_findings_list_is_no_clean_review() {
    let project = TestProject::new();
    let _reviewer = scripted_reviewer(
        &project,
        "#!/bin/sh\ncat > /dev/null\nprintf '\\000\\001\\377\\376{\"findings\":[]}\\211PNG\\032'\n",
    );
    write_file(&project, "a.py", "x = 1\n");
    let stop = project.hook("stop", &stop_payload(&project, SESSION, Some("Done.")));
    assert!(stop.is_block(), "never clean: {}", stop.stdout);
    assert!(
        stop.reason().contains("bytes that are not text"),
        "{}",
        stop.reason()
    );
}

#[test]
fn a_twenty_kilobyte_title_is_cut_in_the_hook_and_whole_in_the_offers() {
    let project = TestProject::new();
    let title = format!("rename {}", "x".repeat(20_000));
    let answer = json!({"findings": [finding("F1", "P3", "a.py", 1, &title)]});
    let _reviewer = scripted_reviewer(
        &project,
        &format!("#!/bin/sh\ncat > /dev/null\nprintf '%s' '{answer}'\n"),
    );
    write_file(&project, "a.py", "x = 1\n");
    let stop = project.hook("stop", &stop_payload(&project, SESSION, Some("Done.")));
    assert!(!stop.is_block(), "{}", stop.stdout);
    let message = stop.system_message();
    assert!(message.len() < 2_000, "{} bytes", message.len());
    assert!(
        message.contains("more characters: `car review offers`"),
        "{message}"
    );
    let offers = project.run(&["review", "offers"]);
    assert!(
        offers.stdout.contains(&title),
        "the offers show the whole title"
    );
}
