//! `car deep-review run | loop | fixed | challenge | status | reset | init`: the deep
//! review from the command line (the logic lives in `review::deep`).
//!
//! Invariants: `run` and `loop` print exactly one JSON object on stdout (the verdict) and the
//! readable summary on stderr, and exit 0 PASS, 1 FAIL, 2 STOPPED, 3 ESCALATE; `--fail-open`
//! turns only STOPPED's exit into 0 (the status stays STOPPED, with a warning); every failure,
//! including broken settings, is a STOPPED verdict, never a silent "no review".

use std::time::Duration;

use serde_json::json;

use crate::cli::{DeepLoopArgs, DeepReviewCommand, DeepRunArgs};
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::review::deep::context;
use crate::review::deep::fix_loop::{self, Fixer, LoopEvent};
use crate::review::deep::init;
use crate::review::deep::round::{self, RoundRequest};
use crate::review::deep::state::{RoundState, RoundStore};
use crate::review::deep::verdict::{ContextInfo, Status, Verdict};
use crate::settings::Settings;

pub(crate) fn run(project: &Project, command: DeepReviewCommand) -> Result<Outcome, Error> {
    match command {
        DeepReviewCommand::Run(args) => Ok(review(project, &args, None)),
        DeepReviewCommand::Loop(args) => Ok(review_loop(project, &args)),
        DeepReviewCommand::Fixed { ids, context } => fixed(project, &ids, context.as_deref()),
        DeepReviewCommand::Challenge {
            id,
            reason,
            context,
        } => challenge(project, &id, &reason, context.as_deref()),
        DeepReviewCommand::Status { context, json } => status(project, context.as_deref(), json),
        DeepReviewCommand::Reset { context, all } => reset(project, context.as_deref(), all),
        DeepReviewCommand::Init {
            feature,
            description,
        } => initialize(project, &feature, description.as_deref()),
    }
}

fn review_loop(project: &Project, args: &DeepLoopArgs) -> Outcome {
    let fixer = Fixer {
        argv: &args.fixer,
        timeout: Duration::from_secs(args.fixer_timeout),
    };
    review(project, &args.run, Some(fixer))
}

/// One round (`run`) or the whole loop (`loop`, with a fixer).
fn review(project: &Project, args: &DeepRunArgs, fixer: Option<Fixer<'_>>) -> Outcome {
    let (settings, clock) = match (Settings::load(project), Clock::from_env()) {
        (Ok(settings), Ok(clock)) => (settings, clock),
        (Err(error), _) => return finish(&early_stop(args, error.to_string()), args.fail_open),
        (_, Err(error)) => return finish(&early_stop(args, error.to_string()), args.fail_open),
    };
    let home = crate::paths::home_dir();
    let request = RoundRequest {
        project,
        settings: &settings,
        clock,
        home: home.as_deref(),
        context: &args.context,
        focus: &args.focus,
        base: args.base.as_deref(),
        paths: &args.paths,
        max_rounds: args.max_rounds,
        allow_skipped: args.allow_skipped,
        timeout: Duration::from_secs(args.timeout.unwrap_or(settings.reviewer_timeout_seconds)),
    };
    let verdict = match fixer {
        None => round::run(&request),
        Some(fixer) => fix_loop::run_loop(&request, &fixer, print_loop_event),
    };
    finish(&verdict, args.fail_open)
}

/// The loop's progress on stderr: each FAIL round, then what the fixer did.
fn print_loop_event(event: LoopEvent<'_>) {
    match event {
        LoopEvent::Round(verdict) => {
            output::print_message(&verdict.summary());
            output::print_message("  → the fix request goes to the fixer");
        }
        LoopEvent::Fixed { fixed, challenged } => {
            if !fixed.is_empty() {
                output::print_message(&format!("  fixer: fixed {}", fixed.join(", ")));
            }
            for (id, reason) in challenged {
                output::print_message(&format!("  fixer: challenged {id}: {reason}"));
            }
        }
    }
}

/// A STOPPED verdict before a round could start (broken settings, a bad CAR_NOW).
fn early_stop(args: &DeepRunArgs, reason: String) -> Verdict {
    let info = ContextInfo {
        name: context::name_of(&args.context),
        file: None,
    };
    Verdict::stopped(info, 0, reason, None)
}

/// Prints the verdict (JSON on stdout, summary on stderr) and maps it to the exit code.
fn finish(verdict: &Verdict, fail_open: bool) -> Outcome {
    output::print_json(&serde_json::to_value(verdict).unwrap_or_default());
    output::print_message(&verdict.summary());
    if let Some(hint) = &verdict.hint {
        output::print_hint(hint);
    }
    match verdict.status {
        Status::Pass => Outcome::Success,
        Status::Fail => Outcome::ProblemsFound,
        Status::Escalate => Outcome::Escalated,
        Status::Stopped if fail_open => {
            output::print_message(&format!(
                "warning: no deep review happened ({}); --fail-open lets this pass",
                verdict.reason
            ));
            Outcome::Success
        }
        Status::Stopped => Outcome::Stopped,
    }
}

