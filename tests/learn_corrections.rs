//! A correction is a person's: never a shell command's the agent ran on that file, another agent
//! session's edit, a git operation's result, a lockfile or a generated file. A read-only command
//! (`pytest`) between the person's change and the stop keeps the correction.

use serde_json::{Value, json};

use crate::learn_signals::{
    T0, agent_disables_hostname_check, agent_edit, candidates, person_edit, stop, tls_project,
};
use crate::support::TestProject;

/// Sets the file's modification time `seconds` into the past: the person edited it a while ago.
fn edited_ago(project: &TestProject, file: &str, seconds: u64) {
    let status = std::process::Command::new("touch")
        .arg("-d")
        .arg(format!("{seconds} seconds ago"))
        .arg(project.path().join(file))
        .status()
        .unwrap();
    assert!(status.success());
}

/// The agent's Bash command `command`, as Claude Code reports it (`duration_ms` when given).
fn agent_runs(project: &TestProject, session: &str, command: &str, duration_ms: Option<u64>) {
    let mut payload = project.fixture_json("claude-post-bash-rm.json");
    payload["session_id"] = json!(session);
    payload["cwd"] = json!(project.path());
    payload["tool_input"]["command"] = json!(command);
    payload["tool_response"]["stdout"] = json!("3 passed in 0.02s\n");
    match duration_ms {
        Some(ms) => payload["duration_ms"] = json!(ms),
        None => {
            payload.as_object_mut().unwrap().remove("duration_ms");
        }
    }
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0, "{answer:?}");
}

fn sources(pool: &[Value]) -> Vec<&str> {
    pool.iter().filter_map(|c| c["source"].as_str()).collect()
}

#[test]
fn a_read_only_command_between_the_correction_and_the_stop_keeps_it() {
    for duration in [Some(200), None] {
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
        edited_ago(&project, "src/tls.py", 600);
        // Another edit of the agent's (a hook runs) after the person's change, then pytest.
        agent_edit(
            &project,
            session,
            "src/client.py",
            "import ssl\n",
            "import ssl\nimport os\n",
        );
        agent_runs(&project, session, "python -m pytest -q", duration);
        stop(&project, session);
        assert_eq!(
            sources(&candidates(&project)),
            ["reversal"],
            "duration {duration:?}: {:?}",
            candidates(&project)
        );
    }
}

#[test]
fn a_command_that_names_the_file_or_ran_while_it_changed_owns_the_change() {
    let mut project = tls_project();
    let session = "session-one";
    agent_disables_hostname_check(&project, session, "src/tls.py", "ctx");
    project.at(T0 + 300);
    // Named on the command line, even long after it was modified.
    person_edit(
        &project,
        "src/tls.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    edited_ago(&project, "src/tls.py", 600);
    agent_runs(
        &project,
        session,
        "sed -i 's/False/True/' src/tls.py",
        Some(30),
    );
    // Changed while a command that does not name it ran (a formatter over the tree).
    agent_disables_hostname_check(&project, session, "src/client.py", "context");
    person_edit(
        &project,
        "src/client.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    agent_runs(&project, session, "ruff format .", Some(5_000));
    stop(&project, session);
    assert_eq!(candidates(&project), Vec::<Value>::new());
}

#[test]
fn another_agent_sessions_edit_is_not_a_correction() {
    let mut project = tls_project();
    agent_disables_hostname_check(&project, "session-one", "src/tls.py", "ctx");
    project.at(T0 + 300);
    agent_edit(
        &project,
        "session-two",
        "src/tls.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    stop(&project, "session-one");
    assert_eq!(candidates(&project), Vec::<Value>::new());
}

#[test]
fn a_file_back_at_its_committed_version_is_not_a_correction() {
    let mut project = TestProject::new();
    project.at(T0);
    let committed =
        "import ssl\n\nctx = ssl.create_default_context()\nctx.verify_mode = ssl.CERT_REQUIRED\n";
    project.write("src/tls.py", committed);
    project.write(
        "src/client.py",
        committed.replace("ctx", "context").as_str(),
    );
    project.commit_all();
    let session = "session-one";
    agent_edit(
        &project,
        session,
        "src/tls.py",
        "ssl.CERT_REQUIRED",
        "ssl.CERT_NONE_ZZ",
    );
    project.at(T0 + 300);
    // The person throws the agent's change away: `git checkout -- src/tls.py`.
    let status = std::process::Command::new("git")
        .args(["checkout", "--", "src/tls.py"])
        .current_dir(project.path())
        .status()
        .unwrap();
    assert!(status.success());
    stop(&project, session);
    assert_eq!(candidates(&project), Vec::<Value>::new());
    // The same change by hand, in a file that then differs from its commit: a correction.
    agent_edit(
        &project,
        session,
        "src/client.py",
        "ssl.CERT_REQUIRED",
        "ssl.CERT_NONE_ZZ",
    );
    person_edit(
        &project,
        "src/client.py",
        "ssl.CERT_NONE_ZZ",
        "ssl.CERT_REQUIRED  # keep",
    );
    stop(&project, session);
    assert_eq!(sources(&candidates(&project)), ["reversal"]);
}

#[test]
fn lockfiles_and_generated_files_are_not_corrected_by_a_person() {
    let mut project = tls_project();
    let session = "session-one";
    project.write("poetry.lock", "ctx = ssl.create_default_context()\n");
    project.write(
        "src/api_pb.py",
        "# @generated by protoc; do not edit\nctx = ssl.create_default_context()\n",
    );
    project.commit_all();
    for file in ["poetry.lock", "src/api_pb.py"] {
        agent_disables_hostname_check(&project, session, file, "ctx");
        project.at(T0 + 300);
        person_edit(
            &project,
            file,
            "check_hostname = False",
            "check_hostname = True",
        );
    }
    stop(&project, session);
    assert_eq!(candidates(&project), Vec::<Value>::new());
}
