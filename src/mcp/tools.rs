//! The tools `car mcp` offers an agent, each answering with text for the model and the same
//! facts as structured JSON:
//! - `lessons_for` — the lessons that apply to a file (and, given the code about to be written,
//!   the lines they fire on), with their examples;
//! - `check` — what car would say after writing this content to this file, without writing;
//! - `explain` — one lesson (or proposal) with its evidence and history;
//! - `propose_lesson` — the agent's own mistake and its fix, recorded as a candidate of source
//!   `agent` and verified like every other; never a lesson by itself.
//!
//! Invariants: only `propose_lesson` writes (the candidate pool and the refusal log, through the
//! learning door); a bad argument is a tool error naming the argument, never a crash.

use std::path::Path;

use serde_json::{Value, json};

use crate::clock::Clock;
use crate::edit::{Delta, Edit, NotChecked, read_project_file};
use crate::learning::sighting::Noted;
use crate::lessons::examples::fires;
use crate::lessons::model::Lesson;
use crate::lessons::provenance::{Evidence, KNOWN_INSTANCES_FIELD, Source};
use crate::lessons::store::{self, LessonFile};
use crate::lessons::{LessonScope, library, proposals};
use crate::pipeline::{Checker, LessonUse};
use crate::project::{Inside, Project};
use crate::settings::Settings;

/// At most this many lessons are listed for one file (the heaviest).
const MAX_LESSONS_LISTED: usize = 20;

/// What a tool answered: text for the model, and the same as data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolAnswer {
    pub(crate) text: String,
    pub(crate) data: Value,
}

/// Why a tool call got no answer; the model reads it as a tool error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    #[error("missing argument \"{0}\"")]
    Missing(&'static str),
    #[error("argument \"{0}\" must be a string")]
    NotText(&'static str),
    #[error("argument \"{0}\" must not be empty")]
    Empty(&'static str),
    #[error("{0}")]
    NotChecked(NotChecked),
    #[error("{path}: not a file of this project ({root})")]
    Outside { path: String, root: String },
    #[error(
        "no lesson or proposed lesson has the id {0:?} (`lessons_for` lists the lessons of a file)"
    )]
    NoSuchLesson(String),
    #[error("{0}")]
    Lessons(#[from] crate::lessons::LessonsError),
    #[error("{0}")]
    Settings(#[from] crate::settings::SettingsError),
    #[error("{0}")]
    Clock(String),
}

/// The tools' names, descriptions and argument schemas (`tools/list`).
pub(crate) fn list() -> Value {
    let path = json!({"type": "string", "description": "the file, relative to the project or absolute inside it"});
    json!([
        {
            "name": "lessons_for",
            "description": "The lessons this project learned that apply to a file, heaviest first, each with its examples. Give `content` (the code you are about to write) to see which lines a lesson fires on. Call it before editing a file.",
            "inputSchema": {"type": "object", "properties": {
                "path": path,
                "content": {"type": "string", "description": "optional: the code about to be written"}
            }, "required": ["path"]}
        },
        {
            "name": "check",
            "description": "What car would say after writing `content` to `path` (syntax and import errors from the real tools, lesson warnings), without writing anything.",
            "inputSchema": {"type": "object", "properties": {
                "path": path,
                "content": {"type": "string", "description": "the whole file as it would be written"}
            }, "required": ["path", "content"]}
        },
        {
            "name": "explain",
            "description": "One lesson by id: its text, triggers, scope, weight, where it came from (every place it was seen, with the line as written and as fixed) and how often it was heeded or ignored.",
            "inputSchema": {"type": "object", "properties": {
                "id": {"type": "string", "description": "the lesson's id, as lessons_for or a warning names it"}
            }, "required": ["id"]}
        },
        {
            "name": "propose_lesson",
            "description": "Propose a lesson from a mistake you made and fixed: the line as you wrote it and as fixed. It becomes a candidate, verified against this project's code like every lesson car learns; it becomes a lesson only when car sees the same mistake fixed again (a review, a person's correction). Never for a syntax slip.",
            "inputSchema": {"type": "object", "properties": {
                "path": path,
                "bad": {"type": "string", "description": "the line as you wrote it (the mistake)"},
                "good": {"type": "string", "description": "the same line fixed"},
                "why": {"type": "string", "description": "why it is a mistake, in one sentence"}
            }, "required": ["path", "bad", "good"]}
        }
    ])
}

/// Whether `name` is one of the tools.
pub(crate) fn is_known(name: &str) -> bool {
    ["lessons_for", "check", "explain", "propose_lesson"].contains(&name)
}

/// Runs tool `name` (one of [`list`]'s) with `arguments`.
pub(crate) fn call(
    project: &Project,
    name: &str,
    arguments: &Value,
) -> Result<ToolAnswer, ToolError> {
    let clock = Clock::from_env().map_err(|error| ToolError::Clock(error.to_string()))?;
    match name {
        "lessons_for" => lessons_for(project, arguments),
        "check" => check(project, clock, arguments),
        "explain" => explain(project, arguments),
        _ => propose_lesson(project, clock, arguments),
    }
}

fn text<'a>(arguments: &'a Value, name: &'static str) -> Result<&'a str, ToolError> {
    match arguments.get(name) {
        None | Some(Value::Null) => Err(ToolError::Missing(name)),
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(ToolError::NotText(name)),
    }
}

fn optional_text<'a>(
    arguments: &'a Value,
    name: &'static str,
) -> Result<Option<&'a str>, ToolError> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => text(arguments, name).map(Some),
    }
}

