//! One stop of a session at a time. Parallel Stop hooks of one session (an agent retrying, a
//! client firing twice) must not each produce a review: they would all be numbered R1, overwrite
//! each other's prompt and answer, and count as that many blocked stops toward the breaker.
//!
//! How: the gate runs holding `clients/<session>/stop.lock`. A stop that finds the lock taken
//! waits for it and then gives the answer the stop that held it gave — it does not run the gate
//! again. The holder marks `stop-answer.json` "running" as soon as it holds the lock and replaces
//! that with its answer before it lets go, so a waiter can tell a finished stop (take its answer)
//! from one that was killed midway (run the gate itself).
//!
//! Invariant: at most one gate run per session at any time; a stop never waits longer than
//! `wait`, and then lets the agent stop with a message (fail open).

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::answer::Answer;
use crate::files::{FileError, FileLock};

/// The last stop's outcome, as the lock holder leaves it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Record {
    /// A stop holds the lock and is running the gate.
    Running,
    /// That stop answered this.
    Done { answer: Answer },
}

/// Runs `gate` for the session in `session_folder` unless another stop of it is running; then
/// waits (at most `wait`) and answers what that stop answered.
pub(crate) fn one_at_a_time(
    session_folder: &Path,
    wait: Duration,
    gate: impl FnOnce() -> Answer,
) -> Answer {
    let lock_target = session_folder.join("stop");
    let record = session_folder.join("stop-answer.json");
    match FileLock::acquire(&lock_target, Duration::ZERO) {
        Ok(lock) => run_holding(&record, lock, gate),
        Err(FileError::LockTimeout { .. }) => match FileLock::acquire(&lock_target, wait) {
            Ok(lock) => match read(&record) {
                Some(Record::Done { answer }) => answer,
                _ => run_holding(&record, lock, gate),
            },
            Err(FileError::LockTimeout { waited_ms, .. }) => Answer::fail_open(format!(
                "another stop of this session has been reviewing for {} s; stop allowed (its \
                 findings are kept for the next stop)",
                waited_ms / 1000
            )),
            Err(error) => {
                Answer::fail_open(format!("the review gate failed ({error}); stop allowed"))
            }
        },
        Err(error) => Answer::fail_open(format!("the review gate failed ({error}); stop allowed")),
    }
}

fn run_holding(record: &Path, lock: FileLock, gate: impl FnOnce() -> Answer) -> Answer {
    write(record, &Record::Running);
    let answer = gate();
    write(
        record,
        &Record::Done {
            answer: answer.clone(),
        },
    );
    drop(lock);
    answer
}

fn read(path: &Path) -> Option<Record> {
    let text = crate::files::read_optional(path).ok()??;
    serde_json::from_str(&text).ok()
}

/// Best effort, unsynced (it only speaks to stops running now): without the record a waiter runs
/// the gate itself — correct, only slower.
fn write(path: &Path, record: &Record) {
    if let Ok(text) = serde_json::to_string(record) {
        let _ = crate::files::write_atomic_unsynced(path, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};

    #[test]
    fn parallel_stops_share_one_gate_run() {
        let dir = tempfile::tempdir().unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(6));
        let answers: Vec<Answer> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    let (runs, barrier, folder) = (runs.clone(), barrier.clone(), dir.path());
                    scope.spawn(move || {
                        barrier.wait();
                        one_at_a_time(folder, Duration::from_secs(10), || {
                            let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                            std::thread::sleep(Duration::from_millis(300));
                            Answer::block(format!("review R{run}"))
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap())
                .collect()
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(
            answers
                .iter()
                .all(|answer| *answer == Answer::block("review R1"))
        );
        // A later stop runs the gate again.
        let later = one_at_a_time(dir.path(), Duration::from_secs(1), Answer::allow);
        assert_eq!(later, Answer::allow());
    }

    #[test]
    fn a_stop_killed_midway_does_not_hand_on_a_stale_answer() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("stop-answer.json"), &Record::Running);
        let answer = one_at_a_time(dir.path(), Duration::from_secs(1), || {
            Answer::block("fresh")
        });
        assert_eq!(answer, Answer::block("fresh"));
    }
}
