//! `car lessons …` commands (except `test`, which belongs to replay).
//!
//! Data goes to stdout (tables, JSON, the exported file); messages to stderr. A lessons file car
//! cannot read is an error naming the file and line (exit 2) and is left untouched.

use std::path::Path;

use serde_json::{Value, json};

use crate::cli::{LessonAddArgs, LessonsCommand};
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::files::HOOK_LOCK_WAIT;
use crate::learning::refusal::log as refusal_log;
use crate::lessons::branch_merge::CONFLICT_FIELD;
use crate::lessons::counters::retired;
use crate::lessons::library;
use crate::lessons::model::{Entry, Examples, Lesson, MAX_WEIGHT, RawLesson, lesson_id};
use crate::lessons::provenance::KNOWN_INSTANCES_FIELD;
use crate::lessons::store::{self, LessonFile};
use crate::lessons::trigger::Trigger;
use crate::lessons::{LessonsError, maintain, provenance};
use crate::output;
use crate::project::Project;
use crate::scope::Scope;
use crate::text::plural;

use crate::commands::lesson_lookup::{describe, not_found, resolve};

pub(crate) fn run(project: &Project, command: LessonsCommand) -> Result<Outcome, Error> {
    let clock = Clock::from_env()?;
    match command {
        LessonsCommand::List { json } => list(project, json),
        LessonsCommand::Show { id, json } => show(project, &id, json),
        LessonsCommand::Add(args) => add(project, clock, &args),
        LessonsCommand::Rm { id } => crate::commands::lessons_edit::remove(project, &id),
        LessonsCommand::Edit {
            id,
            lesson,
            scope,
            weight,
        } => crate::commands::lessons_edit::edit(
            project,
            &id,
            crate::commands::lessons_edit::Change {
                lesson,
                scope,
                weight,
            },
        ),
        LessonsCommand::Restore { id } => restore(project, &id),
        LessonsCommand::Import { path } => import(project, &path),
        LessonsCommand::Export => export(project),
        LessonsCommand::Candidates { json, refused } => {
            crate::commands::lessons_candidates::run(project, json, refused)
        }
        LessonsCommand::Maintain { dry_run } => run_maintain(project, clock, dry_run),
        LessonsCommand::LearnFromReviews {
            files,
            json,
            with_model,
        } => crate::commands::lessons_learn_reviews::run(project, clock, &files, json, with_model),
        LessonsCommand::Review { json } => {
            crate::commands::lessons_review::review(project, clock, json)
        }
        LessonsCommand::Accept { id, lesson, scope } => crate::commands::lessons_review::accept(
            project,
            clock,
            &id,
            &crate::commands::lessons_review::Rewording { lesson, scope },
        ),
        LessonsCommand::Reject { id, reason } => {
            crate::commands::lessons_review::reject(project, clock, &id, reason.as_deref())
        }
        LessonsCommand::Distill { dry_run, json } => {
            crate::commands::lessons_distill::run(project, dry_run, json)
        }
        LessonsCommand::Test { .. }
        | LessonsCommand::Merge { .. }
        | LessonsCommand::Diff { .. } => Err(Error::Usage(
            "`car lessons test`, `merge` and `diff` have their own command files".into(),
        )),
    }
}

/// Project lessons, then user-wide lessons the project does not override; `(lesson, origin)`.
/// The project's file is read live (the counters of hits not yet folded into it included).
fn layered(project: &Project) -> Result<(LessonFile, Option<LessonFile>), Error> {
    let file = library::load_live(&project.lessons_file())?;
    for problem in file.problems() {
        output::print_message(&format!("warning: {problem}"));
    }
    for lesson in file.lessons() {
        if lesson.extra.contains_key(CONFLICT_FIELD) {
            output::print_message(&format!(
                "warning: lesson {} holds an unsettled merge conflict (its \"{CONFLICT_FIELD}\" \
                 field has both branches' versions): choose one, delete the field, `git add` \
                 the file",
                lesson.id
            ));
        }
    }
    let user = match store::user_lessons_path() {
        Some(path) if path.exists() => Some(LessonFile::load(&path)?),
        _ => None,
    };
    Ok((file, user))
}

