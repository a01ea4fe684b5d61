//! The deep review prompt: the project rubric, the domain context, the focus, the lessons' known
//! pitfalls for the changed files, the author's answers to the last round (challenges with their
//! reasons, fixes to verify), the diff, and the gate's findings contract with the
//! anti-nitpicking rule spelled out.
//!
//! Invariants: the pieces shared with the stop gate (rules, pitfall lines, bounded diff, contract)
//! come from the review engine (`review::prompt`), never a copy; lesson matching here is read-only (no hit is
//! recorded, nothing is learned).

use crate::clock::Clock;
use crate::edit::{Delta, Edit};
use crate::lessons::{self, LessonScope, Warning};
use crate::project::Project;
use crate::review::deep::context::Context;
use crate::review::deep::diff::ChangeSet;
use crate::review::deep::state::RoundState;
use crate::review::prompt::{self as shared, DiffWriter};
use crate::settings::Settings;

/// Everything the prompt is made from.
pub(crate) struct PromptInput<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) context: &'a Context,
    pub(crate) focus: &'a [String],
    pub(crate) changes: &'a ChangeSet,
    /// The round state before this round.
    pub(crate) state: &'a RoundState,
    pub(crate) warnings: &'a [Warning],
}

/// Why a blocking finding must be concrete, in the deep review's words (the rule itself is
/// enforced in `review::findings`).
const ANTI_NITPICKING: &str = "\
## The one rule that matters
A P1 or P2 must name the specific wrong output: construct the failure — these inputs produce
this wrong output (and what the right output is). A wrong_output that names no input or call, or
no observed result (returns / raises / prints a value), does not block. A concern you cannot turn
into such a scenario is P3 at most. Do not report style, naming or taste as P1/P2. Domain errors (wrong unit,
currency, price year, conversion order, aggregation, double counting, a broken data contract)
are what this review is for: a cold code review misses them.
";

/// Builds the prompt, every control character from elsewhere escaped
/// ([`crate::output::printable`]).
pub(crate) fn build(input: &PromptInput<'_>) -> String {
    let (rules, _) = shared::rules_text(input.project, input.settings);
    let mut prompt = String::from(
        "You are the second, independent reviewer of a high-stakes change (a cross-model deep \
         review). Review ONLY the changes in the diff below, against the domain context and the \
         rules. You may read the project's files for context; do not modify any file.\n\n",
    );
    prompt.push_str("<rules>\n");
    prompt.push_str(rules.trim());
    prompt.push_str("\n</rules>\n\n");
    prompt.push_str(&context_section(input));
    prompt.push_str(&focus_section(input.focus));
    prompt.push_str(&shared::pitfalls_section(shared::lesson_pitfalls(
        input.warnings,
        input.settings,
        |_| true,
    )));
    prompt.push_str(&answers_section(input.state));
    prompt.push_str(&diff_section(input.changes));
    prompt.push('\n');
    prompt.push_str(ANTI_NITPICKING);
    prompt.push_str(shared::CONTRACT);
    // No escape sequence from a file name or a changed line reaches the reviewer or a person.
    crate::output::printable(&prompt).into_owned()
}

fn context_section(input: &PromptInput<'_>) -> String {
    match (&input.context.text, &input.context.file) {
        (Some(text), Some(file)) => {
            let shown = input
                .project
                .relative(file)
                .unwrap_or_else(|| file.display().to_string());
            format!(
                "## Domain context ({shown})\nThe knowledge this review needs beyond the code. \
                 Check the change against it.\n<context>\n{}\n</context>\n\n",
                text.trim()
            )
        }
        _ => "## Domain context\nNone was given: review against the rules alone.\n\n".to_string(),
    }
}

fn focus_section(focus: &[String]) -> String {
    if focus.is_empty() {
        return String::new();
    }
    format!("## Focus\nLook hardest at: {}\n\n", focus.join(" "))
}

