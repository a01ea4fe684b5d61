//! The lesson library section: every lesson of the project (live counters, the hit log applied)
//! and the user-wide lessons the project does not override, each with its scope, triggers, text,
//! weight, hits, heeded / ignored, where it came from with its evidence, and a sparkline of its
//! weight and warning outcomes over time (the sessions' warnings and the pending hit log).
//!
//! Invariants: lessons are read through the library's own readers (`library::load_live`, the hit
//! log, `provenance`); a file car cannot read is an error naming it, never an empty section.

use std::collections::HashMap;

use crate::clock::date_of;
use crate::lessons::LessonsError;
use crate::lessons::counters::hits::HitLog;
use crate::lessons::counters::outcome::{DEMOTE_AFTER, Outcome};
use crate::lessons::library;
use crate::lessons::model::Lesson;
use crate::lessons::provenance::{self, Evidence, Source};
use crate::lessons::store::{self, LessonFile};
use crate::project::Project;
use crate::report::html::Html;
use crate::report::sparkline::{self, Mark, Point};

/// Evidence lines shown per lesson (the first); the count says how many there are.
const EVIDENCE_SHOWN: usize = 3;

/// Where a lesson came from, as the page names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Learned(Source),
    /// One of car's starter lessons.
    Starter,
    /// No `source`: written by hand with `car lessons add`, or imported.
    ByHand,
}

impl Origin {
    fn of(lesson: &Lesson) -> Origin {
        match Source::of(&lesson.extra) {
            Some(source) if source.is_learned() => Origin::Learned(source),
            Some(Source::Starter) => Origin::Starter,
            _ => Origin::ByHand,
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Origin::Learned(Source::Validator) => "validator error",
            Origin::Learned(Source::Review) => "review finding",
            Origin::Learned(Source::Reversal) => "a person's correction",
            Origin::Learned(Source::ReviewHistory) => "a pull request review",
            Origin::Learned(Source::Agent) => "the agent's own proposal",
            Origin::Learned(Source::Added | Source::Imported | Source::Starter) => {
                "by hand or imported"
            }
            Origin::Starter => "starter",
            Origin::ByHand => "by hand or imported",
        }
    }
}

/// The library as the page shows it.
#[derive(Debug)]
pub(crate) struct Library {
    pub(crate) project: LessonFile,
    pub(crate) user: Option<LessonFile>,
    /// Lesson id → its history, oldest first.
    pub(crate) history: HashMap<String, Vec<Point>>,
}

impl Library {
    /// Reads the project's lessons (live) and the user-wide ones; `warned` is each lesson's
    /// warnings from the session logs.
    pub(crate) fn read(
        project: &Project,
        mut warned: HashMap<String, Vec<Point>>,
    ) -> Result<Library, LessonsError> {
        let path = project.lessons_file();
        let file = library::load_live(&path)?;
        let user = match store::user_lessons_path() {
            Some(user_path) if user_path.exists() => Some(LessonFile::load(&user_path)?),
            _ => None,
        };
        for hit in HitLog::of(&path).read()? {
            let mark = match hit.outcome {
                Some(Outcome::Heeded) => Mark::Heeded,
                Some(Outcome::Ignored) => Mark::Ignored,
                None => Mark::Hit,
            };
            warned.entry(hit.id).or_default().push(Point {
                at: hit.at,
                weight: 0,
                mark,
            });
        }
        for points in warned.values_mut() {
            points.sort_by_key(|point| point.at);
            carry_weights(points);
        }
        Ok(Library {
            project: file,
            user,
            history: warned,
        })
    }

    /// The rows: the project's lessons, then the user's it does not override.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (&Lesson, bool)> {
        let user = self
            .user
            .iter()
            .flat_map(LessonFile::lessons)
            .filter(|lesson| self.project.find(&lesson.id).is_none())
            .map(|lesson| (lesson, true));
        self.project
            .lessons()
            .map(|lesson| (lesson, false))
            .chain(user)
    }

    pub(crate) fn count(&self) -> usize {
        self.rows().count()
    }
}

/// An outcome from the hit log carries no weight: it is drawn at the weight the lesson had at
/// its warning before (a heed raising it by one, as the rule does).
fn carry_weights(points: &mut [Point]) {
    let mut weight = points
        .iter()
        .find(|point| point.mark == Mark::Warned)
        .map_or(crate::lessons::model::PROMOTED_WEIGHT, |point| point.weight);
    for point in points {
        match point.mark {
            Mark::Warned => weight = point.weight,
            Mark::Heeded | Mark::Hit => {
                weight = (weight + 1).min(crate::lessons::model::MAX_WEIGHT);
                point.weight = weight;
            }
            Mark::Ignored => point.weight = weight,
        }
    }
}

