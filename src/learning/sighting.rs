//! One learned signal seen at one place — a fixed review finding or a person's correction — and
//! what it does to the lesson files. A sighting is an example: the line as written (bad) and as
//! fixed (good). It joins the candidate whose examples it shares a pattern with
//! ([`synthesis::propose`]), or starts one. Seen independently a second time (another file or
//! session for a review fix; any other correction), the candidate's examples make the trigger:
//! the first proposed pattern (the whole term the fixes took away, else the most general) that
//! holds under [`verification`] (every bad example matches, no good one does, and no correct
//! code of the project) becomes a lesson of weight 2 with its `source`, every place it was seen
//! (`learned_from`), its lines as `examples` and the places in the code it already matches
//! (`known_instances`). When no pattern holds, the candidate stays, and the refusal says why.
//!
//! Invariants: candidates are locked before lessons (the one lock order); the same evidence
//! (one finding of one review, one observed correction) never counts twice; a sighting a lesson
//! of the scope already fires on is not learned again; evidence lists stay bounded.

use serde_json::json;

use crate::files::HOOK_LOCK_WAIT;
use crate::learning::admission::{self, Admitted};
use crate::learning::pattern::Pattern;
use crate::learning::refusal::{Refusal, Refused};
use crate::learning::synthesis::{self, Example};
use crate::learning::verification::{self, ProjectCode, Rule, Verified};
use crate::lessons::examples::fires;
use crate::lessons::model::{Candidate, Lesson, PROMOTED_WEIGHT};
use crate::lessons::proposals::{self, Met};
use crate::lessons::provenance::{
    EVIDENCE_FIELD, Evidence, KNOWN_INSTANCES_FIELD, SOURCE_FIELD, Source,
};
use crate::lessons::store::{self, LessonFile};
use crate::lessons::{LessonScope, LessonsError};
use crate::session::changed_lines::LineChange;

/// Places kept per candidate or lesson (the first ones: they explain it best).
const MAX_EVIDENCE: usize = 10;
/// Examples of each kind a learned lesson carries.
const MAX_EXAMPLES: usize = 3;
/// Field of a candidate: why it is a mistake, without one place's particulars.
pub(crate) const WHY_FIELD: &str = "why";
/// Field of a candidate that could not become a lesson: the refusal's kind, reason and time.
pub(crate) const REFUSED_FIELD: &str = "refused";

/// A mistake and its fix seen at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub(crate) source: Source,
    /// The lesson's scope (`*.py`).
    pub(crate) scope: String,
    /// Why it is a mistake, without this place's particulars (a finding's title and suggestion).
    pub(crate) why: String,
    /// The candidate's text: why, and this sighting's fix.
    pub(crate) lesson: String,
    pub(crate) evidence: Evidence,
}

/// What recording a sighting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// Seen for the first time: a new candidate. `unjoined` when a candidate of the same mistake
    /// (a name both fixes took away) exists, but no pattern joins the two: it is said, not left
    /// as two candidates seen once.
    Candidate {
        trigger: String,
        unjoined: Option<Box<Refused>>,
    },
    /// Seen again where it was seen before (same session and file for a review fix): the
    /// candidate counts it but waits for another file or session.
    SamePlaceAgain,
    /// Seen independently a second time and verified: a lesson now.
    Promoted {
        id: String,
        trigger: String,
        verified: Verified,
    },
    /// As `Promoted`, but the lesson waits for a person (setting `learning`).
    Proposed {
        id: String,
        trigger: String,
        verified: Verified,
    },
    /// This very evidence was recorded before, or a lesson already fires on it.
    AlreadyKnown,
    /// Nothing learned from it (yet), and why.
    Refused(Box<Refused>),
}

