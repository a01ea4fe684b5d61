//! The Claude Code PostToolUse payload fixtures, embedded so scenarios that replay them run from
//! an installed binary too. Each uses `/home/user/proj` for the project root; the runner rewrites
//! it to the scenario's temporary project.

/// The project root the fixtures were recorded with.
pub const FIXTURE_ROOT: &str = "/home/user/proj";

const FIXTURES: &[(&str, &str)] = &[
    (
        "claude-post-edit.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-edit.json"),
    ),
    (
        "claude-post-edit-minimal.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-edit-minimal.json"),
    ),
    (
        "claude-post-write-create.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-write-create.json"),
    ),
    (
        "claude-post-write-update.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-write-update.json"),
    ),
    (
        "claude-post-multiedit.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-multiedit.json"),
    ),
    (
        "claude-post-notebookedit.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-notebookedit.json"),
    ),
    (
        "claude-post-bash-rm.json",
        include_str!("../../tests/fixtures/hook-payloads/claude-post-bash-rm.json"),
    ),
];

/// The fixture's text, with the recorded project root still in it.
pub fn get(name: &str) -> Option<&'static str> {
    FIXTURES
        .iter()
        .find(|(fixture, _)| *fixture == name)
        .map(|(_, text)| *text)
}

pub fn names() -> Vec<&'static str> {
    FIXTURES.iter().map(|(name, _)| *name).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fixture_is_a_post_tool_use_payload() {
        for name in super::names() {
            let payload: serde_json::Value = serde_json::from_str(super::get(name).unwrap())
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_eq!(payload["hook_event_name"], "PostToolUse", "{name}");
            assert!(
                payload["cwd"]
                    .as_str()
                    .unwrap()
                    .starts_with(super::FIXTURE_ROOT)
            );
        }
    }
}
