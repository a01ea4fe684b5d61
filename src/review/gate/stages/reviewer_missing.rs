//! A stop when the reviewer CLI is not installed (`reviewerBackend: codex` without codex, a
//! `reviewerCommand` that is not there): the agent cannot fix that, so blocking would only spend
//! its turns up to `maxStopPasses`. The stop is let go at once; the changes stay pending,
//! unreviewed and named, and the review request is saved so a person (or the agent, asked to)
//! can review by hand with `car review submit`.
//!
//! Invariants: never counted as a review (the changes stay in the next review's scope and in
//! `car review status`); the full how-to-fix is said once per session and program, later stops
//! say it in one line; validator errors still block (the gate checks them before it gets here).
//! The person reads the stop's message; the agent, which a stop let through cannot reach, gets a
//! note with the session's next answer that carries context (`session::agent_note`).

use super::Gate;
use crate::answer::Answer;
use crate::review::gate::ReviewError;
use crate::session::event::{AllowKind, Event};
use crate::session::snapshot::Request;

impl Gate<'_> {
    /// Lets the agent stop with `request`'s files pending, saying why and what to do.
    pub(super) fn allow_unreviewed(
        mut self,
        request: &Request,
        program: &str,
    ) -> Result<Answer, ReviewError> {
        let files: Vec<&str> = request.files.keys().map(String::as_str).collect();
        let pending = format!(
            "these changes stay pending, unreviewed: {}",
            files.join(", ")
        );
        let key = format!("reviewer_missing|{program}");
        let message = if self.snapshot.shown_offers.contains(&key) {
            format!(
                "car: the reviewer CLI `{program}` is still not installed, so no review ran; {pending} (`car review status`)."
            )
        } else {
            self.record(Event::OffersShown { keys: vec![key] });
            self.how_to_fix(request, program, &pending)
        };
        self.tell_the_agent(request, program, &files);
        self.allow_final(AllowKind::ReviewerMissing, Some(message))
    }

    /// The agent's side of it: a stop car lets through carries nothing to the model, so the note
    /// waits for the session's next answer that does ([`agent_note`](crate::session::agent_note)).
    fn tell_the_agent(&self, request: &Request, program: &str, files: &[&str]) {
        let car = crate::review::gate::program::name();
        let session = self.context.id;
        let saved = self.context.project.root().join(&request.prompt_file);
        let note = format!(
            "car: at your last stop no review ran: the reviewer CLI `{program}` is not installed, which no edit of yours can fix, so car let you stop. Unreviewed, still pending: {}. Tell the person if they have not seen it; to review by hand, read the saved request {} and record findings with `{car} review submit --session {session} FILE`.",
            files.join(", "),
            saved.display()
        );
        if let Err(error) = crate::session::agent_note::leave(self.context, &note) {
            let state_dir = self.context.project.state_dir();
            crate::state::log_hook_error(&state_dir, &format!("stop: note for the agent: {error}"));
        }
    }

    /// The first stop's message: what is missing, what stays pending, and the three ways out.
    fn how_to_fix(&self, request: &Request, program: &str, pending: &str) -> String {
        let car = crate::review::gate::program::name();
        let session = self.context.id;
        let backend = self.context.settings.reviewer_backend.name();
        let saved = self.context.project.root().join(&request.prompt_file);
        format!(
            "car: the reviewer CLI `{program}` (reviewerBackend {backend}) is not installed, so no review ran and the agent may stop: it cannot fix that; {pending}.\n\
             To have them reviewed, either:\n\
             - install `{program}` (or put it on the hooks' PATH) and stop again;\n\
             - choose another reviewer: `{car} config --backend claude|codex|opencode|manual`;\n\
             - review by hand: the request is saved in {}; write the findings JSON and record it with `{car} review submit --session {session} FILE`.",
            saved.display()
        )
    }
}