impl Sighting {
    fn example(&self) -> Example<'_> {
        Example {
            bad: &self.evidence.bad,
            good: &self.evidence.fixed,
        }
    }

    /// Whether `other` is this sighting's evidence recorded before.
    fn is_same_evidence(&self, other: &Evidence) -> bool {
        let mine = &self.evidence;
        match self.source {
            Source::Review => {
                mine.session == other.session
                    && mine.review == other.review
                    && mine.finding == other.finding
            }
            // One review comment, however often its export is read.
            Source::ReviewHistory if mine.url.is_some() => mine.url == other.url,
            _ => mine == other,
        }
    }

    /// Whether this sighting confirms `earlier` on its own: a review fix must recur in another
    /// file or session, a suggested change on another pull request or file (the `session` of a
    /// review comment is its pull request); a correction counts every time the person made it.
    fn is_independent_of(&self, earlier: &Evidence) -> bool {
        match self.source {
            Source::Review | Source::ReviewHistory => {
                self.evidence.session != earlier.session || self.evidence.file != earlier.file
            }
            _ => !self.is_same_evidence(earlier),
        }
    }

    fn refused(&self, refusal: Refusal, subject: String, evidence: Vec<Evidence>) -> Recorded {
        Recorded::Refused(Box::new(self.refusal(refusal, subject, evidence)))
    }

    fn refusal(&self, refusal: Refusal, subject: String, evidence: Vec<Evidence>) -> Refused {
        Refused {
            refusal,
            source: self.source,
            scope: self.scope.clone(),
            subject,
            evidence,
        }
    }

    fn new_candidate(&self, trigger: String, scope: &LessonScope<'_>) -> Candidate {
        let mut extra = serde_json::Map::new();
        extra.insert(SOURCE_FIELD.into(), json!(self.source.as_str()));
        extra.insert(WHY_FIELD.into(), json!(self.why));
        extra.insert(EVIDENCE_FIELD.into(), json!([self.evidence]));
        Candidate {
            scope: self.scope.clone(),
            trigger,
            lesson: self.lesson.clone(),
            hits: Some(1),
            last_hit: Some(scope.clock.now()),
            created: Some(scope.clock.today()),
            extra,
        }
    }
}

/// What [`Taught::record`] did with one sighting, in short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Noted {
    /// A new candidate.
    Candidate,
    /// A candidate seen again where it was seen before: counted, not yet a lesson.
    CountedAgain,
    /// A lesson now, with its id.
    Promoted(String),
    /// A proposal waiting for a person, with its id.
    Proposed(String),
    /// Known already.
    Known,
    /// Refused, with its reason among the refusals.
    Refused,
    /// The lesson files could not be written; the note says why.
    Failed,
}

/// What learning from one batch of signals said: lines for the human, and what was refused
/// (*rather miss than false-alarm*, never silently: the learning door records them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Taught {
    pub(crate) notes: Vec<String>,
    pub(crate) refusals: Vec<Refused>,
}

impl Taught {
    /// Records `sighting` and says what happened; `label` names where it came from.
    pub(crate) fn record(
        &mut self,
        scope: &LessonScope<'_>,
        sighting: &Sighting,
        label: &str,
    ) -> Noted {
        match record(scope, sighting) {
            Ok(Recorded::Candidate { trigger, unjoined }) => {
                self.refusals.extend(unjoined.map(|refused| *refused));
                self.notes.push(format!(
                "new lesson candidate from {label}: `{trigger}` in {} (seen once; {})",
                sighting.scope,
                match sighting.source {
                    Source::Review => "the same fix in another file or session makes it a lesson",
                    Source::ReviewHistory => {
                        "the same change suggested on another pull request or file makes it a lesson"
                    }
                    Source::Agent => {
                        "it becomes a lesson only when car sees the same mistake fixed (a review, a person's correction)"
                    }
                    _ => "once more and it becomes a lesson",
                }
                ));
                Noted::Candidate
            }
            Ok(Recorded::Promoted {
                id,
                trigger,
                verified,
            }) => {
                self.notes.push(format!(
                "learned a lesson (weight {PROMOTED_WEIGHT}, source {}) from {label}: `{trigger}` in {}; `car lessons show {id}` shows it, `car lessons rm {id}` removes it{}",
                sighting.source.as_str(),
                sighting.scope,
                after_sentence(". ", &instances_note(&verified))
                ));
                Noted::Promoted(id)
            }
            Ok(Recorded::Proposed {
                id,
                trigger,
                verified,
            }) => {
                self.notes.push(format!(
                "proposed a lesson (source {}) from {label}: `{trigger}` in {}; it waits for a person: `car lessons review`, or `car lessons accept {id}` / `car lessons reject {id}`{}",
                sighting.source.as_str(),
                sighting.scope,
                after_sentence(". ", &instances_note(&verified))
                ));
                Noted::Proposed(id)
            }
            Ok(Recorded::Refused(refused)) => {
                self.refusals.push(*refused);
                Noted::Refused
            }
            Ok(Recorded::SamePlaceAgain) => Noted::CountedAgain,
            Ok(Recorded::AlreadyKnown) => Noted::Known,
            Err(error) => {
                self.notes
                    .push(format!("nothing was learned from {label}: {error}"));
                Noted::Failed
            }
        }
    }

