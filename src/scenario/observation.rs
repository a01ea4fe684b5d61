//! What a replay step showed the agent: block or not, the block reason, the lesson warnings, the
//! human message. Read from the hook's own [`Answer`] (or built the same way for `check`
//! and `maintain` steps), so expectations test what the agent really reads.

use crate::answer::Answer;

/// The marker every rendered lesson warning starts with (post_tool_use::render_warnings).
pub(crate) const WARNING_MARKER: &str = "⚠️ lesson";

/// What a step showed the agent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Observation {
    pub(crate) blocked: bool,
    pub(crate) reason: String,
    pub(crate) message: String,
    /// One entry per shown lesson warning.
    pub(crate) warnings: Vec<String>,
}

impl Observation {
    pub(crate) fn from_response(response: &Answer) -> Observation {
        let reason = response.block_reason.clone().unwrap_or_default();
        let context = response.additional_context.clone().unwrap_or_default();
        let warnings = reason
            .lines()
            .chain(context.lines())
            .filter(|line| line.starts_with(WARNING_MARKER))
            .map(String::from)
            .collect();
        Observation {
            blocked: response.block_reason.is_some(),
            reason,
            message: response.system_message.clone().unwrap_or_default(),
            warnings,
        }
    }

    /// Whether a shown warning mentions `text`: as written, with backslashes doubled (JSON
    /// quoting), or, for a trigger as written in the lesson file, as a warning names it
    /// (``pattern `yaml.load(` ``).
    pub(crate) fn warned_about(&self, text: &str) -> bool {
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
        let labelled = crate::lessons::trigger::text::labelled(text);
        self.warnings
            .iter()
            .any(|line| line.contains(text) || line.contains(&escaped) || line.contains(&labelled))
    }

    /// A short account of what was shown, for failure messages.
    pub(crate) fn summary(&self) -> String {
        let verdict = if self.blocked {
            "blocked"
        } else {
            "not blocked"
        };
        if self.warnings.is_empty() {
            format!("{verdict}, no warnings")
        } else {
            format!("{verdict}, warnings: {}", self.warnings.join(" | "))
        }
    }
}
