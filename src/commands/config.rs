//! `car config`: the settings wizard. It asks for the reviewer backend, the model (for a reviewer
//! CLI that takes one), the deep review's reviewer, the blocking severity, `maxStopPasses` and the
//! reviewer timeout (Enter keeps the current value) — on a terminal, or from answers piped in when
//! no flag is given; flags set values directly and `--non-interactive` never asks. Accepting every
//! default leaves a usable deep review: its reviewer is written explicitly and is never `manual`.
//!
//! Invariants: only the keys it sets or repairs inside the `"claude-auto-review"` key of
//! `.claude/settings.json` change — every other key and byte of the file is kept; a value given by
//! a flag is checked with the same rules the hooks use, and a bad one is an error naming the
//! flag; a key car cannot use is repaired (removed, so its default applies) and named; a changed
//! reviewer timeout updates the Stop hook's timeout in every agent file car is wired into; a
//! backend CLI missing from PATH is a warning, not an error (it may be installed later).

use std::io::{BufRead, IsTerminal, Write};

use serde_json::{Map, Value, json};

use crate::cli::ConfigArgs;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::settings::{
    SETTINGS_KEY, Settings, block_problem, read_settings_document, update_settings_document,
};

pub(crate) fn run(project: &Project, args: &ConfigArgs) -> Result<Outcome, Error> {
    let path = project.settings_file();
    let document = read_settings_document(&path)?;
    let (mut block, mut repairs) = repaired_block(&document);
    // Answers come from a person at a terminal, or piped in (`printf 'codex\n…' | car config`)
    // when no flag says what to set.
    let asks = !args.non_interactive && (std::io::stdin().is_terminal() || !has_flags(args));
    if asks {
        ask_all(&mut block)?;
    }
    apply_flags(&mut block, args)?;
    let settings = Settings::from_block(&block).settings;
    write_block(project, &block)?;
    for repair in repairs.drain(..) {
        output::print_message(&format!("repaired {repair}"));
    }
    output::print_message(&format!(
        "saved {} (enabled {}, reviewerBackend {}, maxStopPasses {}, minimumBlockingSeverity {}, reviewerTimeoutSeconds {})",
        path.display(),
        settings.enabled,
        settings.reviewer_backend.name(),
        settings.max_stop_passes,
        settings.minimum_blocking_severity,
        settings.reviewer_timeout_seconds
    ));
    for updated in crate::commands::install::refresh_wiring(project, &settings)? {
        output::print_message(&format!(
            "updated car's hook timeouts in {} (Stop: {} s)",
            updated.display(),
            crate::agents::stop_timeout(&settings)
        ));
    }
    for (used_by, program) in crate::reviewer::missing_clis(&settings, project.checkout()) {
        output::print_message(&crate::reviewer::missing_cli_warning(used_by, &program));
    }
    Ok(Outcome::Success)
}

/// car's block with every key it cannot use removed (so its default applies), and what was
/// removed. A block that is not an object is replaced by an empty one.
fn repaired_block(document: &Map<String, Value>) -> (Map<String, Value>, Vec<String>) {
    if let Some(problem) = block_problem(document) {
        return (Map::new(), vec![format!("{problem} (replaced by {{}})")]);
    }
    let mut block = match document.get(SETTINGS_KEY) {
        Some(Value::Object(block)) => block.clone(),
        _ => Map::new(),
    };
    let mut repairs = Vec::new();
    for problem in Settings::from_block(&block).problems {
        block.shift_remove(&problem.key);
        repairs.push(format!("{problem} (key removed)"));
    }
    (block, repairs)
}

fn has_flags(args: &ConfigArgs) -> bool {
    args.enabled.is_some()
        || args.backend.is_some()
        || args.model.is_some()
        || args.minimum_blocking_severity.is_some()
        || args.max_stop_passes.is_some()
        || args.timeout.is_some()
        || !args.command_args.is_empty()
        || args.deep_review_backend.is_some()
}

