//! Errors waiting for their fix, resolved by an edit of their file: the error still there waits
//! on; gone with its trigger, it was fixed — the line as written and as fixed become evidence —
//! unless the line the agent wrote instead is rejected by a checker too (`"fetch-retryx"` became
//! `"./retry"`, a file that does not exist): that is no fix, and the place waits for the next
//! edit; gone while the trigger stayed, the environment changed (a package got installed) and
//! it teaches nothing.

use serde_json::json;

use super::place::{Place, fixed_line};
use super::{Errors, promoted_text, why_of};
use crate::edit::Edit;
use crate::learning::refusal::{Refusal, Refused};
use crate::learning::sighting::Taught;
use crate::lessons::LessonScope;
use crate::lessons::placement::is_whole;
use crate::lessons::provenance::{EVIDENCE_FIELD, Evidence, Source};
use crate::lessons::store::CandidateFile;

/// Resolves the places of this edit's file (see the module docs); a candidate left with neither
/// a waiting place nor a fix is dropped. Whether the pool changed.
pub(super) fn resolve(
    scope: &LessonScope<'_>,
    edit: &Edit,
    errors: &Errors,
    pool: &mut CandidateFile,
    taught: &mut Taught,
) -> bool {
    let mut changed = false;
    let now = scope.clock.now();
    for candidate in &mut pool.candidates {
        let places = Place::all_of(&candidate.extra);
        let (here, mut waiting): (Vec<Place>, Vec<Place>) = places
            .into_iter()
            .partition(|place| place.file == edit.relative_path);
        if here.is_empty() || errors.reports(&candidate.trigger) {
            continue;
        }
        changed = true;
        let mut evidence = Evidence::all_of(&candidate.extra);
        if writes_name(&edit.content, &candidate.trigger) {
            taught.refusals.push(Refused {
                refusal: Refusal::StillWritten {
                    trigger: candidate.trigger.clone(),
                    file: edit.relative_path.clone(),
                },
                source: Source::Validator,
                scope: candidate.scope.clone(),
                subject: candidate.trigger.clone(),
                evidence: Vec::new(),
            });
        } else {
            for place in here.into_iter().filter(|place| place.is_fresh(now)) {
                let (fixed, at_line) = fixed_line(edit, place.line);
                match errors.on_line(at_line).filter(|_| !fixed.is_empty()) {
                    Some(error) => {
                        taught.refusals.push(Refused {
                            refusal: Refusal::FixStillFails {
                                file: edit.relative_path.clone(),
                                line: at_line,
                                error: crate::text::shorten(error, 120),
                            },
                            source: Source::Validator,
                            scope: candidate.scope.clone(),
                            subject: candidate.trigger.clone(),
                            evidence: vec![place.fixed_by(edit, now)],
                        });
                        waiting.push(place);
                    }
                    None => evidence.push(place.fixed_by(edit, now)),
                }
            }
            candidate
                .extra
                .insert(EVIDENCE_FIELD.into(), json!(evidence));
            let why = why_of(candidate);
            candidate.lesson = promoted_text(&why, &candidate.trigger, &evidence);
        }
        Place::store(&mut candidate.extra, &waiting);
    }
    pool.candidates.retain(|candidate| {
        !Place::all_of(&candidate.extra).is_empty()
            || !Evidence::all_of(&candidate.extra).is_empty()
    });
    changed
}

/// Whether `content` writes `name` whole, the way the lesson would match it: not as part of a
/// longer name (the fix of `CONFIG_LOW_POWER` may be `CONFIG_LOW_POWER_MODE`).
fn writes_name(content: &str, name: &str) -> bool {
    content
        .match_indices(name)
        .any(|(at, _)| is_whole(content, at..at + name.len()))
}