pub(crate) fn summary(lesson: &Lesson, origin: &str) -> Value {
    let source = provenance::Source::of(&lesson.extra).map(provenance::Source::as_str);
    json!({
        "id": lesson.id,
        "scope": lesson.scope.as_str(),
        "triggers": lesson.trigger_texts(),
        "lesson": lesson.text,
        "weight": lesson.weight,
        "hits": lesson.hits,
        "heeded": lesson.heeded,
        "ignored": lesson.ignored,
        "last_hit": lesson.last_hit,
        "last_decay_at": lesson.last_decay_at,
        "created": lesson.created,
        "origin": origin,
        "source": source,
        "learned_from": provenance::describe(&lesson.extra),
    })
}

/// `    from: review R1 of session … — remove it: car lessons rm ID` for a learned lesson.
fn provenance_line(id: &str, extra: &serde_json::Map<String, Value>) -> String {
    match provenance::describe(extra) {
        Some(from) => format!("    learned from {from} — remove it: car lessons rm {id}\n"),
        None => String::new(),
    }
}

fn list(project: &Project, as_json: bool) -> Result<Outcome, Error> {
    let (file, user) = layered(project)?;
    let mut rows: Vec<(&Lesson, &str)> = file.lessons().map(|l| (l, "project")).collect();
    if let Some(user) = &user {
        for lesson in user.lessons() {
            if file.find(&lesson.id).is_none() {
                rows.push((lesson, "user"));
            }
        }
    }
    if as_json {
        let list: Vec<Value> = rows.iter().map(|(l, origin)| summary(l, origin)).collect();
        output::print_json(&Value::Array(list));
        return Ok(Outcome::Success);
    }
    if rows.is_empty() {
        output::print_message(&format!(
            "no lessons in {}",
            project.lessons_file().display()
        ));
        output::print_hint(
            "add one with `car lessons add --scope '*.py' --trigger T --lesson TEXT`",
        );
        return Ok(Outcome::Success);
    }
    let mut text = String::new();
    for (lesson, origin) in rows {
        let marker = if origin == "user" { " (user)" } else { "" };
        text.push_str(&format!(
            "{}  weight {:>2}  hits {:>3}  heeded {:>3}  ignored {:>3}  {}{marker}  [{}]\n    {}\n",
            lesson.id,
            lesson.weight,
            lesson.hits,
            lesson.heeded,
            lesson.ignored,
            lesson.scope.as_str(),
            lesson.trigger_texts().join(" | "),
            lesson.text
        ));
        text.push_str(&provenance_line(&lesson.id, &lesson.extra));
    }
    text.push_str(&retired_section(project));
    output::print_data(&text);
    Ok(Outcome::Success)
}

/// The retired lessons, after the live ones: what each was and why it went.
fn retired_section(project: &Project) -> String {
    let retired = match retired::load(&project.lessons_file()) {
        Ok(retired) => retired,
        Err(error) => return format!("\nretired lessons: not read ({error})\n"),
    };
    let lessons: Vec<&Lesson> = retired.lessons().collect();
    if lessons.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\nretired ({}; they no longer match):\n",
        plural(lessons.len(), "lesson")
    );
    for lesson in lessons {
        text.push_str(&format!(
            "{}  {}  [{}]\n    {}\n    {} — bring it back: car lessons restore {}\n",
            lesson.id,
            lesson.scope.as_str(),
            lesson.trigger_texts().join(" | "),
            lesson.text,
            retired::because(lesson).unwrap_or("retired"),
            lesson.id
        ));
    }
    text
}

