//! Distill from evidence: the reviewer CLI is shown, per crowded scope, what the scope's lessons
//! and candidates were learned from — the text as the agent wrote it (*bad*) and as it was fixed
//! (*fixed*) — and asked for one general rule. A proposal (whatever its source) is verified as a
//! learned lesson is (`learning::verification`): it must match every bad example of what it
//! replaces and none of the scope's fixed examples — and there must be fixed examples to check it
//! against —, and, matched as the lesson would match (code only, whole identifiers, its scope),
//! fire on no line of the project's code that none of the lessons it replaces fires on (such a
//! line is correct code; one they fire on is a known instance of their mistakes).
//!
//! Bad examples: a lesson's `examples.match` (learned lessons carry their evidence there), a
//! candidate's `learned_from` lines, else its trigger. Fixed examples: `examples.no_match` and
//! the evidence's fixed lines.
//!
//! Invariants: nothing is written; the project is searched the way learning searches it
//! (`git grep` for the proposal's required text, bounded); outside git the project check is
//! skipped and the report says so.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::learning::verification::ProjectMatch;
use crate::lessons::distill::{DiscardReason, MIN_LESSONS_PER_SCOPE, Proposal};
use crate::lessons::examples::fires;
use crate::lessons::model::{Candidate, Lesson};
use crate::lessons::provenance::Evidence;
use crate::lessons::store::{CandidateFile, LessonFile};
use crate::lessons::trigger::Trigger;

/// How a proposal names a candidate it replaces (candidates have no id).
pub(crate) fn candidate_name(candidate: &Candidate) -> String {
    format!("candidate:{}", candidate.trigger)
}

/// One scope's lessons and candidates, and what they were learned from.
#[derive(Debug, Default)]
pub(crate) struct ScopeEvidence<'a> {
    pub(crate) lessons: Vec<&'a Lesson>,
    pub(crate) candidates: Vec<&'a Candidate>,
}

impl ScopeEvidence<'_> {
    /// Bad examples of the lesson or candidate named `name` (a lesson id or `candidate:T`).
    fn bad_of(&self, name: &str) -> Option<Vec<String>> {
        if let Some(lesson) = self.lessons.iter().find(|l| l.id == name) {
            let examples = lesson.examples.clone().unwrap_or_default();
            return Some(examples.should_match);
        }
        let candidate = self.candidates.iter().find(|c| candidate_name(c) == name)?;
        let mut bad: Vec<String> = Evidence::all_of(&candidate.extra)
            .into_iter()
            .map(|evidence| evidence.bad)
            .collect();
        if bad.is_empty() {
            bad.push(candidate.trigger.clone());
        }
        Some(bad)
    }

    /// Whether one of the lessons or candidates named in `replaces` fires on `line`: the
    /// project's line is then a known instance of their mistake, not correct code.
    fn replaced_fire_on(&self, replaces: &[String], line: &str) -> bool {
        replaces.iter().any(|name| {
            if let Some(lesson) = self.lessons.iter().find(|l| l.id == *name) {
                return fires(lesson, line).unwrap_or(false);
            }
            self.candidates
                .iter()
                .find(|c| candidate_name(c) == *name)
                .is_some_and(|candidate| line.contains(candidate.trigger.as_str()))
        })
    }

    /// Every fixed example of the scope.
    fn fixed(&self) -> Vec<String> {
        let mut fixed: Vec<String> = self
            .lessons
            .iter()
            .flat_map(|l| l.examples.clone().unwrap_or_default().should_not_match)
            .collect();
        for candidate in &self.candidates {
            fixed.extend(
                Evidence::all_of(&candidate.extra)
                    .into_iter()
                    .map(|evidence| evidence.fixed)
                    .filter(|text| !text.trim().is_empty()),
            );
        }
        fixed
    }
}

