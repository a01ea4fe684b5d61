//! `car lessons review [--json]`, `car lessons accept ID [--lesson TEXT] [--scope GLOB]` and
//! `car lessons reject ID [--reason TEXT]`: a person decides what car learned while the setting
//! `learning` is `approve` or `observe` ([`crate::lessons::proposals`]).
//!
//! `review` walks the proposals one by one — trigger, scope, text, every example with where it
//! was seen (file and line, session, review round or pull-request link), and the places of the
//! code it matches now — and reads one answer per line: accept, edit, reject, skip, quit. Plain
//! lines on stdout and stdin, so it works over ssh, in tmux and piped (`printf 'a\n' | car
//! lessons review`); the end of input quits, deciding nothing more.
//!
//! Invariants: nothing changes but by a person's answer; an accepted lesson (edited or not) must
//! pass its own examples; a rejected one is remembered and never proposed again.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::learning::verification::{ProjectCode, ProjectMatch};
use crate::lessons::model::Lesson;
use crate::lessons::provenance::{Evidence, Source};
use crate::lessons::{LessonScope, LessonsError, proposals};
use crate::output;
use crate::project::Project;
use crate::scope::Scope;
use crate::settings::Settings;

/// Places of the code shown per proposal (all are counted).
const PLACES_SHOWN: usize = 5;

/// A person's rewording of a proposal before accepting it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rewording {
    pub(crate) lesson: Option<String>,
    pub(crate) scope: Option<String>,
}

pub(crate) fn review(project: &Project, clock: Clock, as_json: bool) -> Result<Outcome, Error> {
    let waiting = proposals::waiting(project)?;
    let mut code = ProjectCode::new(project);
    if as_json {
        let items: Vec<Value> = waiting
            .iter()
            .map(|lesson| as_json_value(lesson, &places(&mut code, lesson)))
            .collect();
        output::print_json(&json!({"proposed": items}));
        return Ok(Outcome::Success);
    }
    if waiting.is_empty() {
        output::print_message(&nothing_waiting(project)?);
        return Ok(Outcome::Success);
    }
    let stdin = std::io::stdin();
    let mut answers = stdin.lock().lines();
    let total = waiting.len();
    let mut decided = Tally::default();
    for (index, proposal) in waiting.into_iter().enumerate() {
        let found = places(&mut code, &proposal);
        let mut shown = proposal.clone();
        let verdict = loop {
            say(&format!(
                "\nProposed lesson {} of {total}\n{}",
                index + 1,
                card(&shown, &found)
            ));
            match ask(
                &mut answers,
                "[a]ccept  [e]dit  [r]eject  [s]kip  [q]uit > ",
            ) {
                None | Some(Answer::Quit) => break Answer::Quit,
                Some(Answer::Edit) => {
                    let rewording = Rewording {
                        lesson: ask_text(&mut answers, "lesson text (empty keeps it): "),
                        scope: ask_text(&mut answers, "scope (empty keeps it): "),
                    };
                    match reworded(&shown, &rewording) {
                        Ok(lesson) => shown = lesson,
                        Err(error) => say(&format!("not changed: {error}")),
                    }
                }
                Some(Answer::Other(text)) => say(&format!(
                    "{text:?} is not an answer: type a, e, r, s or q and press Enter"
                )),
                Some(answer) => break answer,
            }
        };
        match verdict {
            Answer::Accept => {
                let edited = shown.clone();
                match accept_lesson(project, clock, &proposal.id, edited) {
                    Ok(lesson) => {
                        decided.accepted += 1;
                        say(&format!("accepted: lesson {} now warns", lesson.id));
                    }
                    Err(error) => say(&format!("not accepted: {error}")),
                }
            }
            Answer::Reject => {
                let reason = ask_text(&mut answers, "why (optional, Enter to skip): ");
                proposals::reject(project, &proposal.id, clock.now(), reason.as_deref())?;
                decided.rejected += 1;
                say("rejected: car will not propose it again");
            }
            Answer::Skip => decided.skipped += 1,
            _ => break,
        }
    }
    output::print_message(&decided.summary(proposals::waiting(project)?.len()));
    Ok(Outcome::Success)
}

