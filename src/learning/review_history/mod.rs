//! Learning from the team's review history (`car lessons learn-from-reviews`): pull-request review
//! comments whose ```` ```suggestion ```` block says exactly what to write instead. Each such
//! comment is one sighting ([`sighting`]): the commented line as written, the suggestion as fixed,
//! the file's kind as the scope, the comment's words as why, its link kept as evidence
//! (`source: "review-history"`). The same change suggested on two pull requests (or in two files)
//! makes the lesson, verified like every learned lesson against the project's code.
//!
//! What teaches nothing is counted and shown by its reason ([`Skipped`]), deliberately: text
//! without a suggestion (it names no change to verify), replies and later suggestions in a
//! thread (a thread is one piece of evidence, its first suggestion), bots (a tool's fix, not the
//! team's judgement), comments on removed lines or on a whole file (no written line), and a hunk
//! that does not hold the commented lines. An outdated comment (its lines changed since, often
//! because the suggestion was committed) still counts: its hunk holds the lines as written.
//!
//! Invariants: comments are read in the order they were written; one comment counts once however
//! often its export is read (its link is its identity); every suggestion that teaches nothing is
//! a refusal with its reason, recorded through the learning door.

pub(crate) mod github;
pub(crate) mod model_reading;
pub(crate) mod suggestion;

use std::collections::{BTreeMap, HashSet};

use crate::learning::refusal::Refused;
use crate::learning::sighting::{Noted, Sighting, Taught, learnable_change, scope_for};
use crate::lessons::LessonScope;
use crate::lessons::provenance::{Evidence, Source};
use crate::session::changed_lines::changed_lines;
use crate::text::shorten;
use github::ReviewComment;
use suggestion::Suggested;

/// Why a comment is no evidence of a change, by design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Skipped {
    /// Words without a suggested change.
    FreeText,
    /// A reply without a suggestion: conversation.
    Reply,
    /// A suggestion after the thread's first one.
    LaterInThread,
    /// Written by a bot.
    Bot,
    /// On the diff's removed lines.
    OnRemovedLines,
    /// On the whole file, not on lines.
    OnFile,
    /// The diff hunk does not end on the commented lines.
    UnreadableHunk,
    /// The suggestion is the lines as they were written.
    NoChange,
    /// `--with-model`: the model read no concrete change of a line in the words.
    ModelNoChange,
    /// `--with-model`: the model's line as written is not one of the commented lines.
    ModelUnverified,
    /// `--with-model`: the model's answer was not the JSON asked for.
    ModelUnreadable,
    /// `--with-model`: the reviewer failed, or was not asked after failing again and again.
    ModelFailed,
}

impl Skipped {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Skipped::FreeText => "free-text",
            Skipped::Reply => "reply",
            Skipped::LaterInThread => "later-in-thread",
            Skipped::Bot => "bot",
            Skipped::OnRemovedLines => "on-removed-lines",
            Skipped::OnFile => "on-file",
            Skipped::UnreadableHunk => "unreadable-hunk",
            Skipped::NoChange => "no-change",
            Skipped::ModelNoChange => "model-no-change",
            Skipped::ModelUnverified => "model-unverified",
            Skipped::ModelUnreadable => "model-unreadable",
            Skipped::ModelFailed => "model-failed",
        }
    }

    /// Why, for people: `free text without a suggested change`.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Skipped::FreeText => "words without a suggested change",
            Skipped::Reply => "replies in a thread",
            Skipped::LaterInThread => "later suggestions in a thread (its first one counts)",
            Skipped::Bot => "written by bots (a tool's fix, not the team's judgement)",
            Skipped::OnRemovedLines => "on removed lines",
            Skipped::OnFile => "on a whole file",
            Skipped::UnreadableHunk => "a diff hunk that does not hold the commented lines",
            Skipped::NoChange => "suggesting the lines as they were",
            Skipped::ModelNoChange => "words the model read no concrete change of a line in",
            Skipped::ModelUnverified => {
                "words whose change the model gave on a line that is not the commented one (unverified, not kept)"
            }
            Skipped::ModelUnreadable => "words the model answered about in no readable form",
            Skipped::ModelFailed => "words the reviewer could not be asked about",
        }
    }
}

