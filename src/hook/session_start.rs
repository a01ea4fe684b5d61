//! The SessionStart hook: the session's worktree baseline ([`crate::session::start`]), so every
//! change the session makes later — through its edit tools or its shell — is told apart from
//! what was already changed. Says nothing to the agent; a failure is one line for the person.

use crate::answer::Answer;
use crate::hook::HookContext;

pub(crate) fn handle(context: &HookContext) -> Answer {
    if !context.settings.enabled {
        return Answer::allow();
    }
    match crate::session::start::record(context.session()) {
        Ok(()) => Answer::allow(),
        Err(error) => {
            crate::state::log_hook_error(
                &context.project.state_dir(),
                &format!("session start: {error}"),
            );
            Answer::allow().with_system_line(format!(
                "car: could not record what was already changed at the session's start ({error}); the session's first edit records it instead"
            ))
        }
    }
}