/// `car lessons restore ID`: a retired lesson back into the library, its outcome counts cleared.
fn restore(project: &Project, id: &str) -> Result<Outcome, Error> {
    let lessons_file = project.lessons_file();
    let retired_file = retired::load(&lessons_file)?;
    let id = match crate::text::resolve_id(id, retired_file.lessons().map(|l| l.id.as_str())) {
        Ok(full) => full.to_string(),
        Err(crate::text::IdMatch::None) => {
            return Err(Error::Usage(format!(
                "no retired lesson with id {id:?} in {} (`car lessons list` shows the retired ones)",
                retired::path_of(&lessons_file).display()
            )));
        }
        Err(crate::text::IdMatch::Ambiguous(ids)) => {
            return Err(Error::Usage(format!(
                "{id:?} names several retired lessons ({}); give more of the id",
                ids.join(", ")
            )));
        }
    };
    let Some(lesson) = retired::restored(&lessons_file, &id)? else {
        return Err(not_found(project, &id));
    };
    library::with_lessons(&lessons_file, HOOK_LOCK_WAIT, |file| {
        if file.find(&id).is_some() {
            return Ok(((), false));
        }
        file.entries.push(Entry::Valid(lesson));
        Ok(((), true))
    })?;
    retired::forget(&lessons_file, &id)?;
    output::print_message(&format!(
        "restored lesson {id} to {} (heeded and ignored counts start again)",
        lessons_file.display()
    ));
    Ok(Outcome::Success)
}

fn show(project: &Project, id: &str, as_json: bool) -> Result<Outcome, Error> {
    let (file, user) = layered(project)?;
    let retired = retired::load(&project.lessons_file())?;
    let mut files = vec![&file];
    files.extend(user.as_ref());
    files.push(&retired);
    let id = &resolve(project, id, &files)?;
    let found = file
        .find(id)
        .map(|l| (l, "project"))
        .or_else(|| user.as_ref().and_then(|u| u.find(id)).map(|l| (l, "user")))
        .or_else(|| retired.find(id).map(|l| (l, "retired")));
    let Some((lesson, origin)) = found else {
        return Err(not_found(project, id));
    };
    if as_json {
        let mut value = summary(lesson, origin);
        if let Some(examples) = &lesson.examples {
            value["examples"] = serde_json::to_value(examples).unwrap_or(Value::Null);
        }
        let evidence = provenance::Evidence::all_of(&lesson.extra);
        if !evidence.is_empty() {
            value["evidence"] = serde_json::to_value(&evidence).unwrap_or(Value::Null);
        }
        if let Some(known) = lesson.extra.get(KNOWN_INSTANCES_FIELD) {
            value["known_instances"] = known.clone();
        }
        let refusals = refusals_of(project, lesson);
        if !refusals.is_empty() {
            value["refused_before"] = serde_json::to_value(&refusals).unwrap_or(Value::Null);
        }
        if origin == "project" {
            value["remove"] = json!(format!("car lessons rm {}", lesson.id));
        }
        if origin == "retired" {
            value["retired_because"] = json!(retired::because(lesson));
            value["retired_at"] = json!(retired::retired_at(lesson));
            value["restore"] = json!(format!("car lessons restore {}", lesson.id));
        }
        output::print_json(&value);
    } else {
        let mut text = describe(lesson, origin);
        if let Some(learned) = provenance::describe(&lesson.extra) {
            text.push_str(&format!("\n  learned   {learned}"));
        }
        text.push_str(&known_instances(lesson));
        text.push_str(&refused_before(project, lesson));
        if origin == "project" {
            text.push_str(&format!("\n  remove    car lessons rm {}", lesson.id));
        }
        if origin == "retired" {
            let why = retired::because(lesson).unwrap_or("retired");
            text.push_str(&format!(
                "\n  retired   {why}\n  restore   car lessons restore {}",
                lesson.id
            ));
        }
        output::print_data(&text);
    }
    Ok(Outcome::Success)
}

