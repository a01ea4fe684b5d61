//! Round state: what a deep review loop remembers between rounds, one file per context in car's
//! state folder (`deep-review/<context>/state.json`, beside each round's prompt and answer).
//!
//! It holds the deep review's three sets — `attempted_fixes` (findings the author fixed),
//! `challenged_ids` (findings the author holds to be false positives, with the reason) and
//! `prev_blocking_ids` (the previous round's blocking findings) — plus the round number and the
//! findings of every round. All identities are stable keys (file + normalised title).
//!
//! Invariants: the state is changed only under the sidecar lock and written atomically; a round is
//! judged against the state loaded before it and recorded only after the guards decided (see
//! `guards`); a PASS or ESCALATE closes the loop, and the next run starts a new one at round 1; a
//! corrupt state file is reported with its line and column and never overwritten silently.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::files::{FileError, FileLock};
use crate::project::{Project, folder_name_of};
use crate::review::convergence;
use crate::review::deep::verdict::{Guard, ReportedFinding, Status};
use crate::state::names::{self, DEEP_REVIEW_DIR, DEEP_REVIEW_STATE};

/// How long a command waits for a round that holds the lock.
const LOCK_WAIT: Duration = Duration::from_millis(1_500);

#[derive(Debug, thiserror::Error)]
pub(crate) enum StateError {
    #[error("{path}:{line}:{column}: the deep review state is not valid JSON ({message})")]
    Corrupt {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "a deep review round of {context} is running (its state is locked); try again when it ends"
    )]
    Busy { context: String },
    #[error(transparent)]
    File(#[from] FileError),
    #[error("the deep review of {context} is not open: {detail}")]
    NotOpen { context: String, detail: String },
    #[error(
        "no finding {id:?} in round {round} of the deep review of {context} (its findings: {known})"
    )]
    UnknownFinding {
        id: String,
        round: u32,
        context: String,
        known: String,
    },
    #[error("no deep review has run in this project yet")]
    NoneYet,
    #[error("no deep review state for context {context:?} (known: {known})")]
    UnknownContext { context: String, known: String },
}

/// `--paths` as a loop remembers them: the order and repeats of the flags do not matter.
pub(crate) fn loop_paths(paths: &[String]) -> Vec<String> {
    let mut sorted = paths.to_vec();
    sorted.sort();
    sorted.dedup();
    sorted
}

/// A finding the author marked fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mark {
    pub(crate) key: String,
    pub(crate) id: String,
    pub(crate) title: String,
    /// The round whose finding it was.
    pub(crate) round: u32,
}

/// A finding the author holds to be a false positive, with both sides' words, as the round state
/// keeps it (the guards read it as a [`convergence::Challenge`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ChallengeMark {
    pub(crate) key: String,
    pub(crate) id: String,
    pub(crate) title: String,
    /// The wrong output the reviewer named.
    pub(crate) reviewer: String,
    /// Why the author holds it to be wrong (goes into the next prompt).
    pub(crate) reason: String,
    pub(crate) round: u32,
}

impl ChallengeMark {
    /// The challenge as the convergence guards read it: a round that reports the finding again
    /// answers it.
    pub(crate) fn challenge(&self, reported_again: bool) -> convergence::Challenge<'_> {
        convergence::Challenge {
            reason: &self.reason,
            answer: Some(reported_again),
        }
    }
}

/// One completed round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RoundRecord {
    pub(crate) round: u32,
    /// When it was recorded (Unix seconds, car's clock).
    pub(crate) at: i64,
    /// The commit the diff was taken against.
    pub(crate) base: String,
    pub(crate) diff_hash: String,
    pub(crate) status: Status,
    pub(crate) guard: Option<Guard>,
    pub(crate) findings: Vec<ReportedFinding>,
}

impl RoundRecord {
    pub(crate) fn blocking_count(&self) -> usize {
        self.findings.iter().filter(|found| found.blocking).count()
    }
}

/// The loop's memory for one context.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct RoundState {
    pub(crate) context: String,
    /// Rounds completed in the current loop.
    pub(crate) round: u32,
    /// PASS or ESCALATE once the loop has ended.
    pub(crate) closed: Option<Status>,
    pub(crate) attempted_fixes: Vec<Mark>,
    pub(crate) challenged_ids: Vec<ChallengeMark>,
    /// Stable keys of the previous round's blocking findings.
    pub(crate) prev_blocking_ids: Vec<String>,
    /// The `--paths` the loop's rounds were limited to (sorted; empty: everything). With the
    /// rounds' base, what a later empty diff must match to mean "the change is gone".
    pub(crate) paths: Vec<String>,
    pub(crate) rounds: Vec<RoundRecord>,
    pub(crate) updated_at: i64,
}

