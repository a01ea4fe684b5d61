//! `car status`: one screen — enabled?, each agent's hooks, settings (and the keys car could not
//! use, with their values), the reviewer CLI, lessons, pending reviews, deep review (context
//! files, its reviewer, each context's round state), the hooks' last internal errors, and a
//! warning when the `car` on PATH is the Python tool. The text is laid out in sections, a heading
//! and one fact per line under it; `--json` prints the same as one object (its keys are a
//! contract: other tools read them).
//!
//! Invariant: read-only; a broken file is reported on its line, never "fixed" here.

use serde_json::{Value, json};

use crate::agents::hook_binary::HookBinary;
use crate::agents::{self, Agent, mcp_hooks, mcp_server, migrate};
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::process::find_on_path;
use crate::project::Project;
use crate::reviewer::ReviewerUse;
use crate::settings::{Settings, keys::IGNORED_PYTHON_KEYS};
use crate::state::names::HOOK_ERRORS;
use crate::text::plural;

/// Where the "enabled" section is added (after the project, the settings and the hooks, which it
/// needs); it is shown first.
const ENABLED_SECTION: usize = 3;

/// How many of the last hook errors are shown.
const ERRORS_SHOWN: usize = 5;

/// One section of the text: a heading (none for a section of one headline fact) and its facts,
/// one a line; a fact's own notes are indented under it.
struct Section {
    heading: String,
    lines: Vec<String>,
}

/// What `car status` found, as text sections and as JSON.
#[derive(Default)]
struct Report {
    sections: Vec<Section>,
    json: serde_json::Map<String, Value>,
}

impl Report {
    fn add(
        &mut self,
        key: &str,
        value: Value,
        heading: impl Into<String>,
        lines: impl IntoIterator<Item = String>,
    ) {
        self.json.insert(key.to_string(), value);
        self.sections.push(Section {
            heading: heading.into(),
            lines: lines.into_iter().collect(),
        });
    }

    /// The sections as text: a heading, its facts indented under it, a blank line between.
    fn text(&self) -> String {
        let mut blocks = Vec::with_capacity(self.sections.len());
        for section in &self.sections {
            let mut block = Vec::with_capacity(section.lines.len() + 1);
            let indent = if section.heading.is_empty() {
                ""
            } else {
                block.push(section.heading.clone());
                "  "
            };
            block.extend(section.lines.iter().map(|line| format!("{indent}{line}")));
            blocks.push(block.join("\n"));
        }
        blocks.join("\n\n")
    }
}

pub(crate) fn run(project: &Project, as_json: bool) -> Result<Outcome, Error> {
    let mut report = Report::default();
    report.add(
        "project",
        json!(project.root()),
        "",
        [format!("car status for {}", project.root().display())],
    );
    let settings = settings_section(project, &mut report);
    let wired_agents = agents_section(project, &settings, &mut report);
    enabled_section(&settings, &wired_agents, &mut report);
    mcp_section(project, &mut report);
    reviewer_section(&settings, &mut report);
    prevention_section(&settings, &mut report);
    python_section(project, &settings, &mut report);
    tools_section(&mut report);
    lessons_section(project, &mut report);
    learning_section(project, &settings, &mut report);
    review_section(
        project,
        &settings,
        crate::clock::Clock::from_env()?,
        &mut report,
    );
    deep_review_section(project, &settings, &mut report);
    errors_section(project, &mut report);
    let binary = HookBinary::find();
    report.add(
        "hook_binary",
        binary.to_json(),
        "",
        [
            Some(binary.describe()),
            binary.warning().map(|warning| format!("  {warning}")),
        ]
        .into_iter()
        .flatten(),
    );
    if let HookBinary::Python(path) = &binary {
        report.json.insert("python_car_on_path".into(), json!(path));
    }
    if as_json {
        output::print_json(&Value::Object(report.json));
    } else {
        // "enabled" first, after the project: the question people ask.
        let enabled = report.sections.remove(ENABLED_SECTION);
        report.sections.insert(1, enabled);
        output::print_data(&report.text());
    }
    Ok(Outcome::Success)
}

