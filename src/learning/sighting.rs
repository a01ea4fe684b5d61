//! One learned signal seen at one place — a fixed review finding or a person's correction — and
//! what it does to the lesson files: the first sighting becomes a candidate; an independent
//! second sighting promotes the candidate to a lesson of weight 2 with its `source` and every
//! place it was seen (`learned_from`). The lines as written and as fixed become the lesson's
//! `examples` (`match` / `no_match`), so `car lessons test` and distill can check it.
//!
//! Invariants: candidates are locked before lessons (the one lock order); the same evidence
//! (one finding of one review, one observed correction) never counts twice; a trigger a lesson
//! of the scope already has is not learned again; evidence lists stay bounded.

use serde_json::json;

use crate::files::HOOK_LOCK_WAIT;
use crate::learning::fragment::{self, Chosen, LineChange, NoTrigger};
use crate::learning::precision;
use crate::lessons::model::{
    Candidate, Entry, Examples, Lesson, Matching, PROMOTED_WEIGHT, RawLesson, lesson_id,
};
use crate::lessons::provenance::{EVIDENCE_FIELD, Evidence, SOURCE_FIELD, Source};
use crate::lessons::store::{self, LessonFile};
use crate::lessons::{LessonScope, LessonsError};

/// Places kept per candidate or lesson (the first ones: they explain it best).
const MAX_EVIDENCE: usize = 10;
/// Examples of each kind a learned lesson carries.
const MAX_EXAMPLES: usize = 3;

/// A precise trigger learned from one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub(crate) source: Source,
    pub(crate) scope: String,
    pub(crate) trigger: String,
    /// The candidate's text: why, and this sighting's fix.
    pub(crate) lesson: String,
    /// Why it is a mistake, without this place's particulars (see [`promoted_text`]).
    pub(crate) why: String,
    pub(crate) evidence: Evidence,
}

/// What recording a sighting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// Seen for the first time: a new candidate.
    Candidate,
    /// Seen again where it was seen before (same session and file for a review fix): the
    /// candidate counts it but waits for another file or session.
    SamePlaceAgain,
    /// Seen independently a second time: a lesson now.
    Promoted { id: String },
    /// This very evidence was recorded before, or a lesson already has the trigger.
    AlreadyKnown,
}

impl Sighting {
    /// Whether `other` is this sighting's evidence recorded before.
    fn is_same_evidence(&self, other: &Evidence) -> bool {
        let mine = &self.evidence;
        match self.source {
            Source::Review => {
                mine.session == other.session
                    && mine.review == other.review
                    && mine.finding == other.finding
            }
            _ => mine == other,
        }
    }

    /// Whether this sighting confirms `earlier` on its own: a review fix must recur in another
    /// file or session; a correction counts every time the person made it.
    fn is_independent_of(&self, earlier: &Evidence) -> bool {
        match self.source {
            Source::Review => {
                self.evidence.session != earlier.session || self.evidence.file != earlier.file
            }
            _ => !self.is_same_evidence(earlier),
        }
    }

    fn new_candidate(&self, scope: &LessonScope<'_>) -> Candidate {
        let mut extra = serde_json::Map::new();
        extra.insert(SOURCE_FIELD.into(), json!(self.source.as_str()));
        extra.insert(EVIDENCE_FIELD.into(), json!([self.evidence]));
        Candidate {
            scope: self.scope.clone(),
            trigger: self.trigger.clone(),
            lesson: self.lesson.clone(),
            hits: Some(1),
            last_hit: Some(scope.clock.now()),
            created: Some(scope.clock.today()),
            extra,
        }
    }

    /// The lesson a candidate becomes, with every place it was seen and their lines as examples.
    fn lesson(&self, evidence: &[Evidence], scope: &LessonScope<'_>) -> Option<Lesson> {
        learned_lesson(
            Learned {
                source: self.source,
                scope: &self.scope,
                trigger: &self.trigger,
                why: &self.why,
                evidence,
                error_subject: None,
            },
            serde_json::Map::new(),
            &scope.clock.today(),
        )
    }
}

/// What a learned lesson is made of.
pub(crate) struct Learned<'a> {
    pub(crate) source: Source,
    pub(crate) scope: &'a str,
    pub(crate) trigger: &'a str,
    /// Why it is a mistake, in words that do not depend on one place (a finding's title, a
    /// checker's message).
    pub(crate) why: &'a str,
    /// Every place it was seen, each with the line as written and as fixed.
    pub(crate) evidence: &'a [Evidence],
    /// For a checker's error: the subject it must report again for the lesson to fire.
    pub(crate) error_subject: Option<&'a str>,
}

