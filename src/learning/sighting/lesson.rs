//! What a learned lesson is made of: its trigger, its text ("Write `B`, not `A`."), its examples
//! and evidence, as the one [`Lesson`] every source promotes.

use serde_json::json;

use super::MAX_EXAMPLES;
use crate::learning::pattern::Pattern;
use crate::learning::synthesis::{self, Example};
use crate::lessons::model::{Examples, Lesson, Matching, PROMOTED_WEIGHT, RawLesson, lesson_id};
use crate::lessons::provenance::{EVIDENCE_FIELD, Evidence, SOURCE_FIELD, Source};

/// What a learned lesson is made of.
pub(crate) struct Learned<'a> {
    pub(crate) source: Source,
    pub(crate) scope: &'a str,
    pub(crate) trigger: &'a str,
    /// The lesson's text.
    pub(crate) text: String,
    /// Every place it was seen, each with the line as written and as fixed.
    pub(crate) evidence: &'a [Evidence],
    /// For a checker's error: the subject it must report again for the lesson to fire.
    pub(crate) error_subject: Option<&'a str>,
}

/// A learned lesson of weight 2: its lines as written and as fixed its examples, its places
/// `learned_from`; it matches code as a person reads it ([`Matching::CODE`]). `extra` adds
/// fields (what the lesson needs to fire). `None` when the lesson would not be valid.
pub(crate) fn learned_lesson(
    learned: Learned<'_>,
    mut extra: serde_json::Map<String, serde_json::Value>,
    today: &str,
) -> Option<Lesson> {
    let triggers = vec![learned.trigger.to_string()];
    let mut examples = Examples::default();
    for item in learned.evidence {
        push_example(&mut examples.should_match, &item.bad);
        push_example(&mut examples.should_not_match, &item.fixed);
    }
    extra.insert(SOURCE_FIELD.into(), json!(learned.source.as_str()));
    extra.insert(EVIDENCE_FIELD.into(), json!(learned.evidence));
    let raw = RawLesson {
        id: Some(lesson_id(learned.scope, &triggers)),
        scope: learned.scope.to_string(),
        triggers,
        lesson: learned.text,
        weight: Some(u64::from(PROMOTED_WEIGHT)),
        hits: Some(0),
        created: Some(today.to_string()),
        examples: Some(examples),
        whole_identifiers: Matching::CODE.whole_identifiers,
        code_only: Matching::CODE.code_only,
        error_subject: learned.error_subject.map(str::to_string),
        extra,
        ..RawLesson::default()
    };
    Lesson::from_raw(raw).ok()
}

/// `why` and what every fix agrees on: "Write `B`, not `A`." for a replacement; for a call the
/// fix added to, "Write `A…B)`, not `A…)` without `B`."; else "Avoid `A`.".
pub(crate) fn pattern_text(why: &str, pattern: &Pattern, examples: &[Example<'_>]) -> String {
    let shown = pattern.display();
    let advice = match &pattern.unless {
        Some(unless) => {
            let passed = if unless.is_keyword_argument {
                format!("{}=", unless.word)
            } else {
                unless.word.clone()
            };
            match &unless.inserted {
                Some(inserted) => {
                    format!("Write `{shown}…{inserted})`, not `{shown}…)` without `{passed}`.")
                }
                None => format!("Pass `{passed}` to `{shown}…)`."),
            }
        }
        None => match synthesis::common_fix(examples, pattern) {
            Some(fix) => format!("Write `{fix}`, not `{shown}`."),
            None => format!("Avoid `{shown}`."),
        },
    };
    join_why(why, advice)
}

pub(crate) fn join_why(why: &str, advice: String) -> String {
    let why = why.trim();
    if why.is_empty() {
        advice
    } else {
        format!("{why} {advice}")
    }
}

fn push_example(list: &mut Vec<String>, text: &str) {
    let text = text.trim();
    if !text.is_empty() && list.len() < MAX_EXAMPLES && !list.iter().any(|known| known == text) {
        list.push(text.to_string());
    }
}
