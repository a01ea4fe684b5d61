//! One stop of a session at a time. Parallel Stop hooks of one session (an agent retrying, a
//! client firing twice) must not each produce a review: they would all be numbered R1, overwrite
//! each other's prompt and answer, and count as that many blocked stops toward the breaker.
//!
//! How: the gate runs holding `clients/<session>/stop.lock` and, before it lets go, leaves its
//! answer in `stop-answer.json` with the time it finished. A stop that finds the lock taken notes
//! when it arrived, waits for the lock, and gives the recorded answer when it was finished after
//! that arrival (the stop that held the lock then was running while this one waited); otherwise
//! (that stop was killed midway) it runs the gate itself.
//!
//! Invariant: at most one gate run per session at any time; a stop never waits longer than
//! `wait`, and then lets the agent stop with a message (fail open).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::answer::Answer;
use crate::files::{FileError, FileLock};
use crate::state::names;

/// The last stop's answer, as the lock holder leaves it.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    /// When the stop finished, in nanoseconds since the Unix epoch (the real clock: this orders
    /// processes running now, not events of the session).
    finished: u128,
    answer: Answer,
}

/// Runs `gate` for the session in `session_folder` unless another stop of it is running; then
/// waits (at most `wait`) and answers what that stop answered.
pub(crate) fn one_at_a_time(
    session_folder: &Path,
    wait: Duration,
    gate: impl FnOnce() -> Answer,
) -> Answer {
    let lock_target = session_folder.join(names::STOP_LOCK);
    let record = session_folder.join(names::STOP_ANSWER);
    let arrived = now();
    match FileLock::acquire(&lock_target, Duration::ZERO) {
        Ok(lock) => run_holding(&record, lock, gate),
        Err(FileError::LockTimeout { .. }) => match FileLock::acquire(&lock_target, wait) {
            Ok(lock) => match read(&record) {
                Some(done) if done.finished >= arrived => done.answer,
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

fn now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
}

fn run_holding(record: &Path, lock: FileLock, gate: impl FnOnce() -> Answer) -> Answer {
    let answer = gate();
    let done = Record {
        finished: now(),
        answer,
    };
    // Best effort, unsynced (it only speaks to stops running now): without the record a waiter
    // runs the gate itself — correct, only slower.
    if let Ok(text) = serde_json::to_string(&done) {
        let _ = crate::files::write_atomic_unsynced(record, text.as_bytes());
    }
    drop(lock);
    done.answer
}

fn read(path: &Path) -> Option<Record> {
    let text = crate::files::read_optional(path).ok()??;
    serde_json::from_str(&text).ok()
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
        let earlier = one_at_a_time(dir.path(), Duration::from_secs(1), || Answer::block("old"));
        assert_eq!(earlier, Answer::block("old"));
        // A stop holds the lock and dies without an answer while this one waits.
        let dying = FileLock::acquire(&dir.path().join("stop"), Duration::ZERO).unwrap();
        let released = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(dying);
        });
        let answer = one_at_a_time(dir.path(), Duration::from_secs(5), || {
            Answer::block("fresh")
        });
        released.join().unwrap();
        assert_eq!(answer, Answer::block("fresh"));
    }
}
