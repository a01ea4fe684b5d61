//! Distill: for scopes with at least 5 lessons, propose more general lessons (the lesson system:
//! dry-run only, suggestions, never applied automatically).
//!
//! Two sources: a deterministic one (literal triggers sharing a prefix and suffix become one
//! regex, `Prefix\.\w+Suffix`) and the configured reviewer CLI, asked for one precise rule per
//! scope with 5 or more lessons and candidates, from what they were learned from
//! ([`evidence`]: the bad and the fixed text).
//! Every proposal, whatever its source, is validated the same way: its triggers compile; it
//! matches every literal trigger it replaces (and the `match` examples of replaced regex
//! triggers) and every bad example of what it replaces; it matches none of the replaced
//! lessons' `no_match` examples, none of the scope's fixed examples and no file of the project
//! in the scope; and it is not generic (its required text passes the precision rules). Failing
//! proposals are discarded with the reason. Nothing is ever written.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::learning::precision;
use crate::learning::verification::{ProjectCode, ProjectMatch};
use crate::lessons::keyword::required_literals;
use crate::lessons::model::{Lesson, Matching, RawLesson};
use crate::lessons::store::{CandidateFile, LessonFile};
use crate::lessons::trigger::Trigger;
use crate::project::Project;
use crate::settings::{ReviewerBackend, Settings};

pub(crate) mod discard;
pub(crate) mod evidence;

pub(crate) use discard::{AnswerProblem, DiscardReason};

/// Scopes with fewer lessons are left alone.
pub(crate) const MIN_LESSONS_PER_SCOPE: usize = 5;

/// A general trigger must still require this much specific text (`DankeTheme.`, not `Text`).
pub(crate) const MIN_REQUIRED_TEXT: usize = 6;

/// A proposed general lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Proposal {
    pub(crate) scope: String,
    pub(crate) triggers: Vec<String>,
    pub(crate) lesson: String,
    /// Ids of the lessons it would replace.
    pub(crate) replaces: Vec<String>,
    #[serde(default)]
    pub(crate) source: String,
}

/// A proposal that failed validation, and why.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Discarded {
    pub(crate) proposal: Proposal,
    #[serde(serialize_with = "discard::serialize_reason")]
    pub(crate) reason: DiscardReason,
}

/// The lessons of each scope with enough lessons to distill.
pub(crate) fn crowded_scopes(file: &LessonFile) -> BTreeMap<String, Vec<&Lesson>> {
    let mut scopes: BTreeMap<String, Vec<&Lesson>> = BTreeMap::new();
    for lesson in file.lessons() {
        scopes
            .entry(lesson.scope.as_str().to_string())
            .or_default()
            .push(lesson);
    }
    scopes.retain(|_, lessons| lessons.len() >= MIN_LESSONS_PER_SCOPE);
    scopes
}

/// Deterministic proposals: literal triggers grouped by their leading name (up to the first `.`,
/// `::`, `(` or `->`), each group of ≥ 2 lessons generalised to prefix + `\w+` + common suffix.
pub(crate) fn deterministic(scope: &str, lessons: &[&Lesson]) -> Vec<Proposal> {
    let mut groups: BTreeMap<String, Vec<(&Lesson, &str)>> = BTreeMap::new();
    for lesson in lessons {
        for trigger in &lesson.triggers {
            if let Trigger::Literal(text) = trigger
                && let Some(head) = head_of(text)
            {
                groups.entry(head).or_default().push((lesson, text));
            }
        }
    }
    let mut proposals = Vec::new();
    for members in groups.values() {
        let mut ids: Vec<String> = members.iter().map(|(l, _)| l.id.clone()).collect();
        ids.dedup();
        if ids.len() < 2 {
            continue;
        }
        let texts: Vec<&str> = members.iter().map(|(_, text)| *text).collect();
        if let Some(pattern) = generalise(&texts) {
            let mut lesson_texts: Vec<&str> = Vec::new();
            for (lesson, _) in members {
                if !lesson_texts.contains(&lesson.text.as_str()) {
                    lesson_texts.push(&lesson.text);
                }
            }
            proposals.push(Proposal {
                scope: scope.to_string(),
                triggers: vec![format!("regex:{pattern}")],
                lesson: lesson_texts.join(" / "),
                replaces: ids,
                source: "deterministic".into(),
            });
        }
    }
    proposals
}

fn head_of(text: &str) -> Option<String> {
    let end = ["::", "->", ".", "("]
        .iter()
        .filter_map(|separator| text.find(separator).map(|at| at + separator.len()))
        .min()?;
    (end >= 4).then(|| text[..end].to_string())
}

