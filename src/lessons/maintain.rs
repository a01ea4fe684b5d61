//! Maintenance (the lesson system's rules): decay, removal, candidate expiry and merge.
//!
//! Rules:
//! - decay: a lesson not hit for 90 days (`last_hit`, else its `created` date) loses 1 weight, at
//!   most once per 90-day window (`last_decay_at`); a lesson with neither date never decays;
//! - removal: weight 0 → removed;
//! - candidate expiry: 30 days without a new hit (`last_hit`, else `created`);
//! - merge: same scope and ≥ 2 shared triggers → one lesson (the earlier one's id; union of
//!   triggers; max weight; summed hits; texts joined without duplication).
//!
//! Invariants: candidates are locked before lessons (the order `learning::from_validator` uses); a dry run reads
//! only. It never runs inside the edit hook (its cost grows with the library): `car lessons
//! maintain` runs it, and so does the end of a session, at most once a day (a marker file).

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::clock::{Clock, DAY};
use crate::files::HOOK_LOCK_WAIT;
use crate::lessons::LessonsError;
use crate::lessons::library;
use crate::lessons::model::{Entry, Examples, Lesson};
use crate::lessons::store::{self, CandidateFile, LessonFile};
use crate::lessons::trigger::Trigger;
use crate::project::Project;
use crate::state::names::LESSONS_MAINTAINED;

pub(crate) const DECAY_AFTER: i64 = 90 * DAY;
pub(crate) const CANDIDATE_EXPIRY: i64 = 30 * DAY;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Report {
    pub(crate) decayed: Vec<Decayed>,
    pub(crate) removed: Vec<Removed>,
    pub(crate) expired: Vec<Expired>,
    pub(crate) merged: Vec<Merged>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Decayed {
    pub(crate) id: String,
    pub(crate) from: u32,
    pub(crate) to: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Removed {
    pub(crate) id: String,
    pub(crate) lesson: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Expired {
    pub(crate) scope: String,
    pub(crate) trigger: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Merged {
    pub(crate) into: String,
    pub(crate) absorbed: Vec<String>,
    pub(crate) triggers: Vec<String>,
}

impl Report {
    pub(crate) fn is_empty(&self) -> bool {
        self.decayed.is_empty()
            && self.removed.is_empty()
            && self.expired.is_empty()
            && self.merged.is_empty()
    }

    /// One line for the hook: counts, and the first changes by name.
    pub(crate) fn summary(&self) -> String {
        let counts = [
            (self.decayed.len(), "decayed"),
            (self.removed.len(), "removed"),
            (self.expired.len(), "candidates expired"),
            (self.merged.len(), "merged"),
        ];
        let parts: Vec<String> = counts
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, what)| format!("{count} {what}"))
            .collect();
        let lines = self.lines();
        let mut text = format!(
            "{} ({}",
            parts.join(", "),
            lines[..lines.len().min(3)].join("; ")
        );
        if lines.len() > 3 {
            text.push_str("; … see `car lessons list`");
        }
        text.push(')');
        text
    }

    /// One line per change.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for d in &self.decayed {
            lines.push(format!("decayed {}: weight {} → {}", d.id, d.from, d.to));
        }
        for r in &self.removed {
            lines.push(format!("removed {} (weight 0): {}", r.id, r.lesson));
        }
        for e in &self.expired {
            lines.push(format!("expired candidate `{}` in {}", e.trigger, e.scope));
        }
        for m in &self.merged {
            lines.push(format!(
                "merged {} into {} (triggers: {})",
                m.absorbed.join(", "),
                m.into,
                m.triggers.join(", ")
            ));
        }
        lines
    }
}

/// Decay and removal on the lessons file (in memory).
pub(crate) fn decay_and_remove(file: &mut LessonFile, now: i64, report: &mut Report) {
    for lesson in file.lessons_mut() {
        let last_used = lesson
            .last_hit
            .or_else(|| lesson.created.as_deref().and_then(crate::clock::parse_date));
        let Some(last_used) = last_used else { continue };
        let window_open = lesson
            .last_decay_at
            .is_none_or(|decayed| now - decayed >= DECAY_AFTER);
        if now - last_used >= DECAY_AFTER && window_open && lesson.weight > 0 {
            report.decayed.push(Decayed {
                id: lesson.id.clone(),
                from: lesson.weight,
                to: lesson.weight - 1,
            });
            lesson.weight -= 1;
            lesson.last_decay_at = Some(now);
        }
    }
    file.entries.retain(|entry| match entry {
        Entry::Valid(lesson) if lesson.weight == 0 => {
            report.removed.push(Removed {
                id: lesson.id.clone(),
                lesson: lesson.text.clone(),
            });
            false
        }
        _ => true,
    });
}

/// Expires candidates not seen for 30 days.
pub(crate) fn expire_candidates(pool: &mut CandidateFile, now: i64, report: &mut Report) {
    pool.candidates.retain(|candidate| {
        let expired = candidate
            .last_seen()
            .is_some_and(|seen| now - seen >= CANDIDATE_EXPIRY);
        if expired {
            report.expired.push(Expired {
                scope: candidate.scope.clone(),
                trigger: candidate.trigger.clone(),
            });
        }
        !expired
    });
}

