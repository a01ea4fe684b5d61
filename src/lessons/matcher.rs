//! The compiled lesson index: which lessons fire on what an edit added.
//!
//! One Aho-Corasick automaton holds every literal trigger and every regex trigger's keywords
//! (see `keyword`); one pass over the added text finds all of them at once, so the cost grows with
//! the text, not with the number of lessons. A regex is compiled and run only when one of its
//! keywords occurred (or when it has none), and only for lessons whose scope covers the file.
//!
//! Semantics (shared with [`naive_hits`], which the property test compares against): the added
//! lines are joined with `\n`; a lesson fires when any trigger matches; the reported trigger is
//! the first one in the lesson's order that matches, and the line is the added line where that
//! trigger's first match starts. A regex that gives up (backtrack limit) counts as no match and is
//! reported; once the time budget is spent no further regex runs, and that is reported too.
//!
//! The budget holds inside a match as well: the regexes run on a worker thread and the caller
//! waits for them only until the budget is spent. A pattern still running then is left to finish
//! on its own (the hook process ends right after answering) and the rest are reported as not
//! tried — no single regex can hold an edit beyond the budget.

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::edit::AddedLine;
use crate::lessons::keyword::required_literals;
use crate::lessons::model::Lesson;
use crate::lessons::trigger::{Haystack, Trigger};
use crate::scope::{Scope, ScopeSet};

/// Default time a hook spends running regexes on one edit.
pub const EDIT_BUDGET: Duration = Duration::from_millis(150);

/// One lesson that fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Position of the lesson in the slice the index was built from.
    pub(crate) lesson: usize,
    /// Position of the trigger in the lesson.
    pub(crate) trigger: usize,
    /// 1-based line of the added line where the match starts (0 when unknown).
    pub(crate) line: usize,
}

/// What matching one edit produced.
#[derive(Debug, Clone, Default)]
pub struct MatchOutcome {
    /// Sorted by lesson position.
    pub hits: Vec<Hit>,
    /// Regexes that gave up, did not compile, or were skipped for time.
    pub(crate) problems: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
enum Owner {
    Literal { lesson: u32, trigger: u32 },
    Keyword { regex: u32 },
}

/// The index over a set of lessons.
pub struct LessonIndex<'a> {
    lessons: Vec<&'a Lesson>,
    scopes: ScopeSet,
    /// Scope id of each lesson.
    lesson_scope: Vec<usize>,
    automaton: Option<AhoCorasick>,
    /// What each automaton pattern stands for.
    owners: Vec<Vec<Owner>>,
    /// `(lesson, trigger)` of each regex trigger.
    regexes: Vec<(u32, u32)>,
    /// Regexes without keywords: always run (when in scope).
    unkeyed: Vec<u32>,
}

