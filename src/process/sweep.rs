//! The reviewer guard's sweep: everything a reviewer started dies with it, also what left its
//! process group (`setsid`, a daemon's double fork), which the group kill cannot reach.
//!
//! How: the guard makes itself a *child subreaper* ([`become_subreaper`], Linux's
//! `PR_SET_CHILD_SUBREAPER`) before it starts the reviewer, so every descendant whose parent dies
//! is re-parented to the guard instead of to init, and stays findable as its descendant. At the
//! end ([`kill_descendants`]) the guard kills every process whose parent chain leads to it, reaps
//! them, and repeats until none is left (a killed parent's children come to the guard and are
//! found in the next round).
//!
//! Invariants: only the guard's own descendants are ever signalled (found through `/proc`, never
//! by name); the sweep is bounded ([`MAX_ROUNDS`]); on a platform without subreapers (macOS) it
//! does nothing and the process-group kill is all there is (docs/security.md says so).

#[cfg(target_os = "linux")]
use std::collections::HashMap;
#[cfg(target_os = "linux")]
use std::time::Duration;

/// Rounds of kill-and-reap before the sweep gives up on a process that keeps forking.
#[cfg(target_os = "linux")]
const MAX_ROUNDS: usize = 50;

/// Makes this process the subreaper of its descendants (best effort: `false` when it cannot).
pub(crate) fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with an integer option; no memory is passed.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Kills every descendant of this process and reaps them, round by round, until none is left.
pub(crate) fn kill_descendants() {
    #[cfg(target_os = "linux")]
    for _ in 0..MAX_ROUNDS {
        let descendants = descendants_of(std::process::id());
        if descendants.is_empty() {
            break;
        }
        for pid in descendants {
            // SAFETY: kill(2) on a process found as a descendant of this one; no memory involved.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        reap_children();
        std::thread::sleep(Duration::from_millis(5));
    }
    #[cfg(target_os = "linux")]
    reap_children();
}

/// Collects every child that has ended (killed ones, and orphans that came to the subreaper).
#[cfg(target_os = "linux")]
fn reap_children() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) for any child, not blocking; `status` is a valid out-parameter.
        let reaped = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if reaped <= 0 {
            break;
        }
    }
}

/// Every live process whose parent chain leads to `root` (a zombie has nothing left to kill).
#[cfg(target_os = "linux")]
fn descendants_of(root: u32) -> Vec<libc::pid_t> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        if let Some((state, parent)) = state_and_parent(pid)
            && state != 'Z'
        {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &child in children.get(&parent).map(Vec::as_slice).unwrap_or_default() {
            if let Ok(pid) = libc::pid_t::try_from(child) {
                found.push(pid);
            }
            frontier.push(child);
        }
    }
    found
}

/// A process's state letter and parent from `/proc/<pid>/stat` (`pid (name) S ppid …`; the name
/// may hold spaces and parentheses, so the fields are read after its last `)`).
#[cfg(target_os = "linux")]
fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_read_from_its_stat_line_whatever_its_name() {
        let own = std::process::id();
        let (state, parent) = state_and_parent(own).unwrap();
        assert!(matches!(state, 'R' | 'S'), "{state}");
        assert_eq!(parent, std::os::unix::process::parent_id());
        assert!(state_and_parent(u32::MAX).is_none());
    }
}
