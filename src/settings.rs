//! car's settings: the `"claude-auto-review"` key of the project's `.claude/settings.json`,
//! re-read on every hook call (live reload). Keys keep the Python car's names where they mean the
//! same thing. Raw JSON is converted once into [`Settings`], with defaults for what is missing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::project::Project;

pub(crate) mod keys;

pub(crate) use keys::ValueProblem;

/// The key under which car's settings live in `.claude/settings.json`.
pub(crate) const SETTINGS_KEY: &str = "claude-auto-review";

/// The longest reviewer timeout car accepts; larger values are clamped to it (a Stop hook that
/// waits longer than an hour is a mistake, and an absurd value must not overflow time sums).
pub(crate) const MAX_REVIEWER_TIMEOUT_SECONDS: u64 = 3600;

#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    #[error("{path}:{line}:{column}: not valid JSON: {message}")]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(transparent)]
    File(#[from] crate::files::FileError),
}

/// Which reviewer runs the stop-time review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReviewerBackend {
    Manual,
    Claude,
    Codex,
    Opencode,
    Command,
}

impl ReviewerBackend {
    /// The one spelling of a backend: the settings value, the event log, `car status`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            ReviewerBackend::Manual => "manual",
            ReviewerBackend::Claude => "claude",
            ReviewerBackend::Codex => "codex",
            ReviewerBackend::Opencode => "opencode",
            ReviewerBackend::Command => "command",
        }
    }
}

impl std::fmt::Display for ReviewerBackend {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// The least severe finding that still blocks the stop (P3 never does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockingThreshold {
    /// Only P1 blocks.
    P1,
    /// P1 and P2 block (the default).
    P2,
}

impl BlockingThreshold {
    /// `"P1"` / `"P2"`, any case; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<BlockingThreshold> {
        match text.trim().to_uppercase().as_str() {
            "P1" => Some(BlockingThreshold::P1),
            "P2" => Some(BlockingThreshold::P2),
            _ => None,
        }
    }
}

impl std::fmt::Display for BlockingThreshold {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            BlockingThreshold::P1 => "P1",
            BlockingThreshold::P2 => "P2",
        })
    }
}

/// How the stop gate reads the agent's last message (is it waiting for the user?).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClassifierBackend {
    /// car's own rules: fast, no model call.
    Builtin,
    /// Ask the configured reviewer model.
    Model,
    /// No classifier: every stop with unreviewed changes is reviewed (the Python tool's
    /// `lastAssistantMessageClassifierEnabled: false`).
    Off,
}

impl ClassifierBackend {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClassifierBackend::Builtin => "builtin",
            ClassifierBackend::Model => "model",
            ClassifierBackend::Off => "off",
        }
    }
}

/// What car does with a lesson it learned and verified (setting `learning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LearningMode {
    /// It becomes a lesson at once (the default).
    Auto,
    /// It waits as a proposal until a person accepts it (`car lessons review`).
    Approve,
    /// As `Approve`, and no lesson warns, denies or briefs: car only records what it would learn.
    Observe,
}

impl LearningMode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            LearningMode::Auto => "auto",
            LearningMode::Approve => "approve",
            LearningMode::Observe => "observe",
        }
    }

    /// Whether a learned lesson waits for a person instead of joining the lessons.
    pub(crate) fn waits_for_a_person(self) -> bool {
        self != LearningMode::Auto
    }
}

