//! The last-message classifier: did the agent stop because it is done, or because it is waiting
//! for the user (a question that blocks progress, a decision asked for, a plan announced but not
//! carried out)? When it is waiting, the gate lets it stop without a review and keeps the edits
//! pending. Finished work followed by an offer ("Want me to also add a test?") is done: reviewed.
//!
//! The built-in classifier is offline and instant; `classifierBackend: "model"` asks the reviewer
//! CLI with a short timeout and falls back to the built-in one on any failure. The text comes
//! already read: the payload's last message, else the last assistant text of the agent's
//! transcript (each agent's transcript format lives in its file under `agents/`).

use std::path::Path;
use std::time::Duration;

use crate::settings::ClassifierBackend;
use crate::settings::Settings;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The agent finished its turn: review.
    Complete,
    /// The agent waits for the user: no review now.
    Incomplete,
    /// No text to judge: review.
    Unknown,
}

impl Verdict {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Complete => "complete",
            Verdict::Incomplete => "incomplete",
            Verdict::Unknown => "unknown",
        }
    }
}

/// What the classifier decided, by which means, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classification {
    pub(crate) verdict: Verdict,
    pub(crate) source: String,
    pub(crate) reason: String,
}

/// Classifies the agent's last message with the configured classifier.
pub(crate) fn classify(
    settings: &Settings,
    working_dir: &Path,
    last_message: Option<&str>,
) -> Classification {
    let Some(text) = last_message.map(str::trim).filter(|text| !text.is_empty()) else {
        return Classification {
            verdict: Verdict::Unknown,
            source: "builtin".into(),
            reason: "no last assistant message".into(),
        };
    };
    if settings.classifier_backend == ClassifierBackend::Off {
        return Classification {
            verdict: Verdict::Unknown,
            source: "off".into(),
            reason: "the classifier is off: every stop is reviewed".into(),
        };
    }
    if settings.classifier_backend == ClassifierBackend::Model {
        match ask_model(settings, working_dir, text) {
            Ok(verdict) => {
                return Classification {
                    verdict,
                    source: "model".into(),
                    reason: "the reviewer model's answer".into(),
                };
            }
            Err(error) => {
                let mut fallback = builtin(text);
                fallback.reason = format!("{} (model failed: {error})", fallback.reason);
                return fallback;
            }
        }
    }
    builtin(text)
}

/// Phrases that ask the user to choose or decide: the agent cannot go on without an answer.
const CHOICES: [&str; 8] = [
    "which do you prefer",
    "which would you prefer",
    "which option do you",
    "let me know which",
    "or would you rather",
    "please confirm",
    "please clarify",
    "could you clarify",
];

/// Phrases that offer more work after the work is done ("Want me to also add a test?"). Polite
/// closings ("let me know if you need anything") need no list: they are not questions.
const OFFERS: [&str; 12] = [
    "want me to",
    "would you like me to",
    "shall i also",
    "should i also",
    "shall i add",
    "should i add",
    "i can also",
    "if you'd like, i can",
    "if you want, i can",
    "happy to also",
    "do you also want",
    "would you also like",
];

/// Inside an offer, words that make it a real question after all: a choice between ways, or
/// asking leave to go on with the work itself.
const BLOCKING_IN_OFFER: [&str; 7] = [
    " or ", "which ", "proceed", "continue", "go ahead", "instead", "before i",
];

/// Closing questions that ask for nothing.
const CLOSINGS: [&str; 4] = [
    "anything else?",
    "any questions?",
    "anything else i can help with?",
    "does that help?",
];

/// Phrases that announce work not done yet.
const PLANS: [&str; 16] = [
    "i'll now",
    "i will now",
    "next, i'll",
    "next i'll",
    "next, i will",
    "next i will",
    "next, i'm going to",
    "next i'm going to",
    "now i'll",
    "now i will",
    "let me now",
    "i'm going to now",
    "i'll next",
    "i will next",
    "then i'll",
    "i'll continue with",
];

