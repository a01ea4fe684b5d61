//! The lessons of a file, for the agent about to work on it: with the agent's read of the file
//! ([`for_read`], [`reads`]) or the first write of it car lets through ([`for_write`]), the ranked
//! lessons of the session-start briefing ([`crate::lessons::briefing`]:
//! not retired, weight at least 2) whose scope covers the file, as context for the model. A
//! briefing read 200 tool calls earlier is long gone from the model's attention; the lessons of
//! the file it is changing are the ones that matter for its next edits.
//!
//! Where: with a read, the PostToolUse (AfterTool) answer of the read tool or the shell command
//! that read it; with a write, the PreToolUse answer for Claude Code and Codex, which hand its
//! context to the model with the write's result, and the PostToolUse (AfterTool) answer for
//! Gemini CLI, which drops BeforeTool context and appends AfterTool context to the same result
//! ([`crate::agents::Agent::file_lessons_event`]).
//!
//! Invariants:
//! - at most [`MAX_LESSONS`] lessons and [`MAX_BYTES`] in all, whole lines only; of each file,
//!   its [`MAX_LESSONS`] best lessons are the ones that may be given, each once per file and
//!   session ([`briefed`]): a later write of a file says nothing unless a heavier lesson came up
//!   meanwhile, so the agent is not fed the library a few lines a write;
//! - never a lesson the write itself repeats (the warning after the edit says it: twice would
//!   cost the model's attention for nothing);
//! - never with a denied or blocked write (its reason says what matters), nor when it is turned
//!   off (`editBriefing: false`), when lessons only observe (`learning: observe`, as at session
//!   start), or when car cannot record what it gave;
//! - cheap when no lesson applies: one look at the first line of the briefing's cache.

mod briefed;
pub(crate) mod reads;

use crate::agents::answer::HookEvent;
use crate::hook::HookContext;
use crate::lessons::briefing::{self, Row};

/// Lessons given before one write, in all.
const MAX_LESSONS: usize = 3;

/// The context's size bound, header included.
const MAX_BYTES: usize = 1024;

/// Files named in the header; more are counted.
const FILES_NAMED: usize = 3;

/// The context for the model with the write of `files` (project-relative) that the `event`
/// hook answers, when that hook is the agent's place for it and there is anything new to say;
/// the lessons `fired` on the write are left out (their warning after the edit says them).
pub(crate) fn for_write(
    context: &HookContext,
    event: HookEvent,
    files: &[&str],
    fired: &[String],
) -> Option<String> {
    if context.payload.agent.file_lessons_event() != Some(event) {
        return None;
    }
    lessons_of(context, files, fired)
}

/// The context for the model with its read of `files` (project-relative): what it reads it is
/// about to change, so the lessons of a file come before its first edit. Every client that
/// passes a tool's context to the model takes it with the read's result (PostToolUse, Gemini
/// CLI's AfterTool); the write after it says nothing of them again.
pub(crate) fn for_read(context: &HookContext, files: &[&str]) -> Option<String> {
    lessons_of(context, files, &[])
}

/// Whether this hook may give the lessons of files at all: the agent's client passes them to the
/// model with some event, and the settings let lessons speak before an edit.
pub(crate) fn may_give(context: &HookContext) -> bool {
    context.payload.agent.file_lessons_event().is_some()
        && context.settings.edit_briefing
        && context.settings.lessons_warn()
}

/// What is new to say of `files`, but the lessons `fired`; recorded as given.
fn lessons_of(context: &HookContext, files: &[&str], fired: &[String]) -> Option<String> {
    if files.is_empty() || !may_give(context) {
        return None;
    }
    // A lessons file car cannot read is named by the check of the write itself.
    // Enough of each file's best to leave out the lessons the write repeats.
    let limit = MAX_LESSONS + fired.len();
    let mut ranked = briefing::for_files(&context.project.lessons_file(), files, limit).ok()?;
    ranked.retain(|(row, _)| !fired.contains(&row.id));
    if ranked.is_empty() {
        return None;
    }
    let candidates = best_per_file(&ranked, files.len());
    let given = briefed::given(context.session(), &pairs_of(&candidates, files));
    let chosen = within_bounds(&fresh_rows(&candidates, &given), files);
    if chosen.is_empty() {
        return None;
    }
    let said = record(context, chosen, files)?;
    render(&said, files)
}

/// Each (file, lesson id) pair of `rows`, in order.
fn pairs_of<'a>(rows: &[(&'a Row, Vec<usize>)], files: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    rows.iter()
        .flat_map(|(row, covered)| covered.iter().map(|file| (files[*file], row.id.as_str())))
        .collect()
}

/// Records `chosen` as given and returns what this call may say: a parallel hook may have given
/// some meanwhile. `None` when car cannot record it (then nothing is said, and the log says why).
fn record<'a>(
    context: &HookContext,
    chosen: Vec<(&'a Row, Vec<usize>)>,
    files: &[&str],
) -> Option<Vec<(&'a Row, Vec<usize>)>> {
    let taken = match briefed::take_new(context.session(), &pairs_of(&chosen, files)) {
        Ok(taken) => taken,
        Err(error) => {
            crate::state::log_hook_error(
                &context.project.state_dir(),
                &format!(
                    "the lessons of the file were not given, as car could not remember giving them: {error}"
                ),
            );
            return None;
        }
    };
    let mut taken = taken.into_iter();
    Some(
        chosen
            .into_iter()
            .filter_map(|(row, covered)| {
                let kept: Vec<usize> = covered
                    .into_iter()
                    .filter(|_| taken.next().unwrap_or(false))
                    .collect();
                (!kept.is_empty()).then_some((row, kept))
            })
            .collect(),
    )
}