/// Merges lessons of the same scope sharing at least two triggers into the earliest of them.
/// After a merge the grown lesson may overlap lessons it did not before, so the scan goes on
/// right after it. Which earlier lessons share a trigger comes from a map of (scope, trigger) →
/// lessons, so a library without merges costs one pass, not a comparison of every pair.
pub(crate) fn merge(file: &mut LessonFile, report: &mut Report) {
    // Entries keep their order while merging, so a lesson's sequence number (its first position)
    // orders lessons exactly as their positions do.
    let mut sequence: Vec<u32> = (0..file.entries.len() as u32).collect();
    let mut owners = TriggerOwners::default();
    for (entry, seq) in file.entries.iter().zip(&sequence) {
        if let Entry::Valid(lesson) = entry {
            owners.add(lesson, *seq);
        }
    }
    let mut index = 0;
    while index < file.entries.len() {
        let target = match &file.entries[index] {
            Entry::Valid(lesson) => owners
                .earliest_overlap(lesson, sequence[index])
                .and_then(|seq| sequence.binary_search(&seq).ok()),
            Entry::Invalid { .. } => None,
        };
        let Some(target) = target else {
            index += 1;
            continue;
        };
        let absorbed_seq = sequence.remove(index);
        let Entry::Valid(absorbed) = file.entries.remove(index) else {
            continue;
        };
        owners.remove(&absorbed, absorbed_seq);
        if let Entry::Valid(kept) = &mut file.entries[target] {
            owners.remove(kept, sequence[target]);
            absorb(kept, &absorbed);
            owners.add(kept, sequence[target]);
            record_merge(report, kept, &absorbed.id);
        }
        index = target + 1;
    }
}

/// (scope, trigger) → the sequence numbers of the lessons with that trigger, once per time the
/// trigger appears in the lesson.
#[derive(Default)]
struct TriggerOwners {
    map: HashMap<String, Vec<u32>>,
}

impl TriggerOwners {
    fn key(lesson: &Lesson, trigger: &Trigger) -> String {
        format!("{}\0{}", lesson.scope.as_str(), trigger.as_str())
    }

    fn add(&mut self, lesson: &Lesson, seq: u32) {
        for trigger in &lesson.triggers {
            self.map
                .entry(TriggerOwners::key(lesson, trigger))
                .or_default()
                .push(seq);
        }
    }

    fn remove(&mut self, lesson: &Lesson, seq: u32) {
        for trigger in &lesson.triggers {
            if let Some(owners) = self.map.get_mut(&TriggerOwners::key(lesson, trigger)) {
                owners.retain(|owner| *owner != seq);
            }
        }
    }

    /// The earliest lesson before `seq` with the same scope sharing at least two triggers: the
    /// earlier lesson's triggers (as often as it lists them) found among this lesson's.
    fn earliest_overlap(&self, lesson: &Lesson, seq: u32) -> Option<u32> {
        let mut distinct: Vec<&str> = lesson.triggers.iter().map(Trigger::as_str).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut shared: HashMap<u32, usize> = HashMap::new();
        for trigger in distinct {
            let key = format!("{}\0{trigger}", lesson.scope.as_str());
            for owner in self.map.get(&key).into_iter().flatten() {
                if *owner < seq {
                    *shared.entry(*owner).or_default() += 1;
                }
            }
        }
        shared
            .into_iter()
            .filter(|(_, count)| *count >= 2)
            .map(|(owner, _)| owner)
            .min()
    }
}

fn absorb(kept: &mut Lesson, other: &Lesson) {
    for trigger in &other.triggers {
        if !kept.triggers.iter().any(|t| t.as_str() == trigger.as_str()) {
            kept.triggers.push(trigger.clone());
        }
    }
    kept.weight = kept.weight.max(other.weight);
    kept.hits += other.hits;
    kept.heeded += other.heeded;
    kept.ignored += other.ignored;
    kept.has_stored_hits |= other.has_stored_hits;
    kept.last_hit = kept.last_hit.max(other.last_hit);
    kept.last_decay_at = match (kept.last_decay_at, other.last_decay_at) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => None,
    };
    kept.text = join_texts(&kept.text, &other.text);
    kept.examples = join_examples(kept.examples.take(), other.examples.clone());
    // Either lesson's silencing context silences the merged one (rather miss than false-alarm).
    for trigger in &other.unless {
        if !kept.unless.iter().any(|t| t.as_str() == trigger.as_str()) {
            kept.unless.push(trigger.clone());
        }
    }
    for (key, value) in &other.extra {
        kept.extra
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
}