impl<'a> LessonIndex<'a> {
    pub fn new(lessons: &[&'a Lesson]) -> LessonIndex<'a> {
        let (scopes, lesson_scope) = scope_ids(lessons);
        let mut builder = Builder::default();
        for (lesson_index, lesson) in lessons.iter().enumerate() {
            for (trigger_index, trigger) in lesson.triggers.iter().enumerate() {
                builder.add(lesson_index as u32, trigger_index as u32, trigger);
            }
        }
        let automaton = (!builder.patterns.is_empty())
            .then(|| {
                // Patterns and text are ASCII-lowercased instead of asking the automaton to
                // ignore case, which makes building it about 7× slower (benches/matching.rs).
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                    .build(&builder.patterns)
                    .ok()
            })
            .flatten();
        LessonIndex {
            lessons: lessons.to_vec(),
            scopes,
            lesson_scope,
            automaton,
            owners: builder.owners,
            regexes: builder.regexes,
            unkeyed: builder.unkeyed,
        }
    }

    /// The lessons that fire on the added lines of the file at `relative_path`.
    pub fn find(&self, relative_path: &str, added: &[AddedLine], budget: Duration) -> MatchOutcome {
        let started = Instant::now();
        let covered = self.scopes.matching(relative_path);
        let text = AddedText::new(added);
        let mut best: HashMap<u32, (u32, usize)> = HashMap::new();
        let mut due = self.scan(&text, &covered, &mut best);
        due.sort_unstable();
        due.dedup();
        let mut outcome = MatchOutcome::default();
        self.run_regexes(&due, &text, &mut best, &mut outcome, (started, budget));
        outcome.hits = best
            .into_iter()
            .map(|(lesson, (trigger, offset))| Hit {
                lesson: lesson as usize,
                trigger: trigger as usize,
                line: text.line_at(offset),
            })
            .collect();
        outcome.hits.sort_by_key(|hit| hit.lesson);
        outcome
    }

    /// One automaton pass: records literal hits in `best` and returns the regexes now due (their
    /// keyword occurred, or they have none), all restricted to lessons in scope.
    fn scan(
        &self,
        text: &AddedText,
        covered: &[bool],
        best: &mut HashMap<u32, (u32, usize)>,
    ) -> Vec<u32> {
        let in_scope = |lesson: u32| covered[self.lesson_scope[lesson as usize]];
        let mut due: Vec<u32> = self
            .unkeyed
            .iter()
            .copied()
            .filter(|regex| in_scope(self.regexes[*regex as usize].0))
            .collect();
        let Some(automaton) = &self.automaton else {
            return due;
        };
        let lowered = text.joined.to_ascii_lowercase();
        for found in automaton.find_overlapping_iter(lowered.as_str()) {
            for owner in &self.owners[found.pattern().as_usize()] {
                match *owner {
                    Owner::Literal { lesson, trigger } if in_scope(lesson) => {
                        // The automaton ignores ASCII case; a literal trigger does not.
                        let exact = &self.lessons[lesson as usize].triggers[trigger as usize];
                        if text.joined.as_bytes().get(found.start()..found.end())
                            == Some(exact.as_str().as_bytes())
                        {
                            improve(best, lesson, trigger, found.start());
                        }
                    }
                    Owner::Keyword { regex } if in_scope(self.regexes[regex as usize].0) => {
                        due.push(regex)
                    }
                    _ => {}
                }
            }
        }
        due
    }

    /// Runs the due regexes on a worker thread (see the module docs), in order, until the budget
    /// is spent.
    fn run_regexes(
        &self,
        due: &[u32],
        text: &AddedText,
        best: &mut HashMap<u32, (u32, usize)>,
        outcome: &mut MatchOutcome,
        (started, budget): (Instant, Duration),
    ) {
        let jobs: Vec<RegexJob> = due
            .iter()
            .map(|regex| {
                let (lesson, trigger) = self.regexes[*regex as usize];
                let compiled = self.lessons[lesson as usize].triggers[trigger as usize].clone();
                (lesson, trigger, compiled)
            })
            .collect();
        if jobs.is_empty() {
            return;
        }
        if started.elapsed() >= budget {
            outcome.problems.push(format!(
                "lesson matching stopped after {} ms; {} regex triggers were not tried",
                started.elapsed().as_millis(),
                jobs.len()
            ));
            return;
        }
        let total = jobs.len();
        let found_before: HashMap<u32, u32> = best
            .iter()
            .map(|(lesson, (trigger, _))| (*lesson, *trigger))
            .collect();
        let results = spawn_regexes(jobs, Haystack::new(&text.joined), found_before);
        let mut received = 0;
        while received < total {
            let left = budget.saturating_sub(started.elapsed());
            let next = if left.is_zero() {
                None
            } else {
                results.recv_timeout(left).ok()
            };
            let Some((lesson, trigger, result)) = next else {
                outcome.problems.push(format!(
                    "lesson matching stopped after {} ms; {} regex triggers were not tried",
                    started.elapsed().as_millis(),
                    total - received
                ));
                return;
            };
            received += 1;
            match result {
                Ok(Some(offset)) => improve(best, lesson, trigger, offset),
                Ok(None) => {}
                Err(error) => outcome.problems.push(format!(
                    "lesson {}: {error}",
                    self.lessons[lesson as usize].id
                )),
            }
        }
    }
}

/// One regex to run: `(lesson, trigger, the trigger)`.
type RegexJob = (u32, u32, Trigger);

/// What one regex found: `(lesson, trigger, first match offset)`.
type RegexResult = (
    u32,
    u32,
    Result<Option<usize>, crate::lessons::trigger::TriggerError>,
);

/// Runs `jobs` in order on a worker thread, sending each result as it comes; a regex of a lesson
/// that already fired with an earlier trigger is skipped (it could not change the hit). A thread
/// that cannot start sends nothing: its regexes are reported as not tried.
fn spawn_regexes(
    jobs: Vec<RegexJob>,
    haystack: Haystack,
    mut found: HashMap<u32, u32>,
) -> mpsc::Receiver<RegexResult> {
    let (sender, receiver) = mpsc::channel();
    let work = move || {
        for (lesson, trigger, compiled) in jobs {
            let result = if found.get(&lesson).is_some_and(|earlier| *earlier < trigger) {
                Ok(None)
            } else {
                compiled.find_in(&haystack)
            };
            if matches!(result, Ok(Some(_))) {
                let earliest = found.entry(lesson).or_insert(trigger);
                *earliest = (*earliest).min(trigger);
            }
            if sender.send((lesson, trigger, result)).is_err() {
                return;
            }
        }
    };
    let _ = std::thread::Builder::new()
        .name("car-regex".into())
        .spawn(work);
    receiver
}

/// Keeps the earliest trigger of a lesson (and for the same trigger the earliest offset).
fn improve(best: &mut HashMap<u32, (u32, usize)>, lesson: u32, trigger: u32, offset: usize) {
    let entry = best.entry(lesson).or_insert((trigger, offset));
    if (trigger, offset) < *entry {
        *entry = (trigger, offset);
    }
}

#[derive(Default)]
struct Builder {
    patterns: Vec<String>,
    pattern_ids: HashMap<String, usize>,
    owners: Vec<Vec<Owner>>,
    regexes: Vec<(u32, u32)>,
    unkeyed: Vec<u32>,
}

impl Builder {
    fn add(&mut self, lesson: u32, trigger_index: u32, trigger: &Trigger) {
        match trigger {
            Trigger::Literal(literal) => {
                self.pattern(
                    literal,
                    Owner::Literal {
                        lesson,
                        trigger: trigger_index,
                    },
                );
            }
            Trigger::Pattern { .. } => {
                let regex = self.regexes.len() as u32;
                self.regexes.push((lesson, trigger_index));
                match trigger.pattern().and_then(required_literals) {
                    Some(keywords) => {
                        for keyword in keywords {
                            self.pattern(&keyword, Owner::Keyword { regex });
                        }
                    }
                    None => self.unkeyed.push(regex),
                }
            }
        }
    }

    fn pattern(&mut self, text: &str, owner: Owner) {
        let text = &text.to_ascii_lowercase();
        let id = match self.pattern_ids.get(text) {
            Some(id) => *id,
            None => {
                let id = self.patterns.len();
                self.patterns.push(text.to_string());
                self.pattern_ids.insert(text.to_string(), id);
                self.owners.push(Vec::new());
                id
            }
        };
        self.owners[id].push(owner);
    }
}

/// Distinct scopes compiled once, and each lesson's scope id.
fn scope_ids(lessons: &[&Lesson]) -> (ScopeSet, Vec<usize>) {
    let mut distinct: Vec<&Scope> = Vec::new();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut lesson_scope = Vec::with_capacity(lessons.len());
    for lesson in lessons {
        let id = *ids.entry(lesson.scope.as_str()).or_insert_with(|| {
            distinct.push(&lesson.scope);
            distinct.len() - 1
        });
        lesson_scope.push(id);
    }
    (ScopeSet::new(&distinct), lesson_scope)
}

/// The added lines joined with `\n`, and where each starts.
struct AddedText {
    joined: String,
    starts: Vec<usize>,
    lines: Vec<usize>,
}

impl AddedText {
    fn new(added: &[AddedLine]) -> AddedText {
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(added.len());
        for (index, line) in added.iter().enumerate() {
            if index > 0 {
                joined.push('\n');
            }
            starts.push(joined.len());
            joined.push_str(&line.text);
        }
        AddedText {
            joined,
            starts,
            lines: added.iter().map(|line| line.line).collect(),
        }
    }

    /// The file line of the added line holding byte `offset`.
    fn line_at(&self, offset: usize) -> usize {
        let index = self.starts.partition_point(|start| *start <= offset);
        index
            .checked_sub(1)
            .and_then(|index| self.lines.get(index).copied())
            .unwrap_or(0)
    }
}

/// The reference semantics: every trigger of every in-scope lesson tried on its own.
#[cfg(test)]
pub(crate) fn naive_hits(
    lessons: &[&Lesson],
    relative_path: &str,
    added: &[AddedLine],
) -> Vec<Hit> {
    let text = AddedText::new(added);
    let mut hits = Vec::new();
    for (lesson_index, lesson) in lessons.iter().enumerate() {
        if !lesson.scope.matches(relative_path) {
            continue;
        }
        let first = lesson
            .triggers
            .iter()
            .enumerate()
            .find_map(|(index, trigger)| match trigger.find(&text.joined) {
                Ok(Some(offset)) => Some((index, offset)),
                _ => None,
            });
        if let Some((trigger, offset)) = first {
            hits.push(Hit {
                lesson: lesson_index,
                trigger,
                line: text.line_at(offset),
            });
        }
    }
    hits
}

#[cfg(test)]
mod tests;
