//! Learning from the richest signals, through the binary with real payloads: blocking review
//! findings the agent fixed (a scripted `command` reviewer) and the person's corrections of what
//! the agent wrote (files changed on disk between the agent's edits), with the agent's own Bash
//! edits told apart by the PostToolUse hook on Bash.

use serde_json::{Value, json};

use crate::review_helpers::{FakeClis, scripted_reviewer, stop_payload};
use crate::support::{HookAnswer, TestProject};

/// Flags `shell=True` in the first file under src/ that holds it, with its line, as a P1; adds a
/// P3 about the same line, which must never teach.
const REVIEWER: &str = r#"#!/bin/sh
cat > /dev/null
hit=$(grep -n "shell=True" src/*.py | head -1)
if [ -z "$hit" ]; then echo '{"findings": []}'; exit 0; fi
file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}
cat <<JSON
{"findings": [
 {"id": "F1", "severity": "P1", "file": "$file", "line": $line,
  "title": "Shell injection through cmd",
  "wrong_output": "run('x; rm -rf ~') runs rm -rf ~ through the shell",
  "suggestion": "pass an argv list, not a shell string"},
 {"id": "F2", "severity": "P3", "file": "$file", "line": $line,
  "title": "name the argument argv", "wrong_output": "", "suggestion": "rename cmd"}]}
JSON
"#;

pub(crate) const T0: i64 = 1_800_000_000;

/// Applies `old` → `new` to the file (created empty when missing) and pipes the Edit payload
/// Claude Code sends (the recorded fixture, pointed at this file, with the original content).
pub(crate) fn agent_edit(
    project: &TestProject,
    session: &str,
    file: &str,
    old: &str,
    new: &str,
) -> HookAnswer {
    let path = project.path().join(file);
    let original = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(original.contains(old), "{file} must hold {old:?}");
    project.write(file, &original.replacen(old, new, 1));
    let mut payload = project.fixture_json("claude-post-edit.json");
    payload["session_id"] = json!(session);
    payload["tool_input"] = json!({"file_path": path, "old_string": old, "new_string": new,
        "replace_all": false});
    let response = payload["tool_response"].as_object_mut().unwrap();
    response.remove("structuredPatch");
    response.insert("filePath".into(), json!(path));
    response.insert("oldString".into(), json!(old));
    response.insert("newString".into(), json!(new));
    response.insert("originalFile".into(), json!(original));
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0);
    answer
}

/// The agent's Bash command changed the file: the recorded Bash payload, with this command.
fn agent_bash(
    project: &TestProject,
    session: &str,
    file: &str,
    old: &str,
    new: &str,
) -> HookAnswer {
    person_edit(project, file, old, new);
    let mut payload = project.fixture_json("claude-post-bash-rm.json");
    payload["session_id"] = json!(session);
    payload["tool_input"]["command"] = json!(format!("sed -i 's/{old}/{new}/' {file}"));
    payload["tool_response"]["stdout"] = json!("");
    project.hook("post-tool-use", &payload.to_string())
}

/// Someone else (the person, in their editor) changes the file: no hook runs. (The agent's Bash
/// command changes it the same way, and then its hook runs.)
pub(crate) fn person_edit(project: &TestProject, file: &str, old: &str, new: &str) {
    let text = project.read(file);
    assert!(text.contains(old), "{file} must hold {old:?}");
    project.write(file, &text.replacen(old, new, 1));
}

pub(crate) fn stop(project: &TestProject, session: &str) -> HookAnswer {
    project.hook(
        "stop",
        &stop_payload(project, session, Some("I changed the runner. All done.")),
    )
}

/// The entries of `key` in car's state file `name` (none when it does not exist).
fn entries(project: &TestProject, name: &str, key: &str) -> Vec<Value> {
    let path = format!(".claude/claude-auto-review/{name}");
    if !project.exists(&path) {
        return Vec::new();
    }
    project.read_json(&path)[key]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

pub(crate) fn candidates(project: &TestProject) -> Vec<Value> {
    entries(project, "lesson_candidates.json", "candidates")
}

pub(crate) fn lessons(project: &TestProject) -> Vec<Value> {
    entries(project, "lessons.json", "lessons")
}

/// A project with a few ordinary Python files (so the project-wide precision rule samples them)
/// and the scripted reviewer.
pub(crate) fn review_project() -> (TestProject, FakeClis) {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "src/run.py",
        "import subprocess\n\n\ndef run(cmd):\n    return cmd\n",
    );
    project.write(
        "src/deploy.py",
        "import subprocess\n\n\ndef deploy(cmd):\n    return cmd\n",
    );
    for name in ["a", "b", "c", "d"] {
        project.write(
            &format!("src/util_{name}.py"),
            "def helper(x):\n    return x\n",
        );
    }
    project.commit_all();
    let fakes = scripted_reviewer(&project, REVIEWER);
    (project, fakes)
}

/// One session: the agent writes `shell=True` in `file`, the review blocks on it, the agent
/// fixes it, the next review is clean.
fn shell_true_fixed(project: &TestProject, session: &str, file: &str) -> HookAnswer {
    shell_true_fixed_with(project, session, file, "cmd")
}

/// [`shell_true_fixed`] where the file returns `name` before the session's edits.
fn shell_true_fixed_with(
    project: &TestProject,
    session: &str,
    file: &str,
    name: &str,
) -> HookAnswer {
    let answer = agent_edit(
        project,
        session,
        file,
        &format!("    return {name}\n"),
        &format!("    return subprocess.run({name}, shell=True)\n"),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let blocked = stop(project, session);
    assert!(blocked.is_block(), "the P1 blocks: {blocked:?}");
    assert!(blocked.reason().contains("Shell injection"), "{blocked:?}");
    agent_edit(
        project,
        session,
        file,
        &format!("subprocess.run({name}, shell=True)"),
        &format!("subprocess.run(shlex.split({name}))"),
    );
    let allowed = stop(project, session);
    assert!(!allowed.is_block(), "{allowed:?}");
    allowed
}

#[test]
fn a_fixed_p1_teaches_a_candidate_then_a_review_lesson_that_warns() {
    let (mut project, _fakes) = review_project();
    let allowed = shell_true_fixed(&project, "session-one", "src/run.py");
    assert!(
        allowed.system_message().contains(
            "new lesson candidate from review R1 F1 (src/run.py:5): `shell=True` in *.py"
        ),
        "{allowed:?}"
    );
    let pool = candidates(&project);
    assert_eq!(
        pool.len(),
        1,
        "one candidate, the P3 teaches nothing: {pool:?}"
    );
    assert_eq!(pool[0]["trigger"], "shell=True");
    assert_eq!(pool[0]["source"], "review");
    assert_eq!(pool[0]["learned_from"][0]["review"], "R1");
    assert!(lessons(&project).is_empty());
    let again = stop(&project, "session-one");
    assert!(
        !again.system_message().contains("candidate"),
        "a finding teaches once: {again:?}"
    );

    project.at(T0 + 3_600);
    let allowed = shell_true_fixed(&project, "session-two", "src/deploy.py");
    insta::assert_snapshot!("review_lesson_learned_at_stop", allowed.stdout.trim());
    assert!(
        allowed.system_message().contains(
            "learned a lesson (weight 2, source review) from review R1 F1 (src/deploy.py:5)"
        ),
        "{allowed:?}"
    );
    assert!(
        candidates(&project).is_empty(),
        "the candidate became the lesson"
    );
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1);
    let lesson = &learned[0];
    assert_eq!(lesson["source"], "review");
    assert_eq!(lesson["triggers"], json!(["shell=True"]));
    assert_eq!(lesson["weight"], 2);
    assert_eq!(lesson["scope"], "*.py");
    let text = lesson["lesson"].as_str().unwrap();
    assert!(
        text.starts_with("Shell injection through cmd (P1 review finding); pass an argv list"),
        "{text}"
    );
    assert!(
        text.ends_with("Write `shlex.split(cmd)`, not `shell=True`."),
        "what the fixes wrote instead: {text}"
    );
    assert_eq!(
        lesson["examples"],
        json!({"match": ["return subprocess.run(cmd, shell=True)"],
               "no_match": ["return subprocess.run(shlex.split(cmd))"]})
    );

    project.at(T0 + 7_200);
    project.write("src/jobs.py", "def job(line):\n    return line\n");
    let warned = agent_edit(
        &project,
        "session-three",
        "src/jobs.py",
        "    return line\n",
        "    return subprocess.call(line, shell=True)\n",
    );
    insta::assert_snapshot!("review_lesson_warns", warned.stdout.trim());
    let context = warned.context();
    assert!(context.contains("trigger `shell=True`"), "{warned:?}");
    assert!(
        context.contains(
            "learned from review R1 of session session-one (F1, src/run.py:5) and 1 more"
        ),
        "{context}"
    );

    let listed = project.run(&["lessons", "list"]);
    insta::assert_snapshot!("review_lesson_listed", listed.stdout);
    let id = lesson["id"].as_str().unwrap();
    let shown = project.run(&["lessons", "show", "--json", id]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["source"], "review");
    assert_eq!(shown["remove"], format!("car lessons rm {id}"));
    assert_eq!(shown["evidence"].as_array().unwrap().len(), 2);
    assert_eq!(
        project.run(&["lessons", "rm", id]).code,
        0,
        "one command removes it"
    );
    assert!(lessons(&project).is_empty());
}

#[test]
fn the_same_fix_twice_in_one_file_of_one_session_stays_a_candidate() {
    let (project, _fakes) = review_project();
    shell_true_fixed(&project, "session-one", "src/run.py");
    agent_edit(
        &project,
        "session-one",
        "src/run.py",
        "subprocess.run(shlex.split(cmd))",
        "argv",
    );
    shell_true_fixed_with(&project, "session-one", "src/run.py", "argv");
    assert!(lessons(&project).is_empty(), "{:?}", lessons(&project));
    assert_eq!(candidates(&project).len(), 1);
}

/// The agent's edit that turns host name checks off: `{var}.check_hostname = False` after the
/// line that creates `var`.
pub(crate) fn agent_disables_hostname_check(
    project: &TestProject,
    session: &str,
    file: &str,
    var: &str,
) {
    let created = format!("{var} = ssl.create_default_context()\n");
    let disabled = format!("{created}{var}.check_hostname = False\n");
    agent_edit(project, session, file, &created, &disabled);
}

pub(crate) fn tls_project() -> TestProject {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "src/tls.py",
        "import ssl\n\nctx = ssl.create_default_context()\n",
    );
    project.write(
        "src/client.py",
        "import ssl\n\ncontext = ssl.create_default_context()\n",
    );
    project.commit_all();
    project
}

#[test]
fn a_value_the_person_changed_twice_becomes_a_reversal_lesson() {
    let mut project = tls_project();
    let session = "session-one";
    agent_disables_hostname_check(&project, session, "src/tls.py", "ctx");
    project.at(T0 + 300);
    person_edit(
        &project,
        "src/tls.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    project.at(T0 + 600);
    let next = agent_edit(
        &project,
        session,
        "src/tls.py",
        "import ssl\n",
        "import ssl\nimport socket\n",
    );
    assert!(
        next.system_message()
            .contains("new lesson candidate from a correction in src/tls.py:4: `check_hostname = False` in *.py"),
        "{next:?}"
    );
    let pool = candidates(&project);
    assert_eq!(pool.len(), 1, "{pool:?}");
    assert_eq!(pool[0]["source"], "reversal");

    agent_disables_hostname_check(&project, session, "src/client.py", "context");
    project.at(T0 + 900);
    person_edit(
        &project,
        "src/client.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    let stopped = project.hook(
        "stop",
        &stop_payload(
            &project,
            session,
            Some("Which certificate store should I use?"),
        ),
    );
    assert!(
        stopped
            .system_message()
            .contains("learned a lesson (weight 2, source reversal)"),
        "{stopped:?}"
    );
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1);
    assert_eq!(learned[0]["source"], "reversal");
    assert_eq!(learned[0]["triggers"], json!(["check_hostname = False"]));
    let text = learned[0]["lesson"].as_str().unwrap();
    assert!(
        text.contains("Write `check_hostname = True`, not `check_hostname = False`"),
        "names B: {text}"
    );
    let listed = project.run(&["lessons", "list"]);
    assert!(
        listed
            .stdout
            .contains("learned from correction in src/tls.py:4 (session session-one) and 1 more"),
        "{listed:?}"
    );
}

#[test]
fn the_agents_own_bash_edit_is_not_a_correction() {
    let project = tls_project();
    let session = "session-one";
    agent_disables_hostname_check(&project, session, "src/tls.py", "ctx");
    let answer = agent_bash(&project, session, "src/tls.py", "= False", "= True");
    assert_eq!(answer.json, json!({}), "{answer:?}");
    stop(&project, session);
    assert!(
        candidates(&project).is_empty(),
        "{:?}",
        candidates(&project)
    );

    // The same change without the Bash hook is someone else's: the test can fail.
    agent_disables_hostname_check(&project, session, "src/client.py", "context");
    person_edit(&project, "src/client.py", "= False", "= True");
    stop(&project, session);
    assert_eq!(candidates(&project).len(), 1);
}

/// A formatter (format-on-save, black, prettier) rewrites the agent's lines without changing what
/// they do: quotes, line breaks, a trailing comma. In two files, twice over: nothing is learned.
#[test]
fn a_formatters_reformat_is_not_a_correction() {
    let project = tls_project();
    let session = "session-one";
    for file in ["src/tls.py", "src/client.py"] {
        agent_edit(
            &project,
            session,
            file,
            "import ssl\n",
            "import ssl\n\nGREETING_MESSAGE = 'hello_world_value'\nresult = compute_total(alpha_value, beta_value, gamma_value)\n",
        );
        person_edit(
            &project,
            file,
            "'hello_world_value'",
            "\"hello_world_value\"",
        );
        person_edit(
            &project,
            file,
            "compute_total(alpha_value, beta_value, gamma_value)",
            "compute_total(\n    alpha_value,\n    beta_value,\n    gamma_value,\n)",
        );
        let next = agent_edit(
            &project,
            session,
            file,
            "import ssl\n",
            "import ssl\nimport socket\n",
        );
        assert!(
            !next.system_message().contains("correction"),
            "{file}: {next:?}"
        );
    }
    stop(&project, session);
    assert_eq!(candidates(&project), Vec::<Value>::new());
    assert_eq!(lessons(&project), Vec::<Value>::new());
}

#[test]
fn nothing_generic_is_learned_from_corrections() {
    let project = TestProject::new();
    project.write("src/app.py", "x = 0\n");
    // The package the agent imports, in the project: the test needs no Python package installed.
    project.write("requests/__init__.py", "");
    project.commit_all();
    let written = "import requests\nimport os\nok = True\nfrom app import models\nlimit = 10;\nif flag:\n    pass\n";
    agent_edit(&project, "s1", "src/app.py", "x = 0\n", written);
    let corrected = "import httpx\nimport sys\nok = False\nfrom app import views\nlimit = 10\nif other:\n    pass\n";
    project.write("src/app.py", corrected);
    let answer = stop(&project, "s1");
    assert!(
        candidates(&project).is_empty(),
        "{:?}",
        candidates(&project)
    );
    assert!(lessons(&project).is_empty());
    assert!(!answer.system_message().contains("candidate"), "{answer:?}");
}

#[test]
fn a_fix_of_a_generic_line_teaches_nothing() {
    let project = TestProject::new();
    project.write("src/app.py", "x = 0\n");
    project.commit_all();
    let reviewer = r#"#!/bin/sh
cat > /dev/null
if grep -q "import pickle" src/app.py; then
echo '{"findings": [{"id": "F1", "severity": "P1", "file": "src/app.py", "line": 1, "title": "pickle runs code from the file", "wrong_output": "load(evil) runs os.system", "suggestion": "use json"}]}'
else echo '{"findings": []}'; fi
"#;
    let _fakes = scripted_reviewer(&project, reviewer);
    agent_edit(
        &project,
        "s1",
        "src/app.py",
        "x = 0\n",
        "import pickle\nx = 0\n",
    );
    assert!(stop(&project, "s1").is_block());
    agent_edit(
        &project,
        "s1",
        "src/app.py",
        "import pickle\n",
        "import json\n",
    );
    assert!(!stop(&project, "s1").is_block());
    assert!(
        candidates(&project).is_empty(),
        "{:?}",
        candidates(&project)
    );
}

/// A dispute never teaches: the agent challenged the P1 and then changed the line anyway; the
/// next review no longer reports it, but that says nothing about a fix.
#[test]
fn a_challenged_finding_that_disappears_teaches_nothing() {
    let (project, _fakes) = review_project();
    let session = "session-challenged";
    agent_edit(
        &project,
        session,
        "src/run.py",
        "    return cmd\n",
        "    return subprocess.run(cmd, shell=True)\n",
    );
    let blocked = stop(&project, session);
    assert!(blocked.is_block(), "{blocked:?}");
    let challenged = project.run(&[
        "review",
        "challenge",
        "F1",
        "--reason",
        "cmd is a constant list of arguments, never user input",
        "--session",
        session,
    ]);
    assert_eq!(challenged.code, 0, "{challenged:?}");
    agent_edit(
        &project,
        session,
        "src/run.py",
        "subprocess.run(cmd, shell=True)",
        "subprocess.run(shlex.split(cmd))",
    );
    let allowed = stop(&project, session);
    assert!(!allowed.is_block(), "{allowed:?}");
    assert!(
        candidates(&project).is_empty(),
        "{:?}",
        candidates(&project)
    );
    assert!(lessons(&project).is_empty(), "{:?}", lessons(&project));
}
