//! `car status`'s sections on how car is set up: settings, each agent's hooks and MCP server,
//! enabled, prevention, the Python environments, the real tools found, the hooks' last errors.

use serde_json::{Value, json};

use crate::agents::{self, Agent, mcp_hooks, mcp_server, migrate};
use crate::project::Project;
use crate::settings::{Settings, keys::IGNORED_PYTHON_KEYS};
use crate::state::names::HOOK_ERRORS;

use super::Report;

/// How many of the last hook errors are shown.
const ERRORS_SHOWN: usize = 5;

pub(super) fn settings_section(project: &Project, report: &mut Report) -> Settings {
    let (checked, unreadable) = match Settings::load_checked(project) {
        Ok(checked) => (checked, None),
        Err(error) => (Default::default(), Some(error.to_string())),
    };
    let settings = checked.settings;
    let facts = [
        (
            "reviewerBackend",
            settings.reviewer_backend.name().to_string(),
        ),
        (
            "reviewerModel",
            settings
                .reviewer_model
                .clone()
                .unwrap_or_else(|| "(CLI default)".into()),
        ),
        (
            "reviewerTimeoutSeconds",
            settings.reviewer_timeout_seconds.to_string(),
        ),
        ("maxStopPasses", settings.max_stop_passes.to_string()),
        (
            "minimumBlockingSeverity",
            settings.minimum_blocking_severity.to_string(),
        ),
        (
            "rulesFile",
            settings
                .rules_file
                .clone()
                .unwrap_or_else(|| "(installed rules.md or car's default)".into()),
        ),
        (
            "classifierBackend",
            settings.classifier_backend.name().to_string(),
        ),
        (
            "deepReviewBackend",
            settings.deep_review_backend.name().to_string(),
        ),
    ];
    let mut lines: Vec<String> = facts
        .iter()
        .map(|(key, value)| format!("{key}: {value}"))
        .collect();
    if let Some(error) = &unreadable {
        lines.push(format!("warning: {error} (the hooks use the defaults)"));
    }
    for problem in &checked.problems {
        lines.push(format!("warning: {problem}"));
    }
    if !checked.problems.is_empty() {
        lines.push("hint: `car config --non-interactive` repairs these keys".into());
    }
    let block = crate::settings::read_block(&project.settings_file()).unwrap_or_default();
    for (key, why) in IGNORED_PYTHON_KEYS {
        if block.contains_key(key) {
            lines.push(format!(
                "note: \"{key}\" (the Python tool's) has no effect in car: {why}"
            ));
        }
    }
    let problems: Vec<Value> = checked
        .problems
        .iter()
        .map(|p| json!({"key": p.key, "value": p.value, "message": p.message()}))
        .collect();
    report.add(
        "settings",
        json!({
            "file": project.settings_file(),
            "unreadable": unreadable,
            "problems": problems,
            "reviewerBackend": settings.reviewer_backend.name(),
            "reviewerModel": settings.reviewer_model,
            "reviewerTimeoutSeconds": settings.reviewer_timeout_seconds,
            "maxStopPasses": settings.max_stop_passes,
            "minimumBlockingSeverity": settings.minimum_blocking_severity.to_string(),
            "classifierBackend": settings.classifier_backend.name(),
            "deepReviewBackend": settings.deep_review_backend.name(),
        }),
        format!("settings ({})", project.settings_file().display()),
        lines,
    );
    settings
}