/// A learned lesson of weight 2: its text is `why` and what held in every sighting ("Write `B`,
/// not `A`."), its lines as written and as fixed its examples, its places `learned_from`; it
/// matches code as a person reads it ([`Matching::CODE`]). `extra` adds fields (what the lesson
/// needs to fire). `None` when the lesson would not be valid.
pub(crate) fn learned_lesson(
    learned: Learned<'_>,
    mut extra: serde_json::Map<String, serde_json::Value>,
    today: &str,
) -> Option<Lesson> {
    let triggers = vec![learned.trigger.to_string()];
    let mut examples = Examples::default();
    for item in learned.evidence {
        push_example(&mut examples.should_match, &item.bad);
        push_example(&mut examples.should_not_match, &item.fixed);
    }
    extra.insert(SOURCE_FIELD.into(), json!(learned.source.as_str()));
    extra.insert(EVIDENCE_FIELD.into(), json!(learned.evidence));
    let raw = RawLesson {
        id: Some(lesson_id(learned.scope, &triggers)),
        scope: learned.scope.to_string(),
        triggers,
        lesson: promoted_text(learned.why, learned.trigger, learned.evidence),
        weight: Some(u64::from(PROMOTED_WEIGHT)),
        hits: Some(0),
        created: Some(today.to_string()),
        examples: Some(examples),
        whole_identifiers: Matching::CODE.whole_identifiers,
        code_only: Matching::CODE.code_only,
        error_subject: learned.error_subject.map(str::to_string),
        extra,
        ..RawLesson::default()
    };
    Lesson::from_raw(raw).ok()
}

/// `why` and what every sighting's fix wrote instead of the trigger: "Write `B`, not `A`." when
/// the fixes agree on `B` ([`fragment::common_replacement`]), else "Avoid `A`.".
pub(crate) fn promoted_text(why: &str, trigger: &str, evidence: &[Evidence]) -> String {
    let fixes = evidence
        .iter()
        .map(|item| (item.bad.as_str(), item.fixed.as_str()));
    let why = why.trim();
    let advice = match fragment::common_replacement(trigger, fixes) {
        Some(fix) if !evidence.is_empty() => format!("Write `{fix}`, not `{trigger}`."),
        _ => format!("Avoid `{trigger}`."),
    };
    if why.is_empty() {
        advice
    } else {
        format!("{why} {advice}")
    }
}

fn push_example(list: &mut Vec<String>, text: &str) {
    let text = text.trim();
    if !text.is_empty() && list.len() < MAX_EXAMPLES && !list.iter().any(|known| known == text) {
        list.push(text.to_string());
    }
}

/// What learning from one batch of sightings said: lines for the human, and refusals
/// (*rather miss than false-alarm*), each naming where the signal came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Taught {
    pub(crate) notes: Vec<String>,
    pub(crate) refusals: Vec<String>,
}

impl Taught {
    /// Records `sighting` and says what happened; `label` names where it came from.
    pub(crate) fn record(&mut self, scope: &LessonScope<'_>, sighting: &Sighting, label: &str) {
        let what = format!("`{}` in {}", sighting.trigger, sighting.scope);
        match record(scope, sighting) {
            Ok(Recorded::Candidate) => self.notes.push(format!(
                "new lesson candidate from {label}: {what} (seen once; {})",
                match sighting.source {
                    Source::Review => "the same fix in another file or session makes it a lesson",
                    _ => "once more and it becomes a lesson",
                }
            )),
            Ok(Recorded::Promoted { id }) => self.notes.push(format!(
                "learned a lesson (weight {PROMOTED_WEIGHT}, source {}) from {label}: {what}; \
`car lessons show {id}` shows it, `car lessons rm {id}` removes it",
                sighting.source.as_str()
            )),
            Ok(Recorded::SamePlaceAgain | Recorded::AlreadyKnown) => {}
            Err(error) => self
                .notes
                .push(format!("nothing was learned from {label}: {error}")),
        }
    }

    pub(crate) fn extend(&mut self, other: Taught) {
        self.notes.extend(other.notes);
        self.refusals.extend(other.refusals);
    }
}

/// The scope learned lessons get: `*.ext`, or the file name when it has no extension.
pub(crate) fn scope_for(relative_path: &str) -> String {
    let name = relative_path.rsplit('/').next().unwrap_or(relative_path);
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && !extension.is_empty() => {
            format!("*.{extension}")
        }
        _ => name.to_string(),
    }
}

/// The scope a trigger learned in `file` gets (its kind, `*.py`) and the trigger chosen from
/// `changes` ([`fragment::choose`]): the first specific fragment that `after` (the file after
/// the change) no longer holds and that the project's files of that kind do not hold either
/// ([`precision::check_project`]).
pub(crate) fn choose_trigger<'a>(
    scope: &LessonScope<'_>,
    file: &str,
    changes: &'a [LineChange],
    after: &str,
) -> Result<(String, Chosen<'a>), NoTrigger> {
    let lesson_scope = scope_for(file);
    let allowed = |trigger: &str| {
        if !lesson_scope.starts_with("*.") {
            return Ok(());
        }
        // The file itself is excepted: git's version of it may still hold what the change
        // removed, and the change is the point.
        precision::check_project(scope.project.checkout(), &lesson_scope, &[file], trigger)
    };
    let chosen = fragment::choose(changes, after, allowed)?;
    Ok((lesson_scope, chosen))
}

