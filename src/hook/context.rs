//! What every hook works with: the validated payload, the project, live-read settings and the
//! one clock for this call.

use crate::clock::Clock;
use crate::hook::payload::Payload;
use crate::project::Project;
use crate::settings::Settings;

#[derive(Debug)]
pub(crate) struct HookContext {
    pub(crate) payload: Payload,
    pub(crate) project: Project,
    /// Settings as read for this call; defaults when the file is broken (see `settings_problem`).
    pub(crate) settings: Settings,
    /// Why the settings could not be read, to tell the user once in the answer.
    pub(crate) settings_problem: Option<String>,
    pub(crate) clock: Clock,
    /// Layer the user-wide lessons under the project's: true for a real hook; a replay runs in
    /// a throwaway project where the user's own lessons must not change what it sees.
    pub(crate) user_lessons: bool,
}

impl HookContext {
    pub(crate) fn new(payload: Payload) -> Result<HookContext, crate::clock::ClockError> {
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
            user_lessons: true,
        })
    }

    /// The session as the review layer sees it.
    pub(crate) fn session(&self) -> crate::review::Session<'_> {
        crate::review::Session {
            project: &self.project,
            settings: &self.settings,
            clock: self.clock,
            id: &self.payload.session_id,
        }
    }
}
