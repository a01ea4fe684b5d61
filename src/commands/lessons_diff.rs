//! `car lessons diff [REV] [--json]`: what the lessons in the working tree learned, lost, retired
//! or reweighted since REV, read through git (`git show REV:.claude/claude-auto-review/…`), for
//! reviewing the learned lessons a pull request carries.
//!
//! REV defaults to where this branch left the default branch (`git merge-base HEAD X` with X the
//! remote's default branch, else `main`, else `master`): on a feature branch that is what the
//! branch added; on the default branch itself it is HEAD, so the diff shows what is not committed
//! yet. The working tree's files are compared as they are on disk (what a commit would take); hits
//! not folded into them yet are not in the diff.

use std::path::Path;

use serde_json::{Value, json};

use crate::commands::Outcome;
use crate::commands::lessons::summary;
use crate::error::Error;
use crate::git::{self, Wait};
use crate::lessons::branch_merge::diff::{Changed, LibraryDiff, Reweighted};
use crate::lessons::counters::retired;
use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;
use crate::output;
use crate::project::Project;
use crate::state::names;

pub(crate) fn run(project: &Project, rev: Option<&str>, as_json: bool) -> Result<Outcome, Error> {
    let root = project.root();
    if !git::is_checkout(root) {
        return Err(Error::Usage(format!(
            "{}: not a git checkout; `car lessons diff` reads the lessons at a revision through git",
            root.display()
        )));
    }
    let (rev, described) = match rev {
        Some(rev) => (rev.to_string(), rev.to_string()),
        None => default_base(root),
    };
    let commit = resolve(root, &rev)?;
    let lessons_path = format!("{}/{}", names::STATE_DIR, names::LESSONS);
    let before = at_revision(root, &commit, &lessons_path)?;
    let after = LessonFile::load(&project.lessons_file())?;
    let retired_now = retired::load(&project.lessons_file())?;
    let diff = LibraryDiff::between(&before, &after, &retired_now);
    if as_json {
        output::print_json(&to_json(&commit, &described, &diff));
    } else {
        output::print_data(&render(&commit, &described, &diff));
    }
    Ok(Outcome::Success)
}

/// The merge base of HEAD with the default branch, and how to say it; HEAD when there is none.
fn default_base(root: &Path) -> (String, String) {
    let remote_default = git_output(
        root,
        &[
            "symbolic-ref",
            "--quiet",
            "--short",
            "refs/remotes/origin/HEAD",
        ],
    );
    let candidates = remote_default
        .into_iter()
        .chain(["main".to_string(), "master".to_string()]);
    for branch in candidates {
        if let Some(base) = git_output(root, &["merge-base", "HEAD", &branch]) {
            return (base, format!("where this branch left {branch}"));
        }
    }
    ("HEAD".to_string(), "HEAD".to_string())
}