/// The project file `path` names (it need not exist yet).
fn file_of(project: &Project, path: &str) -> Result<Inside, ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::Empty("path"));
    }
    project
        .inside(Path::new(path))
        .ok_or_else(|| ToolError::Outside {
            path: path.to_string(),
            root: project.checkout().display().to_string(),
        })
}

/// The project's lessons and the user's, live.
fn all_lessons(project: &Project) -> Result<Vec<(Lesson, &'static str)>, ToolError> {
    let mut found: Vec<(Lesson, &'static str)> = library::load_live(&project.lessons_file())?
        .lessons()
        .map(|lesson| (lesson.clone(), "project"))
        .collect();
    if let Some(user) = store::user_lessons_path() {
        found.extend(
            LessonFile::load(&user)?
                .lessons()
                .map(|lesson| (lesson.clone(), "user")),
        );
    }
    Ok(found)
}

fn lessons_for(project: &Project, arguments: &Value) -> Result<ToolAnswer, ToolError> {
    let file = file_of(project, text(arguments, "path")?)?;
    let content = optional_text(arguments, "content")?;
    let mut applying: Vec<(Lesson, &'static str)> = all_lessons(project)?
        .into_iter()
        .filter(|(lesson, _)| lesson.scope.matches(&file.relative))
        .collect();
    applying.sort_by(|a, b| b.0.weight.cmp(&a.0.weight).then(a.0.id.cmp(&b.0.id)));
    let total = applying.len();
    applying.truncate(MAX_LESSONS_LISTED);
    let mut lines = vec![match total {
        0 => format!("No lesson of this project applies to {}.", file.relative),
        n => format!(
            "{} {} to {}{}:",
            crate::text::plural(n, "lesson"),
            if n == 1 { "applies" } else { "apply" },
            file.relative,
            if n > MAX_LESSONS_LISTED {
                " (the heaviest 20)"
            } else {
                ""
            }
        ),
    }];
    let mut data = Vec::new();
    for (lesson, layer) in &applying {
        let firing: Vec<(usize, &str)> = content
            .map(|content| {
                content
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| fires(lesson, line).unwrap_or(false))
                    .map(|(index, line)| (index + 1, line))
                    .collect()
            })
            .unwrap_or_default();
        lines.push(format!(
            "- (weight {}, id {}) {}",
            lesson.weight, lesson.id, lesson.text
        ));
        if let Some(examples) = &lesson.examples {
            for example in examples.should_match.iter().take(2) {
                lines.push(format!("    wrong: {example}"));
            }
            for example in examples.should_not_match.iter().take(2) {
                lines.push(format!("    right: {example}"));
            }
        }
        for (line, code) in &firing {
            lines.push(format!(
                "    FIRES on line {line} of your content: {}",
                crate::text::shorten(code.trim(), 120)
            ));
        }
        data.push(json!({
            "id": lesson.id, "layer": layer, "scope": lesson.scope.as_str(),
            "triggers": lesson.trigger_texts(), "lesson": lesson.text, "weight": lesson.weight,
            "source": Source::of(&lesson.extra).map(Source::as_str),
            "examples": lesson.examples.clone().unwrap_or_default(),
            "fires_on": firing.iter().map(|(line, code)| json!({"line": line, "text": code})).collect::<Vec<_>>(),
        }));
    }
    Ok(ToolAnswer {
        text: lines.join("\n"),
        data: json!({"path": file.relative, "total": total, "lessons": data}),
    })
}

fn check(project: &Project, clock: Clock, arguments: &Value) -> Result<ToolAnswer, ToolError> {
    let path = text(arguments, "path")?;
    let content = text(arguments, "content")?.to_string();
    let file = file_of(project, path)?;
    let current = match read_project_file(project, &file.resolved) {
        Ok((_, current)) => Some(current),
        Err(NotChecked::Missing { .. }) => None,
        Err(not_checked) => return Err(ToolError::NotChecked(not_checked)),
    };
    let added = Delta::Whole {
        before: current.clone(),
    }
    .added_lines(&content);
    let edit = Edit {
        path: file.resolved.clone(),
        relative_path: file.relative.clone(),
        tool: "mcp check".into(),
        content,
        before: current,
        added,
        language: None,
    };
    let settings = Settings::load(project)?;
    let lessons = LessonUse {
        record: false,
        user_layer: true,
    };
    let report = Checker::new(project, &settings, clock, lessons).check(&edit);
    let errors: Vec<&crate::diagnostic::Diagnostic> =
        report.diagnostics.iter().filter(|d| d.is_error()).collect();
    let others: Vec<&crate::diagnostic::Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .collect();
    let warnings = if settings.lessons_warn() {
        report.warnings
    } else {
        Vec::new()
    };
    let verdict = if !errors.is_empty() {
        "car would block this write"
    } else if !warnings.is_empty() {
        "car would let this write through with lesson warnings"
    } else {
        "car would let this write through without a word"
    };
    let mut lines = vec![format!("{verdict} ({}):", file.relative)];
    lines.extend(errors.iter().map(|d| format!("- error: {}", d.render())));
    lines.extend(others.iter().map(|d| format!("- note: {}", d.render())));
    lines.extend(warnings.iter().map(|w| {
        format!(
            "- ⚠️ lesson (weight {}): {} [{}:{}]",
            w.weight, w.lesson, w.file, w.line
        )
    }));
    if lines.len() == 1 {
        lines[0].pop();
        lines[0].push('.');
    }
    Ok(ToolAnswer {
        text: lines.join("\n"),
        data: json!({
            "path": file.relative,
            "blocks": !errors.is_empty(),
            "errors": errors.iter().map(|d| d.render()).collect::<Vec<_>>(),
            "notes": others.iter().map(|d| d.render()).collect::<Vec<_>>(),
            "warnings": warnings,
        }),
    })
}

fn explain(project: &Project, arguments: &Value) -> Result<ToolAnswer, ToolError> {
    let id = text(arguments, "id")?.trim();
    if id.is_empty() {
        return Err(ToolError::Empty("id"));
    }
    let mut known: Vec<(Lesson, &'static str)> = all_lessons(project)?;
    known.extend(proposals::waiting(project)?.into_iter().map(|lesson| {
        (
            lesson,
            "proposed (waits for a person: `car lessons review`)",
        )
    }));
    let Some((lesson, state)) = known.into_iter().find(|(lesson, _)| lesson.id == id) else {
        return Err(ToolError::NoSuchLesson(id.to_string()));
    };
    let source = Source::of(&lesson.extra);
    let mut lines = vec![
        format!("Lesson {} ({state}): {}", lesson.id, lesson.text),
        format!(
            "scope {}; triggers {}; weight {}; source {}",
            lesson.scope.as_str(),
            lesson.trigger_texts().join(" | "),
            lesson.weight,
            source.map_or("added by a person", Source::as_str)
        ),
        format!(
            "warned {} times: heeded {}, ignored {}",
            lesson.hits, lesson.heeded, lesson.ignored
        ),
    ];
    let evidence = Evidence::all_of(&lesson.extra);
    for item in &evidence {
        let seen = source.map_or_else(
            || format!("{}:{}", item.file, item.line),
            |s| item.describe(s),
        );
        lines.push(format!("seen: {seen}: `{}` → `{}`", item.bad, item.fixed));
    }
    if let Some(count) = lesson
        .extra
        .get(KNOWN_INSTANCES_FIELD)
        .and_then(|instances| instances.get("count"))
        .and_then(Value::as_u64)
    {
        lines.push(format!(
            "it matched {count} places of the code already when car learned it"
        ));
    }
    let mut data = serde_json::to_value(lesson.to_raw()).unwrap_or(Value::Null);
    data["state"] = json!(state);
    Ok(ToolAnswer {
        text: lines.join("\n"),
        data,
    })
}

fn propose_lesson(
    project: &Project,
    clock: Clock,
    arguments: &Value,
) -> Result<ToolAnswer, ToolError> {
    let file = file_of(project, text(arguments, "path")?)?;
    let bad = text(arguments, "bad")?;
    let good = text(arguments, "good")?;
    if bad.trim().is_empty() {
        return Err(ToolError::Empty("bad"));
    }
    let why = optional_text(arguments, "why")?.unwrap_or_default();
    let settings = Settings::load(project)?;
    if !settings.lessons_enabled || !settings.learning_enabled {
        return Ok(ToolAnswer {
            text: "Not recorded: learning is switched off in car's settings for this project."
                .into(),
            data: json!({"recorded": false, "why": "learning is off"}),
        });
    }
    let scope = LessonScope::learning(project, &settings, clock);
    let proposal = crate::learning::from_agent::Proposal {
        file: &file.relative,
        bad,
        good,
        why,
    };
    let (noted, taught) = crate::learning::signals::from_agent_proposal(&scope, &proposal);
    let (recorded, said) = match &noted {
        Noted::Candidate | Noted::CountedAgain => (
            true,
            "Recorded as a lesson candidate. It becomes a lesson only when car sees the same mistake fixed in this project (a review finding fixed, a person's correction) and the pattern holds against the project's code.".to_string(),
        ),
        Noted::Known => (
            false,
            "Already known: a lesson, a proposal or this very example covers it.".to_string(),
        ),
        Noted::Refused => (
            false,
            format!(
                "Not recorded: {}",
                taught
                    .refusals
                    .first()
                    .map_or_else(String::new, |refused| refused.refusal.to_string())
            ),
        ),
        Noted::Promoted(id) | Noted::Proposed(id) => {
            (true, format!("Recorded; it confirmed the candidate {id}."))
        }
        Noted::Failed => (false, format!("Not recorded: {}", taught.notes.join("; "))),
    };
    Ok(ToolAnswer {
        text: said.clone(),
        data: json!({"recorded": recorded, "said": said, "notes": taught.notes}),
    })
}
