//! The last-message classifier: did the agent stop because it is done, or because it is waiting
//! for the user (a question to them anywhere in the last paragraph that it does not answer itself,
//! a decision asked for, a plan announced but not carried out, work said to be unfinished)? When it
//! is waiting, the gate lets it stop without a review and keeps the edits pending. Finished work
//! followed by an offer ("Want me to also add a test?"), a closing ("Any questions?") and a
//! rhetorical question the agent answers are done: reviewed. When unsure: reviewed.
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

/// Who decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// car's offline rules (also when the model failed: the reason says so).
    Builtin,
    /// `classifierBackend: "off"`.
    Off,
    /// The reviewer CLI asked as the classifier (`classifierBackend: "model"`).
    Model {
        /// The CLI that answered (`claude`, or `reviewerCommand`'s program).
        program: String,
    },
}

impl Source {
    /// The name recorded in the session's `classifier_result` event.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Source::Builtin => "builtin",
            Source::Off => "off",
            Source::Model { .. } => "model",
        }
    }
}

/// What the classifier decided, by which means, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classification {
    pub(crate) verdict: Verdict,
    pub(crate) source: Source,
    /// Why, as a phrase about the agent's last message for the built-in rules ("announces work
    /// it has not done yet"), or what the model answered.
    pub(crate) reason: String,
}

