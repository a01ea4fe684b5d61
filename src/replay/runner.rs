//! Runs one scenario in a throwaway project: writes its starting files, then replays each step
//! in-process (the same `post_tool_use::handle`, the same lesson engine `car check` and
//! `car lessons maintain` use) at the step's own `now`, and checks the step's expectations.
//!
//! Invariants: nothing outside the temporary folder is read or written (every hook call and check
//! passes "no user-wide lessons"); the temporary folder is removed when the run ends, pass or
//! fail; nothing a step does can start the suite again (an edit of car's configuration runs only
//! its in-process self-test).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agents::payload::Payload;
use crate::clock::Clock;
use crate::files::FileError;
use crate::hook::HookContext;
use crate::project::Project;
use crate::replay::session_steps;
use crate::replay::step_error::StepError;
use crate::scenario::expect::{self, DiskState, Observation};
use crate::scenario::fixtures::{self, FIXTURE_ROOT};
use crate::scenario::{Action, Initial, Scenario, Step};
use crate::settings::Settings;

/// Why a scenario failed: where, and every expectation that did not hold there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// `setup`, or a step label (`step 3 (second hit)`).
    pub(crate) place: String,
    pub(crate) messages: Vec<String>,
}

impl Failure {
    fn setup(message: String) -> Failure {
        Failure {
            place: "setup".into(),
            messages: vec![message],
        }
    }
}

/// Runs a scenario; `origin` is the real project, for scenarios that start from its lessons.
pub(crate) fn run(scenario: &Scenario, origin: Option<&Project>) -> Result<(), Failure> {
    let folder = temporary_project()
        .map_err(|error| Failure::setup(format!("cannot create a temporary project: {error}")))?;
    // Canonical, so paths in payloads compare equal to the project root (macOS /tmp is a link).
    let root = folder
        .path()
        .canonicalize()
        .unwrap_or_else(|_| folder.path().to_path_buf());
    let sandbox = Sandbox::create(scenario, &root, origin)
        .map_err(|error| Failure::setup(error.to_string()))?;
    for step in &scenario.steps {
        let failures = sandbox.play(step);
        if !failures.is_empty() {
            return Err(Failure {
                place: step.label(),
                messages: failures,
            });
        }
    }
    Ok(())
}

/// Linux's RAM-backed folder. car's stores fsync every write (right for real lesson files); in a
/// throwaway project that only costs time: on a disk, fsync is most of a replay's wall time
/// (about 4× slower for 50 scenarios), on tmpfs it is free.
const RAM_FOLDER: &str = "/dev/shm";

/// A fresh folder for one scenario: in RAM when the system has such a folder, else in the
/// ordinary temporary folder.
fn temporary_project() -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("car-replay-");
    let ram = Path::new(RAM_FOLDER);
    if cfg!(target_os = "linux")
        && ram.is_dir()
        && let Ok(folder) = builder.tempdir_in(ram)
    {
        return Ok(folder);
    }
    builder.tempdir()
}

/// The temporary project a scenario runs in.
struct Sandbox {
    project: Project,
    initial_lessons_text: Option<String>,
}

impl Sandbox {
    fn create(
        scenario: &Scenario,
        root: &Path,
        origin: Option<&Project>,
    ) -> Result<Sandbox, StepError> {
        let project = Project::at(root);
        let settings_object = scenario.settings.clone().unwrap_or_default();
        // Refuse bad settings up front: a scenario should not silently run on defaults.
        if let Some(problem) = Settings::from_block(&settings_object)
            .problems
            .into_iter()
            .next()
        {
            return Err(StepError::Settings(Box::new(problem)));
        }
        let document = json!({"claude-auto-review": settings_object});
        write(&project.settings_file(), &pretty(&document))?;
        let lessons_text = initial_text(&scenario.lessons, origin.map(Project::lessons_file))?;
        if let Some(text) = &lessons_text {
            write(&project.lessons_file(), text)?;
        }
        let candidates_origin = origin.map(Project::candidates_file);
        if let Some(text) = initial_text(&scenario.candidates, candidates_origin)? {
            write(&project.candidates_file(), &text)?;
        }
        if scenario.project_validators {
            let origin = origin.ok_or(StepError::NeedsProject("project_validators"))?;
            copy_validators(origin, &project)?;
        }
        for (relative, content) in &scenario.files {
            write(&root.join(relative), content)?;
        }
        Ok(Sandbox {
            project,
            initial_lessons_text: lessons_text,
        })
    }

    /// Runs one step and checks its expectations.
    fn play(&self, step: &Step) -> Vec<String> {
        let seen = match self.act(step) {
            Ok(seen) => seen,
            Err(error) => return vec![error.to_string()],
        };
        expect::check(&step.expect, step.now, seen.as_ref(), &self.disk())
    }

