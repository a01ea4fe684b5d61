//! car's settings keys, read one at a time: a value car cannot use costs that key alone (its
//! default stands in, and the key, the value and why are recorded for `car status` and the
//! hook's one-time message). The Python `claude-auto-review` tool's whole block is accepted with
//! its meaning: hours may be fractions (`48.0`), severities `critical`/`high` mean P1, `medium`
//! P2, and `low`/`info` never block (P3 never does), its classifier keys map onto car's.
//!
//! Adding a key is one line in [`read_all`].

use serde_json::{Map, Value};

use super::{
    BlockingThreshold, ClassifierBackend, Fallback, LearningMode, ReviewerBackend, SettingProblem,
    Settings,
};

/// Why car cannot use a settings value; [`SettingProblem`] names the key, the value and the
/// default that stands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ValueProblem {
    #[error("is not true or false")]
    NotBoolean,
    #[error("is not a whole number")]
    NotWhole,
    #[error("must be at least {minimum}")]
    BelowMinimum { minimum: u64 },
    #[error("is too large")]
    TooLarge,
    #[error("is not a number")]
    NotNumber,
    #[error("must not be negative")]
    Negative,
    #[error("must be above 0")]
    NotAboveZero,
    #[error("is not a string")]
    NotText,
    #[error("is not a list of strings")]
    NotTextList,
    #[error("is not one of manual, claude, codex, opencode, command")]
    UnknownBackend,
    #[error("is not P1 or P2 (nor critical, high, medium, low, info); P3 never blocks")]
    UnknownThreshold,
    #[error("is not one of builtin, model, off")]
    UnknownClassifier,
    #[error("is not one of auto, approve, observe")]
    UnknownLearningMode,
    /// `reviewerBackend: "command"` without the command to run.
    #[error("needs reviewerCommand: [\"prog\", \"arg\", …]")]
    NoReviewerCommand,
    /// car's whole block is not a JSON object.
    #[error("is not an object of settings")]
    NotAnObject,
}

/// Reads keys from car's block, collecting what it could not use.
pub(crate) struct KeyReader<'a> {
    block: &'a Map<String, Value>,
    problems: Vec<SettingProblem>,
}