    pub(crate) fn extend(&mut self, other: Taught) {
        self.notes.extend(other.notes);
        self.refusals.extend(other.refusals);
    }
}

/// `It also matches 3 places already in the code: a.py:3, b.py:9, … (`car check` lists
/// them).` (empty for none), after a sentence of the caller's.
pub(crate) fn instances_note(verified: &Verified) -> String {
    if verified.total == 0 {
        return String::new();
    }
    let places: Vec<String> = verified
        .instances
        .iter()
        .take(3)
        .map(|place| format!("{}:{}", place.file, place.line))
        .collect();
    let more = if verified.total > places.len() {
        ", …"
    } else {
        ""
    };
    let noun = if verified.total == 1 {
        "place"
    } else {
        "places"
    };
    format!(
        "It also matches {} {noun} already in the code: {}{more} (`car check` lists them).",
        verified.total,
        places.join(", ")
    )
}

/// `note` after `separator`, or nothing when there is no note.
pub(crate) fn after_sentence(separator: &str, note: &str) -> String {
    if note.is_empty() {
        String::new()
    } else {
        format!("{separator}{note}")
    }
}

/// The places a lesson already matched, as stored with it.
pub(crate) fn instances_field(verified: &Verified) -> serde_json::Value {
    json!({"count": verified.total, "places": verified.instances})
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

/// Records one sighting (see the module docs).
pub(crate) fn record(
    scope: &LessonScope<'_>,
    sighting: &Sighting,
) -> Result<Recorded, LessonsError> {
    let alone = match synthesis::propose(&[sighting.example()]) {
        Ok(patterns) => patterns,
        Err(no_pattern) => {
            let line = crate::text::shorten(sighting.evidence.bad.trim(), 120);
            let evidence = vec![sighting.evidence.clone()];
            return Ok(sighting.refused(Refusal::NoPattern(no_pattern), line, evidence));
        }
    };
    let lessons_path = scope.project.lessons_file();
    let candidates_path = scope.project.candidates_file();
    store::with_candidates(&candidates_path, HOOK_LOCK_WAIT, |pool| {
        // Under the candidates lock, which every promotion holds: a lesson a parallel hook just
        // made is seen, so no candidate is left beside it.
        let lessons = LessonFile::load(&lessons_path)?;
        let covered = lessons.lessons().any(|lesson| {
            lesson.scope.matches(&sighting.evidence.file)
                && fires(lesson, &sighting.evidence.bad).unwrap_or(false)
        });
        if covered {
            return Ok((Recorded::AlreadyKnown, false));
        }
        let evidence = &sighting.evidence;
        match proposals::meets(scope.project, &evidence.file, &evidence.bad)? {
            Met::Nothing => {}
            Met::Waiting => return Ok((Recorded::AlreadyKnown, false)),
            Met::Rejected(rejection) => {
                let refusal = Refusal::RejectedByAPerson {
                    id: rejection.id,
                    trigger: rejection.trigger.clone(),
                };
                let refused = sighting.refused(refusal, rejection.trigger, vec![evidence.clone()]);
                return Ok((refused, false));
            }
        }
        let Some(index) = pool.candidates.iter().position(|c| joins(c, sighting)) else {
            let trigger = alone[0].trigger();
            let unjoined = unjoined(&pool.candidates, sighting).map(Box::new);
            pool.candidates
                .push(sighting.new_candidate(trigger.clone(), scope));
            return Ok((Recorded::Candidate { trigger, unjoined }, true));
        };
        let candidate = &mut pool.candidates[index];
        let mut evidence = Evidence::all_of(&candidate.extra);
        if evidence.iter().any(|e| sighting.is_same_evidence(e)) {
            return Ok((Recorded::AlreadyKnown, false));
        }
        // The agent's own proposal is an example, never the confirmation: a lesson needs what
        // car saw happen (a fix, a correction, a review) to confirm it.
        let independent = sighting.source != Source::Agent
            && evidence.iter().any(|e| sighting.is_independent_of(e));
        if evidence.len() < MAX_EVIDENCE {
            evidence.push(sighting.evidence.clone());
        }
        candidate.hits = Some(candidate.hits() + 1);
        candidate.last_hit = Some(scope.clock.now());
        candidate
            .extra
            .insert(EVIDENCE_FIELD.into(), json!(evidence));
        if !independent {
            return Ok((Recorded::SamePlaceAgain, true));
        }
        let why = candidate
            .extra
            .get(WHY_FIELD)
            .and_then(serde_json::Value::as_str)
            .unwrap_or(&sighting.why)
            .to_string();
        let source = Source::of(&candidate.extra)
            .filter(|source| *source != Source::Agent)
            .unwrap_or(sighting.source);
        match promote(scope, source, &candidate.scope, &why, &evidence) {
            Ok((lesson, verified, trigger)) => {
                let id = lesson.id.clone();
                // The lesson (or proposal) first: if that write fails, the candidate stays and
                // the next sighting retries.
                let recorded = match admission::admit(scope, lesson)? {
                    Admitted::Lesson => Recorded::Promoted {
                        id,
                        trigger,
                        verified,
                    },
                    Admitted::Proposed => Recorded::Proposed {
                        id,
                        trigger,
                        verified,
                    },
                    Admitted::Rejected(rejection) => {
                        let refusal = Refusal::RejectedByAPerson {
                            id: rejection.id,
                            trigger: rejection.trigger,
                        };
                        let recent = evidence.iter().rev().take(3).cloned().collect();
                        sighting.refused(refusal, trigger, recent)
                    }
                };
                pool.candidates.remove(index);
                Ok((recorded, true))
            }
            Err(refuted) => {
                let (refusal, pattern) = *refuted;
                let trigger = if pattern.elements.is_empty() {
                    candidate.trigger.clone()
                } else {
                    candidate.trigger = pattern.trigger();
                    pattern.display()
                };
                candidate.extra.insert(
                    REFUSED_FIELD.into(),
                    json!({"kind": refusal.kind(), "reason": refusal.to_string(),
                           "at": scope.clock.now()}),
                );
                let recent = evidence.iter().rev().take(3).cloned().collect();
                Ok((sighting.refused(refusal, trigger, recent), true))
            }
        }
    })
}

/// Whether `sighting` is another example of the candidate's mistake: a learned (not checker)
/// candidate of the same scope whose examples and this one share a pattern.
fn joins(candidate: &Candidate, sighting: &Sighting) -> bool {
    if !is_learned_in_scope(candidate, sighting) {
        return false;
    }
    let evidence = Evidence::all_of(&candidate.extra);
    let mut examples: Vec<Example<'_>> = evidence.iter().map(example_of).collect();
    examples.push(sighting.example());
    synthesis::propose(&examples).is_ok()
}

/// The refusal `no-common-pattern` when `sighting` joins no candidate although one of its scope
/// holds the same mistake: an example whose fix took away a name this one's took away too.
fn unjoined(candidates: &[Candidate], sighting: &Sighting) -> Option<Refused> {
    let taken = synthesis::taken_words(sighting.example());
    candidates
        .iter()
        .filter(|candidate| is_learned_in_scope(candidate, sighting))
        .find_map(|candidate| {
            let evidence = Evidence::all_of(&candidate.extra);
            let same = evidence.iter().find(|earlier| {
                synthesis::taken_words(example_of(earlier))
                    .iter()
                    .any(|word| taken.contains(word))
            })?;
            let mut examples: Vec<Example<'_>> = evidence.iter().map(example_of).collect();
            examples.push(sighting.example());
            let no_pattern = synthesis::propose(&examples).err()?;
            let line = crate::text::shorten(sighting.evidence.bad.trim(), 120);
            let evidence = vec![same.clone(), sighting.evidence.clone()];
            Some(sighting.refusal(Refusal::NoPattern(no_pattern), line, evidence))
        })
}

/// Whether `candidate` is a learned (not checker) candidate of the sighting's scope.
fn is_learned_in_scope(candidate: &Candidate, sighting: &Sighting) -> bool {
    candidate.scope == sighting.scope
        && matches!(
            Source::of(&candidate.extra),
            Some(Source::Review | Source::Reversal | Source::ReviewHistory | Source::Agent)
        )
}

pub(crate) fn example_of(evidence: &Evidence) -> Example<'_> {
    Example {
        bad: &evidence.bad,
        good: &evidence.fixed,
    }
}

