//! What the gate says: block reasons for the agent (a review request, a failed review, a fix
//! request) and the lines for the person (findings handed to them).
//!
//! Invariants: P3 never appear in a fix request; the agent is never told to swap the independent
//! reviewer for a self-review (that is the person's call and goes to `systemMessage`); from the
//! second fix request of a session the agent is asked for a round reflection first (the fix loop).

use crate::diagnostic::Diagnostic;
use crate::session::Session;
use crate::session::finding::Severity;
use crate::session::rounds::Escalation;
use crate::session::snapshot::{Outstanding, Request};

/// The most changed files a review request names in the block reason (the saved request names
/// them all).
const NAMED_FILES_LIMIT: usize = 12;

/// The manual review request, kept short: an agent puts a Stop reason into its next request
/// (Claude Code twice, Codex HTML-escaped), so the reason says what to do, the command, where
/// the full request is saved and the changed files; the request itself (diff, rules, answer
/// format) is in the saved file, which every agent car supports reads. `also` (validator errors
/// to fix) follows.
pub(crate) fn request(context: Session<'_>, request: &Request, also: &str) -> String {
    let session = context.id;
    let car = super::program::name();
    let files: Vec<&str> = request.files.keys().map(String::as_str).collect();
    let mut named = files
        .iter()
        .take(NAMED_FILES_LIMIT)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > NAMED_FILES_LIMIT {
        named.push_str(&format!(" and {} more", files.len() - NAMED_FILES_LIMIT));
    }
    let saved = context.project.root().join(&request.prompt_file);
    // The agent is sent to read the saved request only when car itself can: a request file
    // replaced by a link (or removed) would have the agent read whatever it points at.
    let unreadable = match super::prompt::request_text(context.project, request) {
        Ok(Some(_)) => None,
        Ok(None) => Some("it is missing".to_string()),
        Err(error) => Some(error.to_string()),
    };
    let what_to_do = match unreadable {
        None => format!(
            "Read the review request in {} (the changes, the rules, the answer format), review as \
             it says, write the findings JSON to a file and record it:\n  \
             {car} review submit --session {session} FILE\n\
             or pipe it: {car} review submit --session {session} -",
            saved.display()
        ),
        Some(problem) => format!(
            "The saved review request {} cannot be read ({problem}), so it is not shown; drop it \
             with `{car} review cancel --session {session}` and stop again for a new one.",
            saved.display()
        ),
    };
    let mut reason = format!(
        "car: review {} required before stopping ({}: {named}).\n{what_to_do}\n",
        request.id,
        crate::text::plural(files.len(), "changed file"),
    );
    if !also.is_empty() {
        reason.push_str(also.trim_start());
        reason.push('\n');
    }
    reason
}

/// The unresolved validator errors, for block reasons that are not a fix request.
pub(crate) fn errors_to_fix(errors: &[Diagnostic]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let mut text =
        String::from("\nAlso fix these validator errors (they block the stop by themselves):");
    for error in errors {
        text.push_str(&format!("\n- {}", error.render()));
    }
    text
}

/// A review that could not run: what failed and what the agent may do (`fix` never suggests
/// another reviewer: that is in the person's message).
pub(crate) fn failure(what: &str, fix: &str, max_stop_passes: u32) -> String {
    format!(
        "car: the review could not run, so the stop stays blocked (a failed review never counts as clean).\n\
         What failed: {what}\nHow to fix it: {fix}\n\
         The gate lets the agent stop after {max_stop_passes} blocked stops in a row (maxStopPasses)."
    )
}

/// Everything a fix request says.
pub(crate) struct FixRequest<'a> {
    pub(crate) session: &'a str,
    pub(crate) outstanding: &'a [Outstanding],
    pub(crate) errors: &'a [Diagnostic],
    /// 1 for the session's first fix request.
    pub(crate) round: u32,
    /// `[KNOWN LIMIT]` lines of the agent that deferred nothing, with why.
    pub(crate) refused: &'a [String],
    /// Findings the agent's `[KNOWN LIMIT]` lines deferred at this stop.
    pub(crate) deferred: &'a [String],
    /// Findings handed to a person at this stop.
    pub(crate) handed: &'a [Escalation],
}

