//! The session's lesson warnings as they stand now, for the P3 offer list and the review prompt's
//! pitfalls: a warning whose trigger no longer matches its file (the agent heeded it, or the file
//! is gone) is neither offered nor handed to the reviewer, and each one left carries its lesson's
//! live weight — a heed elsewhere in the session raised it — not the weight it was shown with.
//!
//! Invariants: nothing is written; a file or a lessons file that cannot be read keeps the warning
//! as it was shown (rather an offer too many than one lost); a lesson in neither the project's
//! nor the user's lessons file (removed or retired since) is not offered; each lessons file is
//! read once per [`Weights`], each warned file once per call.

use std::collections::HashMap;
use std::path::Path;

use crate::lesson_warning::Warning;
use crate::lessons::library;
use crate::lessons::trigger::Trigger;
use crate::project::Project;

/// Largest file read back to see whether a warning still stands.
const READ_LIMIT: u64 = 2 * 1024 * 1024;

/// Every lesson's live weight (the pending hit log applied), read when first needed; `None` when
/// a lessons file could not be read.
#[derive(Default)]
pub(crate) struct Weights {
    read: Option<Option<HashMap<String, u32>>>,
}

impl Weights {
    fn get(&mut self, project: &Project) -> Option<&HashMap<String, u32>> {
        self.read
            .get_or_insert_with(|| {
                let user = crate::lessons::store::user_lessons_path();
                let mut weights = HashMap::new();
                for path in std::iter::once(project.lessons_file()).chain(user) {
                    if !path.exists() {
                        continue;
                    }
                    let file = library::load_live(&path).ok()?;
                    for lesson in file.lessons() {
                        weights.entry(lesson.id.clone()).or_insert(lesson.weight);
                    }
                }
                Some(weights)
            })
            .as_ref()
    }
}

/// The warnings of `shown` that still stand, each with its lesson's live weight.
pub(crate) fn warnings(project: &Project, shown: &[Warning]) -> Vec<Warning> {
    warnings_with(project, shown, &mut Weights::default())
}

/// [`warnings`] with the lessons' weights read once for many calls (the report's sessions).
pub(crate) fn warnings_with(
    project: &Project,
    shown: &[Warning],
    weights: &mut Weights,
) -> Vec<Warning> {
    let mut contents: HashMap<&str, Option<String>> = HashMap::new();
    let mut standing: Vec<Warning> = shown
        .iter()
        .filter(|warning| {
            let content = contents
                .entry(warning.file.as_str())
                .or_insert_with(|| project.read_inside(&warning.file, READ_LIMIT));
            still_there(project, warning, content.as_deref())
        })
        .cloned()
        .collect();
    if standing.is_empty() {
        return standing;
    }
    let Some(live) = weights.get(project) else {
        return standing;
    };
    standing.retain_mut(|warning| match live.get(&warning.lesson_id) {
        Some(weight) => {
            warning.weight = *weight;
            true
        }
        None => false,
    });
    standing
}

fn still_there(project: &Project, warning: &Warning, content: Option<&str>) -> bool {
    let Some(content) = content else {
        // Gone counts as heeded; there but unreadable as text keeps the warning.
        return file_exists(&project.checkout().join(&warning.file));
    };
    Trigger::parse(&warning.trigger).map_or(true, |trigger| trigger.is_match(content))
}

fn file_exists(path: &Path) -> bool {
    path.try_exists().unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(id: &str, file: &str, trigger: &str) -> Warning {
        Warning {
            lesson_id: id.into(),
            weight: 1,
            lesson: "remember".into(),
            trigger: trigger.into(),
            file: file.into(),
            line: 1,
            origin: None,
        }
    }

    #[test]
    fn heeded_and_removed_go_live_weights_come_and_an_unreadable_library_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::write(dir.path().join("a.py"), "x = yaml.load(f)\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "x = yaml.safe_load(f)\n").unwrap();
        let lessons = project.lessons_file();
        std::fs::create_dir_all(lessons.parent().unwrap()).unwrap();
        std::fs::write(
            &lessons,
            r#"{"lessons": [{"id": "L1", "scope": "*.py", "triggers": ["yaml.load("],
                "lesson": "safe_load", "weight": 4}]}"#,
        )
        .unwrap();
        let shown = [
            warning("L1", "a.py", "yaml.load("),
            warning("L1", "b.py", "yaml.load("),
            warning("L1", "gone.py", "yaml.load("),
            warning("L9", "a.py", "yaml.load("),
        ];
        let standing = warnings(&project, &shown);
        assert_eq!(standing.len(), 1, "{standing:?}");
        assert_eq!((standing[0].file.as_str(), standing[0].weight), ("a.py", 4));
        std::fs::write(&lessons, "{ not json").unwrap();
        let kept = warnings(&project, &shown);
        let files: Vec<(&str, u32)> = kept.iter().map(|w| (w.file.as_str(), w.weight)).collect();
        assert_eq!(files, [("a.py", 1), ("a.py", 1)]);
    }
}