/// Whether the lesson's warnings were ignored so often, never heeded, that its weight dropped.
pub(crate) fn is_demoted(lesson: &Lesson) -> bool {
    lesson.heeded == 0 && lesson.ignored >= DEMOTE_AFTER
}

/// Writes the section.
pub(crate) fn write(page: &mut Html, library: &Library, now: i64) {
    page.raw("<section id=\"lessons\"><h2>Lesson library</h2>");
    page.raw("<p class=\"note\">Heaviest first. The line shows the weight at each warning; dots are what became of a warning: <span class=\"dot h\"></span> heeded, <span class=\"dot i\"></span> ignored. Type to filter, click a column to sort.</p>");
    for problem in library.project.problems() {
        page.element("p", "warn", &problem);
    }
    let mut rows: Vec<(&Lesson, bool)> = library.rows().collect();
    if rows.is_empty() {
        page.raw("<p>No lessons yet: car learns one from a checker error seen twice, a review finding the agent fixed, or a person's correction; <code>car lessons add</code> writes one by hand.</p></section>");
        return;
    }
    rows.sort_by_key(|(lesson, _)| std::cmp::Reverse((lesson.weight, lesson.hits)));
    page.raw("<input class=\"filter\" type=\"search\" placeholder=\"filter lessons\" data-table=\"lesson-table\">");
    page.raw("<table id=\"lesson-table\" class=\"sortable\"><thead><tr><th>weight</th><th>lesson</th><th>scope</th><th>triggers</th><th>hits</th><th>heeded</th><th>ignored</th><th>last hit</th><th>from</th><th>history</th></tr></thead><tbody>");
    for (lesson, is_user) in rows {
        row(page, library, lesson, is_user, now);
    }
    page.raw("</tbody></table></section>");
}

/// One row. Its cells' and its own end tags are left out, as HTML allows: at 10,000 lessons
/// they would be a tenth of the page.
fn row(page: &mut Html, library: &Library, lesson: &Lesson, is_user: bool, now: i64) {
    page.raw("<tr id=\"l-")
        .text(&lesson.id)
        .raw("\"><td>")
        .number(lesson.weight);
    page.raw("<td>").text(&lesson.text);
    if is_demoted(lesson) {
        page.raw(" <span class=\"tag bad\">demoted</span>");
    }
    if is_user {
        page.raw(" <span class=\"tag\">user-wide</span>");
    }
    page.raw("<small>")
        .text(&lesson.id)
        .raw("</small><td><code>");
    page.text(lesson.scope.as_str()).raw("</code><td>");
    for trigger in &lesson.triggers {
        page.element("code", "", trigger.as_str());
    }
    page.raw("<td>").number(lesson.hits);
    page.raw("<td>").number(lesson.heeded);
    page.raw("<td>").number(lesson.ignored);
    page.raw("<td>");
    match lesson.last_hit {
        Some(at) => page.text(&date_of(at)),
        None => page.raw("never"),
    };
    page.raw("<td>");
    origin(page, lesson);
    page.raw("<td>");
    let mut points = library.history.get(&lesson.id).cloned().unwrap_or_default();
    if !points.is_empty() {
        points.push(Point {
            at: now.max(points[points.len() - 1].at),
            weight: lesson.weight,
            mark: Mark::Warned,
        });
    }
    sparkline::write(page, &points);
}

fn origin(page: &mut Html, lesson: &Lesson) {
    let origin = Origin::of(lesson);
    page.text(origin.label());
    if let Some(created) = &lesson.created {
        page.raw(" <small>").text(created).raw("</small>");
    }
    if let Some(from) = provenance::describe(&lesson.extra) {
        page.raw("<div class=\"from\">").text(&from).raw("</div>");
    }
    let Origin::Learned(source) = origin else {
        return;
    };
    let evidence = Evidence::all_of(&lesson.extra);
    if evidence.is_empty() {
        return;
    }
    page.raw("<details><summary>evidence (")
        .number(evidence.len())
        .raw(")</summary>");
    for item in evidence.iter().take(EVIDENCE_SHOWN) {
        page.raw("<div class=\"ev\">").text(&item.describe(source));
        page.raw("<pre class=\"bad\">")
            .text(&item.bad)
            .raw("</pre>");
        if !item.fixed.is_empty() {
            page.raw("<pre class=\"good\">")
                .text(&item.fixed)
                .raw("</pre>");
        }
        page.raw("</div>");
    }
    page.raw("</details>");
}
