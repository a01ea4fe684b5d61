//! Running external programs (interpreters, linters, reviewer CLIs): always argv, never a shell
//! string; always a timeout; a missing program is its own error so callers can say what to install.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use wait_timeout::ChildExt;

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

/// Runs `program args…`, feeding `stdin`, and kills it (with its process group) at `timeout`.
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

/// Kills the child and everything it started (it leads its own process group).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
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
