//! What car let go of, or has not taken up yet: lessons retired because their warnings were only
//! ever ignored (with why), lessons demoted on the way there, what each maintenance run decayed,
//! removed, merged and let expire, the candidates still waiting for a second sighting (with
//! the day they expire), and what car refused to learn, with why (`learning::refusal::log`).
//!
//! Invariants: read with the library's own readers (`retired`, `maintenance_log`, the candidate
//! pool, the refusal log); nothing here is inferred beyond the stored fields and the rules' own
//! constants.

use crate::clock::date_of;
use crate::learning::refusal::log::{self as refusal_log, Entry};
use crate::lessons::LessonsError;
use crate::lessons::counters::retired;
use crate::lessons::maintain::{CANDIDATE_EXPIRY, LoggedRun, logged_runs};
use crate::lessons::model::{Candidate, Lesson};
use crate::lessons::store::{CandidateFile, LessonFile};
use crate::project::Project;
use crate::report::html::Html;
use crate::report::lessons::{Library, is_demoted};

/// Maintenance runs listed (the newest).
const RUNS_SHOWN: usize = 100;
/// Candidates listed (the most recently seen).
const CANDIDATES_SHOWN: usize = 500;
/// Refusals listed (the most recently seen).
const REFUSALS_SHOWN: usize = 200;

/// The section's facts.
#[derive(Debug)]
pub(crate) struct LetGo {
    pub(crate) retired: LessonFile,
    pub(crate) runs: Vec<LoggedRun>,
    pub(crate) candidates: CandidateFile,
    /// What car refused to learn, most recently seen first.
    pub(crate) refused: Vec<Entry>,
}

impl LetGo {
    pub(crate) fn read(project: &Project) -> Result<LetGo, LessonsError> {
        Ok(LetGo {
            retired: retired::load(&project.lessons_file())?,
            runs: logged_runs(project)?,
            candidates: CandidateFile::load(&project.candidates_file())?,
            refused: refusal_log::load(project),
        })
    }
}

/// Writes the section.
pub(crate) fn write(page: &mut Html, let_go: &LetGo, library: &Library) {
    page.raw("<section id=\"let-go\"><h2>What car let go of</h2>");
    retired_lessons(page, let_go);
    demoted(page, library);
    runs(page, &let_go.runs);
    candidates(page, &let_go.candidates);
    refusals(page, &let_go.refused);
    page.raw("</section>");
}

fn retired_lessons(page: &mut Html, let_go: &LetGo) {
    let lessons: Vec<&Lesson> = let_go.retired.lessons().collect();
    page.raw("<h3>Retired lessons (")
        .number(lessons.len())
        .raw(")</h3>");
    if lessons.is_empty() {
        page.raw("<p class=\"note\">None: no lesson was ignored often enough, never heeded, to be retired.</p>");
        return;
    }
    page.raw("<table><thead><tr><th>lesson</th><th>triggers</th><th>retired</th><th>why</th></tr></thead><tbody>");
    for lesson in lessons {
        page.raw("<tr><td>").text(&lesson.text);
        page.raw("<div class=\"id\">")
            .text(&lesson.id)
            .raw(" · <code>car lessons restore ")
            .text(&lesson.id)
            .raw("</code></div></td><td>");
        for trigger in &lesson.triggers {
            page.element("code", "t", trigger.as_str());
        }
        page.raw("</td><td>");
        if let Some(at) = retired::retired_at(lesson) {
            page.text(&date_of(at));
        }
        page.raw("</td><td>")
            .text(retired::because(lesson).unwrap_or("retired"))
            .raw("</td></tr>");
    }
    page.raw("</tbody></table>");
}

fn demoted(page: &mut Html, library: &Library) {
    let demoted: Vec<&Lesson> = library
        .rows()
        .map(|(lesson, _)| lesson)
        .filter(|lesson| is_demoted(lesson))
        .collect();
    if demoted.is_empty() {
        return;
    }
    page.raw("<h3>Demoted lessons (").number(demoted.len()).raw(")</h3><p class=\"note\">Warned, never heeded, and each warned line passed a review: their warnings now go to the person's offer list, and more ignores retire them.</p><ul>");
    for lesson in demoted {
        page.raw("<li><a href=\"#l-")
            .text(&lesson.id)
            .raw("\">")
            .text(&lesson.id)
            .raw("</a> ")
            .text(&lesson.text);
        page.raw(" — ignored ")
            .number(lesson.ignored)
            .raw(" times</li>");
    }
    page.raw("</ul>");
}