/// Scopes whose lessons and candidates together number at least [`MIN_LESSONS_PER_SCOPE`].
pub(crate) fn crowded<'a>(
    file: &'a LessonFile,
    pool: &'a CandidateFile,
) -> BTreeMap<String, ScopeEvidence<'a>> {
    let mut scopes: BTreeMap<String, ScopeEvidence<'a>> = BTreeMap::new();
    for lesson in file.lessons() {
        let scope = lesson.scope.as_str().to_string();
        scopes.entry(scope).or_default().lessons.push(lesson);
    }
    for candidate in &pool.candidates {
        let scope = candidate.scope.clone();
        scopes.entry(scope).or_default().candidates.push(candidate);
    }
    scopes.retain(|_, evidence| {
        evidence.lessons.len() + evidence.candidates.len() >= MIN_LESSONS_PER_SCOPE
    });
    scopes
}

/// The question for the reviewer CLI: one general rule for the scope, from its evidence.
pub(crate) fn prompt(scope: &str, evidence: &ScopeEvidence<'_>) -> String {
    let mut listed: Vec<Value> = evidence
        .lessons
        .iter()
        .map(|l| {
            let examples = l.examples.clone().unwrap_or_default();
            json!({"id": l.id, "triggers": l.trigger_texts(), "lesson": l.text,
                   "bad": examples.should_match, "fixed": examples.should_not_match})
        })
        .collect();
    for candidate in &evidence.candidates {
        let seen = Evidence::all_of(&candidate.extra);
        listed.push(
            json!({"id": candidate_name(candidate), "triggers": [candidate.trigger],
            "lesson": candidate.lesson,
            "bad": seen.iter().map(|e| e.bad.as_str()).collect::<Vec<_>>(),
            "fixed": seen.iter().map(|e| e.fixed.as_str()).collect::<Vec<_>>()}),
        );
    }
    format!(
        "You maintain a library of lessons for a coding agent. Each lesson warns when an edit adds text \
matching one of its triggers (a substring, or `regex:` + a Rust regex). Below are the lessons and \
candidate lessons for files matching {scope:?}, each with the text the agent wrote (\"bad\") and the \
text it was fixed to (\"fixed\"). Propose ONE more general rule that replaces several of them. Its \
triggers must stay PRECISE: they must match every \"bad\" text of what it replaces and no \"fixed\" \
text; name concrete identifiers or tokens, never generic advice or patterns like `\\w+`, `import` \
or `check before editing`. Name what it replaces by id.\n\
Answer with JSON only: {{\"proposals\": [{{\"triggers\": [...], \"lesson\": \"...\", \"replaces\": [\"id\", ...]}}]}}\n\n{}",
        serde_json::to_string_pretty(&listed).unwrap_or_default()
    )
}