fn record_merge(report: &mut Report, kept: &Lesson, absorbed: &str) {
    match report.merged.iter_mut().find(|m| m.into == kept.id) {
        Some(existing) => {
            existing.absorbed.push(absorbed.to_string());
            existing.triggers = kept.trigger_texts();
        }
        None => report.merged.push(Merged {
            into: kept.id.clone(),
            absorbed: vec![absorbed.to_string()],
            triggers: kept.trigger_texts(),
        }),
    }
}

/// Joins two lesson texts; a text already contained in the other is not repeated.
pub(crate) fn join_texts(a: &str, b: &str) -> String {
    let (a, b) = (a.trim(), b.trim());
    if b.is_empty() || a.contains(b) {
        return a.to_string();
    }
    if a.is_empty() || b.contains(a) {
        return b.to_string();
    }
    if a.ends_with(['.', '!', '?', '。']) {
        format!("{a} {b}")
    } else {
        format!("{a}; {b}")
    }
}

fn join_examples(a: Option<Examples>, b: Option<Examples>) -> Option<Examples> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            for text in b.should_match {
                if !a.should_match.contains(&text) {
                    a.should_match.push(text);
                }
            }
            for text in b.should_not_match {
                if !a.should_not_match.contains(&text) {
                    a.should_not_match.push(text);
                }
            }
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// Runs every rule on the project's files; writes only when not `dry_run` and something changed.
/// The pending hits are part of what it sees (a hit resets a lesson's clock), and a real run folds
/// them into the file even when no rule changed anything.
pub(crate) fn run(project: &Project, clock: Clock, dry_run: bool) -> Result<Report, LessonsError> {
    let now = clock.now();
    let lessons_path = project.lessons_file();
    let candidates_path = project.candidates_file();
    let mut report = Report::default();
    if dry_run {
        let mut pool = CandidateFile::load(&candidates_path)?;
        let mut file = library::load_live(&lessons_path)?;
        expire_candidates(&mut pool, now, &mut report);
        decay_and_remove(&mut file, now, &mut report);
        merge(&mut file, &mut report);
        return Ok(report);
    }
    store::with_candidates(&candidates_path, HOOK_LOCK_WAIT, |pool| {
        expire_candidates(pool, now, &mut report);
        let pool_changed = !report.expired.is_empty();
        if lessons_path.exists() {
            maintain_lessons(&lessons_path, now, &mut report)?;
        }
        Ok(((), pool_changed))
    })?;
    // Best effort: what was let go of stays visible in `car report`.
    if !report.is_empty() {
        let run = LoggedRun {
            at: now,
            report: report.clone(),
        };
        let _ = super::maintenance_log::append(project, &run);
    }
    Ok(report)
}

/// One line of the maintenance log ([`super::maintenance_log`]): when a run changed something,
/// and what.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LoggedRun {
    pub(crate) at: i64,
    #[serde(flatten)]
    pub(crate) report: Report,
}

/// The runs the maintenance log holds, oldest first.
pub(crate) fn logged_runs(project: &Project) -> Result<Vec<LoggedRun>, LessonsError> {
    Ok(super::maintenance_log::read(project)?)
}

/// Decay, removal and merge on the lessons file, and the fold of its hit log. Most runs change
/// nothing but the pending hits: the rules are tried on a read first, and then only the hits are
/// folded (in place); the general rewrite runs when a rule changes something.
fn maintain_lessons(path: &Path, now: i64, report: &mut Report) -> Result<(), LessonsError> {
    let mut preview = Report::default();
    let mut live = library::load_live(path)?;
    decay_and_remove(&mut live, now, &mut preview);
    merge(&mut live, &mut preview);
    if !changes_lessons(&preview) {
        library::fold(path, HOOK_LOCK_WAIT)?;
        return Ok(());
    }
    library::with_lessons(path, HOOK_LOCK_WAIT, |file| {
        decay_and_remove(file, now, report);
        merge(file, report);
        Ok(((), changes_lessons(report) || file.pending_hits > 0))
    })
}

fn changes_lessons(report: &Report) -> bool {
    !(report.decayed.is_empty() && report.removed.is_empty() && report.merged.is_empty())
}

/// The automatic maintenance at the end of a session: at most once a day (remembered in
/// [`LESSONS_MAINTAINED`]), only when there is something to keep. `None` when it was not due.
pub(crate) fn run_if_due(project: &Project, clock: Clock) -> Result<Option<Report>, LessonsError> {
    if !project.lessons_file().exists() && !project.candidates_file().exists() {
        return Ok(None);
    }
    let marker = project.state_dir().join(LESSONS_MAINTAINED);
    let now = clock.now();
    let last = crate::files::read_optional(&marker)
        .ok()
        .flatten()
        .and_then(|text| text.trim().parse::<i64>().ok());
    if last.is_some_and(|last| last <= now && now - last < DAY) {
        return Ok(None);
    }
    // Marked first: a run cut short (the hook's time budget) or failing is not retried by every
    // session end of the day.
    let _ = crate::files::write_atomic(&marker, now.to_string().as_bytes());
    run(project, clock, false).map(Some)
}

#[cfg(test)]
mod tests;
