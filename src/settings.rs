//! car's settings: the `"claude-auto-review"` key of the project's `.claude/settings.json`,
//! re-read on every hook call (live reload). Keys keep the Python car's names where they mean the
//! same thing. Raw JSON is converted once into [`Settings`], with defaults for what is missing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::project::Project;

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
    #[error("{path}: \"{SETTINGS_KEY}\".{key}: {message}")]
    Value {
        path: PathBuf,
        key: String,
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
}

impl ClassifierBackend {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClassifierBackend::Builtin => "builtin",
            ClassifierBackend::Model => "model",
        }
    }
}

/// The settings as stored (camelCase keys, every one optional, unknown keys kept).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reviewer_backend: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reviewer_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reviewer_timeout_seconds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reviewer_command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_stop_passes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) minimum_blocking_severity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rules_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) include_extensions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) skip_extensions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stale_client_timeout_hours: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) classifier_backend: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) offer_weight_threshold: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lessons_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) learning_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) python_interpreter: Option<String>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

/// Validated settings with defaults applied.
#[derive(Debug, Clone)]
pub struct Settings {
    pub(crate) enabled: bool,
    pub(crate) reviewer_backend: ReviewerBackend,
    pub(crate) reviewer_model: Option<String>,
    pub(crate) reviewer_timeout_seconds: u64,
    pub(crate) reviewer_command: Vec<String>,
    pub(crate) max_stop_passes: u32,
    /// The least severe finding that still blocks the stop.
    pub(crate) minimum_blocking_severity: BlockingThreshold,
    pub(crate) rules_file: Option<String>,
    /// Lower-case extensions without the dot; empty = every file.
    pub(crate) include_extensions: Vec<String>,
    pub(crate) skip_extensions: Vec<String>,
    pub(crate) stale_client_timeout_hours: u64,
    pub(crate) classifier_backend: ClassifierBackend,
    /// Lesson hits below this weight go to the P3 offer list instead of the review prompt.
    pub(crate) offer_weight_threshold: u32,
    pub(crate) lessons_enabled: bool,
    pub(crate) learning_enabled: bool,
    /// An explicit Python interpreter; otherwise the first real `python3` on PATH.
    pub(crate) python_interpreter: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            enabled: true,
            reviewer_backend: ReviewerBackend::Manual,
            reviewer_model: None,
            reviewer_timeout_seconds: 300,
            reviewer_command: Vec::new(),
            max_stop_passes: 5,
            minimum_blocking_severity: BlockingThreshold::P2,
            rules_file: None,
            include_extensions: Vec::new(),
            skip_extensions: Vec::new(),
            stale_client_timeout_hours: 24,
            classifier_backend: ClassifierBackend::Builtin,
            offer_weight_threshold: 3,
            lessons_enabled: true,
            learning_enabled: true,
            python_interpreter: None,
        }
    }
}

impl Settings {
    /// Reads the project's settings; a missing file or key means defaults.
    pub(crate) fn load(project: &Project) -> Result<Settings, SettingsError> {
        let path = project.settings_file();
        let raw = read_raw(&path)?;
        Settings::from_raw(raw, &path)
    }

    /// Validates raw settings, naming the key that is wrong.
    pub(crate) fn from_raw(raw: RawSettings, path: &Path) -> Result<Settings, SettingsError> {
        let mut settings = Settings::default();
        let invalid = |key: &str, message: String| SettingsError::Value {
            path: path.to_path_buf(),
            key: key.to_string(),
            message,
        };
        if let Some(enabled) = raw.enabled {
            settings.enabled = enabled;
        }
        if let Some(backend) = raw.reviewer_backend {
            settings.reviewer_backend =
                serde_json::from_value(Value::String(backend.to_lowercase())).map_err(|_| {
                    invalid(
                        "reviewerBackend",
                        format!(
                            "{backend:?} is not one of manual, claude, codex, opencode, command"
                        ),
                    )
                })?;
        }
        settings.reviewer_model = raw.reviewer_model.filter(|model| !model.trim().is_empty());
        if let Some(timeout) = raw.reviewer_timeout_seconds {
            if timeout == 0 {
                return Err(invalid(
                    "reviewerTimeoutSeconds",
                    "must be at least 1".into(),
                ));
            }
            settings.reviewer_timeout_seconds = timeout.min(MAX_REVIEWER_TIMEOUT_SECONDS);
        }
        settings.reviewer_command = raw.reviewer_command.unwrap_or_default();
        if settings.reviewer_backend == ReviewerBackend::Command
            && settings.reviewer_command.is_empty()
        {
            return Err(invalid(
                "reviewerCommand",
                "reviewerBackend \"command\" needs reviewerCommand: [\"prog\", \"arg\", …]".into(),
            ));
        }
        if let Some(passes) = raw.max_stop_passes {
            settings.max_stop_passes = passes;
        }
        if let Some(severity) = raw.minimum_blocking_severity {
            settings.minimum_blocking_severity =
                BlockingThreshold::parse(&severity).ok_or_else(|| {
                    invalid(
                        "minimumBlockingSeverity",
                        format!("{severity:?} must be \"P1\" or \"P2\" (P3 never blocks)"),
                    )
                })?;
        }
        settings.rules_file = raw.rules_file.filter(|file| !file.trim().is_empty());
        settings.include_extensions = normalize_extensions(raw.include_extensions);
        settings.skip_extensions = normalize_extensions(raw.skip_extensions);
        if let Some(hours) = raw.stale_client_timeout_hours {
            settings.stale_client_timeout_hours = hours;
        }
        if let Some(classifier) = raw.classifier_backend {
            settings.classifier_backend = match classifier.trim().to_lowercase().as_str() {
                "builtin" => ClassifierBackend::Builtin,
                "model" => ClassifierBackend::Model,
                _ => {
                    return Err(invalid(
                        "classifierBackend",
                        format!("{classifier:?} is not one of builtin, model"),
                    ));
                }
            };
        }
        if let Some(threshold) = raw.offer_weight_threshold {
            settings.offer_weight_threshold = threshold;
        }
        if let Some(enabled) = raw.lessons_enabled {
            settings.lessons_enabled = enabled;
        }
        if let Some(enabled) = raw.learning_enabled {
            settings.learning_enabled = enabled;
        }
        settings.python_interpreter = raw.python_interpreter.filter(|p| !p.trim().is_empty());
        Ok(settings)
    }

