//! Agent hooks. Each hook reads one payload from stdin, does its work under a time budget, and
//! prints exactly one JSON answer. Hooks never wedge the agent: a bad payload, an internal error,
//! a panic or a blown budget all become a fail-open answer with a `systemMessage`, and exit 0.

pub mod context;
pub mod edit;
pub mod payload;
pub mod post_tool_use;

use std::sync::mpsc;
use std::time::Duration;

pub use context::HookContext;
pub use edit::{AddedLine, Changes, Edit};
pub use payload::Payload;

use crate::cli::HookCommand;
use crate::output::{self, Agent, HookEvent, HookResponse};

/// Runs one hook end to end and prints its answer.
pub fn run(kind: HookCommand) {
    let event = match kind {
        HookCommand::PostToolUse => HookEvent::PostToolUse,
        HookCommand::Stop => HookEvent::Stop,
        HookCommand::SessionEnd => HookEvent::SessionEnd,
    };
    if std::env::var_os(crate::review::backend::NESTED_ENV).is_some() {
        // A reviewer run that car started: never gate or check it (no recursion).
        output::print_hook_response("{}");
        return;
    }
    let payload = match Payload::read_stdin() {
        Ok(payload) => payload,
        Err(error) => {
            output::print_message(&format!("car: {error}"));
            let answer = HookResponse::fail_open(format!("{error}; nothing was checked"));
            output::print_hook_response(&answer.render(Agent::Claude, event));
            return;
        }
    };
    let agent = payload.agent;
    let answer = run_with_budget(payload, event);
    output::print_hook_response(&answer.render(agent, event));
}

/// How long each hook may take before it answers anyway.
fn budget(event: HookEvent, context: Option<&HookContext>) -> Duration {
    match event {
        HookEvent::PostToolUse => Duration::from_secs(20),
        HookEvent::SessionEnd => Duration::from_millis(900),
        HookEvent::Stop => {
            let reviewer = context.map_or(300, |context| context.settings.reviewer_timeout_seconds);
            Duration::from_secs(reviewer + 30)
        }
    }
}

/// Runs the hook on a worker thread so a panic or an overrun still yields an answer.
fn run_with_budget(payload: Payload, event: HookEvent) -> HookResponse {
    let context = match HookContext::new(payload) {
        Ok(context) => context,
        Err(error) => return HookResponse::fail_open(format!("{error}; nothing was checked")),
    };
    let limit = budget(event, Some(&context));
    let state_dir = context.project.state_dir();
    let (sender, receiver) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(format!("car-hook-{event:?}"))
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dispatch(&context, event)
            }));
            let _ = sender.send(result);
        });
    if let Err(error) = worker {
        return HookResponse::fail_open(format!("could not start the hook worker: {error}"));
    }
    match receiver.recv_timeout(limit) {
        Ok(Ok(answer)) => answer,
        Ok(Err(panic)) => {
            let message = panic_message(panic.as_ref());
            context::log_hook_error(&state_dir, &format!("internal error: {message}"));
            HookResponse::fail_open(format!(
                "internal error ({message}); the edit was not checked. Please report it."
            ))
        }
        Err(_) => {
            let message = format!("gave up after {} ms", limit.as_millis());
            context::log_hook_error(&state_dir, &message);
            HookResponse::fail_open(format!("{message}; letting the agent continue"))
        }
    }
}

fn dispatch(context: &HookContext, event: HookEvent) -> HookResponse {
    let answer = match event {
        HookEvent::PostToolUse => post_tool_use::handle(context),
        HookEvent::Stop => crate::review::gate::handle_stop(context),
        HookEvent::SessionEnd => crate::review::session_end::handle(context),
    };
    match &context.settings_problem {
        Some(problem) => answer.with_system_line(format!("car: {problem} (using defaults)")),
        None => answer,
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
