//! Learning from fixed review findings: a blocking finding (P1/P2) that disappeared in a later
//! review of the same session after the agent's edits changed the lines it points at. The fix is
//! exactly a lesson's example: `subprocess.run(cmd, shell=True)` became `subprocess.run(args)`
//! and the next review was clean, so next time car warns when `shell=True` is written, before
//! any review runs.
//!
//! Each fix is one sighting ([`sighting`]): the changed line nearest the finding that a pattern
//! can be built from, as written and as fixed; the scope is the file's kind (`*.py`); the text is
//! the finding's title and suggestion plus what every fix wrote. The trigger is synthesised from
//! the sightings and verified against the project's code when the candidate is seen again
//! ([`crate::learning::synthesis`], [`crate::learning::verification`]). The review layer finds
//! the fixes ([`crate::learning::fixed_findings`]).
//!
//! Invariants: P3 findings, deferred known limits and disputed findings never reach this module
//! (the review layer filters them); one finding of one review is recorded once; a fix nothing can
//! be learned from is refused with its reason, never dropped.

use crate::learning::refusal::Refused;
use crate::learning::sighting::{Sighting, Taught, learnable_change, scope_for};
use crate::lessons::LessonScope;
use crate::lessons::provenance::{Evidence, Source};
use crate::session::changed_lines::LineChange;
use crate::text::shorten;

/// A blocking finding the agent's edits fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReviewFix {
    pub(crate) session: String,
    /// The review round that reported it (`R1`).
    pub(crate) review: String,
    /// The finding's id (`F1`) and severity (`P1`).
    pub(crate) finding: String,
    pub(crate) severity: String,
    pub(crate) title: String,
    pub(crate) suggestion: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// The finding's line in the reviewed version.
    pub(crate) line: usize,
    /// The lines the fix changed around the finding's line, nearest first.
    pub(crate) changes: Vec<LineChange>,
    /// The file after the fix.
    pub(crate) fixed_content: String,
    pub(crate) at: i64,
}

impl ReviewFix {
    /// `R1 F1 (src/app.py:4)`, for notes.
    fn label(&self) -> String {
        format!(
            "review {} {} ({}:{})",
            self.review, self.finding, self.file, self.line
        )
    }

    /// The finding's title and suggestion: why it is a mistake.
    fn why(&self) -> String {
        let title = self.title.trim().trim_end_matches('.');
        let suggestion = self.suggestion.trim().trim_end_matches('.');
        let mut text = format!("{title} ({} review finding)", self.severity);
        if !suggestion.is_empty() {
            text.push_str(&format!("; {suggestion}"));
        }
        text.push('.');
        text
    }

    fn lesson_text(&self, old: &str, new: &str) -> String {
        let text = self.why();
        let text = text.trim_end_matches('.');
        let fix = if new.trim().is_empty() {
            format!("`{}` was removed", shorten(old.trim(), 120))
        } else {
            format!(
                "`{}` became `{}`",
                shorten(old.trim(), 120),
                shorten(new.trim(), 120)
            )
        };
        format!("{text}. Fix that worked: {fix}.")
    }
}

/// Turns fixed findings into candidates and lessons; what was learned and what was refused.
pub(crate) fn learn(scope: &LessonScope<'_>, fixes: &[ReviewFix]) -> Taught {
    let mut taught = Taught::default();
    for fix in fixes {
        let lesson_scope = scope_for(&fix.file);
        let change = match learnable_change(&fix.changes) {
            Ok(change) => change,
            Err(refusal) => {
                let subject = fix
                    .changes
                    .first()
                    .map(|change| shorten(change.old.trim(), 120))
                    .unwrap_or_default();
                taught.refusals.push(Refused {
                    refusal,
                    source: Source::Review,
                    scope: lesson_scope,
                    subject,
                    evidence: Vec::new(),
                });
                continue;
            }
        };
        let sighting = Sighting {
            source: Source::Review,
            scope: lesson_scope,
            lesson: fix.lesson_text(&change.old, &change.new),
            why: fix.why(),
            evidence: Evidence {
                session: fix.session.clone(),
                file: fix.file.clone(),
                line: change.line,
                review: Some(fix.review.clone()),
                finding: Some(fix.finding.clone()),
                bad: change.old.trim().to_string(),
                fixed: change.new.trim().to_string(),
                at: fix.at,
                url: None,
            },
        };
        taught.record(scope, &sighting, &fix.label());
    }
    taught
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_the_finding_and_the_fix() {
        let fix = ReviewFix {
            session: "s1".into(),
            review: "R1".into(),
            finding: "F1".into(),
            severity: "P1".into(),
            title: "Shell injection through cmd.".into(),
            suggestion: "pass an argv list".into(),
            file: "src/run.py".into(),
            line: 3,
            changes: Vec::new(),
            fixed_content: String::new(),
            at: 0,
        };
        assert_eq!(
            fix.lesson_text(
                "    subprocess.run(cmd, shell=True)",
                "    subprocess.run(args)"
            ),
            "Shell injection through cmd (P1 review finding); pass an argv list. Fix that worked: \
`subprocess.run(cmd, shell=True)` became `subprocess.run(args)`."
        );
        assert!(
            fix.lesson_text("x = 1", "")
                .ends_with("`x = 1` was removed.")
        );
    }
}