pub(crate) fn accept(
    project: &Project,
    clock: Clock,
    id: &str,
    rewording: &Rewording,
) -> Result<Outcome, Error> {
    let waiting = proposals::waiting(project)?;
    let proposal = named(project, &waiting, id)?;
    let edited = reworded(proposal, rewording).map_err(Error::Usage)?;
    let lesson = accept_lesson(project, clock, &proposal.id, edited)?;
    output::print_data(&crate::commands::lesson_lookup::describe(
        &lesson, "project",
    ));
    output::print_message(&format!(
        "accepted: lesson {} now warns (`car lessons edit {}` rewords it)",
        lesson.id, lesson.id
    ));
    Ok(Outcome::Success)
}

pub(crate) fn reject(
    project: &Project,
    clock: Clock,
    id: &str,
    reason: Option<&str>,
) -> Result<Outcome, Error> {
    let waiting = proposals::waiting(project)?;
    let proposal = named(project, &waiting, id)?;
    let rejected = proposals::reject(project, &proposal.id, clock.now(), reason)?;
    output::print_message(&format!(
        "rejected proposed lesson {} (`{}` in {}): car will not propose it again",
        rejected.id,
        rejected.trigger_texts().join(" | "),
        rejected.scope.as_str()
    ));
    Ok(Outcome::Success)
}

/// The proposal `id` names (its id, or a prefix of at least 4 characters naming one).
fn named<'a>(project: &Project, waiting: &'a [Lesson], id: &str) -> Result<&'a Lesson, Error> {
    let id = id.trim();
    if let Some(exact) = waiting.iter().find(|lesson| lesson.id == id) {
        return Ok(exact);
    }
    let matching: Vec<&Lesson> = waiting
        .iter()
        .filter(|lesson| id.chars().count() >= 4 && lesson.id.starts_with(id))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::Usage(format!(
            "no proposed lesson has the id {id:?} ({} wait{}; `car lessons review --json` lists them)",
            waiting.len(),
            if waiting.len() == 1 { "s" } else { "" }
        ))),
        _ => Err(Error::Usage(format!(
            "{} proposed lessons in {} have ids starting with {id:?}; give more of the id",
            matching.len(),
            proposals::proposals_file(project).display()
        ))),
    }
}

/// `lesson` with the person's new text and scope, checked: a text that says something, a scope
/// that parses, and its own examples still hold.
fn reworded(lesson: &Lesson, rewording: &Rewording) -> Result<Lesson, String> {
    let mut edited = lesson.clone();
    if let Some(text) = &rewording.lesson {
        if text.trim().is_empty() {
            return Err("the lesson text must say what to remember".into());
        }
        edited.text = text.trim().to_string();
    }
    if let Some(glob) = &rewording.scope {
        edited.scope =
            Scope::parse(glob).map_err(|message| format!("scope {glob:?}: {message}"))?;
    }
    crate::lessons::examples::check_examples(&edited).map_err(|failure| failure.to_string())?;
    Ok(edited)
}

/// Moves proposal `id` into the lessons as `edited`.
fn accept_lesson(
    project: &Project,
    clock: Clock,
    id: &str,
    edited: Lesson,
) -> Result<Lesson, LessonsError> {
    let settings = Settings::load(project).unwrap_or_default();
    let scope = LessonScope::learning(project, &settings, clock);
    proposals::accept(&scope, id, |lesson| {
        lesson.text = edited.text;
        lesson.scope = edited.scope;
    })
}

/// The places of the project's code the proposal fires on now; an unreadable project shows none.
fn places(code: &mut ProjectCode<'_>, lesson: &Lesson) -> Vec<ProjectMatch> {
    code.matches(lesson).unwrap_or_default()
}

