//! `car status`: one screen — enabled?, hooks wired?, settings, the reviewer CLI, lessons,
//! pending reviews and the hooks' last internal errors.
//!
//! Invariant: read-only; a broken file is reported on its line, never "fixed" here.

use serde_json::Value;

use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::process::find_on_path;
use crate::project::Project;
use crate::settings::{Settings, read_settings_document};
use crate::state_dir::HOOK_ERRORS_FILE;

/// How many of the last hook errors are shown.
const ERRORS_SHOWN: usize = 5;

pub(crate) fn run(project: &Project) -> Result<Outcome, Error> {
    let mut lines = vec![format!("car status for {}", project.root().display())];
    let settings = match Settings::load(project) {
        Ok(settings) => settings,
        Err(error) => {
            lines.push(format!("settings: {error} (the hooks use the defaults)"));
            Settings::default()
        }
    };
    lines.push(format!(
        "enabled: {}",
        if settings.enabled {
            "yes"
        } else {
            "no (\"enabled\": false)"
        }
    ));
    lines.push(hooks_line(project, &settings));
    lines.push(settings_line(&settings));
    lines.push(reviewer_line(&settings));
    lines.push(lessons_line(project));
    lines.extend(review_lines(project, &settings));
    lines.extend(error_lines(project));
    output::print_data(&lines.join("\n"));
    Ok(Outcome::Success)
}

fn hooks_line(project: &Project, settings: &Settings) -> String {
    let document = match read_settings_document(&project.settings_file()) {
        Ok(document) => document,
        Err(error) => return format!("hooks: cannot read: {error}"),
    };
    let parts: Vec<String> = crate::commands::install::wired_commands()
        .iter()
        .map(
            |(event, command)| match wired_timeout(&document, event, command) {
                Some(Some(timeout)) => format!("{event} yes (timeout {timeout} s)"),
                Some(None) => format!("{event} yes"),
                None => format!("{event} NO"),
            },
        )
        .collect();
    let mut line = format!("hooks: {}", parts.join(", "));
    if let Some(Some(timeout)) = wired_timeout(&document, "Stop", "car hook stop")
        && timeout <= settings.reviewer_timeout_seconds
    {
        line.push_str(&format!(
            "\n  warning: the Stop timeout ({timeout} s) is not above reviewerTimeoutSeconds ({}); run `car install` again",
            settings.reviewer_timeout_seconds
        ));
    }
    if parts.iter().any(|part| part.ends_with("NO")) {
        line.push_str("\n  hint: `car install` wires the missing hooks");
    }
    line
}

/// `Some(timeout)` when a hook of `event` runs `command`.
fn wired_timeout(
    document: &serde_json::Map<String, Value>,
    event: &str,
    command: &str,
) -> Option<Option<u64>> {
    document
        .get("hooks")?
        .get(event)?
        .as_array()?
        .iter()
        .filter_map(|group| group.get("hooks")?.as_array())
        .flatten()
        .find(|hook| {
            hook.get("command")
                .and_then(Value::as_str)
                .is_some_and(|text| text.trim().ends_with(command))
        })
        .map(|hook| hook.get("timeout").and_then(Value::as_u64))
}

fn settings_line(settings: &Settings) -> String {
    format!(
        "settings: reviewerBackend {}, reviewerModel {}, reviewerTimeoutSeconds {}, maxStopPasses {}, minimumBlockingSeverity {}, rulesFile {}, classifierBackend {}",
        settings.reviewer_backend.name(),
        settings
            .reviewer_model
            .as_deref()
            .unwrap_or("(CLI default)"),
        settings.reviewer_timeout_seconds,
        settings.max_stop_passes,
        settings.minimum_blocking_severity,
        settings
            .rules_file
            .as_deref()
            .unwrap_or("(installed rules.md or car's default)"),
        settings.classifier_backend.name()
    )
}

fn reviewer_line(settings: &Settings) -> String {
    match settings.reviewer_program() {
        None => {
            "reviewer: manual (the agent reviews in-session and runs `car review submit`)".into()
        }
        Some(program) => match find_on_path(&program) {
            Some(path) => format!("reviewer: `{program}` found at {}", path.display()),
            None => format!(
                "reviewer: warning: `{program}` is not on PATH; the stop gate will block until it is"
            ),
        },
    }
}

/// Counts lessons as plain JSON (the lesson engine owns the format's meaning).
fn lessons_line(project: &Project) -> String {
    let count = |path: &std::path::Path| -> Result<usize, String> {
        let Some(text) = crate::files::read_optional(path).map_err(|e| e.to_string())? else {
            return Ok(0);
        };
        let value: Value = serde_json::from_str(&text).map_err(|error| {
            let located = crate::text::JsonError::locate(&text, &error);
            format!("{}:{located}", path.display())
        })?;
        Ok(value
            .get("lessons")
            .and_then(Value::as_array)
            .map_or(0, Vec::len))
    };
    let project_file = project.lessons_file();
    let mut line = match count(&project_file) {
        Ok(n) => format!("lessons: {n} in {}", project_file.display()),
        Err(error) => format!("lessons: cannot read: {error}"),
    };
    if let Some(user_file) = crate::paths::user_lessons_file()
        && let Ok(n) = count(&user_file)
        && n > 0
    {
        line.push_str(&format!(", {n} user-wide in {}", user_file.display()));
    }
    line
}

fn review_lines(project: &Project, settings: &Settings) -> Vec<String> {
    let sessions = crate::review::log::sessions(project);
    let threshold = settings.minimum_blocking_severity;
    let mut lines = vec![format!(
        "reviews: {} sessions with recorded edits",
        sessions.len()
    )];
    for snapshot in sessions.iter().filter(|snapshot| !snapshot.ended) {
        let unreviewed = snapshot.unreviewed().len();
        let open = snapshot.outstanding(threshold).len();
        let errors = snapshot.unresolved_errors().len();
        let pending = snapshot.pending_request().map(|request| request.id.clone());
        if unreviewed == 0 && open == 0 && errors == 0 && pending.is_none() {
            continue;
        }
        lines.push(format!(
            "  session {}: {unreviewed} unreviewed files, {open} open findings, {errors} validator errors{}",
            snapshot.session,
            pending.map_or(String::new(), |id| format!(", pending review {id}"))
        ));
    }
    lines
}

fn error_lines(project: &Project) -> Vec<String> {
    let path = project.state_dir().join(HOOK_ERRORS_FILE);
    let Ok(Some(text)) = crate::files::read_optional(&path) else {
        return vec!["last errors: none".into()];
    };
    let recent: Vec<&str> = text.lines().rev().take(ERRORS_SHOWN).collect();
    let mut lines = vec![format!("last errors ({}):", path.display())];
    for line in recent.into_iter().rev() {
        let value: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let when = value["ts"].as_i64().map_or_else(
            || "?".to_string(),
            |ts| crate::clock::Clock::fixed(ts).rfc3339(),
        );
        let message = value["error"].as_str().unwrap_or(line);
        lines.push(format!("  {when} {message}"));
    }
    lines
}
