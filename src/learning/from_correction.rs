//! Learning from the person's corrections: a line the agent's edit tools wrote that someone else
//! changed within 30 minutes (`A` → `B`). The agent wrote `ctx.check_hostname = False`; minutes
//! later the person made it `True` before the agent touched the file again. Seen twice, it is a
//! lesson about this team's standards (`source: "reversal"`) whose text names the person's
//! version.
//!
//! The review layer finds the corrections ([`crate::session::authored`]: what the agent wrote,
//! compared with the file when the agent next touches it or at stop; the agent's own shell
//! commands are not corrections); this module decides whether the person made the change
//! ([`NotACorrection`]) and records it as one sighting ([`sighting`]): the line as the agent wrote
//! it and as the person left it. The trigger is synthesised and verified when a second
//! correction joins it. A line that is still in the file, only reformatted (a formatter's quotes,
//! spacing or line breaks), is no correction ([`crate::learning::reformat`]).

use crate::learning::correction::{Correction, corrections};
use crate::learning::generated::{generated_marker, is_lockfile};
use crate::learning::reformat::only_reformatted;
use crate::learning::refusal::{NotACorrection, Refusal, Refused};
use crate::learning::sighting::{Sighting, Taught, learnable_change, scope_for};
use crate::lessons::LessonScope;
use crate::lessons::provenance::{Evidence, Source};
use crate::session::authored::{Authored, ChangedByOthers};
use crate::text::shorten;

/// Why a corrected line is a lesson, in words no one place owns.
const CORRECTION_WHY: &str = "The person corrected this where the agent wrote it.";

impl Correction {
    fn label(&self) -> String {
        format!("a correction in {}:{}", self.file, self.change.line)
    }

    fn lesson_text(&self) -> String {
        format!(
            "The person changed `{}` to `{}` ({}) after the agent wrote it; write `{}`.",
            shorten(self.change.old.trim(), 120),
            shorten(self.change.new.trim(), 120),
            self.file,
            shorten(self.change.new.trim(), 120)
        )
    }
}

/// A change touching at least this many lines, and at least half the file, is a rewrite.
const REWRITE_LINES: usize = 12;

/// The first reason the change is not the person's, if there is one.
fn why_not(scope: &LessonScope<'_>, correction: &Correction) -> Option<NotACorrection> {
    let file = &correction.file;
    if only_reformatted(&correction.change.old, &correction.content) {
        return Some(NotACorrection::Reformatted);
    }
    if is_lockfile(file) {
        return Some(NotACorrection::Lockfile(file.clone()));
    }
    if let Some(marker) = generated_marker(scope.project, file, &correction.content) {
        return Some(NotACorrection::Generated(file.clone(), marker));
    }
    if correction.changed_lines >= REWRITE_LINES
        && correction.changed_lines * 2 >= correction.total_lines
    {
        return Some(NotACorrection::Rewritten {
            changed: correction.changed_lines,
            total: correction.total_lines,
        });
    }
    if scope.project.is_ignored(file) {
        return Some(NotACorrection::Ignored(file.clone()));
    }
    let this_session = Authored::for_session(scope.project, &correction.session);
    if let Some(other) = Authored::written_by_another_session(
        scope.project,
        &this_session,
        file,
        &correction.content,
    ) {
        return Some(NotACorrection::AnotherSession(other));
    }
    if scope.project.head_version(file).as_deref() == Some(correction.content.as_str()) {
        return Some(NotACorrection::Committed);
    }
    if let Some((from, to)) = git_brought(scope, correction) {
        return Some(NotACorrection::CameWithGit {
            file: file.clone(),
            from,
            to,
        });
    }
    None
}

/// The move of HEAD since car last saw the file, when that move brought the corrected line: the
/// diff between the commits HEAD moved from and to adds it to this file. `None` when HEAD did
/// not move, its moves are not logged, or the move did not bring that line (the person's own
/// commit of the agent's work brings the agent's line, not the person's).
fn git_brought(scope: &LessonScope<'_>, correction: &Correction) -> Option<(String, String)> {
    let checkout = scope.project.checkout();
    let (from, to) = crate::git::head_moves_since(checkout, correction.head_log?)?;
    let args = [
        "diff",
        "--no-color",
        "-U0",
        &from,
        &to,
        "--",
        &correction.file,
    ];
    let output = crate::git::run(checkout, &args, crate::git::Wait::Hook).ok()?;
    let new_line = correction.change.new.trim();
    let brought = output.stdout.lines().any(|line| {
        line.strip_prefix('+')
            .is_some_and(|added| !added.starts_with("++") && added.trim() == new_line)
    });
    let short = |commit: &str| commit.chars().take(10).collect::<String>();
    (brought && output.success()).then(|| (short(&from), short(&to)))
}

/// Turns corrections into candidates and lessons. A correction that removed the line names no
/// version of the person's and teaches nothing; nor does a change someone or something else
/// made ([`NotACorrection`]): both are recorded as refusals.
pub(crate) fn learn(scope: &LessonScope<'_>, changes: &[ChangedByOthers]) -> Taught {
    let mut taught = Taught::default();
    for correction in changes.iter().flat_map(corrections) {
        let correction = &correction;
        if correction.change.new.trim().is_empty() {
            continue;
        }
        let lesson_scope = scope_for(&correction.file);
        let refuse = |refusal: Refusal| Refused {
            refusal,
            source: Source::Reversal,
            scope: lesson_scope.clone(),
            subject: shorten(correction.change.old.trim(), 120),
            evidence: Vec::new(),
        };
        if let Some(reason) = why_not(scope, correction) {
            taught
                .refusals
                .push(refuse(Refusal::NotACorrection(reason)));
            continue;
        }
        if let Err(refusal) = learnable_change(std::slice::from_ref(&correction.change)) {
            taught.refusals.push(refuse(refusal));
            continue;
        }
        let sighting = Sighting {
            source: Source::Reversal,
            scope: lesson_scope.clone(),
            lesson: correction.lesson_text(),
            why: CORRECTION_WHY.to_string(),
            evidence: Evidence {
                session: correction.session.clone(),
                file: correction.file.clone(),
                line: correction.change.line,
                review: None,
                finding: None,
                bad: correction.change.old.trim().to_string(),
                fixed: correction.change.new.trim().to_string(),
                at: correction.at,
                url: None,
            },
        };
        taught.record(scope, &sighting, &correction.label());
    }
    taught
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::changed_lines::LineChange;

    #[test]
    fn the_text_names_the_persons_version() {
        let correction = Correction {
            session: "s1".into(),
            file: "src/tls.py".into(),
            change: LineChange {
                line: 4,
                old: "    ctx.check_hostname = False".into(),
                new: "    ctx.check_hostname = True".into(),
            },
            content: String::new(),
            at: 0,
            changed_lines: 1,
            total_lines: 4,
            head_log: None,
        };
        assert_eq!(
            correction.lesson_text(),
            "The person changed `ctx.check_hostname = False` to `ctx.check_hostname = True` \
(src/tls.py) after the agent wrote it; write `ctx.check_hostname = True`."
        );
    }
}
