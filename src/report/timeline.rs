//! The sessions section's page: one fold per session (the newest open), a summary line of its
//! counts, then its edits, blocks, writes stopped before they landed, lesson warnings, its
//! timeline of stop attempts (identical ones in a row as one line, "stop ×21") and review
//! rounds, and the P3 offers still open.
//!
//! Invariants: every text from the logs (file names, messages, findings, the agent's and the
//! reviewer's words) goes through the page's escaping; what was left out of a long session is
//! counted on the page, never silently dropped.

use crate::report::html::Html;
use crate::report::sessions::{Decision, Entry, SessionReport, Step, Stop};
use crate::session::event::{BlockKind, Event, Stage};
use crate::session::finding::{Finding, Severity};
use crate::session::rounds::Escalation;

/// Sessions shown open (the newest); the others start folded.
const OPEN_SESSIONS: usize = 3;
/// Sessions on the page (the newest); the older ones are counted, and stay in the logs.
const SESSIONS_SHOWN: usize = 200;
/// Edited files listed per session (the most edited).
const FILES_SHOWN: usize = 30;

fn time_of(at: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp(at, 0)
        .map(|time| time.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Enabled => "enabled",
        Stage::Changes => "changes",
        Stage::KnownLimits => "known limits",
        Stage::Breaker => "breaker",
        Stage::Reuse => "reuse",
        Stage::Review => "review",
        Stage::Guards => "guards",
        Stage::Verdict => "verdict",
    }
}

fn block_reason(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::ReviewRequest => "blocked: review requested",
        BlockKind::ReviewerFailed => "blocked: the reviewer gave no usable review",
        BlockKind::Findings => "blocked: open findings or checker errors",
    }
}

/// Writes the section; `problem` is what could not be read of the ended sessions' log.
pub(crate) fn write(page: &mut Html, sessions: &[SessionReport], problem: Option<&str>) {
    page.raw("<section id=\"sessions\"><h2>Sessions</h2>");
    if let Some(problem) = problem {
        page.raw("<p class=\"note\">").text(problem).raw("</p>");
    }
    if sessions.is_empty() {
        page.raw(
            "<p class=\"note\">No session has recorded an edit in this project yet.</p></section>",
        );
        return;
    }
    for (index, session) in sessions.iter().take(SESSIONS_SHOWN).enumerate() {
        write_session(page, session, index < OPEN_SESSIONS);
    }
    let older = sessions.len().saturating_sub(SESSIONS_SHOWN);
    if older > 0 {
        page.raw("<p class=\"note\">").number(older).raw(
            " older sessions are not shown (their logs are kept; the totals above count them).</p>",
        );
    }
    page.raw("</section>");
}

fn write_session(page: &mut Html, session: &SessionReport, is_open: bool) {
    page.raw(if is_open {
        "<details class=\"session\" open>"
    } else {
        "<details class=\"session\">"
    });
    page.raw("<summary><b>").text(&session.id).raw("</b> ");
    page.text(&time_of(session.first_ts))
        .raw(" → ")
        .text(&time_of(session.last_ts));
    if session.ended {
        page.raw(" <span class=\"tag\">ended</span>");
    }
    if session.archived {
        page.raw(" <span class=\"tag\">folder removed: reviews and stops only</span>");
    }
    page.raw("<span class=\"counts\">");
    for (count, label) in [
        (session.edit_count, "edits"),
        (session.block_count, "blocked edits"),
        (session.stopped_count, "writes stopped"),
        (session.warning_count, "warnings"),
        (session.stops_blocked, "stops blocked"),
        (session.stops_allowed, "allowed"),
        (session.reviews, "reviews"),
        (session.escalations, "escalations"),
    ] {
        page.raw(" · ").number(count).raw(" ").raw(label);
    }
    page.raw("</span></summary>");
    edits(page, session);
    blocks(page, session);
    stopped_writes(page, session);
    warnings(page, session);
    timeline(page, session);
    offers(page, session);
    if session.unreadable_lines > 0 {
        page.raw("<p class=\"warn\">")
            .number(session.unreadable_lines)
            .raw(" unreadable log lines skipped (a hook killed mid-write).</p>");
    }
    page.raw("</details>");
}

