//! The session as it is now: car's truth at stop time. The logged snapshot is brought up to date
//! with the disk — changes made outside the edit tools are reconciled (a reverted file drops out,
//! a deleted one is reviewed as a deletion), and files whose validator errors another tool may
//! have fixed (`sed`, a formatter, `git checkout`) are validated again from disk. The stop gate
//! records the events this makes, then runs its convergence guards; `car review status` and
//! `car review submit` fold the same into their own copy without writing
//! ([`crate::gate::session_view`]), so the three never disagree.
//!
//! Invariants: a file is validated again only when its version differs from the one its errors
//! were found in (most stops re-check nothing); the validators are the pipeline's, handed in as a
//! [`Revalidate`] (this layer sets up no validator); a file that cannot be checked keeps its
//! errors; a notebook keeps its cell errors (its cells are checked one by one by the edit hook).

use crate::session::Session;
use crate::session::baseline::Baselines;
use crate::session::event::{Event, Versions};
use crate::session::reconcile;
use crate::session::snapshot::Snapshot;
use crate::validate::Diagnostic;

/// Validates one file as it is on disk now.
pub(crate) trait Revalidate {
    /// The errors of `file` (project-relative) on disk now; `before` is its content before the
    /// session (what it added since is what import checks look at). `None`: it cannot be checked.
    fn errors_now(&self, file: &str, before: Option<&str>) -> Option<Vec<Diagnostic>>;
}

/// Brings `snapshot` up to date with the disk and returns the events that did it (already folded
/// in). `dirty` is `git status` taken for this call (`None`: not git, or git failed).
pub(crate) fn refresh(
    session: Session<'_>,
    snapshot: &mut Snapshot,
    dirty: Option<Versions>,
    validate: &dyn Revalidate,
) -> Vec<Event> {
    let now = session.clock.now();
    let ignored = crate::session::ignored::ignored_files(
        session.project,
        &snapshot.files,
        dirty.as_ref(),
        crate::session::ignored::baseline_time(snapshot.worktree_baseline_at_ms),
    );
    snapshot.ignored = ignored.hidden;
    snapshot.unhidden = ignored.unhidden;
    let mut events = reconcile::reconcile(session.project, session.settings, snapshot, dirty);
    for event in &events {
        snapshot.apply_event(now, event.clone());
    }
    for event in revalidate(session, snapshot, validate) {
        snapshot.apply_event(now, event.clone());
        events.push(event);
    }
    events
}

/// `validated` events for the files whose errors were found in another version than the one on
/// disk now.
fn revalidate(session: Session<'_>, snapshot: &Snapshot, validate: &dyn Revalidate) -> Vec<Event> {
    let stale: Vec<&String> = snapshot
        .validated
        .iter()
        .filter(|(file, errors)| !errors.is_empty() && !file.ends_with(".ipynb"))
        .map(|(file, _)| file)
        .filter(|file| match snapshot.files.get(*file) {
            Some(Some(_)) => snapshot.files.get(*file) != snapshot.validated_versions.get(*file),
            _ => false,
        })
        .collect();
    if stale.is_empty() {
        return Vec::new();
    }
    let baselines = Baselines::for_session(session.project, &snapshot.session);
    stale
        .into_iter()
        .filter_map(|file| {
            let before = baselines.load(file).flatten();
            let errors = validate.errors_now(file, before.as_deref())?;
            Some(Event::Validated {
                file: file.clone(),
                errors,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::session::event::{EventRecord, content_hash};
    use crate::settings::Settings;
    use crate::validate::Severity;

    /// Reports one error while the file holds "bad".
    struct Fake;

    impl Revalidate for Fake {
        fn errors_now(&self, file: &str, _before: Option<&str>) -> Option<Vec<Diagnostic>> {
            let text = std::fs::read_to_string(file).ok()?;
            Some(if text.contains("bad") {
                vec![error(file)]
            } else {
                Vec::new()
            })
        }
    }

    fn error(file: &str) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            line: 1,
            column: 1,
            severity: Severity::Error,
            validator: "json".into(),
            origin: crate::validate::Origin::JsonParser,
            message: "bad".into(),
            snippet: None,
            subject: None,
        }
    }

    #[test]
    fn errors_of_a_file_changed_by_another_tool_are_checked_again() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let path = dir.path().join("a.json");
        std::fs::write(&path, "bad").unwrap();
        let file = path.to_string_lossy().into_owned();
        let record = |event| EventRecord {
            ts: 1,
            session: "s".into(),
            event,
        };
        let mut snapshot = Snapshot::from_records(
            "s",
            vec![
                record(Event::EditTracked {
                    file: file.clone(),
                    tool: "Write".into(),
                    hash: content_hash(b"bad"),
                    reviewed: false,
                }),
                record(Event::Validated {
                    file: file.clone(),
                    errors: vec![error(&file)],
                }),
            ],
            0,
        );
        let session = Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(2),
            id: "s",
        };
        assert!(
            refresh(session, &mut snapshot, None, &Fake).is_empty(),
            "an unchanged file is not checked again"
        );
        std::fs::write(&path, "{}").unwrap();
        let events = refresh(session, &mut snapshot, None, &Fake);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(events[0], Event::Reconciled { .. }));
        assert!(snapshot.unresolved_errors().is_empty());
    }
}