impl Classification {
    /// Who judged the agent to be waiting for the user, and why, for the person: "car's built-in
    /// classifier judged … (its last message asks …)" or "the classifier model (`claude`) judged
    /// … (it answered INCOMPLETE)".
    pub(crate) fn why_postponed(&self) -> String {
        let (who, why) = match &self.source {
            Source::Model { program } => (
                format!("the classifier model (`{program}`)"),
                format!("it {}", self.reason),
            ),
            Source::Builtin | Source::Off => (
                "car's built-in classifier".to_string(),
                format!("its last message {}", self.reason),
            ),
        };
        format!("{who} judged the agent to be waiting for the user ({why})")
    }
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
            source: Source::Builtin,
            reason: "no last assistant message".into(),
        };
    };
    if settings.classifier_backend == ClassifierBackend::Off {
        return Classification {
            verdict: Verdict::Unknown,
            source: Source::Off,
            reason: "the classifier is off: every stop is reviewed".into(),
        };
    }
    if settings.classifier_backend == ClassifierBackend::Model {
        match ask_model(settings, working_dir, text) {
            Ok(verdict) => {
                return Classification {
                    verdict,
                    source: Source::Model {
                        program: program_name(settings),
                    },
                    reason: format!("answered {}", verdict.as_str().to_uppercase()),
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

/// The classifier model's CLI by its file name (`reviewerCommand` may name a long path).
fn program_name(settings: &Settings) -> String {
    let program = settings.reviewer_program().unwrap_or_default();
    Path::new(&program)
        .file_name()
        .map_or(program.clone(), |name| name.to_string_lossy().into_owned())
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

/// Phrases that say, in so many words, that the work is not finished.
const NOT_DONE: [&str; 12] = [
    "not done yet",
    "i'm not done",
    "i am not done",
    "not finished yet",
    "i'm not finished",
    "i am not finished",
    "i haven't finished",
    "i have not finished",
    "i still need to",
    "i still have to",
    "still left to do",
    "work in progress",
];

/// Sentences that hand the question before them to the person ("Should I use A or B? Please
/// decide."): a question followed only by these is not answered by the agent itself.
const ANSWER_PROMPTS: [&str; 10] = [
    "please",
    "let me know",
    "your call",
    "tell me",
    "i'll wait",
    "i will wait",
    "waiting for your",
    "just say",
    "up to you",
    "thanks",
];

/// How a question addressed to the person opens: a decision only they can make, whatever follows
/// it. A question in the agent's own voice ("Why did it fail? The cache …") is rhetorical when a
/// statement answers it.
const ADDRESSED: [&str; 12] = [
    "should i ",
    "shall i ",
    "do you ",
    "would you ",
    "which do you",
    "which one do you",
    "which would you",
    "what do you",
    "what would you",
    "how do you want",
    "can you ",
    "could you ",
];

/// How the agent answers its own question ("Should I use A or B? I went with A."): the decision
/// is made, the work is done — reviewed.
const SELF_ANSWERS: [&str; 10] = [
    "i went with",
    "i've gone with",
    "i have gone with",
    "i chose",
    "i picked",
    "i decided",
    "i went ahead",
    "i used",
    "for now, i",
    "for now i",
];

/// The offline rules: a plan not carried out, work said to be unfinished, or a question to the
/// person that nothing after it answers is incomplete; finished work followed by an offer, a
/// closing that asks nothing, or a rhetorical question the agent answers itself is complete.
/// When unsure, complete: rather review than skip.
pub(crate) fn builtin(text: &str) -> Classification {
    let verdict = |verdict, reason: &str| Classification {
        verdict,
        source: Source::Builtin,
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
    if let Some(phrase) = NOT_DONE.iter().find(|phrase| lower.contains(*phrase)) {
        return verdict(
            Verdict::Incomplete,
            &format!("says the work is not finished ({phrase:?})"),
        );
    }
    if let Some(phrase) = CHOICES.iter().find(|phrase| lower.contains(*phrase)) {
        return verdict(
            Verdict::Incomplete,
            &format!("asks the user to decide ({phrase:?})"),
        );
    }
    match waiting_question(&sentences(&lower)) {
        Some(reason) => verdict(Verdict::Incomplete, &reason),
        None => verdict(Verdict::Complete, "reads as a finished turn"),
    }
}

/// Why the last paragraph waits for the person: a question to them that ends it, that only a
/// hand-over ("Please decide.") follows, or that only they can answer and the agent did not
/// answer itself. `None`: no such question.
fn waiting_question(sentences: &[&str]) -> Option<String> {
    for (index, sentence) in sentences.iter().enumerate() {
        if !sentence.ends_with('?') || !asks_the_person(sentence) {
            continue;
        }
        let after = &sentences[index + 1..];
        let Some(first_after) = after.first() else {
            return Some("ends with a question that blocks progress".into());
        };
        if after.iter().all(|next| is_answer_prompt(next)) {
            return Some(format!(
                "asks the user a question and waits for the answer ({first_after:?})"
            ));
        }
        let answered_itself = after
            .iter()
            .any(|next| SELF_ANSWERS.iter().any(|phrase| opens_with(next, phrase)));
        if answered_itself {
            continue;
        }
        if let Some(opening) = ADDRESSED
            .iter()
            .find(|opening| sentence.starts_with(*opening))
        {
            return Some(format!(
                "asks the user to decide ({:?})",
                opening.trim_end()
            ));
        }
    }
    None
}

/// Whether a sentence opens with `phrase` (after a list dash).
fn opens_with(sentence: &str, phrase: &str) -> bool {
    sentence
        .trim_start_matches(['-', '—', ' '])
        .starts_with(phrase)
}

/// Whether a question asks the person something: not a closing that asks nothing, and not an
/// offer of more work after the work is done.
fn asks_the_person(question: &str) -> bool {
    if CLOSINGS.iter().any(|closing| question.ends_with(closing)) {
        return false;
    }
    let is_offer = OFFERS.iter().any(|phrase| question.contains(phrase));
    !is_offer || BLOCKING_IN_OFFER.iter().any(|word| question.contains(word))
}

/// A sentence that hands the question before it to the person.
fn is_answer_prompt(sentence: &str) -> bool {
    ANSWER_PROMPTS
        .iter()
        .any(|prompt| opens_with(sentence, prompt))
}

/// A paragraph's sentences, each with its closing mark; a mark ends a sentence only before
/// whitespace or the end (`load.py`, `a?.b` stay whole), a line break always does.
fn sentences(paragraph: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = 0;
    let mut chars = paragraph.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        let next = chars.peek().map(|(_, next)| *next);
        let ends = match c {
            '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
            '\n' => true,
            _ => false,
        };
        if ends {
            let end = index + c.len_utf8();
            let sentence = paragraph[start..end].trim();
            if !sentence.is_empty() {
                found.push(sentence);
            }
            start = end;
        }
    }
    let rest = paragraph[start..].trim();
    if !rest.is_empty() {
        found.push(rest);
    }
    found
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
         decision between options, a question followed by \"please decide\" or \"let me know\") \
         or announces work it has not done yet (\"next I will …\", \"I'm not done yet\"); \
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
    fn a_postponement_says_who_decided_and_why() {
        let model = Classification {
            verdict: Verdict::Incomplete,
            source: Source::Model {
                program: "claude".into(),
            },
            reason: "answered INCOMPLETE".into(),
        };
        assert_eq!(
            model.why_postponed(),
            "the classifier model (`claude`) judged the agent to be waiting for the user (it answered INCOMPLETE)"
        );
        let builtin = builtin("I read the loader. Next I will rewrite the cache.");
        assert_eq!(
            builtin.why_postponed(),
            "car's built-in classifier judged the agent to be waiting for the user (its last message announces work it has not done yet (\"next i will\"))"
        );
    }

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

    #[test]
    fn questions_to_the_person_anywhere_in_the_last_paragraph_wait() {
        for text in [
            "Should I use A or B? Please decide.",
            "I added the endpoint. Should it return 404 or 410 for deleted items? Let me know.",
            "The handler is half done.\n\nShould deleted items give 404 or 410? Let me know and I'll finish it.",
            "Should I keep the old flag? Your call.",
            "Do you want the cache in memory or on disk? I'll wait for your answer.",
            "Should I drop the legacy table? It holds 2 GB of rows nobody reads.",
            "Which do you prefer? Option A keeps the API; option B is faster.",
            "What should the default timeout be? Thanks!",
            "Would you rather keep both loaders?\nPlease tell me before I delete one.",
        ] {
            let classified = builtin(text);
            assert_eq!(classified.verdict, Verdict::Incomplete, "{text}");
            assert!(
                classified.reason.contains("asks the user")
                    || classified.reason.contains("question"),
                "{classified:?}"
            );
        }
    }

    #[test]
    fn not_done_yet_statements_wait() {
        for text in [
            "I'm not done yet; I still need to update the callers",
            "The parser is in. I still need to update the callers.",
            "Not finished yet: the migration is missing.",
            "I haven't finished the tests.",
        ] {
            let classified = builtin(text);
            assert_eq!(classified.verdict, Verdict::Incomplete, "{text}");
            assert!(classified.reason.contains("not finished"), "{classified:?}");
        }
    }

    #[test]
    fn finished_turns_with_questions_in_them_are_still_reviewed() {
        for text in [
            "Done. Any questions?",
            "All done — let me know if you want changes.",
            "All done. Let me know if you want changes.",
            "Why did the loader crash? It read the file before checking it exists. load() now checks first, and a test covers it.",
            "What happens when the path is missing? `load()` now raises FileNotFoundError instead of returning None.",
            "How does the cache stay fresh? Each entry is keyed by the file's mtime. Fixed and tested.",
            "Fixed `a?.b` in render.ts. Done.",
            "Done: all callers are updated. Want me to also add a test? Let me know.",
            "The rename is complete. Could this break plugins? No: nothing outside src/ imports it.",
            "Should I use the cache or the database? I went with the cache: reads dominate. Done.",
        ] {
            assert_eq!(builtin(text).verdict, Verdict::Complete, "{text}");
        }
    }
}