/// `escape(prefix) + \w+ + escape(suffix)` when the differing middles are word characters.
fn generalise(texts: &[&str]) -> Option<String> {
    let prefix = common_prefix(texts);
    let reversed: Vec<String> = texts.iter().map(|t| t.chars().rev().collect()).collect();
    let reversed_refs: Vec<&str> = reversed.iter().map(String::as_str).collect();
    let mut suffix: String = common_prefix(&reversed_refs).chars().rev().collect();
    let shortest = texts.iter().map(|t| t.len()).min()?;
    while prefix.len() + suffix.len() >= shortest && !suffix.is_empty() {
        suffix.remove(0);
    }
    let middles_are_words = texts.iter().all(|text| {
        let middle = &text[prefix.len()..text.len() - suffix.len()];
        !middle.is_empty() && middle.chars().all(|c| c.is_alphanumeric() || c == '_')
    });
    middles_are_words.then(|| format!("{}\\w+{}", regex::escape(&prefix), regex::escape(&suffix)))
}

fn common_prefix(texts: &[&str]) -> String {
    let Some(first) = texts.first() else {
        return String::new();
    };
    let mut end = first.len();
    for text in &texts[1..] {
        end = first
            .char_indices()
            .zip(text.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((index, c), _)| index + c.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

/// Checks a proposal against the lessons it replaces; the reason when it fails.
pub(crate) fn validate(proposal: &Proposal, lessons: &[&Lesson]) -> Result<(), DiscardReason> {
    let mut triggers = Vec::new();
    for text in &proposal.triggers {
        triggers.push(Trigger::validate(text)?);
    }
    if triggers.is_empty() {
        return Err(DiscardReason::NoTriggers);
    }
    check_not_generic(&triggers)?;
    if precision::is_generic_advice(&proposal.lesson) {
        return Err(DiscardReason::GenericAdvice {
            text: proposal.lesson.clone(),
        });
    }
    if proposal.replaces.is_empty() {
        return Err(DiscardReason::ReplacesNothing);
    }
    let fires = |text: &str| triggers.iter().any(|t| t.is_match(text));
    // Candidates a proposal replaces are checked against their evidence (`evidence::check`).
    for id in proposal
        .replaces
        .iter()
        .filter(|id| !id.starts_with("candidate:"))
    {
        let lesson =
            lessons
                .iter()
                .find(|l| &l.id == id)
                .ok_or_else(|| DiscardReason::NotALesson {
                    id: id.clone(),
                    scope: proposal.scope.clone(),
                })?;
        for trigger in &lesson.triggers {
            if let Trigger::Literal(text) = trigger
                && !fires(text)
            {
                return Err(DiscardReason::MissesTrigger {
                    text: text.clone(),
                    id: id.clone(),
                });
            }
        }
        let examples = lesson.examples.clone().unwrap_or_default();
        if let Some(text) = examples.should_match.iter().find(|t| !fires(t)) {
            return Err(DiscardReason::MissesExample {
                text: text.clone(),
                id: id.clone(),
            });
        }
        if let Some(text) = examples.should_not_match.iter().find(|t| fires(t)) {
            return Err(DiscardReason::MatchesNoMatchExample {
                text: text.clone(),
                id: id.clone(),
            });
        }
    }
    Ok(())
}

/// Generic: a trigger whose required text is short, a keyword, or absent.
fn check_not_generic(triggers: &[Trigger]) -> Result<(), DiscardReason> {
    for trigger in triggers {
        let named = || trigger.as_str().to_string();
        let required = match trigger.pattern() {
            None => vec![named()],
            Some(pattern) => required_literals(pattern)
                .ok_or_else(|| DiscardReason::NoRequiredText { trigger: named() })?,
        };
        for text in required {
            precision::check(&text).map_err(|refusal| DiscardReason::Imprecise {
                trigger: named(),
                refusal,
            })?;
            if text.trim().chars().count() < MIN_REQUIRED_TEXT {
                return Err(DiscardReason::TooLittleText {
                    trigger: named(),
                    text,
                });
            }
        }
    }
    Ok(())
}

/// Parses the reviewer's answer: the outermost JSON object in the text.
fn parse_answer(scope: &str, text: &str) -> Result<Vec<Proposal>, AnswerProblem> {
    let start = text.find('{').ok_or(AnswerProblem::NoJson)?;
    let end = text.rfind('}').ok_or(AnswerProblem::NoJson)?;
    let value: Value =
        serde_json::from_str(text.get(start..=end).unwrap_or_default()).map_err(|error| {
            AnswerProblem::NotJson {
                message: error.to_string(),
            }
        })?;
    let list = value
        .get("proposals")
        .and_then(Value::as_array)
        .ok_or(AnswerProblem::NoProposals)?;
    Ok(list
        .iter()
        .filter_map(|item| {
            Some(Proposal {
                scope: scope.to_string(),
                triggers: serde_json::from_value(item.get("triggers")?.clone()).ok()?,
                lesson: item.get("lesson")?.as_str()?.to_string(),
                replaces: serde_json::from_value(item.get("replaces")?.clone()).ok()?,
                source: "llm".into(),
            })
        })
        .collect())
}

/// Everything distill found.
#[derive(Debug, Default, Serialize)]
pub(crate) struct DistillReport {
    pub(crate) scopes: Vec<String>,
    pub(crate) proposals: Vec<Proposal>,
    pub(crate) discarded: Vec<Discarded>,
    /// What happened with the reviewer CLI.
    pub(crate) llm: String,
    /// What could not be checked (a project outside git).
    pub(crate) notes: Vec<String>,
}

/// Builds the report: deterministic proposals, then the reviewer's, all validated.
pub(crate) fn distill(
    project: &Project,
    settings: &Settings,
    file: &LessonFile,
    pool: &CandidateFile,
) -> DistillReport {
    let scopes = evidence::crowded(file, pool);
    let mut report = DistillReport {
        scopes: scopes.keys().cloned().collect(),
        ..DistillReport::default()
    };
    let mut candidates = Vec::new();
    for (scope, lessons) in &crowded_scopes(file) {
        candidates.extend(deterministic(scope, lessons));
    }
    report.llm = match settings.reviewer_backend {
        ReviewerBackend::Manual => "no reviewer CLI is configured (reviewerBackend \"manual\"); \
showing the deterministic proposals only"
            .into(),
        _ if scopes.is_empty() => "not asked: no scope has 5 or more lessons and candidates".into(),
        _ => ask_reviewer(project, settings, &scopes, &mut candidates),
    };
    let empty = evidence::ScopeEvidence::default();
    let in_git = crate::git::is_checkout(project.checkout());
    let mut code = ProjectCode::new(project);
    for proposal in candidates {
        let scope_evidence = scopes.get(&proposal.scope).unwrap_or(&empty);
        let checked = validate(&proposal, &scope_evidence.lessons).and_then(|()| {
            let found = project_matches(&mut code, &proposal)?;
            evidence::check(
                &proposal,
                scope_evidence,
                in_git.then_some(found.as_slice()),
            )
        });
        match checked {
            Ok(()) => report.proposals.push(proposal),
            Err(reason) => report.discarded.push(Discarded { proposal, reason }),
        }
    }
    if !in_git {
        report
            .notes
            .push("not a git repository: proposals were not tried on the project's files".into());
    }
    report
}

/// Every line of the project's code the proposal fires on, matched as the lesson it would be
/// (code only, whole identifiers, its scope).
fn project_matches(
    code: &mut ProjectCode<'_>,
    proposal: &Proposal,
) -> Result<Vec<ProjectMatch>, DiscardReason> {
    let raw = RawLesson {
        scope: proposal.scope.clone(),
        triggers: proposal.triggers.clone(),
        lesson: proposal.lesson.clone(),
        whole_identifiers: Matching::CODE.whole_identifiers,
        code_only: Matching::CODE.code_only,
        ..RawLesson::default()
    };
    let lesson = Lesson::from_raw(raw).map_err(|_| DiscardReason::NoTriggers)?;
    code.matches(&lesson)
        .map_err(|refusal| DiscardReason::Unchecked {
            why: refusal.to_string(),
        })
}

fn ask_reviewer(
    project: &Project,
    settings: &Settings,
    scopes: &BTreeMap<String, evidence::ScopeEvidence<'_>>,
    candidates: &mut Vec<Proposal>,
) -> String {
    let timeout = Duration::from_secs(settings.reviewer_timeout_seconds);
    let mut problems = Vec::new();
    for (scope, scope_evidence) in scopes {
        let question = evidence::prompt(scope, scope_evidence);
        let answer = crate::reviewer::ask(settings, project.root(), &question, timeout);
        match answer
            .map_err(AnswerProblem::from)
            .and_then(|text| parse_answer(scope, &text))
        {
            Ok(proposals) => candidates.extend(proposals),
            Err(problem) => problems.push(format!("{scope}: {problem}")),
        }
    }
    if problems.is_empty() {
        format!("asked the reviewer CLI about {} scope(s)", scopes.len())
    } else {
        format!("the reviewer CLI failed: {}", problems.join("; "))
    }
}

#[cfg(test)]
mod tests;