/// Validated settings with defaults applied.
#[derive(Debug, Clone)]
pub struct Settings {
    pub(crate) enabled: bool,
    pub(crate) reviewer_backend: ReviewerBackend,
    /// The reviewer of `car deep-review`: `deepReviewBackend`, else an explicitly set
    /// `reviewerBackend`, else codex (a cross-model review needs a second model; `manual` is
    /// refused there).
    pub(crate) deep_review_backend: ReviewerBackend,
    pub(crate) reviewer_model: Option<String>,
    pub(crate) reviewer_timeout_seconds: u64,
    pub(crate) reviewer_command: Vec<String>,
    pub(crate) max_stop_passes: u32,
    /// Review rounds with changes a blocking finding may survive before it goes to a human.
    pub(crate) max_fix_attempts: u32,
    /// The least severe finding that still blocks the stop.
    pub(crate) minimum_blocking_severity: BlockingThreshold,
    pub(crate) rules_file: Option<String>,
    /// Lower-case extensions without the dot; empty = every file.
    pub(crate) include_extensions: Vec<String>,
    pub(crate) skip_extensions: Vec<String>,
    /// Hours (fractions allowed, as the Python tool writes them: `48.0`).
    pub(crate) stale_client_timeout_hours: f64,
    pub(crate) classifier_backend: ClassifierBackend,
    /// The model the `model` classifier asks (the Python tool's `classifierModel`); else the
    /// reviewer's.
    pub(crate) classifier_model: Option<String>,
    /// The model classifier's time limit (the Python tool's
    /// `lastAssistantMessageClassifierTimeoutSeconds`).
    pub(crate) classifier_timeout_seconds: f64,
    /// Longest stop-block reason, in characters (the Python tool's `reviewFeedbackMaxChars`).
    pub(crate) review_feedback_max_chars: usize,
    /// Lesson hits below this weight go to the P3 offer list instead of the review prompt.
    pub(crate) offer_weight_threshold: u32,
    pub(crate) lessons_enabled: bool,
    pub(crate) learning_enabled: bool,
    /// Whether a learned lesson joins the lessons at once, waits for a person, or only is recorded.
    pub(crate) learning: LearningMode,
    /// Whether SessionStart briefs the agent with the project's lessons.
    pub(crate) session_briefing: bool,
    /// Whether the agent is given the lessons of a file with the first write of it car lets
    /// through (`hook::file_lessons`).
    pub(crate) edit_briefing: bool,
    /// Whether PreToolUse denies a write before it lands (a trusted checker's error, a heavy
    /// lesson).
    pub(crate) prevent_edits: bool,
    /// A lesson of at least this weight denies the write that repeats it (PreToolUse).
    pub(crate) prevent_weight: u32,
    /// An explicit Python interpreter; otherwise the first real `python3` on PATH.
    pub(crate) python_interpreter: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            enabled: true,
            reviewer_backend: ReviewerBackend::Manual,
            deep_review_backend: ReviewerBackend::Codex,
            reviewer_model: None,
            reviewer_timeout_seconds: 300,
            reviewer_command: Vec::new(),
            max_stop_passes: 5,
            max_fix_attempts: 3,
            minimum_blocking_severity: BlockingThreshold::P2,
            rules_file: None,
            include_extensions: Vec::new(),
            skip_extensions: Vec::new(),
            stale_client_timeout_hours: 24.0,
            classifier_backend: ClassifierBackend::Builtin,
            classifier_model: None,
            classifier_timeout_seconds: 20.0,
            review_feedback_max_chars: 9_000,
            offer_weight_threshold: 3,
            lessons_enabled: true,
            learning_enabled: true,
            learning: LearningMode::Auto,
            session_briefing: true,
            edit_briefing: true,
            prevent_edits: true,
            prevent_weight: 6,
            python_interpreter: None,
        }
    }
}

/// One key whose value car could not use: the default stands in for it alone.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SettingProblem {
    pub(crate) key: String,
    pub(crate) value: Value,
    pub(crate) problem: ValueProblem,
    pub(crate) fallback: Fallback,
}

/// What car uses instead of a value it cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// The key's default, as a settings file would spell it.
    Default(String),
    /// The whole block is unusable: every key uses its default.
    EveryKey,
}

impl SettingProblem {
    /// What is wrong with the value and what stands in (`must be at least 1; using the default
    /// 300`), without the key and the value.
    pub(crate) fn message(&self) -> String {
        match &self.fallback {
            Fallback::Default(default) => format!("{}; using the default {default}", self.problem),
            Fallback::EveryKey => format!("{}; every key uses its default", self.problem),
        }
    }
}