/// The fix request: blocking findings (never P3) and unresolved validator errors.
pub(crate) fn fix_request(request: &FixRequest<'_>) -> String {
    let mut reason = String::from(
        "car: the stop is blocked; fix these, then stop again (car re-reviews what you change):\n",
    );
    if request.round >= 2 {
        reason.push_str(&format!(
            "Round {}: before you fix anything, start your reply with a short \"## Round reflection\": why did the previous fix not hold, what will you do differently, and are you over-building or chasing an edge case?\n",
            request.round
        ));
    }
    for item in request.outstanding {
        reason.push_str(&finding_lines(item, request.outstanding));
    }
    if !request.errors.is_empty() {
        reason.push_str("Unresolved validator errors (they block whatever the review says):\n");
        for error in request.errors {
            reason.push_str(&format!("- {}\n", error.render()));
        }
    }
    for deferred in request.deferred {
        reason.push_str(&format!(
            "Recorded as a known limit from your reply (no longer blocks): {deferred}\n"
        ));
    }
    for refused in request.refused {
        reason.push_str(&format!("{refused}\n"));
    }
    if !request.handed.is_empty() {
        reason.push_str("Handed to the person (stop working on these):\n");
        for escalation in request.handed {
            reason.push_str(&format!("- {}\n", escalation.finding.summary()));
        }
    }
    reason.push_str(&answers_besides_fixing(request));
    reason.trim_end().to_string()
}

/// What the agent may do instead of fixing: declare a P2 a known limit, challenge a finding.
fn answers_besides_fixing(request: &FixRequest<'_>) -> String {
    let session = request.session;
    let car = super::program::name();
    let mut text = String::new();
    if request
        .outstanding
        .iter()
        .any(|item| item.finding.severity != Severity::P1)
    {
        text.push_str(&format!(
            "A P2 that is a deliberate limitation can be declared instead of fixed, one line in your reply: - [KNOWN LIMIT] ID — why it is acceptable (or: {car} review defer ID --reason \"…\" --session {session}). Never a P1.\n"
        ));
    }
    if !request.outstanding.is_empty() {
        text.push_str(&format!(
            "A finding you hold to be a false positive: {car} review challenge ID --reason \"…\" --session {session} (the reviewer looks again; if it still holds, a person decides).\n"
        ));
    }
    text
}

/// One finding of a fix request; its id is qualified (`R1/F1`) when another open finding has the
/// same id.
fn finding_lines(item: &Outstanding, all: &[Outstanding]) -> String {
    let finding = &item.finding;
    let shared = all
        .iter()
        .filter(|other| other.finding.id == finding.id)
        .count()
        > 1;
    let id = if shared {
        format!("{}/{}", item.review, finding.id)
    } else {
        finding.id.clone()
    };
    let mut text = format!(
        "- [{}] {id} {}: {}\n",
        finding.severity,
        finding.location(),
        finding.title
    );
    if !finding.wrong_output.is_empty() {
        text.push_str(&format!("    wrong output: {}\n", finding.wrong_output));
    }
    if !finding.suggestion.is_empty() {
        text.push_str(&format!("    fix: {}\n", finding.suggestion));
    }
    text
}

/// The person's block: findings handed to them, what, where and what was tried.
pub(crate) fn handed_to_person(escalations: &[&Escalation]) -> String {
    let mut text = String::from(
        "car: handed to you: the agent and the reviewer did not converge on these findings; they no longer block this session, you decide:",
    );
    for escalation in escalations {
        let finding = &escalation.finding;
        text.push_str(&format!(
            "\n- {}\n    why: {}",
            finding.summary(),
            escalation.why()
        ));
        if !finding.wrong_output.is_empty() {
            text.push_str(&format!("\n    wrong output: {}", finding.wrong_output));
        }
        if !escalation.tried.is_empty() {
            text.push_str("\n    fixes tried:");
            for tried in &escalation.tried {
                text.push_str(&format!("\n      {tried}"));
            }
        }
    }
    text
}
