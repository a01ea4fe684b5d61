//! Agent hook payloads as they arrive on stdin ([`RawPayload`], every field optional, unknown
//! fields ignored), converted once into [`Payload`]: which agent, which session, which project.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::hook::render::Agent;

/// Payloads larger than this are refused (a real one is a few kilobytes; Write payloads carry the
/// whole file, which car skips above 2 MiB anyway).
pub(crate) const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// How long a hook waits for its payload: an agent writes it at once and closes stdin; a stdin
/// that stays open (a terminal, a stuck writer) must not hold the hook forever.
pub(crate) const STDIN_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub(crate) enum PayloadError {
    #[error("the hook payload on stdin is empty")]
    Empty,
    #[error("the hook payload on stdin is larger than {MAX_PAYLOAD_BYTES} bytes")]
    TooLarge,
    #[error("the hook payload on stdin could not be read: {0}")]
    Read(std::io::Error),
    #[error("no complete hook payload arrived on stdin within {} s", STDIN_WAIT.as_secs())]
    Timeout,
    #[error(
        "the hook payload on stdin is not valid JSON (line {line}, column {column}): {message}"
    )]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the hook payload on stdin is not a JSON object (it starts with `{0}`)")]
    NotAnObject(char),
    #[error("the hook payload names no working directory (cwd or workspace_roots)")]
    NoWorkingDirectory,
}

/// The union of the fields Claude Code, Codex, Gemini CLI and Cursor send.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawPayload {
    pub(crate) session_id: Option<String>,
    pub(crate) conversation_id: Option<String>,
    pub(crate) transcript_path: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) workspace_roots: Vec<String>,
    pub(crate) hook_event_name: Option<String>,
    pub(crate) tool_name: Option<String>,
    pub(crate) tool_input: Value,
    pub(crate) tool_response: Value,
    pub(crate) stop_hook_active: Option<bool>,
    pub(crate) last_assistant_message: Option<String>,
    /// Gemini CLI's AfterAgent: the agent's final answer.
    pub(crate) prompt_response: Option<String>,
    pub(crate) agent_id: Option<String>,
    pub(crate) agent_type: Option<String>,
    pub(crate) reason: Option<String>,
    pub(crate) status: Option<String>,
    /// Cursor's afterFileEdit.
    pub(crate) file_path: Option<String>,
    /// Cursor's afterFileEdit.
    pub(crate) edits: Value,
    pub(crate) turn_id: Option<String>,
    pub(crate) cursor_version: Option<String>,
    pub(crate) timestamp: Option<String>,
    /// Claude Code: how long the tool ran (a shell command's run, to tell which files it touched).
    pub(crate) duration_ms: Option<u64>,
    /// Cursor's afterShellExecution: the command line.
    pub(crate) command: Option<String>,
}

/// A validated payload: the fields every hook relies on are present.
#[derive(Debug, Clone)]
pub(crate) struct Payload {
    pub(crate) agent: Agent,
    pub(crate) session_id: String,
    pub(crate) cwd: PathBuf,
    pub(crate) event_name: String,
    pub(crate) raw: RawPayload,
}

impl Payload {
    /// Reads stdin (bounded in size and in time: [`STDIN_WAIT`]) and parses it.
    pub(crate) fn read_stdin() -> Result<Payload, PayloadError> {
        let bytes = read_stdin_bounded()?;
        Payload::parse(&bytes)
    }

    pub(crate) fn parse(bytes: &[u8]) -> Result<Payload, PayloadError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(PayloadError::Empty);
        }
        let raw: RawPayload = serde_json::from_slice(bytes).map_err(|error| {
            // `[1, 2]` or `"text"`: say what is wrong, not which type serde wanted first.
            let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
            let is_json = error.classify() == serde_json::error::Category::Data;
            if let Some(&first) =
                first.filter(|first| is_json && **first != b'{' && first.is_ascii())
            {
                return PayloadError::NotAnObject(char::from(first));
            }
            let located = crate::text::JsonError::of(&error);
            PayloadError::Json {
                line: located.line,
                column: located.column,
                message: located.message,
            }
        })?;
        Payload::from_raw(raw)
    }

    pub(crate) fn from_raw(mut raw: RawPayload) -> Result<Payload, PayloadError> {
        if raw.last_assistant_message.is_none() {
            raw.last_assistant_message = raw.prompt_response.take();
        }
        let agent = detect_agent(&raw);
        let cwd = raw
            .cwd
            .clone()
            .filter(|cwd| !cwd.is_empty())
            .or_else(|| raw.workspace_roots.first().cloned())
            .ok_or(PayloadError::NoWorkingDirectory)?;
        let session_id = raw
            .session_id
            .clone()
            .or_else(|| raw.conversation_id.clone())
            .filter(|id| !id.trim().is_empty())
            .unwrap_or_else(|| "unknown-session".to_string());
        let event_name = raw.hook_event_name.clone().unwrap_or_default();
        Ok(Payload {
            agent,
            session_id,
            cwd: PathBuf::from(cwd),
            event_name,
            raw,
        })
    }

    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The tool that ran, as the agent names it ("Edit", "apply_patch", "replace", …).
    pub(crate) fn tool_name(&self) -> &str {
        self.raw.tool_name.as_deref().unwrap_or_else(|| {
            if self.agent == Agent::Cursor && self.raw.file_path.is_some() {
                "afterFileEdit"
            } else {
                ""
            }
        })
    }

    /// Whether this stop is a subagent's (SubagentStop).
    pub(crate) fn is_subagent_stop(&self) -> bool {
        self.event_name == "SubagentStop"
    }
}