impl std::fmt::Display for SettingProblem {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "\"{}\": {} {}",
            self.key,
            self.value,
            self.message()
        )
    }
}

/// Settings as read, with the keys that fell back to their defaults.
#[derive(Debug, Clone, Default)]
pub(crate) struct Checked {
    pub(crate) settings: Settings,
    pub(crate) problems: Vec<SettingProblem>,
}

impl Settings {
    /// Whether the lessons speak to the agent: on, and not only observed (`learning: observe`).
    pub(crate) fn lessons_warn(&self) -> bool {
        self.lessons_enabled && self.learning != LearningMode::Observe
    }

    /// Reads the project's settings; a missing file or key means defaults, and a bad value costs
    /// its key alone. Fails only when the file itself cannot be read as JSON.
    pub(crate) fn load(project: &Project) -> Result<Settings, SettingsError> {
        Ok(Settings::load_checked(project)?.settings)
    }

    /// [`Settings::load`] with the keys that fell back to their defaults.
    pub(crate) fn load_checked(project: &Project) -> Result<Checked, SettingsError> {
        let document = read_settings_document(&project.settings_file())?;
        let mut checked = match document.get(SETTINGS_KEY) {
            Some(Value::Object(block)) => Settings::from_block(block),
            _ => Checked::default(),
        };
        checked.problems.extend(block_problem(&document));
        Ok(checked)
    }

    /// Reads car's block key by key (see [`keys`]): a bad value costs its key alone.
    pub(crate) fn from_block(block: &Map<String, Value>) -> Checked {
        let mut reader = keys::KeyReader::new(block);
        let mut settings = Settings::default();
        keys::read_all(&mut reader, &mut settings);
        Checked {
            settings,
            problems: reader.into_problems(),
        }
    }

    /// The program the reviewer backend runs (`None` for manual).
    pub(crate) fn reviewer_program(&self) -> Option<String> {
        self.program_of(&self.reviewer_backend)
    }

    /// The program `backend` runs (`None` for manual): the gate's reviewer or the deep review's.
    pub(crate) fn program_of(&self, backend: &ReviewerBackend) -> Option<String> {
        match backend {
            ReviewerBackend::Manual => None,
            ReviewerBackend::Command => self.reviewer_command.first().cloned(),
            other => Some(other.name().to_string()),
        }
    }

    /// Whether a file with this project-relative path is tracked at all.
    pub(crate) fn is_tracked_extension(&self, relative_path: &str) -> bool {
        let extension = Path::new(relative_path)
            .extension()
            .map(|ext| ext.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if self.skip_extensions.contains(&extension) {
            return false;
        }
        self.include_extensions.is_empty() || self.include_extensions.contains(&extension)
    }

    /// Seconds after which another session's state is stale.
    pub(crate) fn stale_client_timeout_seconds(&self) -> i64 {
        let seconds = self.stale_client_timeout_hours * 3600.0;
        if seconds.is_finite() {
            seconds.clamp(0.0, (i64::MAX / 2) as f64) as i64
        } else {
            i64::MAX / 2
        }
    }
}

/// The whole `.claude/settings.json` as a JSON object (empty when missing).
pub(crate) fn read_settings_document(path: &Path) -> Result<Map<String, Value>, SettingsError> {
    let text = crate::files::read_optional(path)?;
    parse_document(path, text.as_deref())
}

/// A JSON document's top-level object; missing or blank text is empty. Strict JSON is read by
/// serde (the hot path, with its exact messages); comments, as Gemini CLI allows them, are
/// accepted too.
pub(crate) fn parse_document(
    path: &Path,
    text: Option<&str>,
) -> Result<Map<String, Value>, SettingsError> {
    let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
        return Ok(Map::new());
    };
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(error) => match crate::json_edit::JsonText::parse(text) {
            Ok(parsed) => parsed.value(),
            Err(_) => {
                let located = crate::text::JsonError::locate(text, &error);
                return Err(SettingsError::Json {
                    path: path.to_path_buf(),
                    line: located.line,
                    column: located.column,
                    message: located.message,
                });
            }
        },
    };
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(SettingsError::Json {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the top level must be a JSON object".into(),
        }),
    }
}