impl RoundState {
    pub(crate) fn is_open(&self) -> bool {
        self.closed.is_none()
    }

    /// Starts a new loop when the last one ended (PASS or ESCALATE).
    pub(crate) fn open_loop(&mut self) {
        if !self.is_open() {
            *self = RoundState {
                context: std::mem::take(&mut self.context),
                ..RoundState::default()
            };
        }
    }

    /// Records a judged round; PASS and ESCALATE close the loop.
    pub(crate) fn record(&mut self, record: RoundRecord) {
        self.round = record.round;
        self.updated_at = record.at;
        self.prev_blocking_ids = record
            .findings
            .iter()
            .filter(|found| found.blocking)
            .map(|found| found.key.clone())
            .collect();
        if matches!(record.status, Status::Pass | Status::Escalate) {
            self.closed = Some(record.status);
        }
        self.rounds.push(record);
    }

    /// Whether an empty diff `against` this base, limited to these `paths`, looks at what the
    /// open loop's last round reviewed: only then does "no change" mean its change is gone.
    pub(crate) fn is_same_scope(&self, base: &str, paths: &[String]) -> bool {
        self.last_round().is_some_and(|last| last.base == base) && self.paths == loop_paths(paths)
    }

    /// Ends the loop without a round (the change it reviewed is gone).
    pub(crate) fn close(&mut self, status: Status, at: i64) {
        self.closed = Some(status);
        self.updated_at = at;
    }

    pub(crate) fn last_round(&self) -> Option<&RoundRecord> {
        self.rounds.last()
    }

    /// The last round's finding with this id (or stable key); the loop must be open.
    pub(crate) fn finding(&self, id: &str) -> Result<(u32, ReportedFinding), StateError> {
        let last = match (self.closed, self.last_round()) {
            (None, Some(last)) => last,
            (Some(status), Some(last)) => {
                return Err(self.not_open(format!(
                    "it ended with {} in round {}; `car deep-review run {}` starts a new loop",
                    status.as_str(),
                    last.round,
                    self.context
                )));
            }
            (_, None) => return Err(self.not_open("no round has run yet".into())),
        };
        last.findings
            .iter()
            .find(|found| found.finding.id == id || found.key == id)
            .map(|found| (last.round, found.clone()))
            .ok_or_else(|| StateError::UnknownFinding {
                id: id.to_string(),
                round: last.round,
                context: self.context.clone(),
                known: known_ids(last),
            })
    }

    /// Marks findings of the last round as fixed (replacing an earlier challenge of the same one).
    pub(crate) fn mark_fixed(&mut self, ids: &[String]) -> Result<Vec<Mark>, StateError> {
        let found: Vec<(u32, ReportedFinding)> = ids
            .iter()
            .map(|id| self.finding(id))
            .collect::<Result<_, _>>()?;
        let mut marks = Vec::new();
        for (round, reported) in found {
            self.forget(&reported.key);
            let mark = Mark {
                key: reported.key,
                id: reported.finding.id,
                title: reported.finding.title,
                round,
            };
            self.attempted_fixes.push(mark.clone());
            marks.push(mark);
        }
        Ok(marks)
    }

    /// Records that the author holds a finding of the last round to be a false positive.
    pub(crate) fn challenge(
        &mut self,
        id: &str,
        reason: &str,
    ) -> Result<ChallengeMark, StateError> {
        let (round, reported) = self.finding(id)?;
        self.forget(&reported.key);
        let challenge = ChallengeMark {
            key: reported.key,
            id: reported.finding.id,
            title: reported.finding.title,
            reviewer: reported.finding.wrong_output,
            reason: reason.trim().to_string(),
            round,
        };
        self.challenged_ids.push(challenge.clone());
        Ok(challenge)
    }

    /// Drops what the author said earlier about a finding (the latest word counts).
    fn forget(&mut self, key: &str) {
        self.attempted_fixes.retain(|mark| mark.key != key);
        self.challenged_ids.retain(|challenge| challenge.key != key);
    }

