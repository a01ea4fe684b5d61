//! Playing the session steps of a scenario ([`crate::scenario::session_steps`]): someone else's
//! change of a file (no hook), the agent's shell command (the recorded Claude Code Bash payload
//! through the PostToolUse hook), and the stop (the Stop hook in process; a scripted review is a
//! `command` reviewer that prints the scenario's findings JSON).
//!
//! Invariant: the scripted reviewer is the only child process a scenario starts (`cat` of one
//! file, about a millisecond); everything else stays in process.

use serde_json::{Value, json};

use crate::project::Project;
use crate::replay::step_error::StepError;
use crate::scenario::fixtures::{self, FIXTURE_ROOT};
use crate::settings::{ReviewerBackend, Settings};

/// The recorded Bash payload the `bash` step replays.
const BASH_FIXTURE: &str = "claude-post-bash-rm.json";

/// Replaces the first `before` in the project's `file` by `after`, as an editor or a shell
/// command would (no payload).
pub(crate) fn replace_in(
    project: &Project,
    file: &str,
    before: &str,
    after: &str,
) -> Result<(), StepError> {
    let path = project.root().join(file);
    let text = crate::files::read_optional(&path)?.unwrap_or_default();
    if !text.contains(before) {
        return Err(StepError::BeforeNotFound {
            file: file.to_string(),
            before: before.to_string(),
        });
    }
    std::fs::write(&path, text.replacen(before, after, 1))
        .map_err(|source| StepError::File(crate::files::FileError::io(&path, source)))
}

/// Claude Code's Bash PostToolUse payload for a command that edited `file`.
pub(crate) fn bash_payload(
    project: &Project,
    session: &str,
    file: &str,
) -> Result<Value, StepError> {
    let text = fixtures::get(BASH_FIXTURE)
        .ok_or_else(|| StepError::NoFixture(BASH_FIXTURE.to_string()))?;
    let root = project.root().to_string_lossy();
    let mut payload: Value = serde_json::from_str(&text.replace(FIXTURE_ROOT, &root))
        .map_err(|error| StepError::Payload(format!("fixture {BASH_FIXTURE}: {error}")))?;
    payload["session_id"] = json!(session);
    payload["tool_input"]["command"] = json!(format!("sed -i -e '…' {file}"));
    payload["tool_response"]["stdout"] = json!("");
    Ok(payload)
}

/// Claude Code's Stop payload, the first stop attempt.
pub(crate) fn stop_payload(project: &Project, session: &str, message: &str) -> Value {
    json!({
        "session_id": session,
        "cwd": project.root(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": message,
    })
}

/// Makes the reviewer a `command` that prints `review`, for this stop only.
pub(crate) fn script_reviewer(
    project: &Project,
    settings: &mut Settings,
    review: &Value,
) -> Result<(), StepError> {
    let path = project.state_dir().join(crate::state::names::REPLAY_REVIEW);
    crate::files::write_atomic(&path, review.to_string().as_bytes())?;
    settings.reviewer_backend = ReviewerBackend::Command;
    settings.reviewer_command = vec!["cat".into(), path.to_string_lossy().into_owned()];
    Ok(())
}