/// The lesson the examples make: the first proposed pattern that holds under verification, with
/// the places it already matches; else the first refusal and the first proposed pattern.
fn promote(
    scope: &LessonScope<'_>,
    source: Source,
    lesson_scope: &str,
    why: &str,
    evidence: &[Evidence],
) -> Result<(Lesson, Verified, String), Box<(Refusal, Pattern)>> {
    let examples: Vec<Example<'_>> = evidence.iter().map(example_of).collect();
    let patterns = match synthesis::propose(&examples) {
        Ok(patterns) => patterns,
        Err(no_pattern) => {
            // The sightings joined with one pattern between them; `propose` over all of them
            // is the same call, so this only happens to a candidate stored by an older car.
            let pattern = Pattern {
                elements: Vec::new(),
                unless: None,
            };
            return Err(Box::new((Refusal::NoPattern(no_pattern), pattern)));
        }
    };
    let sightings: Vec<(&str, &str)> = evidence
        .iter()
        .map(|item| (item.file.as_str(), item.bad.as_str()))
        .collect();
    let mut code = ProjectCode::new(scope.project);
    let mut first_refusal: Option<Refusal> = None;
    // Once a pattern is refuted, another must say something else in words (a significant name
    // or value the examples share that the refuted one lacks), not only in wildcards, brackets
    // and placeholders: `Duration::from_millis(…` escapes `Duration::from_millis(250)` by the
    // kind of its argument alone, and would fire on the next correct
    // `Duration::from_millis(delay_ms)`. Other words are other evidence: `order.status` refuted
    // by the fix leaves `status() == "SHIPPED"` to be tried, which `o.status() == "SHIPPED"` is
    // the same mistake of.
    let mut refuted_words: Vec<Vec<&str>> = Vec::new();
    for pattern in &patterns {
        let words = synthesis::significant_words(pattern);
        let says_nothing_new = refuted_words
            .iter()
            .any(|refuted| words.iter().all(|word| refuted.contains(word)));
        if says_nothing_new {
            continue;
        }
        let trigger = pattern.trigger();
        let learned = Learned {
            source,
            scope: lesson_scope,
            trigger: &trigger,
            text: pattern_text(why, pattern, &examples),
            evidence,
            error_subject: None,
        };
        let Some(mut lesson) =
            learned_lesson(learned, serde_json::Map::new(), &scope.clock.today())
        else {
            continue;
        };
        let rule = if pattern.unless.is_some() {
            Rule::Unless
        } else {
            Rule::Replaced
        };
        let verdict = verification::check_examples(&lesson, &examples)
            .and_then(|()| code.check(&lesson, rule, &examples, &sightings));
        match verdict {
            Ok(verified) => {
                if verified.total > 0 {
                    lesson
                        .extra
                        .insert(KNOWN_INSTANCES_FIELD.into(), instances_field(&verified));
                }
                return Ok((lesson, verified, pattern.display()));
            }
            Err(refusal) => {
                refuted_words.push(words);
                first_refusal.get_or_insert(refusal);
            }
        }
    }
    let first_proposed = patterns[0].clone();
    let refusal = first_refusal.unwrap_or_else(|| {
        Refusal::NoPattern(synthesis::NoPattern::NotSpecific(first_proposed.display()))
    });
    Err(Box::new((refusal, first_proposed)))
}

/// The first change (nearest the finding first) a pattern can be built from; else why not, for
/// the first.
pub(crate) fn learnable_change(changes: &[LineChange]) -> Result<&LineChange, Refusal> {
    let mut first_refusal = None;
    for change in changes {
        let example = Example {
            bad: &change.old,
            good: &change.new,
        };
        match synthesis::propose(&[example]) {
            Ok(_) => return Ok(change),
            Err(no_pattern) => {
                first_refusal.get_or_insert(Refusal::NoPattern(no_pattern));
            }
        }
    }
    Err(
        first_refusal.unwrap_or(Refusal::NoPattern(synthesis::NoPattern::NothingChanged(
            String::new(),
        ))),
    )
}

mod lesson;

pub(crate) use lesson::{Learned, join_why, learned_lesson, pattern_text};

#[cfg(test)]
mod tests;
