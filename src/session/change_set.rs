//! The session as it is now: car's truth at stop time. The logged snapshot is brought up to date
//! with the disk — changes made outside the edit tools are reconciled (a reverted file drops out,
//! a deleted one is reviewed as a deletion), and files whose validator errors another tool may
//! have fixed (`sed`, a formatter, `git checkout`) are validated again from disk. The stop gate
//! records the events this makes, then runs its convergence guards; `car review status` and
//! `car review submit` fold the same into their own copy without writing
//! ([`crate::review::gate::session_view`]), so the three never disagree.
//!
//! Invariants: a file is validated at the stop only when its version on disk was never validated
//! (changed outside the edit tools, or its errors were found in another version) or when it holds
//! errors (an import's error depends on other files: the module the agent created after the file
//! that imports it); most stops re-check nothing; the validators are the pipeline's, handed in as a
//! [`Revalidate`] (this layer sets up no validator); a file that cannot be checked keeps its
//! errors; a notebook keeps its cell errors (its cells are checked one by one by the edit hook).

use crate::diagnostic::Diagnostic;
use crate::session::Session;
use crate::session::baseline::Baselines;
use crate::session::event::{Event, Versions};
use crate::session::reconcile;
use crate::session::snapshot::Snapshot;

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

/// Whether `file` is within the read bound (a bigger one is never validated: asking again at
/// every stop would cost a `git show` of its baseline each time).
fn is_readable_size(session: Session<'_>, file: &str) -> bool {
    std::fs::metadata(session.project.checkout().join(file))
        .is_ok_and(|meta| meta.len() <= crate::edit::MAX_FILE_BYTES)
}

/// `validated` events for the files whose version on disk was never validated: changed outside
/// the edit tools (a shell command, a generator: validated here like an edited file, so their
/// errors block the stop the same way), or holding errors found in another version; and for the
/// files with errors, which another file may have resolved since (a module created after the file
/// that imports it).
fn revalidate(session: Session<'_>, snapshot: &Snapshot, validate: &dyn Revalidate) -> Vec<Event> {
    let has_errors = |file: &String| {
        snapshot
            .validated
            .get(file)
            .is_some_and(|errors| !errors.is_empty())
    };
    let stale: Vec<&String> = snapshot
        .files
        .iter()
        .filter(|(file, version)| {
            version.is_some()
                && (snapshot.validated_versions.get(*file) != Some(*version) || has_errors(file))
                && !file.ends_with(".ipynb")
                && !snapshot.ignored.contains(*file)
                && is_readable_size(session, file)
        })
        .map(|(file, _)| file)
        .collect();
    if stale.is_empty() {
        return Vec::new();
    }
    let baselines = Baselines::for_session(session.project, &snapshot.session);
    stale
        .into_iter()
        .filter_map(|file| {
            let before = baselines
                .load(file)
                .unwrap_or_else(|| session.project.head_version(file));
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
    use crate::diagnostic::Severity;
    use crate::project::Project;
    use crate::session::event::{EventRecord, content_hash};
    use crate::settings::Settings;

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
            origin: crate::diagnostic::Origin::JsonParser,
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
        // An unchanged file with errors is checked again (another file may have resolved them:
        // the module it imports, created since); they are still there.
        let again = refresh(session, &mut snapshot, None, &Fake);
        assert!(matches!(again[..], [Event::Validated { .. }]), "{again:?}");
        assert_eq!(snapshot.unresolved_errors().len(), 1);
        std::fs::write(&path, "{}").unwrap();
        let events = refresh(session, &mut snapshot, None, &Fake);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(events[0], Event::Reconciled { .. }));
        assert!(snapshot.unresolved_errors().is_empty());
    }

    #[test]
    fn a_file_changed_outside_the_edit_tools_is_validated_once() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let path = dir.path().join("gen.json");
        std::fs::write(&path, "bad").unwrap();
        let file = path.to_string_lossy().into_owned();
        let mut snapshot = Snapshot::from_records(
            "s",
            vec![EventRecord {
                ts: 1,
                session: "s".into(),
                event: Event::Reconciled {
                    file: file.clone(),
                    hash: Some(content_hash(b"bad")),
                },
            }],
            0,
        );
        let session = Session {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(2),
            id: "s",
        };
        let events = refresh(session, &mut snapshot, None, &Fake);
        assert!(
            matches!(events[..], [Event::Validated { .. }]),
            "{events:?}"
        );
        assert_eq!(snapshot.unresolved_errors().len(), 1, "its errors block");
        // Fixed by another tool: checked once more, then a clean version is never checked again.
        std::fs::write(&path, "{}").unwrap();
        snapshot.apply_event(
            3,
            Event::Reconciled {
                file: file.clone(),
                hash: Some(content_hash(b"{}")),
            },
        );
        let events = refresh(session, &mut snapshot, None, &Fake);
        assert!(
            matches!(events[..], [Event::Validated { .. }]),
            "{events:?}"
        );
        assert!(snapshot.unresolved_errors().is_empty());
        assert!(
            refresh(session, &mut snapshot, None, &Fake).is_empty(),
            "a version validated clean is not checked again"
        );
    }
}