fn edits(page: &mut Html, session: &SessionReport) {
    if session.edits.is_empty() {
        return;
    }
    let mut files: Vec<(&String, &usize)> = session.edits.iter().collect();
    files.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    page.raw("<h4>Edits</h4><p class=\"files\">");
    for (file, count) in files.iter().take(FILES_SHOWN) {
        page.raw("<code>")
            .text(file)
            .raw("</code>&nbsp;×")
            .number(count)
            .raw(" ");
    }
    if files.len() > FILES_SHOWN {
        page.raw("and ")
            .number(files.len() - FILES_SHOWN)
            .raw(" more files");
    }
    page.raw("</p>");
}

fn blocks(page: &mut Html, session: &SessionReport) {
    if session.blocks.is_empty() {
        return;
    }
    page.raw("<h4>Blocked by a checker</h4><ul class=\"tight\">");
    for block in &session.blocks {
        let error = &block.error;
        page.raw("<li>")
            .text(&time_of(block.at))
            .raw(" <code>")
            .text(&error.file)
            .raw(":")
            .number(error.line)
            .raw(":")
            .number(error.column);
        page.raw("</code> ")
            .text(&error.message)
            .raw(" <span class=\"id\">[")
            .text(&error.validator)
            .raw("]</span></li>");
    }
    page.raw("</ul>");
    left_out(
        page,
        session.block_count,
        session.blocks.len(),
        "blocked edits",
    );
}

fn stopped_writes(page: &mut Html, session: &SessionReport) {
    if session.stopped_writes.is_empty() {
        return;
    }
    page.raw("<h4>Writes stopped before they landed</h4><ul class=\"tight\">");
    for stopped in &session.stopped_writes {
        page.raw("<li>")
            .text(&time_of(stopped.at))
            .raw(" <code>")
            .text(&stopped.file)
            .raw("</code>");
        for error in &stopped.errors {
            page.raw("<div class=\"said\">")
                .number(error.line)
                .raw(":")
                .number(error.column)
                .raw(" ")
                .text(&error.message)
                .raw(" <span class=\"id\">[")
                .text(&error.validator)
                .raw("]</span></div>");
        }
        for lesson in &stopped.lessons {
            page.raw("<div class=\"said\">lesson (weight ")
                .number(lesson.weight)
                .raw(") <a href=\"#l-")
                .text(&lesson.lesson_id)
                .raw("\">")
                .text(&lesson.lesson)
                .raw("</a></div>");
        }
        page.raw("</li>");
    }
    page.raw("</ul>");
    left_out(
        page,
        session.stopped_count,
        session.stopped_writes.len(),
        "writes stopped",
    );
}

fn warnings(page: &mut Html, session: &SessionReport) {
    if session.warnings.is_empty() {
        return;
    }
    page.raw("<h4>Lesson warnings</h4><ul class=\"tight\">");
    for (at, warning) in &session.warnings {
        page.raw("<li>")
            .text(&time_of(*at))
            .raw(" <code>")
            .text(&warning.file)
            .raw(":")
            .number(warning.line);
        page.raw("</code> weight ")
            .number(warning.weight)
            .raw(" <a href=\"#l-")
            .text(&warning.lesson_id)
            .raw("\">")
            .text(&warning.lesson)
            .raw("</a> (trigger <code>")
            .text(&warning.trigger)
            .raw("</code>)</li>");
    }
    page.raw("</ul>");
    left_out(
        page,
        session.warning_count,
        session.warnings.len(),
        "warnings",
    );
}

fn left_out(page: &mut Html, total: usize, shown: usize, what: &str) {
    if total > shown {
        page.raw("<p class=\"note\">the newest ")
            .number(shown)
            .raw(" of ")
            .number(total)
            .raw(" ")
            .raw(what)
            .raw(" are listed</p>");
    }
}