/// The evidence rules for one proposal (see the module docs); `project` is every line of the
/// project's code the proposal fires on as a lesson, or `None` outside git.
pub(crate) fn check(
    proposal: &Proposal,
    evidence: &ScopeEvidence<'_>,
    project: Option<&[ProjectMatch]>,
) -> Result<(), DiscardReason> {
    let triggers: Vec<Trigger> = proposal
        .triggers
        .iter()
        .map(|text| Trigger::validate(text))
        .collect::<Result<_, _>>()?;
    let fires = |text: &str| triggers.iter().any(|t| t.is_match(text));
    for name in &proposal.replaces {
        let bad = evidence
            .bad_of(name)
            .ok_or_else(|| DiscardReason::NotInScope {
                name: name.clone(),
                scope: proposal.scope.clone(),
            })?;
        if let Some(text) = bad.iter().find(|text| !fires(text)) {
            return Err(DiscardReason::MissesBadExample {
                text: text.to_string(),
                name: name.clone(),
            });
        }
    }
    let fixed = evidence.fixed();
    if fixed.is_empty() {
        return Err(DiscardReason::NothingToCheckAgainst {
            scope: proposal.scope.clone(),
        });
    }
    if let Some(text) = fixed.iter().find(|text| fires(text)) {
        return Err(DiscardReason::MatchesFixedExample {
            text: text.to_string(),
            scope: proposal.scope.clone(),
        });
    }
    let correct = project
        .unwrap_or_default()
        .iter()
        .find(|found| !evidence.replaced_fire_on(&proposal.replaces, &found.text));
    if let Some(found) = correct {
        return Err(DiscardReason::FiresInProject {
            path: found.file.clone(),
            line: found.line,
            excerpt: crate::text::shorten(found.text.trim(), 60),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn files() -> (LessonFile, CandidateFile) {
        let lesson = json!({"id": "shell", "scope": "*.py", "triggers": ["shell=True"],
            "lesson": "no shell", "source": "review",
            "examples": {"match": ["run(c, shell=True)"], "no_match": ["run(argv)"]}});
        let file = LessonFile::parse(
            Path::new("l.json"),
            &json!({"lessons": [lesson]}).to_string(),
        )
        .unwrap();
        let mut pool = CandidateFile::default();
        for (trigger, bad, fixed) in [
            ("os.system", "os.system(c)", "run(argv)"),
            ("os.popen", "os.popen(c)", "check_output(argv)"),
            ("shell='/bin/sh'", "run(c, shell='/bin/sh')", "run(argv)"),
            ("shell=1", "call(c, shell=1)", "call(argv)"),
        ] {
            let mut candidate = Candidate {
                scope: "*.py".into(),
                trigger: trigger.into(),
                lesson: "x".into(),
                ..Candidate::default()
            };
            let seen = json!([{"session": "s", "file": "a.py", "line": 1, "bad": bad,
                               "fixed": fixed, "at": 0}]);
            candidate.extra.insert("learned_from".into(), seen);
            pool.candidates.push(candidate);
        }
        (file, pool)
    }

    #[test]
    fn proposals_must_fit_the_evidence_and_the_project() {
        let (file, pool) = files();
        let scopes = crowded(&file, &pool);
        let evidence = &scopes["*.py"];
        let proposal = |trigger: &str, replaces: &[&str]| Proposal {
            scope: "*.py".into(),
            triggers: vec![trigger.into()],
            lesson: "run programs, not shell strings".into(),
            replaces: replaces.iter().map(|r| r.to_string()).collect(),
            source: "llm".into(),
        };
        let shells = ["shell", "candidate:shell='/bin/sh'", "candidate:shell=1"];
        let good = proposal(r"regex:shell=(?:True|1|'[^']+')", &shells);
        check(&good, evidence, Some(&[])).unwrap();
        let reason = |proposal: &Proposal, found: Option<&[ProjectMatch]>| {
            check(proposal, evidence, found).unwrap_err().to_string()
        };
        assert_eq!(
            reason(&proposal("shell=True", &shells), None),
            r#"does not match "run(c, shell='/bin/sh')", a bad example of candidate:shell='/bin/sh'"#
        );
        assert_eq!(
            reason(&proposal(r"regex:run\(", &["shell"]), None),
            r#"matches "run(argv)", a fixed example of *.py"#
        );
        let found = |line: &str| ProjectMatch {
            file: "tools/sh.py".into(),
            line: 2,
            text: line.into(),
            range: 0..line.len(),
        };
        // A line a replaced lesson or candidate fires on is their mistake, not correct code.
        check(&good, evidence, Some(&[found("run(c, shell=1)")])).unwrap();
        assert_eq!(
            reason(&good, Some(&[found("run(c, shell='/bin/bash')")])),
            "fires on tools/sh.py:2, a file of the project (`run(c, shell='/bin/bash')`)"
        );
        assert_eq!(
            reason(&proposal("shell=True", &["nope"]), None),
            "replaces nope, which is not in *.py"
        );
        let asked = prompt("*.py", evidence);
        assert!(asked.contains("\"bad\"") && asked.contains("check_output(argv)"));
    }
}