/// One line per agent; returns the agents car is wired into.
pub(super) fn agents_section(
    project: &Project,
    settings: &Settings,
    report: &mut Report,
) -> Vec<Agent> {
    let mut lines = Vec::new();
    let mut rows = Vec::new();
    let mut wired_agents = Vec::new();
    for agent in Agent::ALL {
        let path = agent.path(project);
        let text = crate::files::read_optional(&path).ok().flatten();
        let document = match crate::settings::parse_document(&path, text.as_deref()) {
            Ok(document) => document,
            Err(error) => {
                lines.push(format!("{}: cannot read: {error}", agent.title()));
                continue;
            }
        };
        let found = agents::handlers(&document);
        let expected = agent.entries(settings);
        let mut parts = Vec::new();
        let mut events = Vec::new();
        for event in expected.keys() {
            let wired = found
                .iter()
                .find(|h| &h.event == event && agents::is_car_command(&h.command));
            parts.push(match wired {
                Some(handler) => match handler.timeout {
                    Some(timeout) => {
                        format!(
                            "  {event}: yes (timeout {timeout} {})",
                            agent.timeout_unit()
                        )
                    }
                    None => format!("  {event}: yes"),
                },
                None => format!("  {event}: NO"),
            });
            events.push(json!({"event": event, "wired": wired.is_some(), "timeout": wired.and_then(|h| h.timeout)}));
        }
        let any_wired = events.iter().any(|event| event["wired"] == json!(true));
        rows.push(json!({"agent": agent.name(), "file": agent.file(), "wired": any_wired, "events": events}));
        if !any_wired {
            lines.push(format!(
                "{} ({}): not wired (`car install --agent {}`)",
                agent.title(),
                agent.file(),
                agent.name()
            ));
            continue;
        }
        wired_agents.push(agent);
        lines.push(format!("{} ({})", agent.title(), agent.file()));
        if mcp_hooks::transport_of(&document) == mcp_hooks::HookTransport::Mcp {
            lines.push("  through car mcp: each event calls the `hook` tool of the running server (\"type\": \"mcp_tool\")".into());
            if let Some(row) = rows.last_mut() {
                row["through_mcp"] = json!(true);
            }
        }
        lines.extend(parts.iter().cloned());
        if parts.iter().any(|part| part.ends_with("NO")) {
            lines.push(format!(
                "  hint: `car install --agent {}` wires the missing hooks",
                agent.name()
            ));
        }
        if found
            .iter()
            .any(|h| agents::is_car_command(&h.command) && !agents::names_its_agent(&h.command))
        {
            lines.push(format!(
                "  hint: some of car's hooks here do not name their agent (an older car wired them); `car install --agent {}` updates them in place",
                agent.name()
            ));
        }
        for (event, found_matcher, wanted) in outdated_matchers(&expected, &found) {
            lines.push(format!(
                "  hint: car's {event} hook here matches `{found_matcher}`, not `{wanted}` as this car wires it with these settings (reads run it only while `editBriefing` is on); `car install --agent {}` updates it in place",
                agent.name()
            ));
        }
        if agent == Agent::Codex {
            let trust = agents::codex_trust::check(project, &document);
            lines.push(format!("  {}", trust.describe()));
            if let Some(row) = rows.last_mut() {
                row["codex_trust"] = trust.to_json();
            }
        }
        if let Some(stale) = stale_stop_timeout(agent, &found, settings) {
            lines.push(stale);
        }
        for handler in found
            .iter()
            .filter(|h| migrate::is_python_tool_command(&h.command))
        {
            lines.push(format!(
                "  warning: the Python claude-auto-review hook {} `{}` still runs; `car install` replaces it",
                handler.event, handler.command
            ));
        }
    }
    report.add("agents", Value::Array(rows), "hooks", lines);
    wired_agents
}

/// car's MCP server in each agent's MCP configuration, and Claude Code's approval of it.
pub(super) fn mcp_section(project: &Project, report: &mut Report) {
    let mut lines = Vec::new();
    let mut rows = Vec::new();
    for agent in Agent::ALL {
        let Some(registration) = mcp_server::registration(project, agent) else {
            continue;
        };
        lines.push(registration.describe(agent));
        let mut row = json!({
            "agent": agent.name(),
            "file": mcp_server::file(agent),
            "state": registration.name(),
            "command": registration.command(),
        });
        if agent == Agent::Claude && registration.command().is_some() {
            let approval = mcp_server::claude_approval(project);
            lines.push(format!("  {}", approval.describe()));
            row["approval"] = json!(approval.name());
        }
        rows.push(row);
    }
    report.add("mcp", Value::Array(rows), "mcp server (car mcp)", lines);
}

/// (event, the matcher found, the matcher this car wires) for each of car's hooks whose group
/// matches other tools than `expected` names (a file wired by an older car, or before
/// `editBriefing` was turned off or on).
fn outdated_matchers(
    expected: &serde_json::Map<String, Value>,
    found: &[agents::Handler],
) -> Vec<(String, String, String)> {
    expected
        .iter()
        .filter_map(|(event, groups)| {
            let wanted = groups.get(0)?.get("matcher")?.as_str()?;
            let handler = found
                .iter()
                .find(|h| &h.event == event && agents::is_car_command(&h.command))?;
            let found_matcher = handler.matcher.clone().unwrap_or_default();
            (found_matcher != wanted).then(|| (event.clone(), found_matcher, wanted.to_string()))
        })
        .collect()
}

/// A warning when the Stop hook would be killed before the reviewer's own timeout.
fn stale_stop_timeout(
    agent: Agent,
    found: &[agents::Handler],
    settings: &Settings,
) -> Option<String> {
    let spec = agent.spec();
    let stop_event = spec.stop_event()?;
    let timeout = found
        .iter()
        .find(|h| h.event == stop_event && agents::is_car_command(&h.command))?
        .timeout?;
    let seconds = spec.hook_file.timeout_unit.seconds_of(timeout);
    (seconds <= settings.reviewer_timeout_seconds).then(|| {
        format!(
            "  warning: the {stop_event} timeout ({seconds} s) is not above reviewerTimeoutSeconds ({}); `car config` or `car install --agent {}` updates it",
            settings.reviewer_timeout_seconds,
            agent.name()
        )
    })
}