impl<'a> KeyReader<'a> {
    pub(crate) fn new(block: &'a Map<String, Value>) -> KeyReader<'a> {
        KeyReader {
            block,
            problems: Vec::new(),
        }
    }

    pub(crate) fn into_problems(self) -> Vec<SettingProblem> {
        self.problems
    }

    /// Sets `target` from `key` when present and usable; a missing or `null` key keeps the
    /// default silently, a bad value keeps it too and is recorded.
    fn read<T: Shown>(
        &mut self,
        key: &str,
        target: &mut T,
        parse: impl FnOnce(&Value) -> Result<T, ValueProblem>,
    ) {
        let Some(value) = self.block.get(key).filter(|value| !value.is_null()) else {
            return;
        };
        match parse(value) {
            Ok(parsed) => *target = parsed,
            Err(problem) => self.problem(key, value, problem, target.shown()),
        }
    }

    fn problem(&mut self, key: &str, value: &Value, problem: ValueProblem, default: String) {
        self.problems.push(SettingProblem {
            key: key.to_string(),
            value: value.clone(),
            problem,
            fallback: Fallback::Default(default),
        });
    }
}

/// Every key car reads, in one place.
pub(crate) fn read_all(reader: &mut KeyReader<'_>, settings: &mut Settings) {
    let s = settings;
    reader.read("enabled", &mut s.enabled, boolean);
    reader.read("reviewerBackend", &mut s.reviewer_backend, backend);
    if reader.block.contains_key("reviewerBackend") {
        s.deep_review_backend = s.reviewer_backend.clone();
    }
    reader.read("deepReviewBackend", &mut s.deep_review_backend, backend);
    reader.read("reviewerModel", &mut s.reviewer_model, optional_text);
    reader.read(
        "reviewerTimeoutSeconds",
        &mut s.reviewer_timeout_seconds,
        // Clamped: an absurd value must not overflow time sums or install a wrapped timeout.
        |v| whole(v, 1).map(|seconds| seconds.min(super::MAX_REVIEWER_TIMEOUT_SECONDS)),
    );
    reader.read("reviewerCommand", &mut s.reviewer_command, text_list);
    reader.read("maxStopPasses", &mut s.max_stop_passes, |v| {
        whole(v, 0).and_then(|n| u32::try_from(n).map_err(|_| ValueProblem::TooLarge))
    });
    // car's own: the fix rounds a blocking finding may survive before a person decides.
    reader.read("maxFixAttempts", &mut s.max_fix_attempts, |v| {
        whole(v, 1).and_then(|n| u32::try_from(n).map_err(|_| ValueProblem::TooLarge))
    });
    reader.read(
        "minimumBlockingSeverity",
        &mut s.minimum_blocking_severity,
        threshold,
    );
    reader.read("rulesFile", &mut s.rules_file, |v| {
        optional_text(v).map(|file| file.map(|file| file.replace('\\', "/")))
    });
    reader.read("includeExtensions", &mut s.include_extensions, extensions);
    reader.read("skipExtensions", &mut s.skip_extensions, extensions);
    reader.read(
        "staleClientTimeoutHours",
        &mut s.stale_client_timeout_hours,
        hours,
    );
    reader.read("classifierBackend", &mut s.classifier_backend, classifier);
    reader.read("classifierModel", &mut s.classifier_model, optional_text);
    reader.read(
        "lastAssistantMessageClassifierTimeoutSeconds",
        &mut s.classifier_timeout_seconds,
        |v| {
            hours(v).and_then(|n| {
                if n > 0.0 {
                    Ok(n)
                } else {
                    Err(ValueProblem::NotAboveZero)
                }
            })
        },
    );
    reader.read(
        "reviewFeedbackMaxChars",
        &mut s.review_feedback_max_chars,
        |v| whole(v, 1).map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    );
    reader.read("offerWeightThreshold", &mut s.offer_weight_threshold, |v| {
        whole(v, 0).and_then(|n| u32::try_from(n).map_err(|_| ValueProblem::TooLarge))
    });
    reader.read("lessonsEnabled", &mut s.lessons_enabled, boolean);
    reader.read("learningEnabled", &mut s.learning_enabled, boolean);
    reader.read("learning", &mut s.learning, learning_mode);
    reader.read("sessionBriefing", &mut s.session_briefing, boolean);
    reader.read("editBriefing", &mut s.edit_briefing, boolean);
    reader.read("preventEdits", &mut s.prevent_edits, boolean);
    reader.read("preventWeight", &mut s.prevent_weight, |v| {
        whole(v, 1).and_then(|n| u32::try_from(n).map_err(|_| ValueProblem::TooLarge))
    });
    reader.read(
        "pythonInterpreter",
        &mut s.python_interpreter,
        optional_text,
    );
    // The Python tool's classifier switch: off means every stop is reviewed.
    let mut classifier_enabled = true;
    reader.read(
        "lastAssistantMessageClassifierEnabled",
        &mut classifier_enabled,
        boolean,
    );
    if !classifier_enabled {
        s.classifier_backend = ClassifierBackend::Off;
    }
    // The Python tool's keys car reads but does not act on; still checked so a typo shows.
    reader.read("debug", &mut true, boolean);
    reader.read("pendingReviewTimeoutHours", &mut 1.0, hours);
    if s.reviewer_backend == ReviewerBackend::Command && s.reviewer_command.is_empty() {
        let value = reader
            .block
            .get("reviewerBackend")
            .cloned()
            .unwrap_or_default();
        s.reviewer_backend = ReviewerBackend::Manual;
        reader.problem(
            "reviewerBackend",
            &value,
            ValueProblem::NoReviewerCommand,
            s.reviewer_backend.shown(),
        );
    }
}

/// The keys of the Python tool that car reads but does not act on, and why.
pub(crate) const IGNORED_PYTHON_KEYS: [(&str, &str); 2] = [
    ("debug", "car logs hook errors always (`car status`)"),
    (
        "pendingReviewTimeoutHours",
        "a pending review stays until it is submitted or `car review cancel`",
    ),
];

fn boolean(value: &Value) -> Result<bool, ValueProblem> {
    match value {
        Value::Bool(flag) => Ok(*flag),
        Value::String(text) if text.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(text) if text.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(ValueProblem::NotBoolean),
    }
}

/// A whole number of at least `minimum` (`600.0` counts as 600).
fn whole(value: &Value, minimum: u64) -> Result<u64, ValueProblem> {
    let number = match value {
        Value::Number(number) => number.as_u64().or_else(|| {
            number
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    };
    match number {
        Some(number) if number >= minimum => Ok(number),
        Some(_) => Err(ValueProblem::BelowMinimum { minimum }),
        None => Err(ValueProblem::NotWhole),
    }
}

/// A number of hours or seconds, fractions allowed, not negative.
fn hours(value: &Value) -> Result<f64, ValueProblem> {
    match value.as_f64() {
        Some(number) if number.is_finite() && number >= 0.0 => Ok(number),
        Some(_) => Err(ValueProblem::Negative),
        None => Err(ValueProblem::NotNumber),
    }
}

fn optional_text(value: &Value) -> Result<Option<String>, ValueProblem> {
    match value {
        Value::String(text) if text.trim().is_empty() => Ok(None),
        Value::String(text) => Ok(Some(text.trim().to_string())),
        _ => Err(ValueProblem::NotText),
    }
}

fn text_list(value: &Value) -> Result<Vec<String>, ValueProblem> {
    value
        .as_array()
        .and_then(|list| {
            list.iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or(ValueProblem::NotTextList)
}

/// Lower-case extensions without the dot.
fn extensions(value: &Value) -> Result<Vec<String>, ValueProblem> {
    Ok(text_list(value)?
        .into_iter()
        .map(|ext| ext.trim().trim_start_matches('.').to_lowercase())
        .filter(|ext| !ext.is_empty())
        .collect())
}

fn backend(value: &Value) -> Result<ReviewerBackend, ValueProblem> {
    let text = value.as_str().unwrap_or_default().trim().to_lowercase();
    serde_json::from_value(Value::String(text)).map_err(|_| ValueProblem::UnknownBackend)
}

/// car's P1/P2, or the Python tool's five levels.
fn threshold(value: &Value) -> Result<BlockingThreshold, ValueProblem> {
    let text = value.as_str().unwrap_or_default();
    if let Some(threshold) = BlockingThreshold::parse(text) {
        return Ok(threshold);
    }
    match text.trim().to_lowercase().as_str() {
        "critical" | "high" => Ok(BlockingThreshold::P1),
        // P3 never blocks, so low and info findings block no lower than P2 does.
        "medium" | "low" | "info" => Ok(BlockingThreshold::P2),
        _ => Err(ValueProblem::UnknownThreshold),
    }
}

fn classifier(value: &Value) -> Result<ClassifierBackend, ValueProblem> {
    let names = [
        ("builtin", ClassifierBackend::Builtin),
        ("model", ClassifierBackend::Model),
        ("off", ClassifierBackend::Off),
    ];
    one_of(value, &names).ok_or(ValueProblem::UnknownClassifier)
}

fn learning_mode(value: &Value) -> Result<LearningMode, ValueProblem> {
    let names = [
        ("auto", LearningMode::Auto),
        ("approve", LearningMode::Approve),
        ("observe", LearningMode::Observe),
    ];
    one_of(value, &names).ok_or(ValueProblem::UnknownLearningMode)
}

/// The value a text names, any case, spaces around ignored.
fn one_of<T: Copy>(value: &Value, names: &[(&str, T)]) -> Option<T> {
    let text = value.as_str()?.trim().to_lowercase();
    names
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, value)| *value)
}

/// How a default is named in a message.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for bool {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for u32 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for u64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for usize {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for f64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for Option<String> {
    fn shown(&self) -> String {
        self.as_deref()
            .map_or("(none)".into(), |text| format!("{text:?}"))
    }
}

impl Shown for Vec<String> {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

impl Shown for ReviewerBackend {
    fn shown(&self) -> String {
        self.name().to_string()
    }
}

impl Shown for BlockingThreshold {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for ClassifierBackend {
    fn shown(&self) -> String {
        self.name().to_string()
    }
}

impl Shown for LearningMode {
    fn shown(&self) -> String {
        self.name().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(block: Value) -> super::super::Checked {
        Settings::from_block(block.as_object().unwrap())
    }

    /// The block the Python tool's `install` writes (all 16 keys), literally.
    #[test]
    fn the_python_tools_block_is_read_with_its_meaning() {
        let checked = read(json!({
            "enabled": false, "debug": true, "reviewerBackend": "codex",
            "reviewerModel": "gpt-5.4-mini", "reviewerTimeoutSeconds": 600,
            "reviewFeedbackMaxChars": 9000, "lastAssistantMessageClassifierEnabled": true,
            "lastAssistantMessageClassifierTimeoutSeconds": 20, "classifierModel": "claude-haiku-4-5",
            "rulesFile": ".claude\\claude-auto-review\\review-rules.md",
            "includeExtensions": [], "skipExtensions": [".MD"], "maxStopPasses": 5,
            "minimumBlockingSeverity": "high", "pendingReviewTimeoutHours": 1,
            "staleClientTimeoutHours": 48.0
        }));
        assert!(checked.problems.is_empty(), "{:?}", checked.problems);
        let s = checked.settings;
        assert!(!s.enabled);
        assert_eq!(s.reviewer_backend, ReviewerBackend::Codex);
        assert_eq!(s.minimum_blocking_severity, BlockingThreshold::P1);
        assert_eq!(s.stale_client_timeout_hours, 48.0);
        assert_eq!(s.stale_client_timeout_seconds(), 48 * 3600);
        assert_eq!(
            s.rules_file.as_deref(),
            Some(".claude/claude-auto-review/review-rules.md")
        );
        assert_eq!(s.skip_extensions, ["md"]);
        assert_eq!(s.classifier_model.as_deref(), Some("claude-haiku-4-5"));
        assert_eq!(s.review_feedback_max_chars, 9000);
    }

    #[test]
    fn severities_map_onto_p1_and_p2() {
        for (text, expected) in [
            ("critical", BlockingThreshold::P1),
            ("HIGH", BlockingThreshold::P1),
            ("medium", BlockingThreshold::P2),
            ("low", BlockingThreshold::P2),
            ("info", BlockingThreshold::P2),
            ("p1", BlockingThreshold::P1),
        ] {
            let s = read(json!({"minimumBlockingSeverity": text})).settings;
            assert_eq!(s.minimum_blocking_severity, expected, "{text}");
        }
    }

    #[test]
    fn a_bad_value_costs_its_key_alone() {
        let checked = read(json!({
            "enabled": false, "maxStopPasses": "five", "reviewerBackend": "gpt",
            "staleClientTimeoutHours": -1, "reviewerTimeoutSeconds": 0, "customKey": [1]
        }));
        assert!(!checked.settings.enabled, "the good key still counts");
        assert_eq!(checked.settings.max_stop_passes, 5);
        assert_eq!(checked.settings.reviewer_backend, ReviewerBackend::Manual);
        let shown: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "\"reviewerBackend\": \"gpt\" is not one of manual, claude, codex, opencode, command; using the default manual",
                "\"reviewerTimeoutSeconds\": 0 must be at least 1; using the default 300",
                "\"maxStopPasses\": \"five\" is not a whole number; using the default 5",
                "\"staleClientTimeoutHours\": -1 must not be negative; using the default 24",
            ]
        );
    }

    /// Every kind of bad value, as `car status` and the hook's message name it.
    #[test]
    fn each_value_problem_says_what_is_wrong_and_what_stands_in() {
        let checked = read(json!({
            "enabled": "yes", "reviewerModel": 5, "reviewerCommand": "prog",
            "maxStopPasses": 4_294_967_296_u64, "minimumBlockingSeverity": "P3",
            "staleClientTimeoutHours": "a day", "classifierBackend": "modle",
            "lastAssistantMessageClassifierTimeoutSeconds": 0
        }));
        let shown: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "\"enabled\": \"yes\" is not true or false; using the default true",
                "\"reviewerModel\": 5 is not a string; using the default (none)",
                "\"reviewerCommand\": \"prog\" is not a list of strings; using the default []",
                "\"maxStopPasses\": 4294967296 is too large; using the default 5",
                "\"minimumBlockingSeverity\": \"P3\" is not P1 or P2 (nor critical, high, medium, low, info); P3 never blocks; using the default P2",
                "\"staleClientTimeoutHours\": \"a day\" is not a number; using the default 24",
                "\"classifierBackend\": \"modle\" is not one of builtin, model, off; using the default builtin",
                "\"lastAssistantMessageClassifierTimeoutSeconds\": 0 must be above 0; using the default 20",
            ]
        );
        let command = read(json!({"reviewerBackend": "command"}));
        assert_eq!(
            command.problems[0].to_string(),
            "\"reviewerBackend\": \"command\" needs reviewerCommand: [\"prog\", \"arg\", …]; using the default manual"
        );
        let document: Map<String, Value> =
            serde_json::from_value(json!({"claude-auto-review": [1]})).unwrap();
        assert_eq!(
            super::super::block_problem(&document).unwrap().to_string(),
            "\"claude-auto-review\": [1] is not an object of settings; every key uses its default"
        );
    }

    #[test]
    fn max_fix_attempts_defaults_to_3_and_is_at_least_1() {
        assert_eq!(read(json!({})).settings.max_fix_attempts, 3);
        assert_eq!(
            read(json!({"maxFixAttempts": 2})).settings.max_fix_attempts,
            2
        );
        let checked = read(json!({"maxFixAttempts": 0}));
        assert_eq!(checked.settings.max_fix_attempts, 3);
        assert_eq!(
            checked.problems[0].to_string(),
            "\"maxFixAttempts\": 0 must be at least 1; using the default 3"
        );
    }

    #[test]
    fn classifier_switch_and_command_backend() {
        let s = read(json!({"lastAssistantMessageClassifierEnabled": false})).settings;
        assert_eq!(s.classifier_backend, ClassifierBackend::Off);
        let checked = read(json!({"reviewerBackend": "command"}));
        assert_eq!(checked.settings.reviewer_backend, ReviewerBackend::Manual);
        assert_eq!(checked.problems[0].key, "reviewerBackend");
        let checked = read(json!({"classifierBackend": "modle"}));
        assert_eq!(checked.problems[0].key, "classifierBackend");
    }
}