/// Sets each given flag's key, checked with the hooks' own rules; a bad value names the flag.
fn apply_flags(block: &mut Map<String, Value>, args: &ConfigArgs) -> Result<(), Error> {
    let deep_backend = args
        .deep_review_backend
        .as_ref()
        .map(|b| b.trim().to_lowercase());
    if deep_backend.as_deref() == Some("manual") {
        return Err(Error::Usage(
            "--deep-review-backend: \"manual\" cannot be the deep reviewer: car deep-review asks a second model, not the agent that wrote the change; choose codex, claude, opencode or command".into(),
        ));
    }
    let flags: [(&str, &str, Option<Value>); 8] = [
        ("--enabled", "enabled", args.enabled.map(Value::Bool)),
        (
            "--backend",
            "reviewerBackend",
            args.backend
                .as_ref()
                .map(|b| json!(b.trim().to_lowercase())),
        ),
        (
            "--model",
            "reviewerModel",
            args.model.as_ref().map(|m| json!(m)),
        ),
        (
            "--minimum-blocking-severity",
            "minimumBlockingSeverity",
            args.minimum_blocking_severity.as_ref().map(|s| json!(s)),
        ),
        (
            "--max-stop-passes",
            "maxStopPasses",
            args.max_stop_passes.map(|n| json!(n)),
        ),
        (
            "--timeout",
            "reviewerTimeoutSeconds",
            args.timeout.map(|n| json!(n)),
        ),
        (
            "--command-arg",
            "reviewerCommand",
            (!args.command_args.is_empty()).then(|| json!(args.command_args)),
        ),
        (
            "--deep-review-backend",
            "deepReviewBackend",
            deep_backend.map(|b| json!(b)),
        ),
    ];
    for (flag, key, value) in flags {
        let Some(value) = value else { continue };
        let mut alone = Map::new();
        alone.insert(key.to_string(), value.clone());
        // The command backend needs its command, which may come with another flag: that
        // combination is checked below, on the whole block.
        let needs_company =
            (key == "reviewerBackend" || key == "deepReviewBackend") && value == json!("command");
        if let Some(problem) = Settings::from_block(&alone)
            .problems
            .into_iter()
            .find(|problem| problem.key == key && !needs_company)
        {
            return Err(Error::Usage(format!(
                "{flag}: {} {}",
                problem.value, problem.problem
            )));
        }
        block.insert(key.to_string(), value);
    }
    let checked = Settings::from_block(block);
    if block.get("deepReviewBackend") == Some(&json!("command"))
        && checked.settings.reviewer_command.is_empty()
    {
        return Err(Error::Usage(
            "--deep-review-backend command needs --command-arg PROG [--command-arg ARG …] (the reviewerCommand it runs)".into(),
        ));
    }
    if let Some(problem) = checked.problems.first() {
        // Only a combination can fail here (the command backend without a command).
        return Err(Error::Usage(format!(
            "--backend command needs --command-arg PROG [--command-arg ARG …] ({problem})"
        )));
    }
    Ok(())
}

/// The interactive questions; Enter keeps what is there.
fn ask_all(block: &mut Map<String, Value>) -> Result<(), Error> {
    let current = Settings::from_block(block).settings;
    let backend = ask_choice(
        "Reviewer backend (manual, claude, codex, opencode, command)",
        current.reviewer_backend.name(),
        &["manual", "claude", "codex", "opencode", "command"],
    )?;
    block.insert("reviewerBackend".into(), json!(backend.to_lowercase()));
    if backend.eq_ignore_ascii_case("command") {
        let command = ask(
            "Reviewer command (program and arguments, space-separated)",
            &current.reviewer_command.join(" "),
        )?;
        let argv: Vec<&str> = command.split_whitespace().collect();
        block.insert("reviewerCommand".into(), json!(argv));
    }
    // Only a reviewer CLI takes a model: the agent itself (manual) and a command do not.
    if ["claude", "codex", "opencode"]
        .iter()
        .any(|cli| backend.eq_ignore_ascii_case(cli))
    {
        let model = ask(
            "Reviewer model (empty: the CLI's default)",
            current.reviewer_model.as_deref().unwrap_or(""),
        )?;
        if model.is_empty() {
            block.shift_remove("reviewerModel");
        } else {
            block.insert("reviewerModel".into(), json!(model));
        }
    }
    // The deep review asks a second model, never the agent that wrote the change: its default is
    // the stop gate's reviewer CLI, else codex.
    let chosen = backend.to_lowercase();
    let deep_default = match block.contains_key("deepReviewBackend") {
        true => current.deep_review_backend.name(),
        false => chosen.as_str(),
    };
    let deep_default = if deep_default == "manual" {
        "codex"
    } else {
        deep_default
    };
    let deep = ask_choice(
        "Deep review's reviewer, a second model (codex, claude, opencode, command)",
        deep_default,
        &["codex", "claude", "opencode", "command"],
    )?;
    block.insert("deepReviewBackend".into(), json!(deep.to_lowercase()));
    let severity = ask_choice(
        "Least severe finding that blocks the stop (P1 or P2)",
        &current.minimum_blocking_severity.to_string(),
        &["P1", "P2"],
    )?;
    if severity != current.minimum_blocking_severity.to_string() {
        block.insert("minimumBlockingSeverity".into(), json!(severity));
    }
    let passes = ask_number(
        "Blocked stops in a row before the breaker lets the agent stop (maxStopPasses)",
        u64::from(current.max_stop_passes),
    )?;
    if passes != u64::from(current.max_stop_passes) {
        block.insert("maxStopPasses".into(), json!(passes));
    }
    let timeout = ask_number(
        "Reviewer timeout in seconds",
        current.reviewer_timeout_seconds,
    )?;
    if timeout != current.reviewer_timeout_seconds {
        block.insert("reviewerTimeoutSeconds".into(), json!(timeout));
    }
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

/// Writes car's block, keeping every other key (and byte) of the document.
fn write_block(project: &Project, block: &Map<String, Value>) -> Result<(), Error> {
    update_settings_document(project, |document| -> Result<bool, Error> {
        let value = Value::Object(block.clone());
        if document.get(SETTINGS_KEY) == Some(&value) {
            return Ok(false);
        }
        document.insert(SETTINGS_KEY.to_string(), value);
        Ok(true)
    })?;
    Ok(())
}