fn fixed(project: &Project, ids: &[String], context: Option<&str>) -> Result<Outcome, Error> {
    let store = RoundStore::find(project, context)?;
    let marks = store.update(|state| state.mark_fixed(ids))?;
    for mark in &marks {
        output::print_message(&format!(
            "{} marked fixed ({}): reported again, it goes to a human",
            mark.id, mark.title
        ));
    }
    print_next_round(&store);
    Ok(Outcome::Success)
}

fn challenge(
    project: &Project,
    id: &str,
    reason: &str,
    context: Option<&str>,
) -> Result<Outcome, Error> {
    if reason.trim().is_empty() {
        return Err(Error::Usage(
            "--reason must say why the finding is wrong: a human weighs it against the reviewer's words".into(),
        ));
    }
    let store = RoundStore::find(project, context)?;
    let challenge = store.update(|state| state.challenge(id, reason))?;
    output::print_message(&format!(
        "{} challenged ({}); the reason goes into the next prompt, and if the reviewer reports it again a human decides",
        challenge.id, challenge.title
    ));
    print_next_round(&store);
    Ok(Outcome::Success)
}

fn print_next_round(store: &RoundStore) {
    output::print_hint(&format!(
        "run the next round: car deep-review run {}",
        store.context()
    ));
}

fn status(project: &Project, context: Option<&str>, as_json: bool) -> Result<Outcome, Error> {
    let states: Vec<RoundState> = match context {
        Some(_) => {
            let store = RoundStore::find(project, context)?;
            vec![store.load()?]
        }
        None => RoundStore::all(project)
            .into_iter()
            .map(|(_, state)| state)
            .collect(),
    };
    if as_json {
        output::print_json(&json!({ "contexts": states }));
        return Ok(Outcome::Success);
    }
    if states.is_empty() {
        output::print_data("no deep review has run in this project");
        return Ok(Outcome::Success);
    }
    for state in &states {
        output::print_data(&render_state(state));
    }
    Ok(Outcome::Success)
}

fn render_state(state: &RoundState) -> String {
    let condition = match state.closed {
        None => format!("open after round {}", state.round),
        Some(status) => format!("ended with {} in round {}", status.as_str(), state.round),
    };
    let mut text = format!("deep review {}: {condition}\n", state.context);
    for record in &state.rounds {
        let guard = record
            .guard
            .map(|guard| format!(" ({})", guard.as_str()))
            .unwrap_or_default();
        text.push_str(&format!(
            "  round {}: {}{guard}, {} blocking of {}\n",
            record.round,
            record.status.as_str(),
            record.blocking_count(),
            crate::text::plural(record.findings.len(), "finding")
        ));
    }
    if let Some(last) = state.last_round() {
        for reported in last.findings.iter().filter(|found| found.blocking) {
            text.push_str(&format!("  blocking: {}\n", reported.headline()));
        }
    }
    for mark in &state.attempted_fixes {
        text.push_str(&format!(
            "  fixed: {} (round {}): {}\n",
            mark.id, mark.round, mark.title
        ));
    }
    for challenge in &state.challenged_ids {
        text.push_str(&format!(
            "  challenged: {} (round {}): {} — {}\n",
            challenge.id, challenge.round, challenge.title, challenge.reason
        ));
    }
    text.trim_end().to_string()
}

fn reset(project: &Project, context: Option<&str>, all: bool) -> Result<Outcome, Error> {
    let stores: Vec<RoundStore> = if all {
        RoundStore::all(project)
            .into_iter()
            .map(|(store, _)| store)
            .collect()
    } else {
        vec![RoundStore::find(project, context)?]
    };
    for store in &stores {
        let _lock = store.lock()?;
        let rounds = store.load().map(|state| state.rounds.len()).unwrap_or(0);
        store.remove()?;
        output::print_message(&format!(
            "reset the deep review of {} ({} forgotten); the next run starts at round 1",
            store.context(),
            crate::text::plural(rounds, "round")
        ));
    }
    if stores.is_empty() {
        output::print_message("no deep review state to reset");
    }
    Ok(Outcome::Success)
}

fn initialize(
    project: &Project,
    feature: &str,
    description: Option<&str>,
) -> Result<Outcome, Error> {
    let done = init::init(project.checkout(), feature, description)?;
    let shown = |path: &std::path::Path| {
        project
            .relative(path)
            .unwrap_or_else(|| path.display().to_string())
    };
    output::print_data(&shown(&done.file));
    output::print_message(&if done.created {
        format!("wrote {} from the template", shown(&done.file))
    } else {
        format!("{} exists; left as it is", shown(&done.file))
    });
    output::print_message(&if done.registered {
        format!(
            "listed `{}.md` under \"Active review contexts\" in {}",
            done.name,
            shown(&done.claude_md)
        )
    } else {
        format!(
            "{} already lists `{}.md`",
            shown(&done.claude_md),
            done.name
        )
    });
    output::print_hint(&format!(
        "fill it in — best by asking a reviewer thread that researched the domain to export its knowledge into it — then `car deep-review run {}`",
        done.name
    ));
    Ok(Outcome::Success)
}