fn timeline(page: &mut Html, session: &SessionReport) {
    if session.timeline.is_empty() {
        return;
    }
    page.raw("<h4>Stops and reviews</h4>");
    if session.timeline_left_out > 0 {
        page.raw("<p class=\"note\">")
            .number(session.timeline_left_out)
            .raw(" earlier entries not shown.</p>");
    }
    page.raw("<ol class=\"timeline\">");
    for entry in &session.timeline {
        match entry {
            Entry::Stop(stop) => write_stop(page, stop),
            Entry::Event { at, event } => write_event(page, *at, event),
        }
    }
    page.raw("</ol>");
}

fn write_stop(page: &mut Html, stop: &Stop) {
    let (class, decision) = match stop.decision {
        Decision::Blocked(kind) => ("bad", block_reason(kind).to_string()),
        Decision::Allowed(kind) => (
            "ok",
            format!("allowed: {}", kind.as_str().replace('_', " ")),
        ),
        Decision::Unknown => ("warn", "no decision logged".to_string()),
    };
    page.raw("<li class=\"stop\"><span class=\"when\">")
        .text(&time_of(stop.at));
    if stop.repeats > 1 {
        page.raw(" → ").text(&time_of(stop.last_at));
    }
    page.raw("</span> stop");
    if stop.repeats > 1 {
        page.raw(" ×").number(stop.repeats);
    }
    page.raw(" <span class=\"tag ")
        .raw(class)
        .raw("\">")
        .text(&decision)
        .raw("</span><ul class=\"stages\">");
    for step in &stop.steps {
        match step {
            Step::Stage {
                stage,
                outcome,
                detail,
            } => {
                page.raw("<li><b>")
                    .raw(stage_name(*stage))
                    .raw("</b>: ")
                    .text(outcome);
                if !detail.is_empty() {
                    page.raw(" — ").text(detail);
                }
                page.raw("</li>");
            }
            Step::Classifier { verdict, reason } => {
                page.raw("<li><b>classifier</b>: ")
                    .text(verdict)
                    .raw(" — ")
                    .text(reason)
                    .raw("</li>");
            }
        }
    }
    page.raw("</ul></li>");
}