    fn act(&self, step: &Step) -> Result<Option<Observation>, StepError> {
        let clock = Clock::fixed(step.now);
        match &step.action {
            Action::Nothing => Ok(None),
            Action::Edit {
                file,
                before,
                after,
            } => {
                let payload = self.edit(&step.session, file, before, after)?;
                Ok(Some(self.hook(payload, clock)?))
            }
            Action::Write { file, content } => {
                let payload = self.write_file(&step.session, file, content)?;
                Ok(Some(self.hook(payload, clock)?))
            }
            Action::Fixture { name, file_content } => {
                let payload = self.fixture(name, file_content.as_deref())?;
                Ok(Some(self.hook(payload, clock)?))
            }
            Action::Check(paths) => {
                let settings = self.settings().0;
                let seen = crate::replay::check_step::run(&self.project, &settings, clock, paths);
                Ok(Some(seen))
            }
            Action::Maintain => Ok(Some(crate::replay::check_step::maintain(
                &self.project,
                clock,
            ))),
            Action::Person {
                file,
                before,
                after,
            } => {
                session_steps::replace_in(&self.project, file, before, after)?;
                Ok(None)
            }
            Action::Bash {
                file,
                before,
                after,
            } => {
                session_steps::replace_in(&self.project, file, before, after)?;
                let payload = session_steps::bash_payload(&self.project, &step.session, file)?;
                Ok(Some(self.hook(payload, clock)?))
            }
            Action::Stop { review, message } => {
                let payload = session_steps::stop_payload(&self.project, &step.session, message);
                let mut context = self.context(payload, clock)?;
                if let Some(review) = review {
                    session_steps::script_reviewer(&self.project, &mut context.settings, review)?;
                }
                let answer = crate::hook::stop::handle(&context);
                Ok(Some(Observation::from_response(&answer)))
            }
            Action::SessionEnd => Ok(Some(crate::replay::check_step::session_end(
                &self.project,
                &self.settings().0,
                clock,
            ))),
        }
    }

    /// The settings as a hook reads them: live from `.claude/settings.json` (a step may edit it),
    /// defaults plus the problem when the file is broken.
    fn settings(&self) -> (Settings, Option<String>) {
        crate::hook::context::settings_with_problem(&self.project)
    }

    /// The context a hook call gets for `payload`, as `car hook …` builds it (never with the
    /// user-wide lessons).
    fn context(&self, payload: Value, clock: Clock) -> Result<HookContext, StepError> {
        let raw = serde_json::from_value(payload)
            .map_err(|error| StepError::Payload(error.to_string()))?;
        // Scenario payloads are recorded ones, of any agent: recognised as a hand-wired hook's.
        let payload =
            Payload::from_raw(raw, None).map_err(|error| StepError::Payload(error.to_string()))?;
        let (settings, settings_problem) = self.settings();
        Ok(HookContext {
            payload,
            project: self.project.clone(),
            settings,
            settings_problem,
            clock,
            user_lessons: false,
            deadline: None,
            started_at: None,
        })
    }

    /// Runs the PostToolUse hook in-process, exactly as `car hook post-tool-use` would.
    fn hook(&self, payload: Value, clock: Clock) -> Result<Observation, StepError> {
        let context = self.context(payload, clock)?;
        let response = crate::hook::post_tool_use::handle(&context);
        Ok(Observation::from_response(&response))
    }

    /// Replaces `before` by `after` in the file (creating it with `before` first) and builds the
    /// Edit payload Claude Code would send.
    fn edit(
        &self,
        session: &str,
        file: &str,
        before: &str,
        after: &str,
    ) -> Result<Value, StepError> {
        let path = self.project.root().join(file);
        let original = read(&path)?.unwrap_or_else(|| before.to_string());
        if before.is_empty() && path.exists() {
            return Err(StepError::EditOfExistingFile {
                file: file.to_string(),
            });
        }
        if !original.contains(before) {
            return Err(StepError::BeforeNotFound {
                file: file.to_string(),
                before: before.to_string(),
            });
        }
        let updated = if before.is_empty() {
            after.to_string()
        } else {
            original.replacen(before, after, 1)
        };
        write(&path, &updated)?;
        let file_path = path.to_string_lossy();
        Ok(json!({
            "session_id": session,
            "cwd": self.project.root(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": file_path, "old_string": before, "new_string": after,
                           "replace_all": false},
            "tool_response": {"filePath": file_path, "oldString": before, "newString": after,
                              "originalFile": original, "userModified": false}
        }))
    }