/// The author's answers to the previous rounds: challenged findings with their reasons, and the
/// findings reported fixed.
fn answers_section(state: &RoundState) -> String {
    let mut text = String::new();
    if !state.challenged_ids.is_empty() {
        text.push_str(
            "## Findings the author challenged as false positives\nReport one again only if the \
             author's reason is wrong, and say why in wrong_output:\n",
        );
        for challenge in &state.challenged_ids {
            text.push_str(&format!(
                "- {} (round {}): {}\n  author: {}\n",
                challenge.id, challenge.round, challenge.title, challenge.reason
            ));
        }
        text.push('\n');
    }
    if !state.attempted_fixes.is_empty() {
        text.push_str("## Findings the author reports fixed\nCheck that each fix holds:\n");
        for mark in &state.attempted_fixes {
            text.push_str(&format!(
                "- {} (round {}): {}\n",
                mark.id, mark.round, mark.title
            ));
        }
        text.push('\n');
    }
    text
}

fn diff_section(changes: &ChangeSet) -> String {
    let mut writer = DiffWriter::new(&format!(
        "Changes to review (diff {})",
        changes.scope_label()
    ));
    for file in &changes.files {
        match file.unreadable {
            Some(note) => writer.note(&file.path, note),
            None => writer.file(
                &file.path,
                file.state(),
                file.before.as_deref().unwrap_or_default(),
                file.after.as_deref().unwrap_or_default(),
            ),
        }
    }
    writer.finish()
}

/// The lesson warnings the changed files' added lines trigger (read-only: no hit is recorded).
pub(crate) fn lesson_warnings(
    project: &Project,
    settings: &Settings,
    clock: Clock,
    changes: &ChangeSet,
) -> Vec<Warning> {
    let scope = LessonScope {
        project,
        settings,
        clock,
        record: false,
        user_layer: true,
    };
    let mut warnings = Vec::new();
    for file in &changes.files {
        let (Some(after), None) = (&file.after, file.unreadable) else {
            continue;
        };
        let delta = Delta::Whole {
            before: file.before.clone(),
        };
        let edit = Edit {
            path: project.checkout().join(&file.path),
            relative_path: file.path.clone(),
            tool: "deep-review".into(),
            content: after.clone(),
            before: file.before.clone(),
            added: delta.added_lines(after),
            language: None,
        };
        warnings.extend(lessons::match_edit(scope, &edit, &[]).warnings);
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::deep::diff::{Base, FileChange};
    use crate::review::deep::state::ChallengeMark;

    #[test]
    fn prompt_has_context_focus_challenges_diff_and_contract() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let context = Context {
            name: "fx".into(),
            file: Some(dir.path().join(".claude/review-contexts/fx.md")),
            text: Some("Convert at the year's average rate, then deflate.".into()),
        };
        let changes = ChangeSet {
            base: Base {
                commit: "abc".into(),
                label: "HEAD (abc)".into(),
            },
            files: vec![FileChange {
                path: "fx.py".into(),
                before: Some("rate = 1\n".into()),
                after: Some("rate = 2\n".into()),
                unreadable: None,
            }],
            paths: Vec::new(),
            left_out: Vec::new(),
        };
        let state = RoundState {
            challenged_ids: vec![ChallengeMark {
                key: "fx.py|rate".into(),
                id: "F2".into(),
                title: "Rate".into(),
                reviewer: "x".into(),
                reason: "the rows are sensitivity-only".into(),
                round: 1,
            }],
            ..RoundState::default()
        };
        let focus = ["join".to_string(), "cardinality".to_string()];
        let prompt = build(&PromptInput {
            project: &project,
            settings: &settings,
            context: &context,
            focus: &focus,
            changes: &changes,
            state: &state,
            warnings: &[],
        });
        assert!(prompt.contains("## Domain context (.claude/review-contexts/fx.md)"));
        assert!(prompt.contains("then deflate."));
        assert!(prompt.contains("Look hardest at: join cardinality"));
        assert!(prompt.contains("author: the rows are sensitivity-only"));
        assert!(prompt.contains("diff against HEAD (abc)"));
        assert!(prompt.contains("-rate = 1\n+rate = 2\n"), "{prompt}");
        assert!(prompt.contains("must name the specific wrong output"));
        assert!(prompt.contains("\"wrong_output\""));
    }
}
