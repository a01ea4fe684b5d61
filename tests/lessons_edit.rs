//! `car lessons edit` and `car lessons rm`, and the wording of `car lessons add`'s warnings
//! (issue "The gate and the lesson commands tell the truth", item 8). Through the binary.

use serde_json::Value;

use crate::support::TestProject;

fn lessons(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "list", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

fn added(project: &TestProject) -> String {
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.py",
        "--trigger",
        "yaml.load(",
        "--lesson",
        "Use yaml.safe_load.",
        "--example-match",
        "data = yaml.load(text)",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    run.stdout.trim().to_string()
}

#[test]
fn edit_rewords_rescopes_and_reweighs_one_lesson_and_keeps_its_id() {
    let project = TestProject::new();
    let id = added(&project);
    let run = project.run(&[
        "lessons",
        "edit",
        &id[..6],
        "--lesson",
        "yaml.load runs any constructor: use yaml.safe_load.",
        "--weight",
        "5",
        "--scope",
        "src/**/*.py",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("before:") && run.stdout.contains("after:"),
        "{run:?}"
    );
    let lesson = &lessons(&project)[0];
    assert_eq!(lesson["id"], id.as_str(), "the id stays");
    assert_eq!(lesson["weight"], 5);
    assert_eq!(lesson["scope"], "src/**/*.py");
    assert_eq!(
        lesson["lesson"],
        "yaml.load runs any constructor: use yaml.safe_load."
    );
    for (args, says) in [
        (vec![], "say what to change"),
        (vec!["--weight", "11"], "--weight 11 must be 1–10"),
        (vec!["--scope", "[oops"], "--scope \"[oops\""),
        (vec!["--lesson", "  "], "--lesson must say what to remember"),
    ] {
        let mut command = vec!["lessons", "edit", id.as_str()];
        command.extend(args);
        let bad = project.run(&command);
        assert_eq!(bad.code, 2, "{bad:?}");
        assert!(bad.stderr.contains(says), "{says}: {bad:?}");
    }
    // An edit that would make it a duplicate of another lesson is refused.
    let other = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.rs",
        "--trigger",
        "yaml.load(",
        "--lesson",
        "Not in Rust.",
    ]);
    assert_eq!(other.code, 0, "{other:?}");
    let duplicate = project.run(&["lessons", "edit", &id, "--scope", "*.rs"]);
    assert_eq!(duplicate.code, 2, "{duplicate:?}");
    assert!(duplicate.stderr.contains("already exists"), "{duplicate:?}");
    let kept = lessons(&project);
    let mine = kept
        .iter()
        .find(|lesson| lesson["id"] == id.as_str())
        .unwrap();
    assert_eq!(mine["scope"], "src/**/*.py");
}

#[test]
fn rm_names_the_lesson_it_removes_and_refuses_a_one_letter_prefix() {
    let project = TestProject::new();
    let id = added(&project);
    let short = project.run(&["lessons", "rm", &id[..1]]);
    assert_eq!(short.code, 2, "{short:?}");
    assert!(short.stderr.contains("too short"), "{short:?}");
    assert_eq!(lessons(&project).len(), 1, "nothing removed");
    let removed = project.run(&["lessons", "rm", &id[..4]]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(
        removed.stdout.contains("yaml.load(") && removed.stdout.contains("Use yaml.safe_load."),
        "shows what it removed: {removed:?}"
    );
    assert!(lessons(&project).is_empty());
}

#[test]
fn a_trigger_of_common_words_is_called_that_not_a_keyword() {
    let project = TestProject::new();
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.sh",
        "--trigger",
        "rm -rf /",
        "--substring",
        "--lesson",
        "Never delete from the root.",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("made only of short or common words"),
        "{run:?}"
    );
    assert!(!run.stderr.contains("bare language keyword"), "{run:?}");
}
