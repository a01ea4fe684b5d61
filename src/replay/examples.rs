//! The example cases of `car lessons test`: every example of every lesson in the project's
//! lessons file and in car's starter lessons, each run by [`crate::lessons::examples`].

use std::path::Path;

use crate::lessons::examples::example_cases;
use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;
use crate::project::Project;
use crate::replay::suite::Case;

/// Every example of every lesson in the project's lessons file. A file that cannot be read is
/// one failing case (its examples cannot be trusted to run).
pub(crate) fn cases(project: &Project) -> Vec<Case> {
    let path = project.lessons_file();
    let name = display(project, &path);
    let loaded = crate::files::read_optional(&path)
        .map_err(|error| error.to_string())
        .and_then(|text| match text {
            None => Ok(Vec::new()),
            Some(text) => LessonFile::parse(Path::new(&name), &text)
                .map(|file| {
                    file.lessons()
                        .flat_map(|lesson| lesson_cases(lesson, None))
                        .collect()
                })
                .map_err(|error| error.to_string()),
        });
    loaded.unwrap_or_else(|error| vec![Case::Broken { name, error }])
}

/// The examples of the starter lessons car ships (`lessons/*.json`, embedded): part of car's own
/// suite, so a starter lesson that stops matching its examples fails `car lessons test`.
pub(crate) fn starter_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (file, text) in crate::lessons::starter::STARTER_FILES {
        let source = format!("{}lessons/{file}", crate::replay::suite::BUILTIN_PREFIX);
        match LessonFile::parse(Path::new(&source), text) {
            Ok(parsed) => cases.extend(
                parsed
                    .lessons()
                    .flat_map(|lesson| lesson_cases(lesson, Some(&source))),
            ),
            Err(error) => cases.push(Case::Broken {
                name: source,
                error: error.to_string(),
            }),
        }
    }
    cases
}

/// The cases of one lesson's examples.
fn lesson_cases(lesson: &Lesson, source: Option<&str>) -> Vec<Case> {
    example_cases(lesson, source)
        .into_iter()
        .map(Case::Example)
        .collect()
}

fn display(project: &Project, path: &Path) -> String {
    project
        .relative(path)
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_starter_example_holds() {
        let cases = starter_cases();
        assert!(cases.len() >= 20, "{} starter examples", cases.len());
        let failures: Vec<String> = cases.iter().filter_map(|case| case.run().err()).collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        let first = cases[0].name();
        assert!(
            first.starts_with("car:lessons/python.json lesson "),
            "{first}"
        );
    }
}
