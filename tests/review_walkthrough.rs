//! The walkthrough of docs/review.md, replayed: the exact JSON of one blocked and one allowed stop
//! (insta snapshots), with a `command` reviewer that answers like the one in the docs.

use serde_json::json;

use crate::review_helpers::*;
use crate::support::TestProject;

const REVIEWER: &str = r#"#!/bin/sh
cat > /dev/null
if grep -q "return None" src/app.py; then
cat <<'JSON'
{"verdict": "PASS", "findings": [
 {"id": "F1", "severity": "P1", "file": "src/app.py", "line": 4,
  "title": "load() returns None for a missing file",
  "wrong_output": "load('missing.txt') returns None; render(load(p)) then raises TypeError",
  "suggestion": "raise FileNotFoundError, or return ''"},
 {"id": "F2", "severity": "P3", "file": "src/app.py", "line": 1,
  "title": "name the parameter file_path", "wrong_output": "", "suggestion": "rename path to file_path"}]}
JSON
else
echo '{"findings": []}'
fi
"#;

#[test]
fn walkthrough_blocked_then_allowed() {
    let project = TestProject::new();
    project.write(
        "src/app.py",
        "def load(path):\n    return open(path).read()\n",
    );
    project.commit_all();
    let _fakes = scripted_reviewer(&project, REVIEWER);
    let edited = "def load(path):\n    import os.path\n    if not os.path.exists(path):\n        return None\n    return open(path).read()\n";
    project.write("src/app.py", edited);
    let edit = project.edit_payload("src/app.py", "    return open(path).read()\n", edited);
    assert_eq!(project.hook("post-tool-use", &edit).json, json!({}));
    let done = "I made load() check the path first. All done.";
    let blocked = project.hook("stop", &stop_payload(&project, SESSION, Some(done)));
    insta::assert_snapshot!("walkthrough_blocked", blocked.stdout.trim());

    let fixed = "def load(path):\n    with open(path) as handle:\n        return handle.read()\n";
    project.write("src/app.py", fixed);
    let edit = project.edit_payload("src/app.py", edited, fixed);
    assert_eq!(project.hook("post-tool-use", &edit).json, json!({}));
    let mut again: serde_json::Value =
        serde_json::from_str(&stop_payload(&project, SESSION, Some(done))).unwrap();
    again["stop_hook_active"] = json!(true);
    let allowed = project.hook("stop", &again.to_string());
    insta::assert_snapshot!("walkthrough_allowed", allowed.stdout.trim());
    let offers = project.run(&["review", "offers"]);
    assert!(
        offers
            .stdout
            .contains("src/app.py:1: name the parameter file_path")
    );
}
