//! Distill from evidence: the reviewer CLI is shown, per crowded scope, what the scope's lessons
//! and candidates were learned from — the text as the agent wrote it (*bad*) and as it was fixed
//! (*fixed*) — and asked for one general rule. A proposal (whatever its source) is kept only if
//! it matches every bad example of what it replaces, none of the scope's fixed examples, and no
//! file of the project in the scope (the files git lists: the project's own valid code).
//!
//! Bad examples: a lesson's `examples.match` (learned lessons carry their evidence there), a
//! candidate's `learned_from` lines, else its trigger. Fixed examples: `examples.no_match` and
//! the evidence's fixed lines.
//!
//! Invariants: nothing is written; the project is read through `git ls-files` (bounded: at most
//! 5,000 files of at most 512 KiB); outside git the project check is skipped and the report
//! says so.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::lessons::distill::{DiscardReason, MIN_LESSONS_PER_SCOPE, Proposal};
use crate::lessons::model::{Candidate, Lesson};
use crate::lessons::provenance::Evidence;
use crate::lessons::store::{CandidateFile, LessonFile};
use crate::lessons::trigger::Trigger;
use crate::project::Project;
use crate::scope::Scope;

/// Files of the project a proposal is tried on, at most, and their size limit.
const MAX_PROJECT_FILES: usize = 5_000;
const MAX_FILE_BYTES: u64 = 512 * 1024;

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

/// The evidence rules for one proposal (see the module docs); `project_files` are the project's
/// files in the scope, `(relative path, content)`, or `None` outside git.
pub(crate) fn check(
    proposal: &Proposal,
    evidence: &ScopeEvidence<'_>,
    project_files: Option<&[(String, String)]>,
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
    if let Some(text) = evidence.fixed().iter().find(|text| fires(text)) {
        return Err(DiscardReason::MatchesFixedExample {
            text: text.to_string(),
            scope: proposal.scope.clone(),
        });
    }
    for (path, content) in project_files.unwrap_or_default() {
        if let Some((number, line)) = content.lines().enumerate().find(|(_, line)| fires(line)) {
            return Err(DiscardReason::FiresInProject {
                path: path.clone(),
                line: number + 1,
                excerpt: crate::text::shorten(line.trim(), 60),
            });
        }
    }
    Ok(())
}

/// The project's files in `scope` (what `git ls-files` lists, untracked ones not ignored
/// included), with their content; `None` outside git.
pub(crate) fn project_files(project: &Project, scope: &str) -> Option<Vec<(String, String)>> {
    let scope = Scope::parse(scope).ok()?;
    let root = project.checkout();
    let wants = |path: &std::path::Path| {
        path.strip_prefix(root)
            .ok()
            .map(|relative| relative.to_string_lossy().replace('\\', "/"))
            .is_some_and(|relative| scope.matches(&relative))
    };
    let listed = crate::validate::walk::files_under(root, "", &wants).ok()?;
    Some(
        listed
            .into_iter()
            .take(MAX_PROJECT_FILES)
            // Read through the project's one reader: a file that is a link out of the project
            // is never read (its lines would be quoted as where a proposal fires).
            .filter_map(|(relative, _)| {
                let content = project.read_inside(&relative, MAX_FILE_BYTES)?;
                Some((relative, content))
            })
            .collect(),
    )
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
        let reason = |proposal: &Proposal, files: Option<&[(String, String)]>| {
            check(proposal, evidence, files).unwrap_err().to_string()
        };
        assert_eq!(
            reason(&proposal("shell=True", &shells), None),
            r#"does not match "run(c, shell='/bin/sh')", a bad example of candidate:shell='/bin/sh'"#
        );
        assert_eq!(
            reason(&proposal(r"regex:run\(", &["shell"]), None),
            r#"matches "run(argv)", a fixed example of *.py"#
        );
        let project = [(
            "tools/sh.py".to_string(),
            "x\nrun(c, shell=1)\n".to_string(),
        )];
        assert_eq!(
            reason(&good, Some(&project)),
            "fires on tools/sh.py:2, a file of the project (`run(c, shell=1)`)"
        );
        assert_eq!(
            reason(&proposal("shell=True", &["nope"]), None),
            "replaces nope, which is not in *.py"
        );
        let asked = prompt("*.py", evidence);
        assert!(asked.contains("\"bad\"") && asked.contains("check_output(argv)"));
    }
}