    fn not_open(&self, detail: String) -> StateError {
        StateError::NotOpen {
            context: self.context.clone(),
            detail,
        }
    }
}

fn known_ids(round: &RoundRecord) -> String {
    if round.findings.is_empty() {
        return "none".into();
    }
    round
        .findings
        .iter()
        .map(|found| found.finding.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where one context's state and round files live.
#[derive(Debug, Clone)]
pub(crate) struct RoundStore {
    context: String,
    dir: PathBuf,
}

impl RoundStore {
    /// The store of `context`: its folder name is one to one ([`crate::project::folder_name_of`]:
    /// a plain name is its own, any other is sanitised and hashed), so it never leaves
    /// `deep-review/` and `..`, `.` and `...` get three folders, none of them `unknown`'s.
    pub(crate) fn new(project: &Project, context: &str) -> RoundStore {
        RoundStore {
            context: context.to_string(),
            dir: root(project).join(folder_name_of(context)),
        }
    }

    /// Every context with a stored state, most recently updated last.
    pub(crate) fn all(project: &Project) -> Vec<(RoundStore, RoundState)> {
        let Ok(entries) = std::fs::read_dir(root(project)) else {
            return Vec::new();
        };
        let mut stores: Vec<(RoundStore, RoundState)> = entries
            .flatten()
            .filter(|entry| entry.path().join(DEEP_REVIEW_STATE).is_file())
            .filter_map(|entry| {
                let dir = entry.path();
                let state = read_state(&dir.join(DEEP_REVIEW_STATE)).ok()?;
                let context = state.context.clone();
                Some((RoundStore { context, dir }, state))
            })
            .collect();
        stores.sort_by(|a, b| (a.1.updated_at, &a.0.context).cmp(&(b.1.updated_at, &b.0.context)));
        stores
    }

    /// The named context's store, or the most recently updated one.
    pub(crate) fn find(project: &Project, context: Option<&str>) -> Result<RoundStore, StateError> {
        let all = RoundStore::all(project);
        let Some(context) = context else {
            return all
                .into_iter()
                .last()
                .map(|(store, _)| store)
                .ok_or(StateError::NoneYet);
        };
        let store = RoundStore::new(project, context);
        if store.state_file().is_file() {
            return Ok(store);
        }
        let known: Vec<String> = all.into_iter().map(|(store, _)| store.context).collect();
        Err(StateError::UnknownContext {
            context: context.to_string(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        })
    }

    pub(crate) fn context(&self) -> &str {
        &self.context
    }

    pub(crate) fn state_file(&self) -> PathBuf {
        self.dir.join(DEEP_REVIEW_STATE)
    }

    /// `round-<n><suffix>` in the context's folder (prompt, answer, codex's files).
    pub(crate) fn round_file(&self, round: u32, suffix: &str) -> PathBuf {
        let prefix = names::deep_review_round(round);
        self.dir.join(format!("{prefix}{suffix}"))
    }

    /// Locks the state for a read-modify-write (or a whole round).
    pub(crate) fn lock(&self) -> Result<FileLock, StateError> {
        FileLock::acquire(&self.state_file(), LOCK_WAIT).map_err(|error| match error {
            FileError::LockTimeout { .. } => StateError::Busy {
                context: self.context.clone(),
            },
            other => StateError::File(other),
        })
    }

    /// The stored state (a fresh one when there is none yet).
    pub(crate) fn load(&self) -> Result<RoundState, StateError> {
        let path = self.state_file();
        if !path.exists() {
            return Ok(RoundState {
                context: self.context.clone(),
                ..RoundState::default()
            });
        }
        read_state(&path)
    }

    /// Locked read-modify-write: `change` edits the stored state, which is saved when it
    /// succeeds.
    pub(crate) fn update<T>(
        &self,
        change: impl FnOnce(&mut RoundState) -> Result<T, StateError>,
    ) -> Result<T, StateError> {
        let _lock = self.lock()?;
        let mut state = self.load()?;
        let result = change(&mut state)?;
        self.save(&state)?;
        Ok(result)
    }

    pub(crate) fn save(&self, state: &RoundState) -> Result<(), StateError> {
        let mut text = serde_json::to_string_pretty(state).unwrap_or_default();
        text.push('\n');
        crate::files::write_atomic(&self.state_file(), text.as_bytes())?;
        Ok(())
    }

    /// Removes the context's state and round files; whether there was anything.
    pub(crate) fn remove(&self) -> Result<bool, StateError> {
        if !self.dir.exists() {
            return Ok(false);
        }
        std::fs::remove_dir_all(&self.dir).map_err(|source| FileError::io(&self.dir, source))?;
        Ok(true)
    }
}

fn root(project: &Project) -> PathBuf {
    project.state_dir().join(DEEP_REVIEW_DIR)
}

fn read_state(path: &Path) -> Result<RoundState, StateError> {
    let text = crate::files::read_optional(path)?.unwrap_or_default();
    serde_json::from_str(&text).map_err(|error| {
        let located = crate::text::JsonError::locate(&text, &error);
        StateError::Corrupt {
            path: path.to_path_buf(),
            line: located.line,
            column: located.column,
            message: located.message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::finding::{Finding, Severity};

    fn round(number: u32, status: Status, ids: &[&str]) -> RoundRecord {
        let findings = ids
            .iter()
            .map(|id| {
                let finding = Finding {
                    id: id.to_string(),
                    severity: Severity::P1,
                    file: "a.py".into(),
                    line: 3,
                    title: format!("Title {id}"),
                    wrong_output: "f(1) returns 3".into(),
                    suggestion: String::new(),
                    downgraded: false,
                };
                ReportedFinding::new(finding, true)
            })
            .collect();
        RoundRecord {
            round: number,
            at: i64::from(number),
            base: "b".into(),
            diff_hash: "h".into(),
            status,
            guard: None,
            findings,
        }
    }

    #[test]
    fn marks_replace_each_other_and_need_an_open_loop() {
        let mut state = RoundState {
            context: "fx".into(),
            ..RoundState::default()
        };
        assert!(matches!(
            state.mark_fixed(&["F1".into()]),
            Err(StateError::NotOpen { .. })
        ));
        state.record(round(1, Status::Fail, &["F1", "F2"]));
        assert_eq!(state.prev_blocking_ids, ["a.py|title f1", "a.py|title f2"]);
        state.challenge("F1", "rows are sensitivity-only").unwrap();
        state
            .mark_fixed(&["F1".into(), "a.py|title f2".into()])
            .unwrap();
        assert!(state.challenged_ids.is_empty(), "the latest word counts");
        assert_eq!(state.attempted_fixes.len(), 2);
        let unknown = state.mark_fixed(&["F9".into()]).unwrap_err();
        assert!(unknown.to_string().contains("F1, F2"), "{unknown}");
        state.record(round(2, Status::Escalate, &["F1"]));
        assert!(matches!(
            state.challenge("F1", "x"),
            Err(StateError::NotOpen { .. })
        ));
        state.open_loop();
        assert_eq!(state.round, 0);
        assert!(state.attempted_fixes.is_empty() && state.rounds.is_empty());
        assert_eq!(state.context, "fx");
    }

    #[test]
    fn store_round_trips_and_reports_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let store = RoundStore::new(&project, "../fx");
        let mut state = store.load().unwrap();
        state.record(round(1, Status::Fail, &["F1"]));
        store.save(&state).unwrap();
        assert_eq!(store.load().unwrap(), state);
        assert!(store.state_file().starts_with(root(&project)));
        assert_eq!(RoundStore::find(&project, None).unwrap().context(), "../fx");
        std::fs::write(store.state_file(), "{\n  \"round\": x}").unwrap();
        let error = store.load().unwrap_err();
        assert!(error.to_string().contains(":2:"), "{error}");
        assert!(store.remove().unwrap());
        assert!(matches!(
            RoundStore::find(&project, Some("fx")),
            Err(StateError::UnknownContext { .. })
        ));
    }

    #[test]
    fn dot_names_and_unknown_get_a_round_state_each() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let names = ["..", ".", "...", "unknown", "fx"];
        for (index, name) in names.iter().enumerate() {
            let store = RoundStore::new(&project, name);
            let mut state = store.load().unwrap();
            state.record(round(index as u32 + 1, Status::Fail, &["F1"]));
            store.save(&state).unwrap();
            assert!(store.state_file().starts_with(root(&project)), "{name}");
        }
        for (index, name) in names.iter().enumerate() {
            let state = RoundStore::new(&project, name).load().unwrap();
            assert_eq!(state.round, index as u32 + 1, "{name} kept its own state");
        }
        assert_eq!(RoundStore::all(&project).len(), names.len());
    }
}