fn write_event(page: &mut Html, at: i64, event: &Event) {
    page.raw("<li><span class=\"when\">")
        .text(&time_of(at))
        .raw("</span> ");
    match event {
        Event::ReviewRequested {
            review,
            backend,
            files,
            ..
        } => {
            page.raw("review <b>")
                .text(review)
                .raw("</b> requested from ")
                .text(backend)
                .raw(" (")
                .number(files.len())
                .raw(" files)");
        }
        Event::ReviewCompleted {
            review,
            findings,
            known_limits,
            notes,
            ..
        } => {
            review_completed(page, review, findings);
            for limit in known_limits {
                page.raw("<div class=\"said\">known limit ")
                    .text(&limit.finding)
                    .raw(": ")
                    .text(&limit.reason)
                    .raw("</div>");
            }
            for note in notes {
                page.raw("<div class=\"said\">").text(note).raw("</div>");
            }
        }
        Event::ReviewFailed { review, error } => {
            page.raw("review <b>")
                .text(review)
                .raw("</b> <span class=\"tag warn\">failed</span> ")
                .text(error);
        }
        Event::FindingDeferred {
            finding,
            file,
            title,
            reason,
            ..
        } => {
            page.raw("known limit ")
                .text(finding)
                .raw(" <code>")
                .text(file)
                .raw("</code> ")
                .text(title)
                .raw("<div class=\"said\">agent: ")
                .text(reason)
                .raw("</div>");
        }
        Event::FindingChallenged {
            finding,
            file,
            title,
            severity,
            reason,
            ..
        } => {
            page.raw("<span class=\"tag warn\">challenge</span> ")
                .text(&severity.to_string())
                .raw(" ")
                .text(finding)
                .raw(" <code>")
                .text(file)
                .raw("</code> ")
                .text(title);
            page.raw("<div class=\"said\">agent: ")
                .text(reason)
                .raw("</div>");
        }
        event @ Event::FindingEscalated { .. } => {
            let Some(escalation) = Escalation::of(event) else {
                return;
            };
            // The gate's own words for why (they quote the agent's challenge).
            page.raw("<span class=\"tag esc\">escalated to a person</span> ")
                .text(&escalation.finding.summary())
                .raw(" (")
                .text(&escalation.why())
                .raw(", review ")
                .text(&escalation.review)
                .raw(")");
            if !escalation.finding.wrong_output.is_empty() {
                page.raw("<div class=\"said\">reviewer: ")
                    .text(&escalation.finding.wrong_output)
                    .raw("</div>");
            }
            for said in &escalation.tried {
                page.raw("<div class=\"said\">agent tried: ")
                    .text(said)
                    .raw("</div>");
            }
        }
        Event::ReviewCancelled { review } => {
            page.raw("review ")
                .text(review.as_deref().unwrap_or(""))
                .raw(" cancelled (<code>car review cancel</code>)");
        }
        Event::NotBlocked { finding, why, .. } => {
            page.raw("told, not blocking: <code>")
                .text(&finding.render())
                .raw("</code> (")
                .text(why)
                .raw(")");
        }
        Event::SessionEnded { reason, unreviewed } => {
            page.raw("session ended ").text(reason);
            if !unreviewed.is_empty() {
                page.raw(" <span class=\"tag warn\">")
                    .number(unreviewed.len())
                    .raw(" files unreviewed</span>");
            }
        }
        _ => {}
    }
    page.raw("</li>");
}

fn review_completed(page: &mut Html, review: &str, findings: &[Finding]) {
    page.raw("review <b>").text(review).raw("</b> came back: ");
    if findings.is_empty() {
        page.raw("<span class=\"tag ok\">clean</span>");
        return;
    }
    for severity in [Severity::P1, Severity::P2, Severity::P3] {
        let count = findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count();
        if count > 0 {
            page.raw("<span class=\"sev ")
                .raw(&severity.to_string())
                .raw("\">")
                .number(count)
                .raw(" ")
                .raw(&severity.to_string())
                .raw("</span> ");
        }
    }
    page.raw("<ul class=\"findings\">");
    for finding in findings {
        page.raw("<li><span class=\"sev ")
            .raw(&finding.severity.to_string())
            .raw("\">")
            .raw(&finding.severity.to_string())
            .raw("</span> ");
        page.text(&finding.id)
            .raw(" <code>")
            .text(&finding.location())
            .raw("</code> <span class=\"title\">")
            .text(&finding.title)
            .raw("</span>");
        if finding.downgraded {
            page.raw(
                " <span class=\"tag\">recorded as P3: the wrong output is not concrete</span>",
            );
        }
        if !finding.wrong_output.is_empty() {
            page.raw("<div class=\"said\">wrong output: ")
                .text(&finding.wrong_output)
                .raw("</div>");
        }
        if !finding.suggestion.is_empty() {
            page.raw("<div class=\"said\">suggestion: ")
                .text(&finding.suggestion)
                .raw("</div>");
        }
        page.raw("</li>");
    }
    page.raw("</ul>");
}

fn offers(page: &mut Html, session: &SessionReport) {
    if session.offers.is_empty() {
        return;
    }
    page.raw("<h4>P3 offers still open (")
        .number(session.offers.len())
        .raw(")</h4><ul class=\"tight\">");
    for offer in &session.offers {
        page.raw("<li><code>")
            .text(&offer.location)
            .raw("</code> ")
            .text(&offer.text);
        if let Some(why) = &offer.why_not_blocking {
            page.raw(" <span class=\"id\">(").text(why).raw(")</span>");
        }
        page.raw("</li>");
    }
    page.raw("</ul>");
}