pub(super) fn enabled_section(settings: &Settings, wired: &[Agent], report: &mut Report) {
    let line = match (settings.enabled, wired.is_empty()) {
        (false, _) => "enabled: no (\"enabled\": false; `car config --enabled true` turns it on)".to_string(),
        (true, true) => "enabled: no agent's hooks are wired here (`car install`), unless car runs as a Claude Code plugin".to_string(),
        (true, false) => format!(
            "enabled: yes ({})",
            wired.iter().map(|agent| agent.title()).collect::<Vec<_>>().join(", ")
        ),
    };
    report.add(
        "enabled",
        json!(settings.enabled && !wired.is_empty()),
        "",
        [line],
    );
}

/// What the PreToolUse hook stops before a write lands, and the session-start briefing.
pub(super) fn prevention_section(settings: &Settings, report: &mut Report) {
    let before = if settings.prevent_edits {
        format!(
            "before the edit: on (a write a trusted checker rejects, or that repeats a lesson of weight {} or more, is stopped before it lands; `preventEdits: false` turns it off)",
            settings.prevent_weight
        )
    } else {
        "before the edit: off (\"preventEdits\": false; edits are checked after they land)"
            .to_string()
    };
    let briefing = if settings.session_briefing {
        "at session start: the project's lessons are briefed (`sessionBriefing: false` turns it off)"
    } else {
        "at session start: no briefing (\"sessionBriefing\": false)"
    };
    let file_lessons = if settings.edit_briefing {
        "with each file's first write: the lessons of the file are given to the agent (`editBriefing: false` turns it off)"
    } else {
        "with each file's first write: no lessons (\"editBriefing\": false)"
    };
    report
        .json
        .insert("session_briefing".into(), json!(settings.session_briefing));
    report.add(
        "before_the_edit",
        json!({"enabled": settings.prevent_edits, "prevent_weight": settings.prevent_weight, "edit_briefing": settings.edit_briefing}),
        "prevention",
        [before, briefing.to_string(), file_lessons.to_string()],
    );
}

/// The Python that checks the project's Python files.
pub(super) fn python_section(project: &Project, settings: &Settings, report: &mut Report) {
    let explicit = settings.python_interpreter.as_deref();
    let line = crate::validate::python::describe_interpreter(project.checkout(), explicit);
    // A sub-folder with its own project files or environment checks its files with its own
    // (issue 40, item 8): each is named with the files it serves.
    let sub_projects =
        crate::validate::python::overview::sub_projects(project.checkout(), explicit);
    if sub_projects.is_empty() {
        report.add("python", json!(line), "python", [line.clone()]);
        return;
    }
    report
        .json
        .insert("python_projects".into(), json!(sub_projects));
    let lines = std::iter::once(format!("other files: {line}")).chain(sub_projects);
    report.add("python", json!(line), "python", lines);
}

/// The real tools the syntax checks found, per language (issue 40, item 3): where none runs,
/// tree-sitter's findings stand.
pub(super) fn tools_section(report: &mut Report) {
    let found = crate::validate::tool_inventory::inventory();
    let json = json!({
        "tools": found.iter().map(|tool| tool.to_json()).collect::<Vec<_>>(),
        "in_process_only": crate::validate::tool_inventory::IN_PROCESS_ONLY,
    });
    let lines = found
        .iter()
        .map(|tool| tool.describe())
        .chain([crate::validate::tool_inventory::IN_PROCESS_ONLY.to_string()]);
    report.add("syntax_tools", json, "syntax checkers", lines);
}

pub(super) fn errors_section(project: &Project, report: &mut Report) {
    let path = project.state_dir().join(HOOK_ERRORS);
    let Ok(Some(text)) = crate::files::read_optional(&path) else {
        report.add(
            "last_errors",
            json!([]),
            "last errors",
            ["none".to_string()],
        );
        return;
    };
    let recent: Vec<&str> = text.lines().rev().take(ERRORS_SHOWN).collect();
    let mut lines = Vec::new();
    let mut entries = Vec::new();
    for line in recent.into_iter().rev() {
        let value: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let when = value["ts"].as_i64().map_or_else(
            || "?".to_string(),
            |ts| crate::clock::Clock::fixed(ts).rfc3339(),
        );
        let message = value["error"].as_str().unwrap_or(line);
        lines.push(format!("{when} {message}"));
        entries.push(json!({"at": when, "error": message}));
    }
    report.add(
        "last_errors",
        Value::Array(entries),
        format!("last errors ({})", path.display()),
        lines,
    );
}