/// Changes `.claude/settings.json` under a lock ([`update_json_document`]); the lock file lives in
/// car's state folder, so car leaves nothing beside the user's settings.
pub(crate) fn update_settings_document<E: From<SettingsError>>(
    project: &Project,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<bool, E>,
) -> Result<bool, E> {
    update_json_document(
        project,
        &project.settings_file(),
        &project.state_dir().join(crate::state::names::SETTINGS_LOCK),
        change,
    )
}

/// Changes a user's JSON file under the lock beside `lock_for`: reads the whole document, lets
/// `change` edit it (returning whether it changed anything), and writes it back only when it did,
/// editing the text minimally ([`crate::json_edit`]) so the file keeps its formatting, and through
/// [`crate::files::write_atomic`], so it keeps its mode, owner and symlink.
pub(crate) fn update_json_document<E: From<SettingsError>>(
    project: &crate::project::Project,
    path: &Path,
    lock_for: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<bool, E>,
) -> Result<bool, E> {
    let file_error = |error: crate::files::FileError| E::from(SettingsError::from(error));
    // The project's file, never one a committed link leads to.
    project.check_write_inside(path).map_err(file_error)?;
    let _lock = crate::files::FileLock::acquire(lock_for, crate::files::HOOK_LOCK_WAIT)
        .map_err(file_error)?;
    let original = crate::files::read_optional(path).map_err(file_error)?;
    let mut document = parse_document(path, original.as_deref())?;
    if !change(&mut document)? {
        return Ok(false);
    }
    let text = crate::json_edit::rewrite_text(original.as_deref(), &Value::Object(document));
    crate::files::write_atomic(path, text.as_bytes()).map_err(file_error)?;
    if original.is_none() {
        crate::state::created_files::remember(project, path);
    }
    Ok(true)
}

/// car's block of `.claude/settings.json` (empty when the file or the key is missing, or when the
/// block is not an object: [`block_problem`] names that).
pub(crate) fn read_block(path: &Path) -> Result<Map<String, Value>, SettingsError> {
    let document = read_settings_document(path)?;
    Ok(match document.get(SETTINGS_KEY) {
        Some(Value::Object(block)) => block.clone(),
        _ => Map::new(),
    })
}

/// Why car's block as a whole cannot be read (it is not an object), if so.
pub(crate) fn block_problem(document: &Map<String, Value>) -> Option<SettingProblem> {
    match document.get(SETTINGS_KEY) {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(other) => Some(SettingProblem {
            key: SETTINGS_KEY.to_string(),
            value: other.clone(),
            problem: ValueProblem::NotAnObject,
            fallback: Fallback::EveryKey,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_that_is_not_an_object_is_named() {
        let document: Map<String, Value> =
            serde_json::from_str(r#"{"claude-auto-review": "on"}"#).unwrap();
        let problem = block_problem(&document).unwrap();
        assert_eq!(problem.key, SETTINGS_KEY);
        let fine: Map<String, Value> =
            serde_json::from_str(r#"{"claude-auto-review": {"enabled": true}}"#).unwrap();
        assert!(block_problem(&fine).is_none());
    }

    #[test]
    fn an_absurd_reviewer_timeout_is_clamped() {
        let block: Map<String, Value> =
            serde_json::from_str(r#"{"reviewerTimeoutSeconds":18446744073709551615}"#).unwrap();
        let checked = Settings::from_block(&block);
        assert!(checked.problems.is_empty(), "{:?}", checked.problems);
        assert_eq!(
            checked.settings.reviewer_timeout_seconds,
            MAX_REVIEWER_TIMEOUT_SECONDS
        );
    }

    #[test]
    fn extension_filters() {
        let block = serde_json::json!({"skipExtensions":[".md"],"includeExtensions":[]});
        let settings = Settings::from_block(block.as_object().unwrap()).settings;
        assert!(!settings.is_tracked_extension("README.md"));
        assert!(settings.is_tracked_extension("src/app.py"));
    }
}
