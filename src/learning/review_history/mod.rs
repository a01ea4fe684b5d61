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
    pub(crate) taught: Taught,
}

/// Learns from `comments` (any order; read oldest first); `progress` hears the number of each
/// comment as it is read.
pub(crate) fn learn(
    scope: &LessonScope<'_>,
    comments: &[ReviewComment],
    mut progress: impl FnMut(usize),
) -> Imported {
    let mut ordered: Vec<&ReviewComment> = comments.iter().collect();
    ordered.sort_by_key(|comment| comment.at);
    let mut imported = Imported {
        comments: comments.len(),
        ..Imported::default()
    };
    let mut threads_with_a_suggestion = HashSet::new();
    for (index, comment) in ordered.into_iter().enumerate() {
        progress(index + 1);
        let suggested = match read(comment, &mut threads_with_a_suggestion) {
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
        match learn_one(scope, comment, &suggested, &mut imported.taught) {
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

/// Records one suggested change as a sighting.
fn learn_one(
    scope: &LessonScope<'_>,
    comment: &ReviewComment,
    suggested: &Suggested,
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
    let label = format!(
        "a suggestion on {} ({}:{})",
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