/// One proposal as a person reads it.
fn card(lesson: &Lesson, found: &[ProjectMatch]) -> String {
    let source = Source::of(&lesson.extra);
    let mut text = format!(
        "  id        {}\n  source    {}\n  scope     {}\n  trigger   {}\n  lesson    {}",
        lesson.id,
        source.map_or("?", Source::as_str),
        lesson.scope.as_str(),
        lesson.trigger_texts().join(" | "),
        lesson.text
    );
    let evidence = Evidence::all_of(&lesson.extra);
    if !evidence.is_empty() {
        text.push_str("\n  seen");
    }
    for item in &evidence {
        let place = source.map_or_else(
            || format!("{}:{}", item.file, item.line),
            |source| item.describe(source),
        );
        text.push_str(&format!(
            "\n    {place}\n      written  {}",
            item.bad.trim()
        ));
        if item.fixed.trim().is_empty() {
            text.push_str("\n      fixed    (the line was removed)");
        } else {
            text.push_str(&format!("\n      fixed    {}", item.fixed.trim()));
        }
    }
    if found.is_empty() {
        text.push_str("\n  matches   nothing in the project's code now");
    } else {
        text.push_str(&format!(
            "\n  matches   {} in the project's code now:",
            crate::text::plural(found.len(), "place")
        ));
        for place in found.iter().take(PLACES_SHOWN) {
            text.push_str(&format!(
                "\n    {}:{}: {}",
                place.file,
                place.line,
                crate::text::shorten(place.text.trim(), 100)
            ));
        }
        if found.len() > PLACES_SHOWN {
            text.push_str("\n    …");
        }
    }
    text
}

fn as_json_value(lesson: &Lesson, found: &[ProjectMatch]) -> Value {
    let source = Source::of(&lesson.extra);
    let evidence: Vec<Value> = Evidence::all_of(&lesson.extra)
        .iter()
        .map(|item| {
            json!({
                "seen": source.map(|source| item.describe(source)),
                "file": item.file, "line": item.line, "session": item.session,
                "review": item.review, "finding": item.finding, "url": item.url,
                "bad": item.bad, "fixed": item.fixed, "at": item.at,
            })
        })
        .collect();
    let examples = lesson.examples.clone().unwrap_or_default();
    json!({
        "id": lesson.id,
        "source": source.map(Source::as_str),
        "scope": lesson.scope.as_str(),
        "triggers": lesson.trigger_texts(),
        "lesson": lesson.text,
        "weight": lesson.weight,
        "proposed_at": lesson.extra.get(proposals::PROPOSED_AT),
        "examples": {"match": examples.should_match, "no_match": examples.should_not_match},
        "evidence": evidence,
        "matches_now": found.iter().map(|place| json!({
            "file": place.file, "line": place.line, "text": place.text,
        })).collect::<Vec<_>>(),
    })
}

/// What to say when nothing waits: and why nothing would, when the setting is `auto`.
fn nothing_waiting(project: &Project) -> Result<String, Error> {
    let settings = Settings::load(project)?;
    Ok(if settings.learning.waits_for_a_person() {
        "no proposed lessons wait for a person".to_string()
    } else {
        "no proposed lessons wait for a person (the setting \"learning\" is \"auto\": learned lessons join the lessons at once; \"approve\" makes them wait here)".to_string()
    })
}

/// A person's answer to one proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Accept,
    Edit,
    Reject,
    Skip,
    Quit,
    Other(String),
}

fn ask(
    answers: &mut impl Iterator<Item = std::io::Result<String>>,
    prompt: &str,
) -> Option<Answer> {
    prompt_for(prompt);
    let line = answers.next()?.ok()?;
    Some(match line.trim().to_lowercase().as_str() {
        "a" | "accept" => Answer::Accept,
        "e" | "edit" => Answer::Edit,
        "r" | "reject" => Answer::Reject,
        "s" | "skip" | "" => Answer::Skip,
        "q" | "quit" => Answer::Quit,
        other => Answer::Other(other.to_string()),
    })
}

/// A line of text, `None` when it is empty or input ended.
fn ask_text(
    answers: &mut impl Iterator<Item = std::io::Result<String>>,
    prompt: &str,
) -> Option<String> {
    prompt_for(prompt);
    let line = answers.next()?.ok()?;
    let line = line.trim();
    (!line.is_empty()).then(|| line.to_string())
}

fn prompt_for(prompt: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{prompt}");
    let _ = stdout.flush();
}

fn say(text: &str) {
    output::print_data(&format!("{text}\n"));
}

#[derive(Debug, Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
    skipped: usize,
}

impl Tally {
    fn summary(&self, still_waiting: usize) -> String {
        format!(
            "{} accepted, {} rejected, {} skipped; {} still wait{}",
            self.accepted,
            self.rejected,
            self.skipped,
            still_waiting,
            if still_waiting == 1 { "s" } else { "" }
        )
    }
}