/// Of each file, its [`MAX_LESSONS`] best rows; the union, in rank order, each row with the
/// files it is among the best of.
fn best_per_file(ranked: &[(Row, Vec<usize>)], file_count: usize) -> Vec<(&Row, Vec<usize>)> {
    let mut per_file = vec![0usize; file_count];
    let mut out = Vec::new();
    for (row, covered) in ranked {
        let best_of: Vec<usize> = covered
            .iter()
            .copied()
            .filter(|file| per_file[*file] < MAX_LESSONS)
            .collect();
        for file in &best_of {
            per_file[*file] += 1;
        }
        if !best_of.is_empty() {
            out.push((row, best_of));
        }
        if per_file.iter().all(|count| *count >= MAX_LESSONS) {
            break;
        }
    }
    out
}

/// The candidates with the files they were not given for yet (`given` follows the candidates
/// and their files, as [`pairs_of`] lists them).
fn fresh_rows<'a>(
    candidates: &[(&'a Row, Vec<usize>)],
    given: &[bool],
) -> Vec<(&'a Row, Vec<usize>)> {
    let mut given = given.iter();
    candidates
        .iter()
        .filter_map(|(row, covered)| {
            let fresh: Vec<usize> = covered
                .iter()
                .copied()
                .filter(|_| !given.next().copied().unwrap_or(true))
                .collect();
            (!fresh.is_empty()).then_some((*row, fresh))
        })
        .collect()
}

/// The first rows that fit: at most [`MAX_LESSONS`], the text within [`MAX_BYTES`] (a line too
/// long to fit is passed over for the next).
fn within_bounds<'a>(rows: &[(&'a Row, Vec<usize>)], files: &[&str]) -> Vec<(&'a Row, Vec<usize>)> {
    let mut used = header(&[], files).len() + HEADER_ORIGIN_ROOM;
    let mut chosen = Vec::new();
    for (row, covered) in rows {
        if chosen.len() == MAX_LESSONS {
            break;
        }
        let size = 1 + row.line.len();
        if used + size > MAX_BYTES {
            continue;
        }
        used += size;
        chosen.push((*row, covered.clone()));
    }
    chosen
}

/// Room kept in the bound for the header's words on where the lessons came from.
const HEADER_ORIGIN_ROOM: usize = 90;

/// The context: a header naming the files, then one line a lesson.
fn render(said: &[(&Row, Vec<usize>)], files: &[&str]) -> Option<String> {
    if said.is_empty() {
        return None;
    }
    let mut named: Vec<usize> = said
        .iter()
        .flat_map(|(_, covered)| covered.clone())
        .collect();
    named.sort_unstable();
    named.dedup();
    let named: Vec<&str> = named.into_iter().map(|index| files[index]).collect();
    let sources: Vec<_> = said.iter().map(|(row, _)| row.source()).collect();
    let mut text = header(&sources, &named);
    for (row, _) in said {
        text.push('\n');
        text.push_str(&row.line);
    }
    Some(text)
}

/// `car: the lessons of this project for a.py, …` with where they came from.
fn header(sources: &[Option<crate::lessons::provenance::Source>], files: &[&str]) -> String {
    let mut names: Vec<String> = files
        .iter()
        .take(FILES_NAMED)
        .map(|file| file.to_string())
        .collect();
    if files.len() > FILES_NAMED {
        names.push(format!("{} more", files.len() - FILES_NAMED));
    }
    let from = if sources.is_empty() {
        String::new()
    } else {
        format!(" (from {})", briefing::origins(sources))
    };
    format!(
        "car: the lessons of this project for {}, heaviest first{from}. Keep them in your edits of it; each names the code that sets it off:",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, line: &str) -> Row {
        Row {
            id: id.into(),
            scope: "*.py".into(),
            line: line.into(),
            source: None,
        }
    }

    #[test]
    fn each_file_offers_its_best_three() {
        let rows: Vec<(Row, Vec<usize>)> = (0..5)
            .map(|index| (row(&format!("l{index}"), "- x"), vec![0]))
            .chain([(row("b", "- b"), vec![1])])
            .collect();
        let best = best_per_file(&rows, 2);
        let ids: Vec<&str> = best.iter().map(|(row, _)| row.id.as_str()).collect();
        assert_eq!(ids, ["l0", "l1", "l2", "b"]);
    }

    #[test]
    fn at_most_three_lessons_within_the_byte_bound() {
        let long = format!("- {}", "y".repeat(MAX_BYTES));
        let rows = [
            row("a", "- a"),
            row("long", &long),
            row("b", "- b"),
            row("c", "- c"),
            row("d", "- d"),
        ];
        let candidates: Vec<(&Row, Vec<usize>)> = rows.iter().map(|row| (row, vec![0])).collect();
        let chosen = within_bounds(&candidates, &["a.py"]);
        let ids: Vec<&str> = chosen.iter().map(|(row, _)| row.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"], "the line too long is passed over");
        let text = render(&chosen, &["a.py"]).unwrap();
        assert!(text.len() <= MAX_BYTES, "{}", text.len());
        assert!(
            text.starts_with("car: the lessons of this project for a.py,"),
            "{text}"
        );
    }

    #[test]
    fn lessons_given_before_are_left_out_per_file() {
        let rows = [row("a", "- a"), row("b", "- b")];
        let candidates: Vec<(&Row, Vec<usize>)> = vec![(&rows[0], vec![0, 1]), (&rows[1], vec![0])];
        let fresh = fresh_rows(&candidates, &[true, false, true]);
        assert_eq!(fresh.len(), 1);
        assert_eq!(fresh[0].0.id, "a");
        assert_eq!(fresh[0].1, [1]);
    }
}
