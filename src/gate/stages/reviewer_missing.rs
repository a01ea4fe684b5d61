//! A stop when the reviewer CLI is not installed (`reviewerBackend: codex` without codex, a
//! `reviewerCommand` that is not there): the agent cannot fix that, so blocking would only spend
//! its turns up to `maxStopPasses`. The stop is let go at once; the changes stay pending,
//! unreviewed and named, and the review request is saved so a person (or the agent, asked to)
//! can review by hand with `car review submit`.
//!
//! Invariants: never counted as a review (the changes stay in the next review's scope and in
//! `car review status`); the full how-to-fix is said once per session and program, later stops
//! say it in one line; validator errors still block (the gate checks them before it gets here).

use super::Gate;
use crate::answer::Answer;
use crate::gate::ReviewError;
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
        self.allow_final(AllowKind::ReviewerMissing, Some(message))
    }

    /// The first stop's message: what is missing, what stays pending, and the three ways out.
    fn how_to_fix(&self, request: &Request, program: &str, pending: &str) -> String {
        let car = crate::gate::program::name();
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
