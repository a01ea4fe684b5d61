//! The review prompt: the rules file, the session-scoped diff of the unreviewed files, the
//! session's lesson warnings and validator errors as known pitfalls to verify, the findings of
//! earlier rounds on these files (to report again with the same file and title if they still
//! apply), the findings the agent challenged with its reasons, the known limits and the findings
//! handed to a person (so they are not re-reported), and the findings contract.
//!
//! The pieces the deep review shares (the rules, the pitfall lines, the bounded diff and the
//! findings contract) are the review engine's ([`crate::review::prompt`]); this file adds the
//! gate's own sections.
//!
//! Invariants: the diff is against each file's session baseline (never the whole working tree);
//! the prompt is bounded in size (oversized diffs are cut with a note naming the file to read);
//! a file that resolves outside the project, is not a regular file or is over 2 MiB is named,
//! never read into the prompt.

use crate::project::Project;
use crate::review::blocking::Blocking;
use crate::review::prompt::{CONTRACT, DiffWriter, lesson_pitfalls, pitfalls_section, rules_text};
use crate::session::baseline::Baselines;
use crate::session::event::Versions;
use crate::session::snapshot::{Request, Snapshot};
use crate::settings::Settings;

/// The prompt car wrote for `request` (its `prompt_file`, relative to the project root), read like
/// every state file: bounded, a regular file, no link followed in the state folder (a prompt file
/// replaced by a link to an outside file would put that file into the block reason and the
/// reviewer's input). `Ok(None)` when it is gone.
pub(crate) fn request_text(
    project: &Project,
    request: &Request,
) -> Result<Option<String>, crate::files::FileError> {
    crate::files::read_optional(&project.root().join(&request.prompt_file))
}

/// Everything the prompt is made from.
pub(crate) struct PromptInput<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) files: &'a Versions,
}

/// Builds the review prompt, every control character from elsewhere escaped
/// ([`crate::output::printable`]).
pub(crate) fn build(input: &PromptInput<'_>) -> String {
    let (rules, _) = rules_text(input.project, input.settings);
    let mut prompt = String::from(
        "You are a code reviewer. Review ONLY the changes shown below (the session-scoped diff \
         of the files an AI coding agent changed). Do not modify any file.\n\n",
    );
    prompt.push_str("<rules>\n");
    prompt.push_str(rules.trim());
    prompt.push_str("\n</rules>\n\n");
    prompt.push_str(&pitfalls(input));
    prompt.push_str(&earlier_rounds(input));
    prompt.push_str(&challenges(input.snapshot));
    prompt.push_str(&known_limits(input.snapshot));
    prompt.push_str(&handed_to_person(input.snapshot));
    prompt.push_str(&diffs(input));
    prompt.push_str(CONTRACT);
    // Saved for the agent to read and sent to the reviewer: no escape sequence from a file name
    // or a changed line reaches either.
    crate::output::printable(&prompt).into_owned()
}

fn pitfalls(input: &PromptInput<'_>) -> String {
    let standing = crate::review::gate::standing::warnings(input.project, &input.snapshot.warnings);
    let mut lines = lesson_pitfalls(&standing, input.settings, |warning| {
        input.files.contains_key(&warning.file)
    });
    for error in input.snapshot.unresolved_errors() {
        lines.push(format!(
            "- validator error still present: {}",
            error.render()
        ));
    }
    pitfalls_section(lines)
}

