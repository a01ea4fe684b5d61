//! The agent's own proposal of a lesson (`car mcp`'s `propose_lesson`): a line it wrote and the
//! same line fixed, in a file of the project. It is one sighting of source `agent`: the pattern
//! is synthesised and verified like every other, it joins or starts a candidate, and it never
//! confirms one — a lesson needs what car saw happen ([`crate::learning::sighting`]).

use crate::learning::refusal::Refused;
use crate::learning::sighting::{Noted, Sighting, Taught, learnable_change, scope_for};
use crate::lessons::LessonScope;
use crate::lessons::provenance::{Evidence, Source};
use crate::session::changed_lines::changed_lines;
use crate::text::shorten;

/// What the agent proposed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Proposal<'a> {
    /// Project-relative path.
    pub(crate) file: &'a str,
    pub(crate) bad: &'a str,
    pub(crate) good: &'a str,
    /// Why it is a mistake (may be empty).
    pub(crate) why: &'a str,
}

/// Records the proposal as a sighting; what became of it.
pub(crate) fn record(
    scope: &LessonScope<'_>,
    proposal: &Proposal<'_>,
    taught: &mut Taught,
) -> Noted {
    let lesson_scope = scope_for(proposal.file);
    let changes = changed_lines(
        &format!("{}\n", proposal.bad.trim_end()),
        &format!("{}\n", proposal.good.trim_end()),
    );
    let change = match learnable_change(&changes) {
        Ok(change) => change,
        Err(refusal) => {
            taught.refusals.push(Refused {
                refusal,
                source: Source::Agent,
                scope: lesson_scope,
                subject: shorten(proposal.bad.trim(), 120),
                evidence: Vec::new(),
            });
            return Noted::Refused;
        }
    };
    let why = if proposal.why.trim().is_empty() {
        "The agent proposed this from its own mistake.".to_string()
    } else {
        proposal.why.trim().to_string()
    };
    let line = line_in_file(scope, proposal.file, change.old.trim()).unwrap_or(0);
    let sighting = Sighting {
        source: Source::Agent,
        scope: lesson_scope,
        lesson: format!(
            "{why} Write `{}`, not `{}`.",
            shorten(change.new.trim(), 120),
            shorten(change.old.trim(), 120)
        ),
        why,
        evidence: Evidence {
            session: "agent".into(),
            file: proposal.file.to_string(),
            line,
            review: None,
            finding: None,
            bad: change.old.trim().to_string(),
            fixed: change.new.trim().to_string(),
            at: scope.clock.now(),
            url: None,
        },
    };
    taught.record(scope, &sighting, "the agent's proposal")
}

/// The 1-based line of `text` in the project's `file` as it is now, when it is there.
fn line_in_file(scope: &LessonScope<'_>, file: &str, text: &str) -> Option<usize> {
    let path = scope.project.checkout().join(file);
    let (_, content) = crate::edit::read_project_file(scope.project, &path).ok()?;
    content
        .lines()
        .position(|line| line.trim() == text)
        .map(|index| index + 1)
}
