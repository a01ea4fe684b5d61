//! Per-lesson examples: `"examples": {"match": [...], "no_match": [...]}` in a lesson. Each
//! example is one case, checked with the lesson engine's own trigger matching.

/// One example of one lesson.
#[derive(Debug, Clone)]
pub struct ExampleCase {
    pub lesson_id: String,
    pub should_match: bool,
    pub index: usize,
    pub text: String,
}

impl ExampleCase {
    pub fn name(&self) -> String {
        let kind = if self.should_match {
            "match"
        } else {
            "no_match"
        };
        format!("lesson {} example {kind}[{}]", self.lesson_id, self.index)
    }

    pub fn run(&self) -> Result<(), String> {
        Err(format!("{}: examples are not wired yet", self.name()))
    }
}

/// Every example of every lesson of the project.
pub fn cases(_project: &crate::project::Project) -> Vec<crate::replay::suite::Case> {
    Vec::new()
}