/// `  in code   3 places when learned: a.py:3 import x | …`: the places of the project's code
/// the lesson matched when it was learned (empty when none).
fn known_instances(lesson: &Lesson) -> String {
    let Some(known) = lesson.extra.get(KNOWN_INSTANCES_FIELD) else {
        return String::new();
    };
    let count = known.get("count").and_then(Value::as_u64).unwrap_or(0);
    let places: Vec<String> = known
        .get("places")
        .and_then(Value::as_array)
        .map(|places| {
            places
                .iter()
                .map(|place| {
                    format!(
                        "{}:{}: {}",
                        place["file"].as_str().unwrap_or_default(),
                        place["line"],
                        place["text"].as_str().unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    format!(
        "\n  in code   {} already matched when it was learned (`car check` reports them):\n            {}",
        plural(count as usize, "place"),
        places.join("\n            ")
    )
}

/// What car refused to learn about the lesson's triggers before it learned it (or since).
fn refusals_of(project: &Project, lesson: &Lesson) -> Vec<refusal_log::Entry> {
    let triggers: Vec<String> = lesson
        .trigger_texts()
        .iter()
        .flat_map(|trigger| {
            let shown = crate::lessons::trigger::text::labelled(trigger);
            [trigger.clone(), shown.trim_matches('`').to_string()]
        })
        .collect();
    refusal_log::load(project)
        .into_iter()
        .filter(|entry| triggers.contains(&entry.subject))
        .collect()
}

/// `  refused   2× fires-on-correct-code: …` lines (empty when none).
fn refused_before(project: &Project, lesson: &Lesson) -> String {
    refusals_of(project, lesson)
        .iter()
        .map(|entry| {
            format!(
                "\n  refused   {}× {}: {}",
                entry.count, entry.kind, entry.reason
            )
        })
        .collect()
}

/// Validates `car lessons add` input into a lesson (triggers compiled, examples checked).
fn lesson_from_args(args: &LessonAddArgs, clock: Clock) -> Result<Lesson, Error> {
    for trigger in &args.triggers {
        Trigger::validate(trigger).map_err(LessonsError::from)?;
    }
    Scope::parse(&args.scope)
        .map_err(|message| Error::Usage(format!("--scope {:?}: {message}", args.scope)))?;
    if args.weight == 0 || args.weight > MAX_WEIGHT {
        return Err(Error::Usage(format!(
            "--weight {} must be 1–{MAX_WEIGHT}",
            args.weight
        )));
    }
    if args.lesson.trim().is_empty() {
        return Err(Error::Usage("--lesson must say what to remember".into()));
    }
    let examples =
        (!args.example_match.is_empty() || !args.example_no_match.is_empty()).then(|| Examples {
            should_match: args.example_match.clone(),
            should_not_match: args.example_no_match.clone(),
        });
    let raw = RawLesson {
        id: Some(lesson_id(&args.scope, &args.triggers)),
        scope: args.scope.clone(),
        triggers: args.triggers.clone(),
        lesson: args.lesson.clone(),
        weight: Some(u64::from(args.weight)),
        hits: Some(0),
        created: Some(clock.today()),
        examples,
        whole_identifiers: !args.substring,
        code_only: !args.in_comments,
        extra: [(
            crate::lessons::provenance::SOURCE_FIELD.to_string(),
            json!(crate::lessons::provenance::Source::Added.as_str()),
        )]
        .into_iter()
        .collect(),
        ..RawLesson::default()
    };
    let lesson = Lesson::from_raw(raw).map_err(|problem| Error::Usage(problem.to_string()))?;
    crate::lessons::examples::check_examples(&lesson)
        .map_err(|failure| Error::Usage(failure.to_string()))?;
    Ok(lesson)
}

/// Ordinary lines of code that a specific trigger does not fire on.
const ORDINARY_LINES: &[&str] = &[
    "x",
    "a = 1",
    "    return value",
    "}",
    "import os",
    "for item in items:",
    "if (ready) {",
    "let count = 0;",
];

/// Why a trigger the person wrote will fire on ordinary code, if it will: a literal that learning
/// would refuse (a keyword, a common word, too short), or a pattern that matches ordinary lines.
/// A warning only: the person decides.
fn generic_trigger_warnings(lesson: &Lesson) -> Vec<String> {
    lesson
        .triggers
        .iter()
        .filter_map(|trigger| {
            if trigger.pattern().is_none() {
                return crate::learning::precision::check(trigger.as_str())
                    .err()
                    .map(|refusal| format!("warning: trigger `{}`: {refusal}; it will fire on ordinary code", trigger.as_str()))
                    .or_else(|| inside_longer_names(lesson, trigger.as_str()));
            }
            let matched: Vec<&str> = ORDINARY_LINES
                .iter()
                .copied()
                .filter(|line| trigger.is_match(line))
                .collect();
            (matched.len() >= 2).then(|| {
                format!(
                    "warning: trigger `{}` matches ordinary lines such as `{}` and `{}`; it will fire on most edits",
                    trigger.as_str(),
                    matched[0].trim(),
                    matched[1].trim()
                )
            })
        })
        .collect()
}

/// Why a text trigger matched as a plain substring will fire inside longer identifiers, if it
/// will: `--substring` with a trigger that starts or ends with an identifier character.
fn inside_longer_names(lesson: &Lesson, trigger: &str) -> Option<String> {
    if lesson.matching.whole_identifiers {
        return None;
    }
    let is_identifier = |character: char| character.is_alphanumeric() || character == '_';
    let example = if trigger.starts_with(is_identifier) {
        format!("my_{trigger}")
    } else if trigger.ends_with(is_identifier) {
        format!("{trigger}_2")
    } else {
        return None;
    };
    Some(format!(
        "warning: trigger `{trigger}` (--substring) also fires inside longer identifiers such as `{example}`; without --substring it matches whole identifiers only"
    ))
}

fn add(project: &Project, clock: Clock, args: &LessonAddArgs) -> Result<Outcome, Error> {
    let lesson = lesson_from_args(args, clock)?;
    let warnings = generic_trigger_warnings(&lesson);
    let id = lesson.id.clone();
    library::with_lessons(&project.lessons_file(), HOOK_LOCK_WAIT, |file| {
        if let Some(existing) = file
            .lessons()
            .find(|l| l.is_duplicate_of(&args.scope, &args.triggers))
        {
            return Err(LessonsError::Duplicate {
                id: existing.id.clone(),
                scope: args.scope.clone(),
            });
        }
        let overlapping = file
            .lessons()
            .find(|existing| existing.scope.as_str() == args.scope && shared_triggers(existing, &args.triggers) >= 2)
            .map(|existing| existing.id.clone());
        file.entries.push(Entry::Valid(lesson));
        Ok((overlapping, true))
    })
    .map(|overlapping| {
        if let Some(other) = overlapping {
            output::print_message(&format!(
                "note: it overlaps lesson {other} (same scope, 2 or more shared triggers); `car lessons maintain` merges the two into one"
            ));
        }
    })?;
    output::print_data(&id);
    output::print_message(&format!(
        "added lesson {id} to {}",
        project.lessons_file().display()
    ));
    for warning in warnings {
        output::print_message(&warning);
    }
    Ok(Outcome::Success)
}

/// How many of `triggers` the lesson has too (the merge rule counts them).
fn shared_triggers(lesson: &Lesson, triggers: &[String]) -> usize {
    let own = lesson.trigger_texts();
    triggers
        .iter()
        .filter(|trigger| own.contains(trigger))
        .count()
}

/// Imports a seed-format file (see [`crate::lessons::import`]).
fn import(project: &Project, path: &Path) -> Result<Outcome, Error> {
    if !path.is_file() {
        return Err(Error::Usage(format!("{}: no such file", path.display())));
    }
    let imported = crate::lessons::import::import_file(&project.lessons_file(), path)?;
    output::print_message(&format!(
        "imported {} from {}; {} skipped",
        plural(imported.added, "lesson"),
        path.display(),
        plural(imported.skipped, "duplicate")
    ));
    Ok(Outcome::Success)
}

/// The file as it will read once the pending hits are folded in (`car lessons maintain`).
fn export(project: &Project) -> Result<Outcome, Error> {
    let file = library::load_live(&project.lessons_file())?;
    output::print_data(&file.render());
    Ok(Outcome::Success)
}

fn run_maintain(project: &Project, clock: Clock, dry_run: bool) -> Result<Outcome, Error> {
    let report = maintain::run(project, clock, dry_run)?;
    let prefix = if dry_run { "would have " } else { "" };
    if report.is_empty() {
        output::print_data("nothing to change");
    } else {
        let lines: Vec<String> = report
            .lines()
            .into_iter()
            .map(|line| format!("{prefix}{line}"))
            .collect();
        output::print_data(&lines.join("\n"));
    }
    if dry_run {
        output::print_message("dry run: nothing was written");
    }
    Ok(Outcome::Success)
}
