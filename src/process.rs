//! Running external programs (interpreters, linters, reviewer CLIs): always argv, never a shell
//! string; always a timeout; a missing program is its own error so callers can say what to install.
//!
//! Every program runs in its own process group, so a timeout kills it with everything it started
//! (SIGTERM to the group, then SIGKILL after [`TERM_GRACE`]). A long-running program (a reviewer
//! CLI) also runs under car's *guard* ([`guarded_command`]): a small `car reviewer-guard` process
//! in the same group that watches the car process that started it and kills the whole group the
//! moment that process is gone — killed by SIGKILL, SIGTERM or anything else — so no reviewer
//! outlives its hook. The guard is also the subreaper of everything the reviewer starts
//! ([`sweep`]): what left the group (`setsid`, a daemon) is killed too, when the reviewer ends,
//! when its hook is gone, and when the hook's timeout stops it (the SIGTERM reaches the guard
//! first).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use wait_timeout::ChildExt;

mod sweep;

/// How long a timed-out program has after SIGTERM before SIGKILL: the reviewer guard sweeps what
/// the reviewer started in this time; a program that ignores SIGTERM costs this much.
const TERM_GRACE: Duration = Duration::from_millis(500);

#[derive(Debug, thiserror::Error)]
pub(crate) enum ProcessError {
    #[error("`{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("`{program}` could not be started: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// The most of a program's stdout or stderr car keeps (a reviewer's answer is kilobytes).
pub(crate) const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// What a finished (or killed) program left.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProcessOutput {
    /// The exit code; `None` when it was killed or died of a signal.
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) timed_out: bool,
}

impl ProcessOutput {
    pub(crate) fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

/// Runs `program args…`, feeding `stdin`, and kills it (with its process group) at `timeout`
/// (the tests' shorthand; car's callers prepare a [`Command`] for [`run_command`], and git goes
/// through [`crate::git`]).
#[cfg(test)]
pub(crate) fn run_with_timeout(
    program: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<ProcessOutput, ProcessError> {
    let mut command = Command::new(program);
    command.args(args);
    run_command(command, stdin, timeout)
}

/// Runs a prepared command (environment and working folder already set) with a timeout.
pub(crate) fn run_command(
    mut command: Command,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<ProcessOutput, ProcessError> {
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ProcessError::NotFound {
                program: program.clone(),
            }
        } else {
            ProcessError::Spawn {
                program: program.clone(),
                source,
            }
        }
    })?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = child.wait_timeout(timeout).ok().flatten();
    let timed_out = status.is_none();
    if timed_out {
        kill_group(&mut child);
    }
    let grace = Duration::from_millis(500);
    Ok(ProcessOutput {
        code: status.and_then(|status| status.code()),
        stdout: stdout.recv_timeout(grace).unwrap_or_default(),
        stderr: stderr.recv_timeout(grace).unwrap_or_default(),
        timed_out,
    })
}

/// Reads a pipe to its end on a thread, keeping at most [`MAX_OUTPUT_BYTES`] (the rest is read
/// and dropped, so the program never blocks on a full pipe).
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(read) => {
                        let room = MAX_OUTPUT_BYTES.saturating_sub(bytes.len());
                        bytes.extend_from_slice(&chunk[..read.min(room)]);
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receiver
}

/// Kills the child and everything it started (it leads its own process group): SIGTERM first, so
/// a guard sweeps what left the group, then SIGKILL for what is left after [`TERM_GRACE`].
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on the child's process group (negative pid); no memory is involved.
        unsafe {
            libc::kill(-group, libc::SIGTERM);
        }
        let _ = child.wait_timeout(TERM_GRACE);
        // SAFETY: as above.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// How often the guard looks at its parent.
const GUARD_POLL: Duration = Duration::from_millis(50);

/// Exit code of the guard when it could not start the program (as a shell says "not found").
pub(crate) const GUARD_NOT_STARTED: u8 = 127;

/// A command that runs `program args…` under car's guard (see the module docs), or the plain
/// command when car cannot name its own binary. The caller adds environment and working folder.
pub(crate) fn guarded_command(program: &str, args: &[String]) -> Command {
    #[cfg(unix)]
    if let Ok(car) = std::env::current_exe()
        && car.file_stem().is_some_and(|stem| stem == "car")
    {
        let mut command = Command::new(car);
        command
            .args([
                "reviewer-guard",
                "--parent",
                &std::process::id().to_string(),
                "--",
            ])
            .arg(program)
            .args(args);
        return command;
    }
    let mut command = Command::new(program);
    command.args(args);
    command
}

