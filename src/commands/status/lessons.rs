//! `car status`'s sections on the lessons: the libraries and their counts, and how car learns.

use serde_json::{Value, json};

use crate::project::Project;
use crate::settings::Settings;
use crate::text::plural;

use super::Report;

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

pub(super) fn lessons_section(project: &Project, report: &mut Report) {
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
pub(super) fn learning_section(project: &Project, settings: &Settings, report: &mut Report) {
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