/// What reading the review history did.
#[derive(Debug, Default)]
pub(crate) struct Imported {
    pub(crate) comments: usize,
    /// Suggested changes read as sightings.
    pub(crate) suggestions: usize,
    /// Of those, on lines that changed since.
    pub(crate) outdated: usize,
    /// Comments that are no evidence, by reason.
    pub(crate) skipped: BTreeMap<Skipped, usize>,
    /// New candidates (seen once so far).
    pub(crate) candidates: usize,
    /// Ids of the lessons learned.
    pub(crate) lessons: Vec<String>,
    /// Ids of the lessons proposed to a person (setting `learning`: `approve`, `observe`).
    pub(crate) proposed: Vec<String>,
    /// Suggestions car knew already (read before, or a lesson fires on them).
    pub(crate) known: usize,
    /// Of the suggestions, changes the model read in free-text comments (`--with-model`).
    pub(crate) by_model: usize,
    pub(crate) taught: Taught,
}

/// Sends a prompt to the reviewer model and returns its answer, or why it failed.
pub(crate) type Ask<'a> = &'a mut dyn FnMut(&str) -> Result<String, String>;

/// The reviewer failing this many times in a row stops the asking.
const MODEL_FAILURES_TO_STOP: usize = 3;

/// Learns from `comments` (any order; read oldest first); `progress` hears the number of each
/// comment as it is read. With `ask`, free-text comments are read by the reviewer model
/// ([`model_reading`]).
pub(crate) fn learn(
    scope: &LessonScope<'_>,
    comments: &[ReviewComment],
    mut progress: impl FnMut(usize),
    mut ask: Option<Ask<'_>>,
) -> Imported {
    let mut ordered: Vec<&ReviewComment> = comments.iter().collect();
    ordered.sort_by_key(|comment| comment.at);
    let mut imported = Imported {
        comments: comments.len(),
        ..Imported::default()
    };
    let mut threads_with_a_suggestion = HashSet::new();
    let mut failures_in_a_row = 0;
    for (index, comment) in ordered.into_iter().enumerate() {
        progress(index + 1);
        let read = match (
            read(comment, &mut threads_with_a_suggestion),
            ask.as_deref_mut(),
        ) {
            (Err(Skipped::FreeText), Some(ask)) if failures_in_a_row < MODEL_FAILURES_TO_STOP => {
                let read = by_model(comment, ask);
                match &read {
                    Err((Skipped::ModelFailed, why)) => {
                        failures_in_a_row += 1;
                        imported.taught.notes.push(format!(
                            "the reviewer could not read the comment {}: {why}{}",
                            comment.url,
                            if failures_in_a_row == MODEL_FAILURES_TO_STOP {
                                "; it failed 3 times in a row, so the other comments in words are not asked about"
                            } else {
                                ""
                            }
                        ));
                    }
                    Ok(_) => {
                        failures_in_a_row = 0;
                        imported.by_model += 1;
                    }
                    Err(_) => failures_in_a_row = 0,
                }
                read.map_err(|(reason, _)| reason)
            }
            (Err(Skipped::FreeText), Some(_)) => Err(Skipped::ModelFailed),
            (read, _) => read,
        };
        let suggested = match read {
            Ok(suggested) => suggested,
            Err(reason) => {
                *imported.skipped.entry(reason).or_default() += 1;
                continue;
            }
        };
        imported.suggestions += 1;
        if comment.line.is_none() {
            imported.outdated += 1;
        }
        let reader = if comment_is_words(comment) {
            Reader::Model
        } else {
            Reader::Suggestion
        };
        match learn_one(scope, comment, &suggested, reader, &mut imported.taught) {
            Noted::Candidate => imported.candidates += 1,
            Noted::Promoted(id) => imported.lessons.push(id),
            Noted::Proposed(id) => imported.proposed.push(id),
            Noted::Known => imported.known += 1,
            Noted::CountedAgain | Noted::Refused | Noted::Failed => {}
        }
    }
    imported
}

/// The suggested change a comment makes, or why it is none. `threads` holds the threads whose
/// first suggestion was read.
fn read(comment: &ReviewComment, threads: &mut HashSet<String>) -> Result<Suggested, Skipped> {
    if comment.by_bot {
        return Err(Skipped::Bot);
    }
    let Some(suggested) = suggestion::suggestion_block(&comment.body) else {
        return Err(if comment.in_reply_to.is_some() {
            Skipped::Reply
        } else {
            Skipped::FreeText
        });
    };
    if comment.on_file {
        return Err(Skipped::OnFile);
    }
    if comment.on_removed_lines {
        return Err(Skipped::OnRemovedLines);
    }
    let thread = match (comment.in_reply_to, comment.id) {
        (Some(root), _) | (None, Some(root)) => format!("{}#{root}", comment.pull),
        (None, None) => comment.url.clone(),
    };
    if threads.contains(&thread) {
        return Err(Skipped::LaterInThread);
    }
    let (first, last) = comment.original_lines.ok_or(Skipped::UnreadableHunk)?;
    let written = suggestion::commented_lines(&comment.diff_hunk, last - first + 1)
        .ok_or(Skipped::UnreadableHunk)?;
    if written.trim_end() == suggested.trim_end() {
        return Err(Skipped::NoChange);
    }
    threads.insert(thread);
    Ok(Suggested { written, suggested })
}