fn settings_section(project: &Project, report: &mut Report) -> Settings {
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
fn agents_section(project: &Project, settings: &Settings, report: &mut Report) -> Vec<Agent> {
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
fn mcp_section(project: &Project, report: &mut Report) {
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

/// A warning when the Stop hook would be killed before the reviewer's own timeout.
fn stale_stop_timeout(
    agent: Agent,
    found: &[agents::Handler],
    settings: &Settings,
) -> Option<String> {
    let scale = if agent == Agent::Gemini { 1000 } else { 1 };
    let stop_event = match agent {
        Agent::Claude | Agent::Codex => "Stop",
        Agent::Gemini => "AfterAgent",
        Agent::Cursor => "stop",
    };
    let timeout = found
        .iter()
        .find(|h| h.event == stop_event && agents::is_car_command(&h.command))?
        .timeout?;
    (timeout / scale <= settings.reviewer_timeout_seconds).then(|| {
        format!(
            "  warning: the {stop_event} timeout ({} s) is not above reviewerTimeoutSeconds ({}); `car config` or `car install --agent {}` updates it",
            timeout / scale,
            settings.reviewer_timeout_seconds,
            agent.name()
        )
    })
}

fn enabled_section(settings: &Settings, wired: &[Agent], report: &mut Report) {
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
fn prevention_section(settings: &Settings, report: &mut Report) {
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
fn python_section(project: &Project, settings: &Settings, report: &mut Report) {
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
fn tools_section(report: &mut Report) {
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

fn reviewer_section(settings: &Settings, report: &mut Report) {
    let (line, found) = match settings.reviewer_program() {
        None => (
            "manual (the agent reviews in-session and runs `car review submit`)".to_string(),
            Value::Null,
        ),
        Some(program) => match find_on_path(&program) {
            Some(path) => (
                format!("`{program}` found at {}", path.display()),
                json!(path),
            ),
            None => (
                crate::reviewer::missing_cli_warning(ReviewerUse::Gate, &program),
                Value::Null,
            ),
        },
    };
    report.add(
        "reviewer",
        json!({"backend": settings.reviewer_backend.name(), "found": found}),
        "reviewer",
        [line],
    );
}

/// Why a lessons file could not be counted.
#[derive(Debug, thiserror::Error)]
enum CountError {
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error("{path}:{located}")]
    Json {
        path: std::path::PathBuf,
        located: crate::text::JsonError,
    },
}

/// The lessons of a lessons file, counted as plain JSON (the lesson engine owns the format's
/// meaning); 0 when the file is missing.
fn count_lessons(path: &std::path::Path) -> Result<usize, CountError> {
    let Some(text) = crate::files::read_optional(path)? else {
        return Ok(0);
    };
    let value: Value = serde_json::from_str(&text).map_err(|error| CountError::Json {
        path: path.to_path_buf(),
        located: crate::text::JsonError::locate(&text, &error),
    })?;
    Ok(value
        .get("lessons")
        .and_then(Value::as_array)
        .map_or(0, Vec::len))
}

fn lessons_section(project: &Project, report: &mut Report) {
    let project_file = project.lessons_file();
    let project_count = count_lessons(&project_file);
    let mut lines = vec![match &project_count {
        Ok(_) if !project_file.exists() => format!(
            "project: none yet ({} is written when car learns a lesson or `car lessons add` adds one)",
            project_file.display()
        ),
        Ok(n) => format!(
            "project: {} in {}",
            plural(*n, "lesson"),
            project_file.display()
        ),
        Err(error) => format!("project: cannot read: {error}"),
    }];
    let mut user_count = 0;
    if let Some(user_file) = crate::paths::user_lessons_file()
        && let Ok(n) = count_lessons(&user_file)
        && n > 0
    {
        user_count = n;
        lines.push(format!(
            "user-wide: {} in {}",
            plural(n, "lesson"),
            user_file.display()
        ));
    }
    let driver = crate::state::merge_driver::registered_command(project);
    lines.push(match &driver {
        Some(command) => format!("merge driver: registered in this clone (`{command}`)"),
        None if crate::git::is_checkout(project.checkout()) => "merge driver: not registered in this clone, so git merges lessons.json line by line (`car install` registers it)".to_string(),
        None => "merge driver: not a git checkout".to_string(),
    });
    report.json.insert("merge_driver".into(), json!(driver));
    report.add(
        "lessons",
        json!({"project": project_count.ok(), "user": user_count}),
        "lessons",
        lines,
    );
}

/// What becomes of a lesson car learns (setting `learning`), and the proposals waiting.
fn learning_section(project: &Project, settings: &Settings, report: &mut Report) {
    use crate::settings::LearningMode;
    let proposals = crate::lessons::proposals::proposals_file(project);
    let waiting = count_lessons(&proposals);
    let waiting_words = match &waiting {
        Ok(n) => format!(
            "{} wait{} for a person (`car lessons review`)",
            plural(*n, "proposed lesson"),
            if *n == 1 { "s" } else { "" }
        ),
        Err(error) => format!("the proposals cannot be read: {error}"),
    };
    let line = match (settings.learning_enabled, settings.learning) {
        (false, _) => "learning: off (\"learningEnabled\": false)".to_string(),
        (true, LearningMode::Auto) => "learning: auto (a lesson car learns and verifies joins the lessons at once; \"learning\": \"approve\" makes a person decide)".to_string(),
        (true, LearningMode::Approve) => format!("learning: approve (a lesson car learns waits for a person); {waiting_words}"),
        (true, LearningMode::Observe) => format!("learning: observe (car records and proposes; no lesson warns, denies or briefs); {waiting_words}"),
    };
    report.add(
        "learning",
        json!({"mode": settings.learning.name(), "enabled": settings.learning_enabled,
               "proposed": waiting.ok()}),
        "learning",
        [line],
    );
}

fn review_section(
    project: &Project,
    settings: &Settings,
    clock: crate::clock::Clock,
    report: &mut Report,
) {
    // The gate's own view of each session now (reconciled, errors re-checked, guards applied).
    let validate = crate::pipeline::OnDisk::new(project, settings);
    let sessions = crate::gate::session_view::sessions_now(project, settings, clock, &validate);
    let threshold = settings.minimum_blocking_severity;
    let mut lines = vec![format!("sessions with recorded edits: {}", sessions.len())];
    let writes_stopped: usize = sessions
        .iter()
        .map(|snapshot| snapshot.writes_stopped)
        .sum();
    if writes_stopped > 0 {
        lines.push(format!(
            "writes stopped before they landed (PreToolUse): {writes_stopped} (`car report` lists them)"
        ));
    }
    let mut open = Vec::new();
    for snapshot in sessions.iter().filter(|snapshot| !snapshot.ended) {
        let unreviewed = snapshot.review_scope().len();
        let findings = snapshot.outstanding(threshold).len();
        let errors = snapshot.unresolved_errors().len();
        let pending = snapshot.pending_request().map(|request| request.id.clone());
        if unreviewed == 0 && findings == 0 && errors == 0 && pending.is_none() {
            continue;
        }
        lines.push(format!(
            "session {}: {}, {}, {}{}",
            snapshot.session,
            plural(unreviewed, "unreviewed file"),
            plural(findings, "open finding"),
            plural(errors, "validator error"),
            pending
                .as_ref()
                .map_or(String::new(), |id| format!(", pending review {id}"))
        ));
        open.push(json!({"session": snapshot.session, "unreviewed": unreviewed, "open_findings": findings, "validator_errors": errors, "pending_review": pending}));
    }
    report.add(
        "reviews",
        json!({"sessions": sessions.len(), "open": open, "writes_stopped": writes_stopped}),
        "reviews",
        lines,
    );
}

/// `car deep-review`: the context files it can use, its reviewer, and each context's loop.
fn deep_review_section(project: &Project, settings: &Settings, report: &mut Report) {
    use crate::deep_review::context::CONTEXT_DIR;
    let mut contexts: Vec<String> = Vec::new();
    for folder in [
        Some(project.checkout().to_path_buf()),
        crate::paths::home_dir(),
    ]
    .into_iter()
    .flatten()
    {
        let Ok(entries) = std::fs::read_dir(folder.join(CONTEXT_DIR)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let stem = name.strip_suffix(".md")?.to_string();
                (!contexts.contains(&stem)).then_some(stem)
            })
            .collect();
        names.sort();
        contexts.extend(names);
    }
    let backend = settings.deep_review_backend.name();
    let missing = crate::reviewer::missing_program(
        settings,
        &settings.deep_review_backend,
        project.checkout(),
    );
    let mut lines = vec![
        format!("reviewer: {backend}"),
        if contexts.is_empty() {
            "context files: none (`car deep-review init FEATURE` writes one)".to_string()
        } else {
            format!("context files: {}", contexts.join(", "))
        },
    ];
    if let Some(program) = &missing {
        lines.insert(
            1,
            crate::reviewer::missing_cli_warning(ReviewerUse::DeepReview, program),
        );
    }
    let mut rounds = Vec::new();
    for (_, state) in crate::deep_review::state::RoundStore::all(project) {
        let condition = match state.closed {
            None => format!("open after round {}", state.round),
            Some(status) => format!("ended with {} in round {}", status.as_str(), state.round),
        };
        lines.push(format!(
            "{}: {condition} (`car deep-review status`)",
            state.context
        ));
        rounds.push(json!({"context": state.context, "round": state.round,
            "closed": state.closed.map(|status| status.as_str())}));
    }
    report.add(
        "deep_review",
        json!({"backend": backend, "missing_cli": missing, "contexts": contexts, "rounds": rounds}),
        "deep review",
        lines,
    );
}

fn errors_section(project: &Project, report: &mut Report) {
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
