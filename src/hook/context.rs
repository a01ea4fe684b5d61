//! What every hook works with: the validated payload, the project, live-read settings and the
//! one clock for this call.

use crate::agents::payload::Payload;
use crate::clock::Clock;
use crate::project::Project;
use crate::settings::Settings;

#[derive(Debug)]
pub(crate) struct HookContext {
    pub(crate) payload: Payload,
    pub(crate) project: Project,
    /// Settings as read for this call; defaults when the file is broken (see `settings_problem`).
    pub(crate) settings: Settings,
    /// Why the settings (or some keys of them) could not be used, to tell the user once per
    /// session in the answer.
    pub(crate) settings_problem: Option<String>,
    pub(crate) clock: Clock,
    /// Layer the user-wide lessons under the project's: true for a real hook; a replay runs in
    /// a throwaway project where the user's own lessons must not change what it sees.
    pub(crate) user_lessons: bool,
    /// When the hook must have answered (its start plus its budget); `None` in a replay, which
    /// has no agent waiting.
    pub(crate) deadline: Option<std::time::Instant>,
    /// When the hook started, by the wall clock (`None` in a replay).
    pub(crate) started_at: Option<std::time::SystemTime>,
}

impl HookContext {
    pub(crate) fn new(payload: Payload) -> Result<HookContext, crate::clock::ClockError> {
        let clock = Clock::from_env()?;
        let project = Project::discover(payload.cwd());
        let (settings, settings_problem) = settings_with_problem(&project);
        Ok(HookContext {
            payload,
            project,
            settings,
            settings_problem,
            clock,
            user_lessons: true,
            deadline: None,
            started_at: None,
        })
    }

    /// Whether the settings problem is new to this session (it is said once, then remembered).
    pub(crate) fn is_new_settings_problem(&self, problem: &str) -> bool {
        crate::state::first_notice(&self.project, &self.payload.session_id, problem)
    }

    /// How long a git call of this hook may take: a hook's wait, and never past the deadline less
    /// `margin` (the time left to answer after it).
    pub(crate) fn git_wait(&self, margin: std::time::Duration) -> crate::git::Wait {
        match self.deadline {
            Some(deadline) => crate::git::Wait::Until(
                deadline
                    .checked_sub(margin)
                    .unwrap_or_else(std::time::Instant::now),
            ),
            None => crate::git::Wait::Hook,
        }
    }

    /// The session as the review layer sees it.
    pub(crate) fn session(&self) -> crate::session::Session<'_> {
        crate::session::Session {
            project: &self.project,
            settings: &self.settings,
            clock: self.clock,
            id: &self.payload.session_id,
        }
    }
}

/// The settings as a hook uses them, and what to tell the user about them: a broken file means
/// defaults for everything, a bad key its default alone.
pub(crate) fn settings_with_problem(project: &Project) -> (Settings, Option<String>) {
    match Settings::load_checked(project) {
        Ok(checked) if checked.problems.is_empty() => (checked.settings, None),
        Ok(checked) => {
            let problems: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
            let message = format!(
                "{}: {} (`car status` lists them, `car config` repairs them)",
                project.settings_file().display(),
                problems.join("; ")
            );
            (checked.settings, Some(message))
        }
        Err(error) => (
            Settings::default(),
            Some(format!("{error} (using defaults)")),
        ),
    }
}