/// The offline rules: a plan not carried out, or a question that blocks progress, is
/// incomplete; finished work followed by an offer, or a closing that asks nothing, is complete.
pub(crate) fn builtin(text: &str) -> Classification {
    let verdict = |verdict, reason: &str| Classification {
        verdict,
        source: "builtin".into(),
        reason: reason.to_string(),
    };
    let tail = last_paragraph(text);
    let lower = tail.to_lowercase();
    if let Some(phrase) = PLANS.iter().find(|phrase| lower.contains(*phrase)) {
        return verdict(
            Verdict::Incomplete,
            &format!("announces work it has not done yet ({phrase:?})"),
        );
    }
    if let Some(phrase) = CHOICES.iter().find(|phrase| lower.contains(*phrase)) {
        return verdict(
            Verdict::Incomplete,
            &format!("asks the user to decide ({phrase:?})"),
        );
    }
    let question = last_sentence(tail).to_lowercase();
    if !question.ends_with('?') || CLOSINGS.iter().any(|closing| question.ends_with(closing)) {
        return verdict(Verdict::Complete, "reads as a finished turn");
    }
    let offer = OFFERS.iter().find(|phrase| question.contains(*phrase));
    match offer {
        Some(phrase) if !BLOCKING_IN_OFFER.iter().any(|word| question.contains(word)) => verdict(
            Verdict::Complete,
            &format!("finished work followed by an offer ({phrase:?}): reviewed"),
        ),
        _ => verdict(
            Verdict::Incomplete,
            "ends with a question that blocks progress",
        ),
    }
}

/// The last sentence of a paragraph (where a closing question sits).
fn last_sentence(paragraph: &str) -> &str {
    let text = paragraph.trim();
    let body = text.trim_end_matches(['?', '!', '.', ' ']);
    let start = body
        .rfind(['.', '!', '?', '\n'])
        .map_or(0, |index| index + 1);
    text[start..].trim()
}

/// The last non-empty paragraph (where a closing question or plan sits).
fn last_paragraph(text: &str) -> &str {
    text.trim()
        .rsplit("\n\n")
        .find(|paragraph| !paragraph.trim().is_empty())
        .unwrap_or(text)
}

/// Why the model classifier gave no verdict (the builtin one then decides, saying so).
#[derive(Debug, thiserror::Error)]
enum ModelError {
    #[error(transparent)]
    Reviewer(#[from] crate::reviewer::BackendError),
    #[error("unclear answer {answer:?}")]
    Unclear { answer: String },
}

fn ask_model(settings: &Settings, working_dir: &Path, text: &str) -> Result<Verdict, ModelError> {
    let prompt = format!(
        "An AI coding agent ended its turn with the message below. Answer with exactly one word: \
         INCOMPLETE if it cannot go on without the user (a question that blocks progress, a \
         decision between options) or announces work it has not done yet (\"next I will …\"); \
         COMPLETE if its work is done, also when it then offers more (\"Want me to also add a \
         test?\").\n\n<message>\n{text}\n</message>\n"
    );
    // The classifier's own limit, never more than the reviewer's.
    let timeout = Duration::from_secs_f64(settings.classifier_timeout_seconds.min(86_400.0))
        .min(Duration::from_secs(settings.reviewer_timeout_seconds));
    let mut asked = settings.clone();
    if settings.classifier_model.is_some() {
        asked.reviewer_model = settings.classifier_model.clone();
    }
    let answer = crate::reviewer::ask(&asked, working_dir, &prompt, timeout)?;
    let upper = answer.to_uppercase();
    if upper.contains("INCOMPLETE") {
        Ok(Verdict::Incomplete)
    } else if upper.contains("COMPLETE") {
        Ok(Verdict::Complete)
    } else {
        Err(ModelError::Unclear {
            answer: answer.trim().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules() {
        let cases = [
            ("I refactored the loader. All done.", Verdict::Complete),
            ("Done.\n\nShould I also update the docs?", Verdict::Complete),
            (
                "Done: the loop now covers every row. Want me to also add a test?",
                Verdict::Complete,
            ),
            (
                "Implemented the parser. Shall I also wire it into the CLI?",
                Verdict::Complete,
            ),
            (
                "I found two ways to do it. Should I use the cache or the database?",
                Verdict::Incomplete,
            ),
            (
                "Step one is in place. Want me to continue with the migration?",
                Verdict::Incomplete,
            ),
            ("What should the default timeout be?", Verdict::Incomplete),
            ("All tests pass. Anything else?", Verdict::Complete),
            (
                "I read the loader. Next I will rewrite the cache.",
                Verdict::Incomplete,
            ),
            (
                "Two ways: Option A keeps the API, option B is faster. Which do you prefer",
                Verdict::Incomplete,
            ),
            (
                "I've read the code. Next, I'll update the parser and the tests.",
                Verdict::Incomplete,
            ),
            (
                "Fixed the bug (was it the cache? yes).\n\nAll tests pass.",
                Verdict::Complete,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(builtin(text).verdict, expected, "{text}");
        }
    }
}