/// `rev` as a commit id; a revision git does not know is a usage error.
fn resolve(root: &Path, rev: &str) -> Result<String, Error> {
    git_output(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok_or_else(|| {
        Error::Usage(format!(
            "{rev:?} is not a revision of this repository (a branch, tag or commit)"
        ))
    })
}

/// The lessons file at `path` in `commit`; a file the commit does not have is empty.
fn at_revision(root: &Path, commit: &str, path: &str) -> Result<LessonFile, Error> {
    let label = Path::new(path);
    let output = git::run(root, &["show", &format!("{commit}:{path}")], Wait::Command)?;
    if !output.success() {
        return Ok(LessonFile::empty(label));
    }
    let shown = format!("{commit}:{path}");
    Ok(LessonFile::parse(Path::new(&shown), &output.stdout)?)
}

/// Trimmed stdout of a git call that succeeded.
fn git_output(root: &Path, args: &[&str]) -> Option<String> {
    let output = git::run(root, args, Wait::Command).ok()?;
    let text = output.stdout.trim();
    (output.success() && !text.is_empty()).then(|| text.to_string())
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn render(commit: &str, described: &str, diff: &LibraryDiff) -> String {
    let since = format!("since {} ({described})", short(commit));
    if diff.is_empty() {
        return format!("no lesson learned, lost or changed {since}\n");
    }
    let (learned, added) = learned_and_added(&diff.learned);
    let mut text = format!(
        "lessons {since}: {} learned, {} added, {} lost, {} retired, {} reweighted, {} changed\n",
        learned.len(),
        added.len(),
        diff.lost.len(),
        diff.retired.len(),
        diff.reweighted.len(),
        diff.changed.len()
    );
    let lost: Vec<&Lesson> = diff.lost.iter().collect();
    let retired: Vec<&Lesson> = diff.retired.iter().collect();
    for (label, lessons) in [
        ("learned", &learned),
        ("added", &added),
        ("lost", &lost),
        ("retired", &retired),
    ] {
        for lesson in lessons {
            text.push_str(&lesson_line(label, lesson));
        }
    }
    for moved in &diff.reweighted {
        text.push_str(&reweighted_line(moved));
    }
    for changed in &diff.changed {
        for (field, before, after) in &changed.fields {
            text.push_str(&format!(
                "changed     {}  {field}: {before:?} → {after:?}\n",
                changed.id
            ));
        }
    }
    text
}

/// The new lessons car learned, and those a person added (by hand, imported, starter): a new
/// lesson is "learned" only when its source says car learned it.
fn learned_and_added(new: &[Lesson]) -> (Vec<&Lesson>, Vec<&Lesson>) {
    new.iter()
        .partition(|lesson| crate::lessons::provenance::Source::learned(&lesson.extra))
}

fn lesson_line(label: &str, lesson: &Lesson) -> String {
    let learned_from = crate::lessons::provenance::describe(&lesson.extra)
        .map(|from| format!("\n            learned from {from}"))
        .unwrap_or_default();
    let why = retired::because(lesson)
        .map(|because| format!("\n            {because}"))
        .unwrap_or_default();
    format!(
        "{label:<11} {}  weight {}  {}  [{}]\n            {}{learned_from}{why}\n",
        lesson.id,
        lesson.weight,
        lesson.scope.as_str(),
        lesson.trigger_texts().join(" | "),
        lesson.text
    )
}

fn reweighted_line(moved: &Reweighted) -> String {
    let mut parts = vec![
        format!("weight {} → {}", moved.weight.0, moved.weight.1),
        format!("hits {} → {}", moved.hits.0, moved.hits.1),
    ];
    for (name, (before, after)) in [("heeded", moved.heeded), ("ignored", moved.ignored)] {
        if before != after {
            parts.push(format!("{name} {before} → {after}"));
        }
    }
    format!("reweighted  {}  {}\n", moved.id, parts.join(", "))
}

fn to_json(commit: &str, described: &str, diff: &LibraryDiff) -> Value {
    let lessons = |lessons: &[&Lesson]| -> Vec<Value> {
        lessons
            .iter()
            .map(|lesson| summary(lesson, "project"))
            .collect()
    };
    let (learned, added) = learned_and_added(&diff.learned);
    let lost: Vec<&Lesson> = diff.lost.iter().collect();
    let retired: Vec<&Lesson> = diff.retired.iter().collect();
    let pair = |(before, after): (u64, u64)| json!({"before": before, "after": after});
    let reweighted: Vec<Value> = diff
        .reweighted
        .iter()
        .map(|moved| {
            json!({
                "id": moved.id,
                "weight": pair((u64::from(moved.weight.0), u64::from(moved.weight.1))),
                "hits": pair(moved.hits),
                "heeded": pair(moved.heeded),
                "ignored": pair(moved.ignored),
            })
        })
        .collect();
    let changed: Vec<Value> = diff.changed.iter().map(changed_json).collect();
    json!({
        "base": commit,
        "base_described": described,
        "learned": lessons(&learned),
        "added": lessons(&added),
        "lost": lessons(&lost),
        "retired": lessons(&retired),
        "reweighted": reweighted,
        "changed": changed,
    })
}

fn changed_json(changed: &Changed) -> Value {
    let fields: serde_json::Map<String, Value> = changed
        .fields
        .iter()
        .map(|(field, before, after)| {
            (field.to_string(), json!({"before": before, "after": after}))
        })
        .collect();
    json!({"id": changed.id, "fields": fields})
}
