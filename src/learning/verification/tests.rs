use serde_json::json;

use super::*;
use crate::git::git_in as git;

fn learned(scope: &str, trigger: &str) -> Lesson {
    Lesson::from_value(
        &json!({"scope": scope, "triggers": [trigger], "lesson": "l",
        "whole_identifiers": true, "code_only": true}),
    )
    .unwrap()
}

fn ex<'a>(bad: &'a str, good: &'a str) -> Example<'a> {
    Example { bad, good }
}

/// A git project holding `files`, committed, plus `untracked` files left uncommitted.
fn a_project(files: &[(&str, &str)], untracked: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    for (path, content) in files.iter().chain(untracked) {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    for (path, _) in files {
        git(dir.path(), &["add", path]);
    }
    let project = Project::at(dir.path());
    (dir, project)
}

#[test]
fn the_examples_must_hold() {
    let lesson = learned("*.py", "pickle.loads");
    assert!(check_examples(&lesson, &[ex("x = pickle.loads(b)", "x = json.loads(b)")]).is_ok());
    let lesson = learned("*.py", "yaml.load");
    assert!(matches!(
        check_examples(
            &lesson,
            &[ex(
                "d = yaml.load(f)",
                "d = yaml.load(f, Loader=yaml.SafeLoader)"
            )]
        ),
        Err(Refusal::MatchesFix { .. })
    ));
    let in_a_string = learned("*.py", "redis_host");
    assert!(matches!(
        check_examples(
            &in_a_string,
            &[ex("h = s[\"redis_host\"]", "h = s[\"cache_host\"]")]
        ),
        Err(Refusal::MissesMistake { .. })
    ));
}

#[test]
fn comments_and_committed_copies_of_the_mistake_do_not_refute() {
    let (_dir, project) = a_project(
        &[
            (
                "app/notes.py",
                "# fastcsvkit is not a real package\nimport csv\n",
            ),
            ("app/old.py", "import fastcsvkit\n"),
        ],
        &[],
    );
    let lesson = learned("*.py", "fastcsvkit");
    let verified = ProjectCode::new(&project)
        .check(
            &lesson,
            Rule::Subject,
            &[ex("import fastcsvkit", "import csv")],
            &[],
        )
        .unwrap();
    assert_eq!(verified.total, 1);
    assert_eq!(verified.instances[0].file, "app/old.py");
    assert_eq!(verified.instances[0].line, 1);
}

#[test]
fn a_replaced_call_is_refuted_by_correct_code_of_another_shape() {
    let (_dir, project) = a_project(
        &[
            ("src/a.py", "data = pickle.loads(raw)\n"),
            ("src/b.py", "x = 1\n"),
        ],
        &[("src/c.py", "value = pickle.loads(blob)  # trusted cache\n")],
    );
    let lesson = learned("*.py", "pickle.loads");
    let examples = [ex("v = pickle.loads(body)", "v = json.loads(body)")];
    let verified = ProjectCode::new(&project)
        .check(&lesson, Rule::Replaced, &examples, &[])
        .unwrap();
    assert_eq!(verified.total, 2, "a committed and an untracked copy");

    let (_dir, project) = a_project(
        &[("src/poll.rs", "let tick = Duration::from_millis(250);\n")],
        &[],
    );
    let lesson = learned("*.rs", "Duration::from_millis");
    let examples = [ex(
        "let d = Duration::from_millis(timeout_secs);",
        "let d = Duration::from_secs(timeout_secs);",
    )];
    let refusal = ProjectCode::new(&project)
        .check(&lesson, Rule::Replaced, &examples, &[])
        .unwrap_err();
    assert!(
        matches!(&refusal, Refusal::FiresOnCorrectCode { file, line: 1, .. } if file == "src/poll.rs"),
        "{refusal}"
    );
}

#[test]
fn a_call_without_what_the_fix_adds_is_an_instance_and_one_with_it_never_matches() {
    let (_dir, project) = a_project(
        &[(
            "app/storage.py",
            "def unpack(tar, dest):\n    tar.extractall(dest, filter=\"data\")\n    tar.extractall(dest)\n",
        )],
        &[],
    );
    let lesson = learned(
        "*.py",
        r"regex:\b[A-Za-z_][A-Za-z0-9_]*\.extractall\((?![^()]*(?:\([^()]*\)[^()]*)*?\bfilter[ \t]*[=:])",
    );
    let verified = ProjectCode::new(&project)
        .check(
            &lesson,
            Rule::Unless,
            &[ex(
                "tar.extractall(d)",
                "tar.extractall(d, filter=\"data\")",
            )],
            &[],
        )
        .unwrap();
    assert_eq!(verified.total, 1);
    assert_eq!(verified.instances[0].line, 3);
}

#[test]
fn a_definition_of_the_name_neither_refutes_nor_confirms() {
    let (_dir, project) = a_project(
        &[(
            "web/money.ts",
            "export function legacyFormat(amount: number) {\n  return String(amount);\n}\n",
        )],
        &[],
    );
    let lesson = learned("*.ts", "legacyFormat");
    let verified = ProjectCode::new(&project)
        .check(
            &lesson,
            Rule::Replaced,
            &[ex(
                "const s = legacyFormat(total);",
                "const s = format(total);",
            )],
            &[],
        )
        .unwrap();
    assert_eq!(verified.total, 0);
}

#[test]
fn a_pattern_the_project_writes_everywhere_is_its_way() {
    let body: String = (0..60)
        .map(|i| format!("run(c{i}, shell=True)\n"))
        .collect();
    let (_dir, project) = a_project(&[("tools/run.py", &body)], &[]);
    let lesson = learned("*.py", "shell=True");
    let refusal = ProjectCode::new(&project)
        .check(
            &lesson,
            Rule::Replaced,
            &[ex("run(cmd, shell=True)", "run(args)")],
            &[],
        )
        .unwrap_err();
    assert!(
        matches!(refusal, Refusal::Established { count: 60, .. }),
        "{refusal}"
    );
}

#[test]
fn outside_git_only_the_examples_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = pickle.loads(b, k=1)\n").unwrap();
    let project = Project::at(dir.path());
    let lesson = learned("*.py", "pickle.loads");
    assert_eq!(
        ProjectCode::new(&project)
            .check(
                &lesson,
                Rule::Replaced,
                &[ex("pickle.loads(b)", "json.loads(b)")],
                &[]
            )
            .unwrap(),
        Verified::default()
    );
}

