//! The recorded after-edit payload fixtures (Claude Code, Codex, Gemini CLI, Cursor), embedded so
//! scenarios that replay them run from an installed binary too. Each uses `/home/user/proj` for the project root; the runner rewrites
//! it to the scenario's temporary project.

/// The project root the fixtures were recorded with.
pub(crate) const FIXTURE_ROOT: &str = "/home/user/proj";

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
    (
        "codex-post-apply-patch.json",
        include_str!("../../tests/fixtures/hook-payloads/codex-post-apply-patch.json"),
    ),
    (
        "gemini-after-tool-replace.json",
        include_str!("../../tests/fixtures/hook-payloads/gemini-after-tool-replace.json"),
    ),
    (
        "cursor-after-file-edit.json",
        include_str!("../../tests/fixtures/hook-payloads/cursor-after-file-edit.json"),
    ),
];

/// The fixture's text, with the recorded project root still in it.
pub(crate) fn get(name: &str) -> Option<&'static str> {
    FIXTURES
        .iter()
        .find(|(fixture, _)| *fixture == name)
        .map(|(_, text)| *text)
}

pub(crate) fn names() -> Vec<&'static str> {
    FIXTURES.iter().map(|(name, _)| *name).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fixture_is_an_after_edit_payload_in_the_fixture_project() {
        for name in super::names() {
            let text = super::get(name).unwrap();
            let payload = crate::agents::payload::Payload::parse(text.as_bytes(), None)
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_eq!(
                payload.cwd(),
                std::path::Path::new(super::FIXTURE_ROOT),
                "{name}"
            );
            let raw: serde_json::Value = serde_json::from_str(text).unwrap();
            let event = raw["hook_event_name"].as_str().unwrap_or_default();
            assert!(
                ["PostToolUse", "AfterTool", "afterFileEdit"].contains(&event),
                "{name}: {event}"
            );
        }
    }
}
