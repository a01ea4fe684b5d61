//! Agent hooks. Each hook reads one payload from stdin, has the calling agent's file
//! ([`crate::agents`]) convert it, does its work under a time budget, and prints exactly one JSON
//! answer in that agent's shape. Hooks never wedge the agent: a bad payload, an unknown
//! `--agent`, an internal error, a panic or a blown budget all become a fail-open answer with a
//! `systemMessage`, and exit 0.
//!
//! Invariant: a hook's budget is wall time from the hook's start (before its payload is read),
//! not from when its work began: on a loaded machine the wait for stdin, the settings and the
//! project's discovery count too, so the answer arrives by `start + budget` whatever came first.

pub(crate) mod changes;
pub(crate) mod context;
pub(crate) mod file_lessons;
pub(crate) mod post_tool_use;
pub(crate) mod pre_tool_use;
pub(crate) mod session_end;
pub(crate) mod session_start;
pub(crate) mod stdin;
pub(crate) mod stop;

use std::sync::mpsc;
use std::time::{Duration, Instant};

pub(crate) use context::HookContext;

use crate::agents::Agent;
use crate::agents::answer::HookEvent;
use crate::answer::Answer;
use crate::cli::{HookArgs, HookCommand};
use crate::output;
use crate::state::log_hook_error;

/// Runs one hook end to end and prints its answer.
pub(crate) fn run(args: &HookArgs) {
    let started = Instant::now();
    let event = match args.event {
        HookCommand::PostToolUse => HookEvent::PostToolUse,
        HookCommand::PreToolUse => HookEvent::PreToolUse,
        HookCommand::Stop => HookEvent::Stop,
        HookCommand::SessionEnd => HookEvent::SessionEnd,
        HookCommand::SessionStart => HookEvent::SessionStart,
    };
    if std::env::var_os(crate::reviewer::NESTED_ENV).is_some() {
        // A reviewer run that car started: never gate or check it (no recursion).
        output::print_hook_response("{}");
        return;
    }
    // A hook command with a bad `--agent` is a wiring mistake, not a reason to wedge the agent
    // (a usage error's exit 2 would block a Stop forever): say so on every call (and in the
    // project's hook error log, which `car status` shows) and check nothing, answering in the
    // shape the payload looks like.
    let named = match args.agent.as_deref().map(Agent::from_name).transpose() {
        Ok(named) => named,
        Err(unknown) => {
            output::print_message(&format!("car: {unknown}"));
            let payload = stdin::read_payload(None, started + budget(event, None)).ok();
            if let Some(payload) = &payload {
                let project = crate::project::Project::discover(payload.cwd());
                log_hook_error(&project.state_dir(), &unknown.to_string());
            }
            let agent = payload.map_or(Agent::Claude, |payload| payload.agent);
            let answer = Answer::fail_open(format!("{unknown}; nothing was checked"));
            output::print_hook_response(&agent.answer(&answer, event).to_string());
            return;
        }
    };
    // The stdin wait ends with the budget (a Stop's, known only with the settings, is longer).
    let payload = match stdin::read_payload(named, started + budget(event, None)) {
        Ok(payload) => payload,
        Err(error) => {
            output::print_message(&format!("car: {error}"));
            let answer = Answer::fail_open(format!("{error}; nothing was checked"));
            let agent = named.unwrap_or(Agent::Claude);
            output::print_hook_response(&agent.answer(&answer, event).to_string());
            return;
        }
    };
    // The process's own directory may be gone (deleted under the agent): every path car uses
    // comes from the payload's cwd, and the programs car starts (git, the interpreter) need a
    // directory that exists, so the hook moves there.
    if std::env::current_dir().is_err() {
        let _ = std::env::set_current_dir(payload.cwd());
    }
    let agent = payload.agent;
    let answer = run_with_budget(payload, event, started);
    output::print_hook_response(&agent.answer(&answer, event).to_string());
}

/// Answers one payload handed over in memory instead of on stdin (car's MCP server's `hook`
/// tool, which Claude Code's `"type": "mcp_tool"` hooks call), exactly as [`run`] would: the
/// agent's JSON answer, failing open the same way.
pub(crate) fn answer_payload(bytes: &[u8], agent: Agent, event: HookEvent) -> serde_json::Value {
    let started = Instant::now();
    if std::env::var_os(crate::reviewer::NESTED_ENV).is_some() {
        return serde_json::json!({});
    }
    let answer = match crate::agents::payload::Payload::parse(bytes, Some(agent)) {
        Ok(payload) => run_with_budget(payload, event, started),
        Err(error) => Answer::fail_open(format!("{error}; nothing was checked")),
    };
    agent.answer(&answer, event)
}

/// How long each hook may take before it answers anyway.
fn budget(event: HookEvent, context: Option<&HookContext>) -> Duration {
    match event {
        HookEvent::PostToolUse => Duration::from_secs(20),
        // The agent waits for it before every edit: past this, the write goes through unchecked
        // here (the PostToolUse hook still checks it).
        HookEvent::PreToolUse => Duration::from_secs(10),
        HookEvent::SessionEnd => Duration::from_millis(900),
        HookEvent::SessionStart => Duration::from_secs(4),
        HookEvent::Stop => {
            let reviewer = context.map_or(300, |context| context.settings.reviewer_timeout_seconds);
            Duration::from_secs(reviewer.saturating_add(30))
        }
    }
}

