//! What every hook works with: the validated payload, the project, live-read settings and the
//! one clock for this call.

use std::path::Path;

use serde_json::json;

use crate::clock::Clock;
use crate::hook::payload::Payload;
use crate::project::Project;
use crate::setup::settings::Settings;

#[derive(Debug)]
pub struct HookContext {
    pub payload: Payload,
    pub project: Project,
    /// Settings as read for this call; defaults when the file is broken (see `settings_problem`).
    pub settings: Settings,
    /// Why the settings could not be read, to tell the user once in the answer.
    pub settings_problem: Option<String>,
    pub clock: Clock,
}

impl HookContext {
    pub fn new(payload: Payload) -> Result<HookContext, crate::clock::ClockError> {
        let clock = Clock::from_env()?;
        let project = Project::discover(payload.cwd());
        let (settings, settings_problem) = match Settings::load(&project) {
            Ok(settings) => (settings, None),
            Err(error) => (Settings::default(), Some(error.to_string())),
        };
        Ok(HookContext {
            payload,
            project,
            settings,
            settings_problem,
            clock,
        })
    }

    pub fn session_id(&self) -> &str {
        &self.payload.session_id
    }
}

/// File that keeps the hooks' internal errors, newest last, for `car status`.
pub const HOOK_ERRORS_FILE: &str = "hook-errors.jsonl";

/// Records an internal hook error (best effort: logging must not fail the hook).
pub fn log_hook_error(state_dir: &Path, message: &str) {
    let line = json!({"ts": Clock::from_env().map(|clock| clock.now()).unwrap_or_default(), "error": message});
    let _ = crate::files::append_line(
        &state_dir.join(HOOK_ERRORS_FILE),
        &line.to_string(),
        crate::files::HOOK_LOCK_WAIT,
    );
}
