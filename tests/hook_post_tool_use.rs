//! The PostToolUse hook driven with every Claude payload fixture.

use crate::support::TestProject;

#[test]
fn garbage_stdin_fails_open() {
    let project = TestProject::new();
    for payload in ["", "not json", "{\"cwd\":", "[1,2]"] {
        let answer = project.hook("post-tool-use", payload);
        assert_eq!(answer.code, 0, "payload {payload:?}");
        assert!(!answer.is_block());
        assert!(answer.system_message().starts_with("car: "), "{answer:?}");
    }
}