/// The change the reviewer model reads in a free-text comment, verified; or why there is none
/// (with the reviewer's error when it failed).
fn by_model(comment: &ReviewComment, ask: Ask<'_>) -> Result<Suggested, (Skipped, String)> {
    let no_reason = |reason| (reason, String::new());
    if comment.on_file {
        return Err(no_reason(Skipped::OnFile));
    }
    if comment.on_removed_lines {
        return Err(no_reason(Skipped::OnRemovedLines));
    }
    let (first, last) = comment
        .original_lines
        .ok_or(no_reason(Skipped::UnreadableHunk))?;
    let written = suggestion::commented_lines(&comment.diff_hunk, last - first + 1)
        .ok_or(no_reason(Skipped::UnreadableHunk))?;
    let answer = ask(&model_reading::prompt(comment, &written))
        .map_err(|why| (Skipped::ModelFailed, why))?;
    model_reading::read(&answer, &written).map_err(no_reason)
}

/// Who read the change in a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// The comment's own ```` ```suggestion ```` block.
    Suggestion,
    /// The reviewer model, from the comment's words (`--with-model`).
    Model,
}

/// Whether the comment has no suggestion block of its own.
fn comment_is_words(comment: &ReviewComment) -> bool {
    suggestion::suggestion_block(&comment.body).is_none()
}

/// Records one suggested change as a sighting.
fn learn_one(
    scope: &LessonScope<'_>,
    comment: &ReviewComment,
    suggested: &Suggested,
    reader: Reader,
    taught: &mut Taught,
) -> Noted {
    let lesson_scope = scope_for(&comment.path);
    let changes = changed_lines(
        &format!("{}\n", suggested.written),
        &format!("{}\n", suggested.suggested),
    );
    let change = match learnable_change(&changes) {
        Ok(change) => change,
        Err(refusal) => {
            let subject = changes
                .first()
                .map_or_else(String::new, |change| shorten(change.old.trim(), 120));
            taught.refusals.push(Refused {
                refusal,
                source: Source::ReviewHistory,
                scope: lesson_scope,
                subject,
                evidence: Vec::new(),
            });
            return Noted::Refused;
        }
    };
    let first_line = comment.original_lines.map_or(1, |(first, _)| first);
    let why = why_of(comment);
    let sighting = Sighting {
        source: Source::ReviewHistory,
        scope: lesson_scope,
        lesson: lesson_text(&why, &change.old, &change.new),
        why,
        evidence: Evidence {
            session: comment.pull.clone(),
            file: comment.path.clone(),
            line: first_line + change.line - 1,
            review: None,
            finding: None,
            bad: change.old.trim().to_string(),
            fixed: change.new.trim().to_string(),
            at: comment.at,
            url: Some(comment.url.clone()),
        },
    };
    let what = match reader {
        Reader::Suggestion => "a suggestion",
        Reader::Model => "a comment read by the reviewer model",
    };
    let label = format!(
        "{what} on {} ({}:{})",
        comment.pull, comment.path, sighting.evidence.line
    );
    taught.record(scope, &sighting, &label)
}

/// The comment's words as the lesson's reason: one line, at most 160 characters, ending in a
/// full stop; a comment that is only a suggestion says where it came from.
fn why_of(comment: &ReviewComment) -> String {
    let words = suggestion::prose(&comment.body);
    if words.is_empty() {
        return "Reviewers suggested this change on the team's pull requests.".into();
    }
    let mut why = shorten(&words, 160);
    if !why.ends_with(['.', '!', '?', '…']) {
        why.push('.');
    }
    why
}

fn lesson_text(why: &str, old: &str, new: &str) -> String {
    let fix = if new.trim().is_empty() {
        format!("remove `{}`", shorten(old.trim(), 120))
    } else {
        format!(
            "`{}` instead of `{}`",
            shorten(new.trim(), 120),
            shorten(old.trim(), 120)
        )
    };
    format!("{why} Suggested in review: {fix}.")
}

#[cfg(test)]
mod tests;