/// Stdin to its end, at most [`MAX_PAYLOAD_BYTES`], waiting for data at most until [`STDIN_WAIT`]
/// has passed: `poll(2)` before every read, so no read ever blocks past the deadline (and no
/// thread is needed).
#[cfg(unix)]
fn read_stdin_bounded() -> Result<Vec<u8>, PayloadError> {
    use std::os::fd::FromRawFd;
    // SAFETY: fd 0 is open for the whole process; ManuallyDrop never closes it.
    let mut stdin = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(0) });
    let deadline = std::time::Instant::now() + STDIN_WAIT;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let mut ready = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd, for the duration of the call.
        match unsafe { libc::poll(&mut ready, 1, timeout) } {
            0 => return Err(PayloadError::Timeout),
            found if found < 0 => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(PayloadError::Read(error));
                }
                continue;
            }
            _ => {}
        }
        let read = match stdin.read(&mut chunk) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(PayloadError::Read(error)),
        };
        if read == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk[..read]);
        if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
            return Err(PayloadError::TooLarge);
        }
    }
}

/// Without `poll(2)`: bounded in size only.
#[cfg(not(unix))]
fn read_stdin_bounded() -> Result<Vec<u8>, PayloadError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(PayloadError::Read)?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err(PayloadError::TooLarge);
    }
    Ok(bytes)
}

fn detect_agent(raw: &RawPayload) -> Agent {
    let event = raw.hook_event_name.as_deref().unwrap_or_default();
    if raw.cursor_version.is_some()
        || (!raw.workspace_roots.is_empty() && raw.cwd.is_none())
        || event == "afterFileEdit"
        || event == "afterShellExecution"
        || event == "stop"
    {
        Agent::Cursor
    } else if event == "AfterTool" || event == "AfterAgent" || event == "BeforeTool" {
        Agent::Gemini
    } else if raw.turn_id.is_some() || raw.tool_name.as_deref() == Some("apply_patch") {
        Agent::Codex
    } else {
        Agent::Claude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_named() {
        assert!(matches!(Payload::parse(b"  \n"), Err(PayloadError::Empty)));
        assert!(matches!(
            Payload::parse(b"{\"cwd\":"),
            Err(PayloadError::Json { .. })
        ));
        assert!(matches!(
            Payload::parse(b"{}"),
            Err(PayloadError::NoWorkingDirectory)
        ));
        // Regression: `[1,2]` was "invalid type: integer `1`, expected a string".
        let array = Payload::parse(b" [1,2]").unwrap_err().to_string();
        assert_eq!(
            array,
            "the hook payload on stdin is not a JSON object (it starts with `[`)"
        );
    }

    #[test]
    fn detects_agents() {
        let cursor = Payload::parse(br#"{"hook_event_name":"stop","workspace_roots":["/p"]}"#);
        assert_eq!(cursor.unwrap().agent, Agent::Cursor);
        let gemini = Payload::parse(br#"{"hook_event_name":"AfterTool","cwd":"/p"}"#);
        assert_eq!(gemini.unwrap().agent, Agent::Gemini);
        let after_agent = Payload::parse(
            br#"{"hook_event_name":"AfterAgent","cwd":"/p","prompt_response":"Which one?"}"#,
        );
        let after_agent = after_agent.unwrap();
        assert_eq!(after_agent.agent, Agent::Gemini);
        assert_eq!(
            after_agent.raw.last_assistant_message.as_deref(),
            Some("Which one?")
        );
        let claude = Payload::parse(br#"{"hook_event_name":"Stop","cwd":"/p","session_id":"s"}"#);
        let claude = claude.unwrap();
        assert_eq!(claude.agent, Agent::Claude);
        assert_eq!(claude.session_id, "s");
    }
}
