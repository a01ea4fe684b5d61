//! `car report`'s page: one self-contained HTML file that answers what car learned, from what,
//! whether it helps, and why a stop was blocked or allowed — the lesson library with each
//! lesson's history (`lessons`, `sparkline`), what car let go of (`let_go`), the sessions with
//! their stops and review rounds (`sessions` reads, `timeline` writes), the deep reviews
//! (`deep_review`), and the page around them (`page`). `html` is the writer and its one escaping
//! function.
//!
//! Invariants: read-only (nothing in the state folder changes); every file is read with the
//! reader its owner uses; the cost is linear in lessons and events, and long sections are folded
//! with a count of what was left out, so the page stays small.

pub(crate) mod deep_review;
pub(crate) mod html;
pub(crate) mod lessons;
pub(crate) mod let_go;
pub(crate) mod page;
pub(crate) mod sessions;
pub(crate) mod sparkline;
pub(crate) mod timeline;

use crate::clock::Clock;
use crate::lessons::LessonsError;
use crate::project::Project;
use crate::settings::Settings;

use html::Html;
use lessons::Library;
use let_go::LetGo;
use page::Totals;
use sessions::Sessions;

/// The whole page for `project` as of `clock`.
pub(crate) fn render(
    project: &Project,
    settings: &Settings,
    clock: Clock,
) -> Result<String, LessonsError> {
    let now = clock.now();
    let Sessions {
        sessions,
        history,
        warnings_this_week,
        lifecycle_problem,
    } = Sessions::read(project, settings, now);
    let library = Library::read(project, history)?;
    let let_go = LetGo::read(project)?;
    let deep = deep_review::read(project);
    let totals = Totals {
        lessons: library.count(),
        retired: let_go.retired.lessons().count(),
        warnings_this_week,
        blocked_edits: sessions.iter().map(|s| s.block_count).sum(),
        stopped_writes: sessions.iter().map(|s| s.stopped_count).sum(),
        stops_blocked: sessions.iter().map(|s| s.stops_blocked).sum(),
        reviews: sessions.iter().map(|s| s.reviews).sum(),
        escalations: sessions.iter().map(|s| s.escalations).sum::<usize>()
            + deep_review::escalations(&deep),
        sessions: sessions.len(),
    };
    let mut page = Html::with_capacity(64 * 1024 + totals.lessons * 400);
    page::open(
        &mut page,
        &project.root().display().to_string(),
        &clock.rfc3339(),
        &totals,
    );
    lessons::write(&mut page, &library, now);
    let_go::write(&mut page, &let_go, &library);
    timeline::write(&mut page, &sessions, lifecycle_problem.as_deref());
    deep_review::write(&mut page, &deep);
    page::close(&mut page);
    Ok(page.finish())
}
