//! The agent's own shell commands are its work, never a person's correction, for every agent
//! car wires: Codex (`Bash` after `apply_patch`), Gemini CLI (`run_shell_command` after
//! `replace`) and Cursor (`afterShellExecution` after `afterFileEdit`). Each payload starts from
//! the agent's recorded fixture; the same change without the shell hook is taken for a person's,
//! so each case can fail.

use serde_json::{Value, json};

use crate::support::TestProject;

const BEFORE: &str = "ctx = ssl.create_default_context()\n";
const AFTER: &str = "ctx = ssl.create_default_context()\nctx.check_hostname = False\n";

#[derive(Clone, Copy, Debug)]
enum Agent {
    Codex,
    Gemini,
    Cursor,
}

impl Agent {
    /// The agent's edit payload for `old` → `new` in src/tls.py (the file already changed).
    fn edit(self, project: &TestProject, old: &str, new: &str) -> Value {
        let path = project.path().join("src/tls.py");
        match self {
            Agent::Codex => {
                let mut payload = project.fixture_json("codex-post-apply-patch.json");
                let removed: String = old.lines().map(|line| format!("-{line}\n")).collect();
                let added: String = new.lines().map(|line| format!("+{line}\n")).collect();
                payload["tool_input"]["command"] = json!(format!(
                    "*** Begin Patch\n*** Update File: src/tls.py\n@@\n{removed}{added}*** End Patch\n"
                ));
                // Codex sends the tool's output as one string.
                payload["tool_response"] = json!(
                    "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/tls.py\n"
                );
                payload
            }
            Agent::Gemini => {
                let mut payload = project.fixture_json("gemini-after-tool-replace.json");
                payload["tool_input"]["file_path"] = json!(path);
                payload["tool_input"]["old_string"] = json!(old);
                payload["tool_input"]["new_string"] = json!(new);
                // The file as the tool found it and left it, as Gemini CLI reports them.
                let now = project.read("src/tls.py");
                let display = &mut payload["tool_response"]["returnDisplay"];
                display["filePath"] = json!(path);
                display["fileName"] = json!("tls.py");
                display["originalContent"] = json!(now.replacen(new, old, 1));
                display["newContent"] = json!(now);
                payload
            }
            Agent::Cursor => {
                let mut payload = project.fixture_json("cursor-after-file-edit.json");
                payload["file_path"] = json!(path);
                payload["edits"] = json!([{"old_string": old, "new_string": new}]);
                payload
            }
        }
    }

    /// The agent's stop payload (Gemini's `AfterAgent` has no fixture: its documented fields).
    fn stop(self, project: &TestProject) -> Value {
        match self {
            Agent::Codex => project.fixture_json("codex-stop.json"),
            Agent::Gemini => {
                let mut payload = project.fixture_json("gemini-after-tool-replace.json");
                let object = payload.as_object_mut().unwrap();
                for key in ["tool_name", "tool_input", "tool_response"] {
                    object.remove(key);
                }
                payload["hook_event_name"] = json!("AfterAgent");
                payload["prompt"] = json!("Turn off the host name check for the test server.");
                payload["prompt_response"] = json!("Which certificate store should I use?");
                payload["stop_hook_active"] = json!(false);
                payload
            }
            Agent::Cursor => project.fixture_json("cursor-stop.json"),
        }
    }

    /// The agent's shell command payload, in the same session as its edits.
    fn shell(self, project: &TestProject, command: &str) -> Value {
        match self {
            Agent::Codex => {
                let mut payload = project.fixture_json("codex-post-apply-patch.json");
                payload["tool_name"] = json!("Bash");
                payload["tool_input"] = json!({"command": command});
                payload["tool_response"] = json!("");
                payload
            }
            Agent::Gemini => {
                let mut payload = project.fixture_json("gemini-after-tool-replace.json");
                payload["tool_name"] = json!("run_shell_command");
                payload["tool_input"] = json!({"command": command});
                payload["tool_response"] = json!({"llmContent": "", "returnDisplay": ""});
                payload
            }
            Agent::Cursor => {
                let mut payload = project.fixture_json("cursor-after-file-edit.json");
                let object = payload.as_object_mut().unwrap();
                object.remove("file_path");
                object.remove("edits");
                payload["hook_event_name"] = json!("afterShellExecution");
                payload["command"] = json!(command);
                payload["output"] = json!("");
                payload["duration"] = json!(12);
                payload
            }
        }
    }
}

fn post(project: &TestProject, payload: &Value) {
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0, "{answer:?}");
}

/// The agent turns host name checks off, the file then gets `= True` (by the agent's shell
/// command when `by_shell`, else by someone else), and the agent stops: the number of correction candidates car made.
fn candidates_after(agent: Agent, by_shell: bool) -> usize {
    let project = TestProject::new();
    project.write("src/tls.py", &format!("import ssl\n\n{BEFORE}"));
    project.write(
        "src/client.py",
        "import ssl\n\ncontext = ssl.create_default_context()\n",
    );
    project.commit_all();

    project.write("src/tls.py", &format!("import ssl\n\n{AFTER}"));
    post(&project, &agent.edit(&project, BEFORE, AFTER));

    let corrected = project
        .read("src/tls.py")
        .replace("check_hostname = False", "check_hostname = True");
    project.write("src/tls.py", &corrected);
    if by_shell {
        post(
            &project,
            &agent.shell(&project, "sed -i 's/= False/= True/' src/tls.py"),
        );
    }

    let stopped = project.hook("stop", &agent.stop(&project).to_string());
    assert_eq!(stopped.code, 0, "{stopped:?}");

    let path = ".claude/claude-auto-review/lesson_candidates.json";
    if !project.exists(path) {
        return 0;
    }
    project.read_json(path)["candidates"]
        .as_array()
        .map_or(0, Vec::len)
}

#[test]
fn each_agents_own_shell_command_is_not_a_correction() {
    for agent in [Agent::Codex, Agent::Gemini, Agent::Cursor] {
        assert_eq!(
            candidates_after(agent, false),
            1,
            "{agent:?}: a change nobody's hook reported is a correction"
        );
        assert_eq!(
            candidates_after(agent, true),
            0,
            "{agent:?}: the agent's shell command is its own work"
        );
    }
}
