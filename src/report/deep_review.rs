//! The deep review section: each context's loop — its rounds with the verdict, the guard that
//! decided, the findings (blocking or not), the findings the author marked fixed or challenged,
//! and, when a guard handed the call to a person, both sides' words.
//!
//! Invariants: read from the round state files through `RoundStore::all` (the deep review's own
//! reader); a state file car cannot read is left out there as in `car status`.

use crate::clock::date_of;
use crate::project::Project;
use crate::report::html::Html;
use crate::review::deep::state::{RoundRecord, RoundState, RoundStore};
use crate::review::deep::verdict::{Guard, Status};

/// Every context's round state, most recently updated first.
pub(crate) fn read(project: &Project) -> Vec<RoundState> {
    let mut states: Vec<RoundState> = RoundStore::all(project)
        .into_iter()
        .map(|(_, state)| state)
        .collect();
    states.reverse();
    states
}

/// Escalations across every context's rounds.
pub(crate) fn escalations(states: &[RoundState]) -> usize {
    states
        .iter()
        .flat_map(|state| &state.rounds)
        .filter(|round| round.status == Status::Escalate)
        .count()
}

/// What a guard means, in a person's words.
fn guard_meaning(guard: Guard) -> &'static str {
    match guard {
        Guard::NoBlocking => "no blocking finding",
        Guard::Stuck => "a finding marked fixed was reported again",
        Guard::Dispute => "a challenged finding was reported again",
        Guard::NoProgress => "the same blocking findings and no change in the diff",
        Guard::Diverging => "the blocking findings grew two rounds in a row",
        Guard::RoundCap => "the round cap was reached",
    }
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Pass => "ok",
        Status::Fail => "bad",
        Status::Stopped => "warn",
        Status::Escalate => "esc",
    }
}

/// Writes the section.
pub(crate) fn write(page: &mut Html, states: &[RoundState]) {
    page.raw("<section id=\"deep-review\"><h2>Deep review</h2>");
    if states.is_empty() {
        page.raw("<p class=\"note\">No deep review has run here (<code>car deep-review run CONTEXT</code>).</p></section>");
        return;
    }
    for state in states {
        page.raw("<details open><summary><b>")
            .text(&state.context)
            .raw("</b> — ");
        match state.closed {
            Some(status) => {
                page.raw("<span class=\"tag ")
                    .raw(status_class(status))
                    .raw("\">")
                    .raw(status.as_str())
                    .raw("</span> after round ")
                    .number(state.round);
            }
            None => {
                page.raw("open after round ").number(state.round);
            }
        }
        page.raw(" · updated ")
            .text(&date_of(state.updated_at))
            .raw("</summary>");
        for round in &state.rounds {
            write_round(page, state, round);
        }
        page.raw("</details>");
    }
    page.raw("</section>");
}

fn write_round(page: &mut Html, state: &RoundState, round: &RoundRecord) {
    page.raw("<div class=\"round\"><div><b>round ")
        .number(round.round)
        .raw("</b> ");
    page.raw("<span class=\"tag ")
        .raw(status_class(round.status))
        .raw("\">")
        .raw(round.status.as_str())
        .raw("</span> ");
    if let Some(guard) = round.guard {
        page.raw("guard <code>")
            .raw(guard.as_str())
            .raw("</code>: ")
            .raw(guard_meaning(guard));
    }
    page.raw(" · ")
        .text(&date_of(round.at))
        .raw(" · base <code>")
        .text(&round.base)
        .raw("</code> · ");
    page.number(round.blocking_count())
        .raw(" blocking of ")
        .number(round.findings.len())
        .raw("</div><ul class=\"tight\">");
    for reported in &round.findings {
        let finding = &reported.finding;
        page.raw("<li><span class=\"sev ")
            .text(&finding.severity.to_string())
            .raw("\">")
            .text(&finding.severity.to_string())
            .raw("</span> ");
        if !reported.blocking {
            page.raw("<span class=\"tag\">not blocking</span> ");
        }
        page.text(&finding.id)
            .raw(" <code>")
            .text(&finding.location())
            .raw("</code> ")
            .text(&finding.title);
        if !finding.wrong_output.is_empty() {
            page.raw("<div class=\"said\">reviewer: ")
                .text(&finding.wrong_output)
                .raw("</div>");
        }
        let fixed = state
            .attempted_fixes
            .iter()
            .find(|mark| mark.key == reported.key && mark.round < round.round);
        if let Some(mark) = fixed {
            page.raw("<div class=\"said\">author: marked fixed after round ")
                .number(mark.round)
                .raw("</div>");
        }
        if let Some(challenge) = state
            .challenged_ids
            .iter()
            .find(|mark| mark.key == reported.key)
        {
            page.raw("<div class=\"said\">author (challenge, round ")
                .number(challenge.round)
                .raw("): ")
                .text(&challenge.reason)
                .raw("</div>");
        }
        page.raw("</li>");
    }
    page.raw("</ul>");
    if round.status == Status::Escalate {
        page.raw("<p class=\"esc-note\">A guard handed this to a person: read both sides above and decide.</p>");
    }
    page.raw("</div>");
}
