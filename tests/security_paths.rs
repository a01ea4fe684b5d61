//! Regression tests for issue 15 item 2: a path whose resolved target is outside the project is
//! never read, quoted, learned from or sent to a reviewer — through the edit hook, `car check`,
//! the stop gate's prompt and baselines, and learning.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::review_helpers::{SESSION, set_settings, stop, stop_payload};
use crate::support::TestProject;

/// What no answer, prompt or lessons file may ever contain.
pub const SECRET: &str = "CAR-OUTSIDE-SECRET-7731";

/// A folder outside the project with a secret file (invalid JSON and Python, so a validator
/// reading it would quote the line).
pub fn outside_secrets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{{\"{SECRET}\": 1,,}}\nimport {SECRET}_module\n");
    std::fs::write(dir.path().join("secret.json"), &text).unwrap();
    std::fs::write(dir.path().join("secret.py"), &text).unwrap();
    dir
}

/// Every file under `dir` whose bytes contain the secret.
pub fn files_with_secret(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file()
                && std::fs::read(entry.path())
                    .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(SECRET))
            {
                found.push(entry.path());
            }
        }
    }
    found
}

#[test]
fn an_edit_through_a_link_out_of_the_project_is_never_read_learned_or_reviewed() {
    let project = TestProject::new();
    let outside = outside_secrets();
    std::fs::create_dir_all(project.path().join("src")).unwrap();
    symlink(
        outside.path().join("secret.json"),
        project.path().join("src/pw.json"),
    )
    .unwrap();
    symlink(outside.path(), project.path().join("src/ext")).unwrap();
    for _ in 0..2 {
        for file in ["src/pw.json", "src/ext/secret.py"] {
            let answer = project.hook("post-tool-use", &project.edit_payload(file, "a", "b"));
            assert!(!answer.is_block(), "{answer:?}");
            assert!(!answer.stdout.contains(SECRET), "{}", answer.stdout);
            assert!(
                answer.system_message().contains(&format!(
                    "{file}: resolves outside the project (a symbolic link); not read"
                )),
                "{answer:?}"
            );
        }
    }
    // The session edits a real file too, so the stop gate has a review to build.
    project.write("src/app.py", "x = 1\n");
    project.hook(
        "post-tool-use",
        &project.edit_payload("src/app.py", "", "x = 1"),
    );
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    assert!(!answer.stdout.contains(SECRET), "{}", answer.stdout);
    assert!(
        files_with_secret(project.path()).is_empty(),
        "{:?}",
        files_with_secret(project.path())
    );
}

#[test]
fn a_link_made_outside_the_edit_tools_is_reviewed_by_name_only() {
    let project = TestProject::new();
    let outside = outside_secrets();
    project.write("src/app.py", "x = 0\n");
    project.commit_all();
    project.hook(
        "post-tool-use",
        &project.edit_payload("src/app.py", "", "x = 0"),
    );
    // A Bash `ln -s`: git status shows it, the gate reconciles it.
    symlink(
        outside.path().join("secret.py"),
        project.path().join("src/pw.py"),
    )
    .unwrap();
    let answer = stop(&project);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.what_the_agent_reads();
    assert!(reason.contains("src/pw.py"), "{reason}");
    assert!(
        reason.contains(
            "src/pw.py: resolves outside the project (a symbolic link); not read; not shown"
        ),
        "{reason}"
    );
    assert!(!answer.what_the_agent_reads().contains(SECRET));
    assert!(files_with_secret(project.path()).is_empty());
}

#[test]
fn a_rules_file_outside_the_project_is_not_sent_to_the_reviewer() {
    let project = TestProject::new();
    let outside = outside_secrets();
    let rules = outside.path().join("secret.json");
    set_settings(&project, json!({"rulesFile": rules}));
    project.write("a.py", "x = 1\n");
    project.hook("post-tool-use", &project.edit_payload("a.py", "", "x = 1"));
    let installed = project.path().join(".claude/claude-auto-review");
    std::fs::create_dir_all(&installed).unwrap();
    symlink(&rules, project.path().join("my-rules.md")).unwrap();
    let answer = project.hook("stop", &stop_payload(&project, SESSION, Some("Done.")));
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.what_the_agent_reads().contains("# Review rules"),
        "car's own rules instead"
    );
    assert!(!answer.what_the_agent_reads().contains(SECRET));
    set_settings(&project, json!({"rulesFile": "my-rules.md"}));
    project.write("a.py", "x = 2\n");
    project.hook(
        "post-tool-use",
        &project.edit_payload("a.py", "x = 1", "x = 2"),
    );
    let answer = project.hook("stop", &stop_payload(&project, SESSION, Some("Done.")));
    assert!(!answer.what_the_agent_reads().contains(SECRET));
    assert!(files_with_secret(project.path()).is_empty());
}