#[test]
fn a_copy_of_the_mistake_in_another_expression_is_an_instance() {
    let (_dir, project) = a_project(
        &[
            (
                "web/prefs.ts",
                "  return JSON.parse(localStorage.getItem(key)) ?? {};\n  const raw = JSON.parse(text);\n",
            ),
            (
                "web/old.ts",
                "  const prefs = JSON.parse(localStorage.getItem(key)).theme;\n",
            ),
        ],
        &[],
    );
    let examples = [ex(
        "const v = JSON.parse(localStorage.getItem(key));",
        "const v = safeParse(localStorage.getItem(key));",
    )];
    let lesson = learned("*.ts", "JSON.parse(localStorage.getItem(key))");
    let verified = ProjectCode::new(&project)
        .check(&lesson, Rule::Replaced, &examples, &[])
        .unwrap();
    assert_eq!(
        verified.total, 2,
        "what follows the finished call does not change it: {verified:?}"
    );
    assert_eq!(verified.instances[0].file, "web/old.ts");
    assert_eq!(verified.instances[1].file, "web/prefs.ts");
    // The call's own argument still decides: `JSON.parse(text)` is correct code.
    let refusal = ProjectCode::new(&project)
        .check(
            &learned("*.ts", "JSON.parse"),
            Rule::Replaced,
            &examples,
            &[],
        )
        .unwrap_err();
    assert!(
        matches!(&refusal, Refusal::FiresOnCorrectCode { line: 2, .. }),
        "{refusal}"
    );
}

#[test]
fn what_follows_a_key_or_a_name_still_counts() {
    let (_dir, project) = a_project(&[("conf/app.toml", "retry_secs = \"30s\"\n")], &[]);
    let lesson = learned("*.toml", "retry_secs");
    let refusal = ProjectCode::new(&project)
        .check(
            &lesson,
            Rule::Replaced,
            &[ex("retry_secs = 30", "retry_ms = 30000")],
            &[],
        )
        .unwrap_err();
    assert!(
        matches!(&refusal, Refusal::FiresOnCorrectCode { .. }),
        "{refusal}"
    );
}

#[test]
fn a_line_written_the_way_the_fix_writes_it_is_correct_code() {
    let (_dir, project) = a_project(
        &[(
            "web/base.css",
            ".button:focus:not(:focus-visible) { outline: none; }\n",
        )],
        &[],
    );
    let examples = [
        ex(
            ".card:focus { outline: none; }",
            ".card:focus-visible { outline: 2px solid var(--focus-ring); }",
        ),
        ex(
            ".tab:focus { outline: none; }",
            ".tab:focus-visible { outline: 2px solid var(--focus-ring); }",
        ),
    ];
    let refusal = ProjectCode::new(&project)
        .check(
            &learned("*.css", "outline: none"),
            Rule::Replaced,
            &examples,
            &[],
        )
        .unwrap_err();
    assert!(
        matches!(&refusal, Refusal::FiresOnCorrectCode { file, .. } if file == "web/base.css"),
        "{refusal}"
    );
    // A copy of the mistake holds none of the words the fixes wrote: an instance.
    let (_dir, project) = a_project(&[("web/old.css", ".menu:focus { outline: none; }\n")], &[]);
    let verified = ProjectCode::new(&project)
        .check(
            &learned("*.css", "outline: none"),
            Rule::Replaced,
            &examples,
            &[],
        )
        .unwrap();
    assert_eq!(verified.total, 1);
}

#[test]
fn a_comment_naming_the_fix_does_not_make_a_copy_of_the_mistake_correct_code() {
    let (_dir, project) = a_project(
        &[(
            "src/led.c",
            "\tk_delayed_work_submit(&led_work, K_SECONDS(3)); /* TODO: k_work_schedule after the bump */\n",
        )],
        &[],
    );
    let examples = [
        ex(
            "\tk_delayed_work_submit(&fan_work, K_MSEC(40));",
            "\tk_work_schedule(&fan_dwork, K_MSEC(40));",
        ),
        ex(
            "\tk_delayed_work_submit(&gps_work, K_MSEC(7));",
            "\tk_work_schedule(&gps_dwork, K_MSEC(7));",
        ),
    ];
    let verified = ProjectCode::new(&project)
        .check(
            &learned("*.c", "k_delayed_work_submit"),
            Rule::Replaced,
            &examples,
            &[],
        )
        .unwrap();
    assert_eq!(verified.total, 1);
    // Written in the code, the fix's word still makes the line correct code.
    assert_eq!(before_comment("a(x) // k_work_schedule", 1), "a(x) ");
    assert_eq!(
        before_comment("a(x) + k_work_schedule(y)", 1),
        "a(x) + k_work_schedule(y)"
    );
}
