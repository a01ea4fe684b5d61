//! `car lessons learn-from-reviews FILE… [--json]`: learns from the team's pull-request review
//! comments ([`crate::learning::review_history`]) through the learning door.
//!
//! Invariants: every file is read and checked before anything is learned (a bad file changes
//! nothing); what taught nothing is counted by reason and every refusal is shown; progress goes
//! to stderr, the result to stdout only with `--json`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::learning::review_history::Imported;
use crate::learning::review_history::github::{self, ReviewComment};
use crate::learning::signals;
use crate::lessons::LessonScope;
use crate::output;
use crate::project::Project;
use crate::settings::{ReviewerBackend, Settings};

/// Above this many comments, progress is shown every this many.
const PROGRESS_EVERY: usize = 500;
/// Progress of `--with-model`: the first question to the reviewer, then every this many.
const MODEL_PROGRESS_EVERY: usize = 10;

pub(crate) fn run(
    project: &Project,
    clock: Clock,
    files: &[PathBuf],
    as_json: bool,
    with_model: bool,
) -> Result<Outcome, Error> {
    let settings = Settings::load(project)?;
    if !settings.lessons_enabled || !settings.learning_enabled {
        return Err(Error::Usage(
            "learning is switched off in car's settings (\"lessons\" or \"learning\"); nothing \
             was read"
                .into(),
        ));
    }
    if with_model && settings.reviewer_backend == ReviewerBackend::Manual {
        return Err(Error::Usage(
            "--with-model sends comments to the reviewer CLI, and the reviewer is `manual`; \
             choose one with `car config --backend claude|codex|opencode|command`; nothing was read"
                .into(),
        ));
    }
    let mut comments: Vec<ReviewComment> = Vec::new();
    for file in files {
        let read = github::read(file)?;
        output::print_message(&format!(
            "read {} from {}",
            crate::text::plural(read.len(), "review comment"),
            file.display()
        ));
        comments.extend(read);
    }
    let scope = LessonScope::learning(project, &settings, clock);
    let total = comments.len();
    let mut asked = 0;
    let timeout = Duration::from_secs(settings.reviewer_timeout_seconds);
    let mut ask = |prompt: &str| {
        asked += 1;
        if asked == 1 || asked % MODEL_PROGRESS_EVERY == 0 {
            output::print_message(&format!(
                "… asking the {} reviewer about comment {asked} in words",
                settings.reviewer_backend
            ));
        }
        crate::reviewer::ask(&settings, project.checkout(), prompt, timeout)
            .map_err(|error| error.to_string())
    };
    let ask: Option<crate::learning::review_history::Ask<'_>> =
        if with_model { Some(&mut ask) } else { None };
    let imported = signals::from_review_history(
        &scope,
        &comments,
        |done| {
            if total > PROGRESS_EVERY && done % PROGRESS_EVERY == 0 {
                output::print_message(&format!("… {done} of {total} comments"));
            }
        },
        ask,
    );
    if as_json {
        output::print_json(&as_json_value(&imported));
    } else {
        print_text(&imported);
    }
    Ok(Outcome::Success)
}

fn print_text(imported: &Imported) {
    output::print_message(&format!(
        "{} of {} {} a suggested change{}",
        imported.suggestions,
        imported.comments,
        if imported.comments == 1 {
            "comment holds"
        } else {
            "comments hold"
        },
        if imported.outdated > 0 {
            format!(
                " ({} on lines that changed since, read as they were written)",
                imported.outdated
            )
        } else {
            String::new()
        }
    ));
    if imported.by_model > 0 {
        output::print_message(&format!(
            "  {} read by the reviewer model from comments in words, each checked against the commented lines",
            crate::text::plural(imported.by_model, "change")
        ));
    }
    for (reason, count) in &imported.skipped {
        output::print_message(&format!("  not evidence: {count} {}", reason.reason()));
    }
    for note in &imported.taught.notes {
        output::print_message(note);
    }
    for refused in &imported.taught.refusals {
        output::print_message(&format!(
            "not learned from `{}` in {}: {}",
            refused.subject, refused.scope, refused.refusal
        ));
    }
    let proposed = if imported.proposed.is_empty() {
        String::new()
    } else {
        format!(
            "{} waiting for a person (`car lessons review`), ",
            crate::text::plural(imported.proposed.len(), "proposed lesson")
        )
    };
    output::print_data(&format!(
        "{}, {proposed}{}, {} known already",
        crate::text::plural(imported.lessons.len(), "lesson"),
        crate::text::plural(imported.candidates, "new candidate"),
        imported.known
    ));
    if imported.candidates > 0 {
        output::print_hint(
            "a candidate becomes a lesson when the same change is suggested on another pull \
             request or file; `car lessons candidates` lists them",
        );
    }
}

fn as_json_value(imported: &Imported) -> serde_json::Value {
    let skipped: serde_json::Map<String, serde_json::Value> = imported
        .skipped
        .iter()
        .map(|(reason, count)| (reason.as_str().to_string(), json!(count)))
        .collect();
    let refused: Vec<serde_json::Value> = imported
        .taught
        .refusals
        .iter()
        .map(|refused| {
            json!({"kind": refused.refusal.kind(), "scope": refused.scope,
                   "subject": refused.subject, "reason": refused.refusal.to_string()})
        })
        .collect();
    json!({
        "comments": imported.comments,
        "suggestions": imported.suggestions,
        "outdated": imported.outdated,
        "skipped": skipped,
        "lessons": imported.lessons,
        "proposed": imported.proposed,
        "candidates": imported.candidates,
        "known": imported.known,
        "by_model": imported.by_model,
        "refused": refused,
        "notes": imported.taught.notes,
    })
}