    /// Writes the whole file and builds the Write payload (with the previous content).
    fn write_file(&self, session: &str, file: &str, content: &str) -> Result<Value, StepError> {
        let path = self.project.root().join(file);
        let original = read(&path)?;
        write(&path, content)?;
        let file_path = path.to_string_lossy();
        Ok(json!({
            "session_id": session,
            "cwd": self.project.root(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": file_path, "content": content},
            "tool_response": {"type": if original.is_some() { "update" } else { "create" },
                              "filePath": file_path, "content": content,
                              "originalFile": original}
        }))
    }

    /// A recorded payload pointed at this project, with its file written as the tool left it.
    fn fixture(&self, name: &str, file_content: Option<&str>) -> Result<Value, StepError> {
        let text = fixtures::get(name).ok_or_else(|| StepError::NoFixture(name.to_string()))?;
        let root = self.project.root().to_string_lossy();
        let payload: Value = serde_json::from_str(&text.replace(FIXTURE_ROOT, &root))
            .map_err(|error| StepError::Payload(format!("fixture {name}: {error}")))?;
        // Claude and Gemini name the file in tool_input, Cursor at the top level.
        let path = payload["tool_input"]["file_path"]
            .as_str()
            .or_else(|| payload["file_path"].as_str())
            .map(PathBuf::from);
        let content = file_content
            .map(String::from)
            .or_else(|| content_after(&payload));
        if let (Some(path), Some(content)) = (path, content) {
            write(&path, &content)?;
        }
        Ok(payload)
    }

    /// What a step left behind. Lessons are read live (the hits still pending in the hit log
    /// applied), as `car lessons list` shows them; the file's own bytes stay in `lessons_text`.
    fn disk(&self) -> DiskState {
        let path = self.project.lessons_file();
        let lessons_text = std::fs::read_to_string(&path).ok();
        let candidates_text = std::fs::read_to_string(self.project.candidates_file()).ok();
        let live = lessons_text
            .as_ref()
            .and_then(|_| crate::lessons::library::load_live(&path).ok())
            .and_then(|file| serde_json::from_str(&file.render()).ok());
        DiskState {
            lessons: live.or_else(|| {
                lessons_text
                    .as_deref()
                    .and_then(|text| serde_json::from_str(text).ok())
            }),
            lessons_text,
            candidates: candidates_text
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok()),
            initial_lessons_text: self.initial_lessons_text.clone(),
        }
    }
}

/// The content the fixture's tool left in its file: Write's content, or the original with the
/// Edit / MultiEdit replacements applied.
fn content_after(payload: &Value) -> Option<String> {
    let input = &payload["tool_input"];
    let response = &payload["tool_response"];
    if let Some(content) = input["content"].as_str() {
        return Some(content.to_string());
    }
    let original = response["originalFile"]
        .as_str()
        .or_else(|| response["originalFileContents"].as_str())?;
    let pairs: Vec<&Value> = match input["edits"].as_array() {
        Some(edits) => edits.iter().collect(),
        None => vec![input],
    };
    let mut content = original.to_string();
    for pair in pairs {
        let old = pair["old_string"].as_str().unwrap_or_default();
        let new = pair["new_string"].as_str().unwrap_or_default();
        content = content.replacen(old, new, 1);
    }
    Some(content)
}

/// The project's custom validator files, copied as they are.
fn copy_validators(origin: &Project, sandbox: &Project) -> Result<(), StepError> {
    let folder = origin.validators_dir();
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|ext| ext == "json")
            && let (Some(name), Some(text)) = (path.file_name(), read(&path)?)
        {
            write(&sandbox.validators_dir().join(name), &text)?;
        }
    }
    Ok(())
}

fn initial_text(initial: &Initial, origin: Option<PathBuf>) -> Result<Option<String>, StepError> {
    match initial {
        Initial::Missing => Ok(None),
        Initial::Json(value) => Ok(Some(pretty(value))),
        Initial::Text(text) => Ok(Some(text.clone())),
        Initial::FromProject => match origin {
            Some(path) => read(&path),
            None => Err(StepError::NeedsProject("project_lessons")),
        },
    }
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}

fn read(path: &Path) -> Result<Option<String>, StepError> {
    Ok(crate::files::read_optional(path)?)
}

fn write(path: &Path, content: &str) -> Result<(), StepError> {
    crate::files::ensure_parent(path)?;
    std::fs::write(path, content).map_err(|source| {
        StepError::File(FileError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_content_applies_multiedit() {
        let payload: Value =
            serde_json::from_str(fixtures::get("claude-post-multiedit.json").unwrap()).unwrap();
        let content = content_after(&payload).unwrap();
        assert!(content.contains("label.textColor = DankeTheme.secondaryText"));
        assert!(content.contains("title.textColor = DankeTheme.textPrimary"));
        assert!(!content.contains(".gray"));
    }

    #[test]
    fn a_step_failure_names_the_step() {
        let scenario = Scenario::parse(
            "t.json",
            r#"{"steps": [
                {"write": {"file": "a.txt", "content": "hello\n"}, "expect": {"block": false}},
                {"name": "wrong on purpose", "edit": {"file": "a.txt", "before": "missing", "after": "x"}}
            ]}"#,
        )
        .unwrap();
        let failure = run(&scenario, None).unwrap_err();
        assert_eq!(failure.place, "step 2 (wrong on purpose)");
        assert!(
            failure.messages[0].contains("does not contain"),
            "{failure:?}"
        );
    }
}
