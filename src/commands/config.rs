//! `car config`: the settings wizard. On a terminal it asks for the reviewer backend, the model,
//! the blocking severity, `maxStopPasses` and the reviewer timeout (Enter keeps the current
//! value); flags set values directly and `--non-interactive` never asks.
//!
//! Invariants: only the `"claude-auto-review"` key of `.claude/settings.json` is rewritten — every
//! other key, and unknown keys inside car's own, are kept; the result is validated with the same
//! rules the hooks use before anything is written; a backend CLI missing from PATH is a warning,
//! not an error (it may be installed later).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use crate::cli::ConfigArgs;
use crate::commands::Outcome;
use crate::error::Error;
use crate::error::SetupError;
use crate::output;
use crate::process::find_on_path;
use crate::project::Project;
use crate::settings::{RawSettings, SETTINGS_KEY, Settings, read_raw, update_settings_document};

pub(crate) fn run(project: &Project, args: &ConfigArgs) -> Result<Outcome, Error> {
    let path = project.settings_file();
    let mut raw = read_raw(&path)?;
    let interactive = !args.non_interactive && std::io::stdin().is_terminal();
    if interactive {
        ask_all(&mut raw)?;
    } else if !args.non_interactive {
        output::print_hint(
            "not a terminal: using the flags only (add --non-interactive to say so)",
        );
    }
    apply_flags(&mut raw, args);
    let settings = Settings::from_raw(raw.clone(), &path)?;
    write_key(project, &raw)?;
    output::print_message(&format!(
        "saved {} (reviewerBackend {}, maxStopPasses {}, minimumBlockingSeverity {}, reviewerTimeoutSeconds {})",
        path.display(),
        settings.reviewer_backend.name(),
        settings.max_stop_passes,
        settings.minimum_blocking_severity,
        settings.reviewer_timeout_seconds
    ));
    if let Some(program) = settings.reviewer_program()
        && find_on_path(&program).is_none()
    {
        output::print_message(&format!(
            "warning: the reviewer CLI `{program}` is not on PATH; the stop gate will block saying so until it is installed"
        ));
    }
    output::print_hint(
        "run `car install` again if you changed the timeout, so the Stop hook's timeout follows",
    );
    Ok(Outcome::Success)
}

fn apply_flags(raw: &mut RawSettings, args: &ConfigArgs) {
    if let Some(backend) = &args.backend {
        raw.reviewer_backend = Some(backend.to_lowercase());
    }
    if let Some(model) = &args.model {
        raw.reviewer_model = Some(model.clone());
    }
    if let Some(severity) = &args.minimum_blocking_severity {
        raw.minimum_blocking_severity = Some(severity.clone());
    }
    if let Some(passes) = args.max_stop_passes {
        raw.max_stop_passes = Some(passes);
    }
    if let Some(timeout) = args.timeout {
        raw.reviewer_timeout_seconds = Some(timeout);
    }
    if !args.command_args.is_empty() {
        raw.reviewer_command = Some(args.command_args.clone());
    }
}

/// The interactive questions; Enter keeps what is there.
fn ask_all(raw: &mut RawSettings) -> Result<(), Error> {
    let current = Settings::from_raw(raw.clone(), Path::new("settings")).unwrap_or_default();
    let backend = ask_choice(
        "Reviewer backend (manual, claude, codex, opencode, command)",
        current.reviewer_backend.name(),
        &["manual", "claude", "codex", "opencode", "command"],
    )?;
    raw.reviewer_backend = Some(backend.to_lowercase());
    if backend.eq_ignore_ascii_case("command") {
        let command = ask(
            "Reviewer command (program and arguments, space-separated)",
            &current.reviewer_command.join(" "),
        )?;
        raw.reviewer_command = Some(command.split_whitespace().map(String::from).collect());
    }
    let model = ask(
        "Reviewer model (empty: the CLI's default)",
        current.reviewer_model.as_deref().unwrap_or(""),
    )?;
    raw.reviewer_model = (!model.is_empty()).then_some(model);
    let severity = ask_choice(
        "Least severe finding that blocks the stop (P1 or P2)",
        &current.minimum_blocking_severity.to_string(),
        &["P1", "P2"],
    )?;
    raw.minimum_blocking_severity = Some(severity);
    raw.max_stop_passes = Some(ask_number(
        "Blocked stops in a row before the breaker lets the agent stop (maxStopPasses)",
        u64::from(current.max_stop_passes),
    )? as u32);
    raw.reviewer_timeout_seconds = Some(ask_number(
        "Reviewer timeout in seconds",
        current.reviewer_timeout_seconds,
    )?);
    Ok(())
}

fn ask(question: &str, current: &str) -> Result<String, Error> {
    eprint!("{question} [{current}]: ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|error| Error::Usage(format!("cannot read the answer: {error}")))?;
    let answer = answer.trim();
    Ok(if answer.is_empty() {
        current.to_string()
    } else {
        answer.to_string()
    })
}

/// Asks until the answer is one of `options` (case-insensitive); returns it as listed.
fn ask_choice(question: &str, current: &str, options: &[&str]) -> Result<String, Error> {
    loop {
        let answer = ask(question, current)?;
        if let Some(option) = options
            .iter()
            .find(|option| option.eq_ignore_ascii_case(&answer))
        {
            return Ok(option.to_string());
        }
        output::print_error(&format!("{answer:?} is not one of {}", options.join(", ")));
    }
}

fn ask_number(question: &str, current: u64) -> Result<u64, Error> {
    loop {
        let answer = ask(question, &current.to_string())?;
        match answer.parse() {
            Ok(number) => return Ok(number),
            Err(_) => output::print_error(&format!("{answer:?} is not a whole number")),
        }
    }
}

/// Rewrites car's key, keeping every other key of the document.
fn write_key(project: &Project, raw: &RawSettings) -> Result<(), Error> {
    let value =
        serde_json::to_value(raw).map_err(|error| SetupError::Invalid(error.to_string()))?;
    update_settings_document(project, |document| {
        document.insert(SETTINGS_KEY.to_string(), value);
        Ok(true)
    })?;
    Ok(())
}
