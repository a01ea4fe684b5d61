//! What a session did: the event log every hook appends to and the snapshot folded from it (with
//! its checkpoint cache), the baselines of the files it changed, the versions the agent wrote,
//! reconciliation with the disk at stop time, the current change set, the files git ignores, the
//! review findings as recorded and how they fared across rounds (the rules that judge them are
//! the review engine's, `review/`). The stop gate, the deep review and learning
//! read a session through this module; they never re-parse hook payloads.

pub(crate) mod agent_note;
pub(crate) mod authored;
pub(crate) mod baseline;
pub(crate) mod change_set;
pub(crate) mod changed_lines;
pub(crate) mod checkpoint;
pub(crate) mod edit_record;
pub(crate) mod end;
pub mod event;
pub(crate) mod finding;
pub(crate) mod ignored;
pub(crate) mod log;
pub(crate) mod own_writes;
pub(crate) mod reconcile;
pub(crate) mod rounds;
pub(crate) mod shared_status;
pub(crate) mod snapshot;
pub(crate) mod start;
pub(crate) mod unreadable;

use crate::clock::Clock;
use crate::project::Project;
use crate::settings::Settings;

/// The session an operation is about: which project, its settings as read for this call, the
/// session's id and the one clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Session<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) clock: Clock,
    pub(crate) id: &'a str,
}

impl Session<'_> {
    /// The session's own state file `name` (one of `state::names`), in its `clients/` folder.
    pub(crate) fn file(&self, name: &str) -> std::path::PathBuf {
        self.project.client_dir(self.id).join(name)
    }
}