/// Builds the context and runs the hook until `started` + its budget.
fn run_with_budget(
    payload: crate::agents::payload::Payload,
    event: HookEvent,
    started: Instant,
) -> Answer {
    let mut context = match HookContext::new(payload) {
        Ok(context) => context,
        Err(error) => return Answer::fail_open(format!("{error}; nothing was checked")),
    };
    let limit = budget(event, Some(&context));
    context.deadline = Some(started + limit);
    context.started_at = std::time::SystemTime::now().checked_sub(started.elapsed());
    let overrun = match event {
        HookEvent::SessionStart => {
            "letting the agent continue; a baseline not recorded by then is taken at the session's first edit or shell command"
        }
        _ => "letting the agent continue",
    };
    guarded(context, limit, overrun, move |context| {
        dispatch(context, event)
    })
}

/// Runs `work` on a worker thread so a panic or an overrun still yields a fail-open answer (and
/// a line in the project's hook error log) by the context's deadline; `limit` is the budget the
/// deadline ends (named in the answer), and the deadline when the context has none; `overrun`
/// says what an overrun means for the agent.
fn guarded(
    context: HookContext,
    limit: Duration,
    overrun: &str,
    work: impl FnOnce(&HookContext) -> Answer + Send + 'static,
) -> Answer {
    let deadline = context.deadline.unwrap_or_else(|| Instant::now() + limit);
    let state_dir = context.project.state_dir();
    let (sender, receiver) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("car-hook".into())
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&context)));
            let _ = sender.send(result);
        });
    if let Err(error) = worker {
        return Answer::fail_open(format!("could not start the hook worker: {error}"));
    }
    match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(answer)) => answer,
        Ok(Err(panic)) => {
            let message = panic_message(panic.as_ref());
            log_hook_error(&state_dir, &format!("internal error: {message}"));
            Answer::fail_open(format!(
                "internal error ({message}); the edit was not checked. Please report it."
            ))
        }
        Err(_) => {
            let message = format!("gave up after {} ms", limit.as_millis());
            log_hook_error(&state_dir, &message);
            Answer::fail_open(format!("{message}; {overrun}"))
        }
    }
}

fn dispatch(context: &HookContext, event: HookEvent) -> Answer {
    let answer = match event {
        HookEvent::PostToolUse => post_tool_use::handle(context),
        HookEvent::PreToolUse => pre_tool_use::handle(context),
        HookEvent::Stop => stop::handle(context),
        HookEvent::SessionEnd => session_end::handle(context),
        HookEvent::SessionStart => session_start::handle(context),
    };
    // Best effort: state a hook created (car used as a plugin, never installed) stays git-ignored.
    let _ = crate::state::ensure_gitignore(&context.project);
    match &context.settings_problem {
        Some(problem) if context.is_new_settings_problem(problem) => {
            answer.with_system_line(format!("car: {problem}"))
        }
        _ => answer,
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    fn context(root: &std::path::Path) -> HookContext {
        let payload = crate::agents::payload::Payload::parse(
            serde_json::json!({"cwd": root, "session_id": "s", "hook_event_name": "Stop"})
                .to_string()
                .as_bytes(),
            Some(Agent::Claude),
        )
        .unwrap();
        HookContext {
            payload,
            project: Project::at(root),
            settings: Settings::default(),
            settings_problem: None,
            clock: Clock::fixed(1_800_000_000),
            user_lessons: true,
            deadline: None,
            started_at: None,
        }
    }

    fn logged_errors(root: &std::path::Path) -> String {
        std::fs::read_to_string(root.join(".claude/claude-auto-review/hook-errors.jsonl"))
            .unwrap_or_default()
    }

    #[test]
    fn a_panic_becomes_a_fail_open_answer_and_is_logged() {
        let dir = tempfile::tempdir().unwrap();
        let answer = guarded(context(dir.path()), Duration::from_secs(5), "", |_| {
            panic!("index out of bounds")
        });
        assert_eq!(answer.block_reason, None);
        let message = answer.system_message.unwrap_or_default();
        assert!(
            message.contains("internal error (index out of bounds)"),
            "{message}"
        );
        assert!(logged_errors(dir.path()).contains("index out of bounds"));
    }

    #[test]
    fn an_overrun_answers_at_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let answer = guarded(context(dir.path()), Duration::from_millis(50), "on", |_| {
            std::thread::sleep(Duration::from_secs(3));
            Answer::block("too late")
        });
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(answer.block_reason, None, "an overrun never blocks");
        let message = answer.system_message.unwrap_or_default();
        assert!(message.contains("gave up after 50 ms"), "{message}");
        assert!(logged_errors(dir.path()).contains("gave up after 50 ms"));
    }

    #[test]
    fn the_budget_ends_at_the_deadline_counted_from_the_hooks_start() {
        let dir = tempfile::tempdir().unwrap();
        let mut late = context(dir.path());
        // The hook's start plus its budget has passed already (a loaded machine started it late).
        late.deadline = Some(Instant::now());
        let answer = guarded(late, Duration::from_secs(4), "on", |_| {
            std::thread::sleep(Duration::from_millis(500));
            Answer::block("too late")
        });
        assert_eq!(
            answer.block_reason, None,
            "answered at the deadline, not 4 s later"
        );
        let message = answer.system_message.unwrap_or_default();
        assert!(message.contains("gave up after 4000 ms; on"), "{message}");
    }
}
