//! `car uninstall` removes exactly what car added (issue 27 item 3): `--purge` also removes car's
//! settings block and its state folder, so install + config + uninstall --purge leaves the user's
//! files byte-identical; a plain uninstall says what it kept; a settings file car created is
//! deleted when car's removal leaves it empty, a file the user had is kept.

use std::path::Path;

use crate::support::{TestProject, snapshot};

/// Every file of the project but git's own, with its bytes.
fn user_files(project: &TestProject) -> Vec<(String, Vec<u8>)> {
    let git = project.path().join(".git").display().to_string();
    snapshot(project.path())
        .into_iter()
        .filter(|(path, _)| !path.starts_with(&git))
        .collect()
}

fn succeeds(project: &TestProject, args: &[&str]) -> String {
    let run = project.run(args);
    assert_eq!(run.code, 0, "{args:?}: {run:?}");
    run.stderr
}

fn git_config(project: &TestProject) -> String {
    std::fs::read_to_string(project.path().join(".git/config")).unwrap()
}

#[test]
fn install_config_and_uninstall_purge_leave_the_users_files_byte_identical() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n",
    );
    project.write(
        ".gemini/settings.json",
        "{\n  // mine\n  \"theme\": \"dark\"\n}\n",
    );
    project.write("src/app.py", "print('hi')\n");
    let before = user_files(&project);
    let config_before = git_config(&project);

    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    succeeds(
        &project,
        &[
            "config",
            "--non-interactive",
            "--backend",
            "manual",
            "--max-stop-passes",
            "3",
        ],
    );
    assert_eq!(project.add_lesson("*.py", "fastjsonx", "use json").code, 0);
    assert_ne!(user_files(&project), before);

    let said = succeeds(&project, &["uninstall", "--agent", "all", "--purge"]);
    assert!(
        said.contains("removed car's settings (\"claude-auto-review\")"),
        "{said}"
    );
    assert!(said.contains("removed car's merge attributes"), "{said}");
    assert_eq!(user_files(&project), before, "{said}");
    assert!(!project.exists(".claude/claude-auto-review"));
    assert_eq!(
        git_config(&project),
        config_before,
        "the merge driver is gone too"
    );
}

#[test]
fn purge_in_a_project_car_set_up_alone_leaves_nothing_behind() {
    let project = TestProject::new();
    project.write("src/app.py", "print('hi')\n");
    let before = user_files(&project);
    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    succeeds(
        &project,
        &["config", "--non-interactive", "--backend", "manual"],
    );
    succeeds(&project, &["uninstall", "--agent", "all", "--purge"]);
    assert_eq!(user_files(&project), before);
    for folder in [".claude", ".gemini", ".codex", ".cursor"] {
        assert!(!project.exists(folder), "{folder} is left");
    }
}

#[test]
fn a_plain_uninstall_says_what_it_kept_and_deletes_the_settings_files_car_created() {
    let project = TestProject::new();
    // The user's own empty Gemini settings stay; the Claude settings car creates go.
    project.write(".gemini/settings.json", "{}\n");
    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    let said = succeeds(&project, &["uninstall", "--agent", "all"]);
    assert!(!project.exists(".claude/settings.json"), "{said}");
    assert_eq!(project.read(".gemini/settings.json"), "{}\n");
    assert!(!project.exists(".codex") && !project.exists(".cursor"));
    assert!(said.contains("kept the lessons and state in"), "{said}");
    assert!(
        said.contains("`car uninstall --purge` removes them too"),
        "{said}"
    );
    assert!(project.exists(".claude/claude-auto-review/.gitignore"));

    // With car's settings block written by `car config`, the file car created stays until
    // --purge takes the block.
    succeeds(
        &project,
        &["config", "--non-interactive", "--backend", "manual"],
    );
    succeeds(&project, &["install", "--non-interactive"]);
    let said = succeeds(&project, &["uninstall"]);
    assert!(
        said.contains("car's settings (\"claude-auto-review\" in .claude/settings.json)"),
        "{said}"
    );
    assert!(project.exists(".claude/settings.json"));
    succeeds(&project, &["uninstall", "--purge"]);
    assert!(!project.exists(".claude"), "{:?}", user_files(&project));
    assert_eq!(project.read(".gemini/settings.json"), "{}\n");
}

#[test]
fn purge_keeps_the_state_while_another_agent_is_still_wired() {
    let project = TestProject::new();
    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    assert_eq!(project.add_lesson("*.py", "fastjsonx", "use json").code, 0);
    let said = succeeds(&project, &["uninstall", "--agent", "codex", "--purge"]);
    assert!(said.contains("still wired for Claude Code"), "{said}");
    assert!(project.exists(".claude/claude-auto-review/lessons.json"));
    assert!(
        Path::new(
            &project
                .path()
                .join(".claude/claude-auto-review/.gitattributes")
        )
        .exists()
    );
}

#[test]
fn purge_takes_back_what_deep_review_init_wrote_and_keeps_a_filled_context() {
    let project = TestProject::new();
    project.write("src/app.py", "print('hi')\n");
    project.write("CLAUDE.md", "# Project\n\nUse tabs.\n");
    let before = user_files(&project);
    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    succeeds(&project, &["deep-review", "init", "fx"]);
    succeeds(
        &project,
        &["deep-review", "init", "units", "--description", "units"],
    );
    let filled = "# Review context: units\n\nLengths are metres; never feet.\n";
    project.write(".claude/review-contexts/units.md", filled);

    let said = succeeds(&project, &["uninstall", "--agent", "all", "--purge"]);
    assert!(
        said.contains("removed .claude/review-contexts/fx.md (car's unfilled template)"),
        "{said}"
    );
    assert!(
        said.contains("kept .claude/review-contexts/units.md: filled in by someone"),
        "{said}"
    );
    assert!(
        said.contains("removed 1 line from CLAUDE.md's \"Active review contexts\""),
        "{said}"
    );
    assert_eq!(
        project.read("CLAUDE.md"),
        "# Project\n\nUse tabs.\n\n## Active review contexts\n\n- `units.md` — units\n",
        "the filled context keeps its line"
    );
    assert_eq!(project.read(".claude/review-contexts/units.md"), filled);

    // Once the person deletes their context and its line, the project is as it was.
    std::fs::remove_dir_all(project.path().join(".claude")).unwrap();
    project.write("CLAUDE.md", "# Project\n\nUse tabs.\n");
    assert_eq!(user_files(&project), before);
}

#[test]
fn purge_after_deep_review_init_alone_leaves_nothing_behind() {
    let project = TestProject::new();
    project.write("src/app.py", "print('hi')\n");
    let before = user_files(&project);
    succeeds(
        &project,
        &["install", "--agent", "all", "--non-interactive"],
    );
    succeeds(&project, &["deep-review", "init", "fx"]);
    assert!(project.exists("CLAUDE.md"));
    let said = succeeds(&project, &["uninstall", "--agent", "all", "--purge"]);
    assert!(
        said.contains("removed CLAUDE.md (car's context list was all it held)"),
        "{said}"
    );
    assert_eq!(user_files(&project), before, "{said}");
    assert!(!project.exists(".claude"), "{said}");
}
