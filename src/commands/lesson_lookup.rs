//! Naming and showing one lesson, for the commands that take a lesson's id (`show`, `rm`,
//! `edit`, `restore`, `accept`).

use crate::error::Error;
use crate::lessons::LessonsError;
use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;
use crate::project::Project;

/// The full id of the lesson `id` names (itself, or a unique prefix) in the project's and the
/// user's lessons.
pub(crate) fn resolve(project: &Project, id: &str, files: &[&LessonFile]) -> Result<String, Error> {
    let ids = files
        .iter()
        .flat_map(|file| file.lessons().map(|lesson| lesson.id.as_str()));
    match crate::text::resolve_id(id, ids) {
        Ok(full) => Ok(full.to_string()),
        Err(crate::text::IdMatch::None) => Err(not_found(project, id)),
        Err(crate::text::IdMatch::Ambiguous(ids)) => Err(Error::Usage(format!(
            "{id:?} names several lessons ({}); give more of the id",
            ids.join(", ")
        ))),
    }
}

/// One lesson for people.
pub(crate) fn describe(lesson: &Lesson, origin: &str) -> String {
    let date = |time: Option<i64>| time.map_or_else(|| "never".to_string(), crate::clock::date_of);
    let mut text = format!(
        "lesson {} ({origin})\n  scope     {}\n  triggers  {}\n  lesson    {}\n  weight    {}\n  hits      {} (last {})\n  warnings  {} heeded, {} ignored\n  created   {}",
        lesson.id,
        lesson.scope.as_str(),
        lesson.trigger_texts().join(" | "),
        lesson.text,
        lesson.weight,
        lesson.hits,
        date(lesson.last_hit),
        lesson.heeded,
        lesson.ignored,
        lesson.created.as_deref().unwrap_or("?")
    );
    if let Some(examples) = &lesson.examples {
        for example in &examples.should_match {
            text.push_str(&format!("\n  fires on  {example}"));
        }
        for example in &examples.should_not_match {
            text.push_str(&format!("\n  not on    {example}"));
        }
    }
    text
}

pub(crate) fn not_found(project: &Project, id: &str) -> Error {
    Error::Lessons(LessonsError::NotFound {
        id: id.to_string(),
        path: project.lessons_file(),
    })
}
