//! `car status`'s sections on review: the reviewer CLI, the sessions' pending reviews and the
//! deep review's contexts and rounds.

use serde_json::{Value, json};

use crate::process::find_on_path;
use crate::project::Project;
use crate::review::blocking::Blocking;
use crate::reviewer::ReviewerUse;
use crate::settings::Settings;
use crate::text::plural;

use super::Report;

pub(super) fn reviewer_section(settings: &Settings, report: &mut Report) {
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

pub(super) fn review_section(
    project: &Project,
    settings: &Settings,
    clock: crate::clock::Clock,
    report: &mut Report,
) {
    // The gate's own view of each session now (reconciled, errors re-checked, guards applied).
    let validate = crate::pipeline::OnDisk::new(project, settings);
    let sessions =
        crate::review::gate::session_view::sessions_now(project, settings, clock, &validate);
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
pub(super) fn deep_review_section(project: &Project, settings: &Settings, report: &mut Report) {
    use crate::review::deep::context::CONTEXT_DIR;
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
    for (_, state) in crate::review::deep::state::RoundStore::all(project) {
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