fn runs(page: &mut Html, runs: &[LoggedRun]) {
    page.raw("<h3>Maintenance</h3>");
    if runs.is_empty() {
        page.raw("<p class=\"note\">No maintenance run has decayed, removed, merged or expired anything yet (it runs once a day at a session's end, and with <code>car lessons maintain</code>).</p>");
        return;
    }
    page.raw("<table><thead><tr><th>when</th><th>what changed</th></tr></thead><tbody>");
    for run in runs.iter().rev().take(RUNS_SHOWN) {
        let report = &run.report;
        page.raw("<tr><td>")
            .text(&date_of(run.at))
            .raw("</td><td><ul class=\"tight\">");
        for decayed in &report.decayed {
            page.raw("<li>decayed (90 days without a hit) <a href=\"#l-")
                .text(&decayed.id)
                .raw("\">")
                .text(&decayed.id)
                .raw("</a>: weight ")
                .number(decayed.from)
                .raw(" → ")
                .number(decayed.to)
                .raw("</li>");
        }
        for removed in &report.removed {
            page.raw("<li>removed (weight 0) ")
                .text(&removed.id)
                .raw(": ")
                .text(&removed.lesson)
                .raw("</li>");
        }
        for expired in &report.expired {
            page.raw("<li>candidate expired (30 days without a second sighting) <code>")
                .text(&expired.trigger)
                .raw("</code> in <code>")
                .text(&expired.scope)
                .raw("</code></li>");
        }
        for merged in &report.merged {
            page.raw("<li>merged ")
                .text(&merged.absorbed.join(", "))
                .raw(" into <a href=\"#l-")
                .text(&merged.into)
                .raw("\">")
                .text(&merged.into)
                .raw("</a></li>");
        }
        page.raw("</ul></td></tr>");
    }
    page.raw("</tbody></table>");
    if runs.len() > RUNS_SHOWN {
        page.raw("<p class=\"note\">")
            .number(runs.len() - RUNS_SHOWN)
            .raw(" older runs not shown.</p>");
    }
}

fn candidates(page: &mut Html, pool: &CandidateFile) {
    let mut list: Vec<&Candidate> = pool.candidates.iter().collect();
    page.raw("<h3>Candidates waiting for a second sighting (")
        .number(list.len())
        .raw(")</h3>");
    if list.is_empty() {
        return;
    }
    list.sort_by_key(|candidate| std::cmp::Reverse(candidate.last_seen()));
    page.raw("<table><thead><tr><th>trigger</th><th>scope</th><th>lesson</th><th>seen</th><th>expires</th></tr></thead><tbody>");
    for candidate in list.iter().take(CANDIDATES_SHOWN) {
        page.raw("<tr><td><code>")
            .text(&candidate.trigger)
            .raw("</code></td><td><code>")
            .text(&candidate.scope);
        page.raw("</code></td><td>")
            .text(&candidate.lesson)
            .raw("</td><td>");
        match candidate.last_seen() {
            Some(seen) => {
                page.text(&date_of(seen))
                    .raw("</td><td>")
                    .text(&date_of(seen + CANDIDATE_EXPIRY));
            }
            None => {
                page.raw("?</td><td>never");
            }
        }
        page.raw("</td></tr>");
    }
    page.raw("</tbody></table>");
    if list.len() > CANDIDATES_SHOWN {
        page.raw("<p class=\"note\">")
            .number(list.len() - CANDIDATES_SHOWN)
            .raw(" more not shown (<code>car lessons candidates</code>).</p>");
    }
}

fn refusals(page: &mut Html, refused: &[Entry]) {
    page.raw("<h3>What car refused to learn (")
        .number(refused.len())
        .raw(")</h3>");
    if refused.is_empty() {
        page.raw(
            "<p class=\"note\">Nothing: every signal so far taught, or waits as a candidate.</p>",
        );
        return;
    }
    page.raw("<table><thead><tr><th>what</th><th>scope</th><th>why</th><th>source</th><th>times</th><th>last</th></tr></thead><tbody>");
    for entry in refused.iter().take(REFUSALS_SHOWN) {
        page.raw("<tr><td><code>")
            .text(&entry.subject)
            .raw("</code></td><td><code>")
            .text(&entry.scope)
            .raw("</code></td><td>")
            .text(&entry.reason)
            .raw(" <span class=\"note\">(")
            .text(&entry.kind)
            .raw(")</span></td><td>")
            .text(&entry.source)
            .raw("</td><td>")
            .number(entry.count as usize)
            .raw("</td><td>")
            .text(&date_of(entry.last_seen))
            .raw("</td></tr>");
    }
    page.raw("</tbody></table>");
    if refused.len() > REFUSALS_SHOWN {
        page.raw("<p class=\"note\">")
            .number(refused.len() - REFUSALS_SHOWN)
            .raw(" more not shown (<code>car lessons candidates --refused</code>).</p>");
    }
}