/// Blocking findings the latest round reported on the files under review (not the challenged
/// ones: they have their own section). The same file and title let car tell a fix that held from one that did not.
fn earlier_rounds(input: &PromptInput<'_>) -> String {
    let snapshot = input.snapshot;
    let threshold = input.settings.minimum_blocking_severity;
    let lines: Vec<String> = snapshot
        .latest_round(threshold)
        .iter()
        .map(|item| &item.finding)
        .filter(|finding| input.files.contains_key(&finding.file))
        .filter(|finding| snapshot.rounds.challenge_of(&finding.key()).is_none())
        .map(|finding| {
            format!(
                "- [{}] {}: {}",
                finding.severity,
                finding.location(),
                finding.title
            )
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Findings of earlier rounds\n\
The agent has changed the code since these were reported. Report each one that still applies \
again, with the same file and title; leave out what is fixed:\n{}\n\n",
        lines.join("\n")
    )
}

/// Challenges no prompt carried yet: the agent's reasons, and what reporting again means.
fn challenges(snapshot: &Snapshot) -> String {
    let lines: Vec<String> = snapshot
        .rounds
        .unsent_challenges()
        .map(|challenge| {
            let finding = &challenge.finding;
            format!(
                "- [{}] {}: {}\n  the agent's reason: {}",
                finding.severity,
                finding.location(),
                finding.title,
                challenge.reason
            )
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Challenged by the agent\n\
The agent holds these findings of an earlier round to be false positives. Judge each again \
with its reason: if it still holds, report it again with the same file and title (a person then \
decides); if the reason convinces you, leave it out.\n{}\n\n",
        lines.join("\n")
    )
}

/// Findings handed to a person: not to be reported again in this session.
fn handed_to_person(snapshot: &Snapshot) -> String {
    let escalations = snapshot.escalations();
    if escalations.is_empty() {
        return String::new();
    }
    let mut text = String::from("## Handed to a person (do not report them again)\n");
    for escalation in escalations {
        let finding = &escalation.finding;
        text.push_str(&format!("- {}: {}\n", finding.location(), finding.title));
    }
    text.push('\n');
    text
}

fn known_limits(snapshot: &Snapshot) -> String {
    let limits = snapshot.known_limits();
    if limits.is_empty() {
        return String::new();
    }
    let mut text =
        String::from("## Known limits (deferred on purpose; do not report them again)\n");
    for (what, reason) in limits {
        text.push_str(&format!("- {what}: {reason}\n"));
    }
    text.push('\n');
    text
}

fn diffs(input: &PromptInput<'_>) -> String {
    let baselines = Baselines::for_session(input.project, &input.snapshot.session);
    let mut writer = DiffWriter::new("Changes to review (session-scoped diff)");
    for (file, version) in input.files {
        let before = baselines
            .load(file)
            .unwrap_or_else(|| input.project.head_version(file))
            .unwrap_or_default();
        let after = match version {
            Some(_) => {
                let path = input.project.checkout().join(file);
                match crate::edit::read_project_file(input.project, &path) {
                    Ok((_, text)) => text,
                    Err(not_checked) if not_checked.too_large().is_some() => {
                        let size = std::fs::metadata(&path).map_or(0, |meta| meta.len());
                        writer.note(
                            file,
                            &format!(
                                "{size} bytes, over car's 2 MiB read bound: its content was not \
                                 read and no diff is shown; read the file yourself"
                            ),
                        );
                        continue;
                    }
                    Err(not_checked) => {
                        writer.not_shown(file, &not_checked.to_string());
                        continue;
                    }
                }
            }
            None => String::new(),
        };
        let state = match (version, input.snapshot.unhidden.get(file)) {
            (None, _) => " (deleted)".to_string(),
            (Some(_), Some(rule_file)) => format!(
                " (git ignores it by a rule added during this session, in {rule_file}; \
                 a new rule does not hide the session's change: review it)"
            ),
            (Some(_), None) => String::new(),
        };
        writer.file(file, &state, &before, &after);
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::prompt::install_default_rules;
    use crate::session::event::{Event, EventRecord};

    #[test]
    fn prompt_has_rules_diff_pitfalls_and_contract() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::write(dir.path().join("a.py"), "x = 2\n").unwrap();
        let baselines = Baselines::for_session(&project, "s");
        baselines
            .capture(&project, "a.py", Some("x = 1\n"))
            .unwrap();
        let records = vec![EventRecord {
            ts: 1,
            session: "s".into(),
            event: Event::EditTracked {
                file: "a.py".into(),
                tool: "Edit".into(),
                hash: "h".into(),
                reviewed: false,
            },
        }];
        let snapshot = Snapshot::from_records("s", records, 0);
        let settings = Settings::default();
        let files = snapshot.unreviewed();
        let prompt = build(&PromptInput {
            project: &project,
            settings: &settings,
            snapshot: &snapshot,
            files: &files,
        });
        assert!(prompt.contains("# Review rules"));
        assert!(prompt.contains("-x = 1\n+x = 2\n"), "{prompt}");
        assert!(prompt.contains("\"wrong_output\""));
        assert!(install_default_rules(&project).unwrap().is_some());
        assert!(install_default_rules(&project).unwrap().is_none());
    }
}