/// Records one sighting (see the module docs).
pub(crate) fn record(
    scope: &LessonScope<'_>,
    sighting: &Sighting,
) -> Result<Recorded, LessonsError> {
    let lessons_path = scope.project.lessons_file();
    let triggers = [sighting.trigger.clone()];
    let candidates_path = scope.project.candidates_file();
    store::with_candidates(&candidates_path, HOOK_LOCK_WAIT, |pool| {
        // Under the candidates lock, which every promotion holds: a lesson a parallel hook just
        // made is seen, so no candidate is left beside it.
        let known = LessonFile::load(&lessons_path)?
            .lessons()
            .any(|lesson| lesson.is_duplicate_of(&sighting.scope, &triggers));
        if known {
            return Ok((Recorded::AlreadyKnown, false));
        }
        let found = pool
            .candidates
            .iter()
            .position(|c| c.scope == sighting.scope && c.trigger == sighting.trigger);
        let Some(index) = found else {
            pool.candidates.push(sighting.new_candidate(scope));
            return Ok((Recorded::Candidate, true));
        };
        let candidate = &mut pool.candidates[index];
        let mut evidence = Evidence::all_of(&candidate.extra);
        if evidence.iter().any(|e| sighting.is_same_evidence(e)) {
            return Ok((Recorded::AlreadyKnown, false));
        }
        let independent = evidence.iter().any(|e| sighting.is_independent_of(e));
        if evidence.len() < MAX_EVIDENCE {
            evidence.push(sighting.evidence.clone());
        }
        if !independent {
            candidate.hits = Some(candidate.hits() + 1);
            candidate.last_hit = Some(scope.clock.now());
            candidate
                .extra
                .insert(EVIDENCE_FIELD.into(), json!(evidence));
            return Ok((Recorded::SamePlaceAgain, true));
        }
        let Some(lesson) = sighting.lesson(&evidence, scope) else {
            return Ok((Recorded::AlreadyKnown, false));
        };
        let id = lesson.id.clone();
        // Lessons first: if that write fails, the candidate stays and the next sighting retries.
        add_lesson(&lessons_path, lesson)?;
        pool.candidates.remove(index);
        Ok((Recorded::Promoted { id }, true))
    })
}

fn add_lesson(path: &std::path::Path, lesson: Lesson) -> Result<(), LessonsError> {
    crate::lessons::library::with_lessons(path, HOOK_LOCK_WAIT, |file| {
        let triggers = lesson.trigger_texts();
        if file
            .lessons()
            .any(|l| l.is_duplicate_of(lesson.scope.as_str(), &triggers))
        {
            return Ok(((), false));
        }
        file.entries.push(Entry::Valid(lesson));
        Ok(((), true))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::project::Project;
    use crate::settings::Settings;

    fn sighting(source: Source, session: &str, file: &str, review: Option<&str>) -> Sighting {
        Sighting {
            source,
            scope: "*.py".into(),
            trigger: "shell=True".into(),
            lesson: "shell injection. Fix that worked: `a` became `b`.".into(),
            why: "Shell injection.".into(),
            evidence: Evidence {
                session: session.into(),
                file: file.into(),
                line: 3,
                review: review.map(String::from),
                finding: review.map(|_| "F1".to_string()),
                bad: "subprocess.run(cmd, shell=True)".into(),
                fixed: "subprocess.run(args)".into(),
                at: 1,
            },
        }
    }

    #[test]
    fn a_review_fix_promotes_only_in_another_file_or_session() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let scope = LessonScope {
            project: &project,
            settings: &settings,
            clock: Clock::fixed(1_800_000_000),
            record: true,
            user_layer: false,
        };
        let first = sighting(Source::Review, "s1", "a.py", Some("R1"));
        assert_eq!(record(&scope, &first).unwrap(), Recorded::Candidate);
        assert_eq!(record(&scope, &first).unwrap(), Recorded::AlreadyKnown);
        let same_place = sighting(Source::Review, "s1", "a.py", Some("R2"));
        assert_eq!(
            record(&scope, &same_place).unwrap(),
            Recorded::SamePlaceAgain
        );
        let elsewhere = sighting(Source::Review, "s2", "a.py", Some("R1"));
        assert!(matches!(
            record(&scope, &elsewhere).unwrap(),
            Recorded::Promoted { .. }
        ));
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().next().unwrap();
        assert_eq!(lesson.weight, PROMOTED_WEIGHT);
        assert_eq!(Source::of(&lesson.extra), Some(Source::Review));
        assert_eq!(Evidence::all_of(&lesson.extra).len(), 3);
        let examples = lesson.examples.clone().unwrap();
        assert_eq!(examples.should_match, ["subprocess.run(cmd, shell=True)"]);
        assert_eq!(examples.should_not_match, ["subprocess.run(args)"]);
        crate::lessons::examples::check_examples(lesson).unwrap();
        assert_eq!(
            record(&scope, &sighting(Source::Review, "s3", "b.py", Some("R1"))).unwrap(),
            Recorded::AlreadyKnown
        );
    }
}
