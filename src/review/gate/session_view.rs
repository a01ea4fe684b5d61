//! Every session of the project as its gate would see it now, for commands that only look
//! (`car review status`, `car status`): the session brought up to date with the disk
//! ([`change_set::refresh`]), then the gate's convergence guards, folded into a copy of its
//! snapshot.
//!
//! Invariants: nothing is written; one `git status` serves every session; a session's last event
//! time is its log's, never the time of the look.

use crate::clock::Clock;
use crate::project::Project;
use crate::review::gate::guards;
use crate::session::Session;
use crate::session::change_set::{self, Revalidate};
use crate::session::event::Versions;
use crate::session::reconcile;
use crate::session::snapshot::Snapshot;
use crate::settings::Settings;

/// The session now, for commands that only look: [`change_set::refresh`], then the convergence
/// guards, folded into `snapshot` without writing anything.
fn look(
    session: Session<'_>,
    snapshot: &mut Snapshot,
    dirty: Option<Versions>,
    validate: &dyn Revalidate,
) {
    // What the look folds in is not logged: the session's last event stays the log's.
    let last_logged = snapshot.last_ts;
    change_set::refresh(session, snapshot, dirty, validate);
    let now = session.clock.now();
    for event in guards::escalations(snapshot, session.settings) {
        snapshot.apply_event(now, event);
    }
    snapshot.last_ts = last_logged;
}

/// Every session of the project as its gate would see it now, oldest activity first (one
/// `git status` for all of them).
pub(crate) fn sessions_now(
    project: &Project,
    settings: &Settings,
    clock: Clock,
    validate: &dyn Revalidate,
) -> Vec<Snapshot> {
    let sessions = crate::session::log::sessions(project);
    if sessions.is_empty() {
        return sessions;
    }
    let dirty = reconcile::dirty_versions(project, settings);
    sessions
        .into_iter()
        .map(|mut snapshot| {
            let id = snapshot.session.clone();
            let session = Session {
                project,
                settings,
                clock,
                id: &id,
            };
            look(session, &mut snapshot, dirty.clone(), validate);
            snapshot
        })
        .collect()
}