/// The guard (`car reviewer-guard --parent PID -- PROGRAM ARGS…`): runs the program with this
/// process's stdin, stdout and stderr, exits as it exits, and kills the process group (the
/// program, what it started, and the guard) as soon as its parent is no longer `parent` or a
/// SIGTERM (the hook's timeout) arrives. Whatever the reviewer started that is still there when
/// the guard ends, in its group or not, is killed first ([`sweep`]).
pub(crate) fn guard(parent: u32, argv: &[std::ffi::OsString]) -> u8 {
    let Some((program, args)) = argv.split_first() else {
        return GUARD_NOT_STARTED;
    };
    sweep::become_subreaper();
    on_terminate_set_flag();
    let mut child = match Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(error) => {
            let program = program.to_string_lossy();
            crate::output::print_message(&format!(
                "car: `{program}` could not be started: {error}"
            ));
            return GUARD_NOT_STARTED;
        }
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            sweep::kill_descendants();
            return exit_code_of(status);
        }
        if !is_parent(parent) || TERMINATED.load(std::sync::atomic::Ordering::Relaxed) {
            sweep::kill_descendants();
            kill_own_group();
        }
        std::thread::sleep(GUARD_POLL);
    }
}

/// Set by SIGTERM in the guard: the hook's timeout is stopping the reviewer.
static TERMINATED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// SIGTERM sets [`TERMINATED`] instead of ending the guard at once, so it sweeps first.
fn on_terminate_set_flag() {
    #[cfg(unix)]
    {
        extern "C" fn on_terminate(_signal: libc::c_int) {
            TERMINATED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        // SAFETY: installs an async-signal-safe handler (one atomic store) for SIGTERM; the
        // program the guard starts gets the default back at exec.
        unsafe {
            libc::signal(
                libc::SIGTERM,
                on_terminate as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

#[cfg(unix)]
fn is_parent(parent: u32) -> bool {
    std::os::unix::process::parent_id() == parent
}

#[cfg(not(unix))]
fn is_parent(_parent: u32) -> bool {
    true
}

/// Kills the guard's process group: the program, everything it started, and the guard itself.
fn kill_own_group() {
    #[cfg(unix)]
    // SAFETY: kill(2) with pid 0 signals the caller's own process group; no memory is involved.
    unsafe {
        libc::kill(0, libc::SIGKILL);
    }
    std::process::exit(1);
}

/// The program's exit code; a program killed by a signal makes the guard die of the same signal,
/// so the hook sees what really happened.
fn exit_code_of(status: std::process::ExitStatus) -> u8 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            // SAFETY: resets one signal's disposition and raises it on this process.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            return 128u8.saturating_add(signal as u8);
        }
    }
    status
        .code()
        .map_or(1, |code| u8::try_from(code).unwrap_or(1))
}

/// Where `program` would be found: an executable file on PATH (a path with `/` is checked as
/// given).
pub(crate) fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    let candidate = std::path::Path::new(program);
    if program.contains('/') {
        return is_executable(candidate).then(|| candidate.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|full| is_executable(full))
}

fn is_executable(path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_code() {
        let output = run_with_timeout(
            "sh",
            &["-c", "echo hi; exit 3"],
            None,
            Duration::from_secs(5),
        )
        .unwrap();
        assert_eq!(output.code, Some(3));
        assert_eq!(output.stdout.trim(), "hi");
    }

    #[test]
    fn feeds_stdin() {
        let output = run_with_timeout("cat", &[], Some(b"abc"), Duration::from_secs(5)).unwrap();
        assert_eq!(output.stdout, "abc");
    }

    #[test]
    fn kills_at_timeout() {
        let started = std::time::Instant::now();
        let output =
            run_with_timeout("sh", &["-c", "sleep 30"], None, Duration::from_millis(200)).unwrap();
        assert!(output.timed_out);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn missing_program_is_named() {
        let error = run_with_timeout("car-no-such-tool", &[], None, Duration::from_secs(1));
        assert!(matches!(error, Err(ProcessError::NotFound { .. })));
    }
}