    /// The program the reviewer backend runs (`None` for manual).
    pub(crate) fn reviewer_program(&self) -> Option<String> {
        match self.reviewer_backend {
            ReviewerBackend::Manual => None,
            ReviewerBackend::Command => self.reviewer_command.first().cloned(),
            ref other => Some(other.name().to_string()),
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
}

fn normalize_extensions(list: Option<Vec<String>>) -> Vec<String> {
    list.unwrap_or_default()
        .into_iter()
        .map(|ext| ext.trim().trim_start_matches('.').to_lowercase())
        .filter(|ext| !ext.is_empty())
        .collect()
}

/// The whole `.claude/settings.json` as a JSON object (empty when missing).
pub(crate) fn read_settings_document(path: &Path) -> Result<Map<String, Value>, SettingsError> {
    let Some(text) = crate::files::read_optional(path)? else {
        return Ok(Map::new());
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let value: Value = serde_json::from_str(&text).map_err(|error| {
        let located = crate::text::JsonError::locate(&text, &error);
        SettingsError::Json {
            path: path.to_path_buf(),
            line: located.line,
            column: located.column,
            message: located.message,
        }
    })?;
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

/// Changes `.claude/settings.json` under a lock: reads the whole document, lets `change` edit it
/// (returning whether it changed anything), and writes it back atomically only when it did. The
/// lock file lives in car's state folder, so car leaves nothing beside the user's settings.
pub(crate) fn update_settings_document(
    project: &Project,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<bool, SettingsError>,
) -> Result<bool, SettingsError> {
    let path = project.settings_file();
    let _lock = crate::files::FileLock::acquire(
        &project.state_dir().join("settings.json"),
        crate::files::HOOK_LOCK_WAIT,
    )?;
    let mut document = read_settings_document(&path)?;
    if !change(&mut document)? {
        return Ok(false);
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(document)).unwrap_or_default();
    text.push('\n');
    crate::files::write_atomic(&path, text.as_bytes())?;
    Ok(true)
}

/// car's raw settings from `.claude/settings.json`.
pub(crate) fn read_raw(path: &Path) -> Result<RawSettings, SettingsError> {
    let document = read_settings_document(path)?;
    match document.get(SETTINGS_KEY) {
        None | Some(Value::Null) => Ok(RawSettings::default()),
        Some(value) => {
            serde_json::from_value(value.clone()).map_err(|error| SettingsError::Value {
                path: path.to_path_buf(),
                key: "*".into(),
                message: error.to_string(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_validation() {
        let settings = Settings::default();
        assert!(settings.enabled);
        assert_eq!(settings.reviewer_backend, ReviewerBackend::Manual);
        assert_eq!(settings.max_stop_passes, 5);
        let raw: RawSettings =
            serde_json::from_str(r#"{"reviewerBackend":"gpt","customKey":1}"#).unwrap();
        assert!(raw.extra.contains_key("customKey"));
        let error = Settings::from_raw(raw, Path::new("s.json")).unwrap_err();
        assert!(error.to_string().contains("reviewerBackend"));
    }

    /// Regression: a typo in `classifierBackend` silently meant "builtin".
    #[test]
    fn classifier_backend_is_validated() {
        let raw: RawSettings = serde_json::from_str(r#"{"classifierBackend":"modle"}"#).unwrap();
        let error = Settings::from_raw(raw, Path::new("s.json")).unwrap_err();
        assert!(error.to_string().contains("classifierBackend"), "{error}");
        let raw: RawSettings = serde_json::from_str(r#"{"classifierBackend":"Model"}"#).unwrap();
        let settings = Settings::from_raw(raw, Path::new("s.json")).unwrap();
        assert_eq!(settings.classifier_backend, ClassifierBackend::Model);
    }

    #[test]
    fn an_absurd_reviewer_timeout_is_clamped() {
        let raw: RawSettings =
            serde_json::from_str(r#"{"reviewerTimeoutSeconds":18446744073709551615}"#).unwrap();
        let settings = Settings::from_raw(raw, Path::new("s.json")).unwrap();
        assert_eq!(
            settings.reviewer_timeout_seconds,
            MAX_REVIEWER_TIMEOUT_SECONDS
        );
    }

    #[test]
    fn extension_filters() {
        let raw: RawSettings =
            serde_json::from_str(r#"{"skipExtensions":[".md"],"includeExtensions":[]}"#).unwrap();
        let settings = Settings::from_raw(raw, Path::new("s.json")).unwrap();
        assert!(!settings.is_tracked_extension("README.md"));
        assert!(settings.is_tracked_extension("src/app.py"));
    }
}
