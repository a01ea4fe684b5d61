//! The hook payload on stdin: read bounded in size and in time, then converted once by
//! [`crate::agents::payload`] for the agent that calls.

use std::io::Read;
use std::time::{Duration, Instant};

use crate::agents::Agent;
use crate::agents::payload::{Payload, PayloadError};

/// Payloads larger than this are refused (a real one is a few kilobytes; Write payloads carry the
/// whole file, which car skips above 2 MiB anyway).
pub(crate) const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// How long a hook waits for its payload: an agent writes it at once and closes stdin; a stdin
/// that stays open (a terminal, a stuck writer) must not hold the hook forever.
pub(crate) const STDIN_WAIT: Duration = Duration::from_secs(5);

/// Why no payload could be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    #[error("the hook payload on stdin is larger than {MAX_PAYLOAD_BYTES} bytes")]
    TooLarge,
    #[error("the hook payload on stdin could not be read: {0}")]
    Read(std::io::Error),
    #[error(
        "no complete hook payload arrived on stdin within {} s",
        waited.as_secs_f64().round()
    )]
    Timeout { waited: Duration },
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

/// The union of the fields Claude Code, Codex, Gemini CLI and Cursor send.
/// Reads the payload on stdin (bounded in size and in time: [`STDIN_WAIT`], and never past the
/// hook's `deadline`) and converts it for the agent the hook command names (else the one the
/// payload looks like).
pub(crate) fn read_payload(named: Option<Agent>, deadline: Instant) -> Result<Payload, InputError> {
    let bytes = read_stdin_bounded(deadline.min(Instant::now() + STDIN_WAIT))?;
    Ok(Payload::parse(&bytes, named)?)
}

/// Bytes read from stdin per `read(2)`.
#[cfg(unix)]
const READ_CHUNK: usize = 16 * 1024;

/// Stdin to its end, at most [`MAX_PAYLOAD_BYTES`], waiting for data at most until `deadline`:
/// `poll(2)` before every read, so no read ever blocks past the deadline (and no thread is
/// needed).
#[cfg(unix)]
fn read_stdin_bounded(deadline: Instant) -> Result<Vec<u8>, InputError> {
    use std::os::fd::FromRawFd;
    // SAFETY: fd 0 is open for the whole process; ManuallyDrop never closes it.
    let mut stdin = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(0) });
    let started = Instant::now();
    let mut bytes = Vec::new();
    // On the stack, and small: a zeroed 64 KiB heap chunk was 8 % of a hook process's
    // instructions (callgrind counts the memset byte by byte); a larger payload takes more reads.
    let mut chunk = [0u8; READ_CHUNK];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut ready = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd, for the duration of the call.
        match unsafe { libc::poll(&mut ready, 1, timeout) } {
            0 => {
                return Err(InputError::Timeout {
                    waited: started.elapsed(),
                });
            }
            found if found < 0 => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(InputError::Read(error));
                }
                continue;
            }
            _ => {}
        }
        let read = match stdin.read(&mut chunk) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(InputError::Read(error)),
        };
        if read == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk[..read]);
        if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
            return Err(InputError::TooLarge);
        }
    }
}

/// Without `poll(2)`: bounded in size only.
#[cfg(not(unix))]
fn read_stdin_bounded(_deadline: Instant) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(InputError::Read)?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err(InputError::TooLarge);
    }
    Ok(bytes)
}