#[test]
fn car_check_never_reads_a_link_out_of_the_project() {
    let project = TestProject::new();
    let outside = outside_secrets();
    symlink(
        outside.path().join("secret.json"),
        project.path().join("pw.json"),
    )
    .unwrap();
    symlink(
        outside.path().join("secret.py"),
        project.path().join("pw.py"),
    )
    .unwrap();
    project.write("ok.py", "x = 1\n");
    project.commit_all();
    for args in [
        vec!["check", "."],
        vec!["check", "pw.json", "pw.py"],
        vec!["check", "--json", "."],
    ] {
        let run = project.run(&args);
        assert!(!run.stdout.contains(SECRET), "{args:?}: {}", run.stdout);
        assert!(!run.stderr.contains(SECRET), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("pw.json: resolves outside the project (a symbolic link); not read"),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
    }
    assert!(files_with_secret(project.path()).is_empty());
}

/// `car check` in CI may run on a stranger's pull request, which can add a validator rule file:
/// the command rules the project defines do not run there unless trusted explicitly; car's own
/// shipped rules and everything else still run. Locally (no CI) they run, and
/// `--no-project-commands` turns them off anywhere.
#[test]
fn project_command_rules_do_not_run_in_ci_unless_trusted() {
    let project = TestProject::new();
    let marker = project.path().join("pwned");
    project.write(
        ".claude/claude-auto-review/validators/lint.json",
        &serde_json::json!({"rules": [{"id": "lint", "scope": "*.py",
            "command": {"argv": ["sh", "-c", format!("touch {}", marker.display())]}}]})
        .to_string(),
    );
    project.write("a.py", "x = 1\n");
    let check = |env: &[(&str, &str)], args: &[&str]| {
        let _ = std::fs::remove_file(&marker);
        let mut command = project.car();
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command
            .arg("check")
            .args(args)
            .arg("a.py")
            .output()
            .unwrap();
        (
            marker.exists(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (ran, stderr) = check(&[("CI", "true")], &[]);
    assert!(!ran, "a project command rule ran in CI");
    assert!(
        stderr.contains("skipped 1 command rule the project's validator files define"),
        "{stderr}"
    );
    assert!(check(&[("CI", "true")], &["--trust-project-commands"]).0);
    assert!(check(&[], &[]).0, "locally the project's rules run");
    assert!(!check(&[], &["--no-project-commands"]).0);
}

/// Regression (hardening round 2): a file the agent wrote, then replaced by a link to a file
/// outside the project, had the outside line learned as "the person's correction" (lesson text,
/// examples, learned_from in the committed candidates and lessons) and stored in the session's
/// authored versions. The correction learner reads the project's files only where they resolve
/// inside it.
#[test]
fn a_file_replaced_by_a_link_out_of_the_project_teaches_nothing_and_is_not_stored() {
    let project = TestProject::new();
    project.write("README.md", "a project\n");
    project.commit_all();
    let outside = tempfile::tempdir().unwrap();
    let secret = "TIMEOUT = 'outside-secret-value'\n";
    std::fs::write(outside.path().join("conf.py"), secret).unwrap();
    let written = "TIMEOUT = 30\n";
    project.write("conf.py", written);
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("conf.py", written, None),
    );
    assert_eq!(answer.code, 0, "{answer:?}");
    // Someone replaces the file with a link out of the project; the agent stops.
    std::fs::remove_file(project.path().join("conf.py")).unwrap();
    symlink(
        outside.path().join("conf.py"),
        project.path().join("conf.py"),
    )
    .unwrap();
    let answer = stop(&project);
    assert_eq!(answer.code, 0, "{answer:?}");
    let state = project.path().join(".claude/claude-auto-review");
    for (name, bytes) in crate::support::snapshot(&state) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("outside-secret-value"),
            "{name} holds the outside file's text"
        );
    }
    assert!(!answer.system_message().contains("candidate"), "{answer:?}");
}

/// Regression (hardening round 2): the deep review read every changed path whole and through
/// links: a link to an outside file put that file into the prompt, `/dev/zero` grew memory until
/// the kernel killed car, a FIFO hung it. Now each is named in the prompt and never read; and a
/// context file in the project that links outside is refused.
#[test]
fn the_deep_review_reads_no_link_out_no_fifo_and_no_device() {
    let deep = crate::deep_review_helpers::Deep::new();
    let outside = outside_secrets();
    let root = deep.project.path();
    // A tracked file replaced by a FIFO (git lists it as changed).
    deep.project.write("pipe.py", "x = 1\n");
    deep.project.commit_all();
    symlink(outside.path().join("secret.py"), root.join("leak.py")).unwrap();
    symlink("/dev/zero", root.join("zero.py")).unwrap();
    let fifo = root.join("pipe.py");
    std::fs::remove_file(&fifo).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let run = deep.run(&["run", "none"]);
    assert_eq!(run.code, 0, "{run:?}");
    let prompt = deep.reviewer.prompt(1);
    assert!(
        !prompt.contains(SECRET),
        "the outside file's text: {prompt}"
    );
    assert!(
        prompt.contains("leak.py") && prompt.contains("resolves outside the project"),
        "{prompt}"
    );
    assert!(
        prompt.contains("pipe.py") && prompt.contains("not a regular file"),
        "{prompt}"
    );
    assert!(prompt.contains("zero.py"), "{prompt}");
    // A context file committed as a link to an outside file is not read into the prompt.
    let contexts = root.join(".claude/review-contexts");
    std::fs::create_dir_all(&contexts).unwrap();
    symlink(outside.path().join("secret.py"), contexts.join("fx2.md")).unwrap();
    let refused = deep.run(&["run", "fx2"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(
        refused.reason().contains("resolves outside the project"),
        "{refused:?}"
    );
    assert_eq!(
        deep.reviewer.calls(),
        1,
        "the reviewer never saw the outside context"
    );
}

/// Regression (hardening round 2): car wrote outside the project through committed links:
/// `deep-review init` appended to a `CLAUDE.md` linking outside and created its context file
/// through a linked `.claude/review-contexts/`; `install` and `config` rewrote a
/// `.claude/settings.json` linking outside. Each now refuses, names the file, and changes nothing.
#[test]
fn car_writes_nothing_through_a_committed_link_out_of_the_project() {
    let project = TestProject::new();
    let outside = tempfile::tempdir().unwrap();
    let before = |dir: &Path| crate::support::snapshot(dir);
    std::fs::write(outside.path().join("settings.json"), "{\"theirs\": true}\n").unwrap();
    std::fs::write(outside.path().join("CLAUDE.md"), "# someone else's notes\n").unwrap();
    std::fs::create_dir(outside.path().join("contexts")).unwrap();
    let untouched = before(outside.path());
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    symlink(
        outside.path().join("settings.json"),
        project.path().join(".claude/settings.json"),
    )
    .unwrap();
    for args in [
        vec!["install"],
        vec!["config", "--non-interactive", "--backend", "manual"],
    ] {
        let run = project.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr
                .contains(".claude/settings.json: resolves outside the project"),
            "{args:?}: {}",
            run.stderr
        );
    }
    symlink(
        outside.path().join("CLAUDE.md"),
        project.path().join("CLAUDE.md"),
    )
    .unwrap();
    let run = project.run(&["deep-review", "init", "fx"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("CLAUDE.md: resolves outside the project"),
        "{run:?}"
    );
    std::fs::remove_file(project.path().join("CLAUDE.md")).unwrap();
    symlink(
        outside.path().join("contexts"),
        project.path().join(".claude/review-contexts"),
    )
    .unwrap();
    let run = project.run(&["deep-review", "init", "fx"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("resolves outside the project"),
        "{run:?}"
    );
    assert!(!project.exists("CLAUDE.md"), "nothing half-done");
    assert_eq!(before(outside.path()), untouched, "nothing outside changed");
}

/// Hardening round 2, the audit: `car lessons distill` tries each proposal on the project's files
/// and quoted the line it fires on; a file that is a link to an outside file was one of them.
#[test]
fn distill_never_reads_a_link_out_of_the_project() {
    let project = crate::distill_evidence::shell_evidence_project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("run.ts"),
        format!("spawn(cmd, {{ shell: true }}); // {SECRET}\n"),
    )
    .unwrap();
    symlink(
        outside.path().join("run.ts"),
        project.path().join("src/run.ts"),
    )
    .unwrap();
    project.commit_all();
    let answer = json!({"proposals": [
        {"triggers": ["regex:shell: (?:true|'[^']+')"], "lesson": "spawn programs with an argument list",
         "replaces": ["candidate:shell: true", "candidate:shell: 'bash'", "candidate:shell: '/bin/sh'"]}
    ]});
    let fakes = crate::review_helpers::FakeClis::new();
    std::fs::write(fakes.path("answer.txt"), answer.to_string()).unwrap();
    set_settings(
        &project,
        json!({"reviewerBackend": "command", "reviewerCommand": [fakes.path("reviewer")]}),
    );
    let run = project.run(&["lessons", "distill", "--dry-run", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
        "{run:?}"
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["proposals"].as_array().map(Vec::len),
        Some(1),
        "the link is no file of the project: {report:#}"
    );
}

/// Hardening round 2, the audit: the stop that reuses a pending review request put the request's
/// prompt file into the block reason, and the reviewer's input, following a link there.
#[test]
fn a_review_prompt_replaced_by_a_link_out_is_not_read_into_the_block_reason() {
    let project = crate::review_helpers::pinned_project();
    let outside = outside_secrets();
    crate::review_helpers::write_file(&project, "a.py", "x = 1\n");
    assert!(stop(&project).is_block());
    let prompt = project
        .path()
        .join(".claude/claude-auto-review/clients/test-session/reviews/R1.prompt.md");
    std::fs::remove_file(&prompt).unwrap();
    symlink(outside.path().join("secret.py"), &prompt).unwrap();
    let again = stop(&project);
    assert!(again.is_block(), "{again:?}");
    assert!(
        crate::review_helpers::stages(&project, SESSION)
            .contains(&"reuse=pending request".to_string())
    );
    assert!(!again.stdout.contains(SECRET), "{again:?}");
    assert!(
        again.reason().contains("R1.prompt.md") && again.reason().contains("symbolic link"),
        "says why the prompt is not shown: {}",
        again.reason()
    );
}
