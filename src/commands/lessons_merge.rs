//! `car lessons merge BASE OURS THEIRS`: git's merge driver for car's library files
//! (`merge.car-lessons.driver = car lessons merge %O %A %B`, registered by `car install`).
//!
//! Invariants (git's contract for a driver): the result is written to OURS; exit 0 means merged
//! cleanly, any other exit leaves the file conflicted for a person. A lesson both branches changed
//! is merged with ours in place and both versions in its `merge_conflict` field (the file stays
//! valid JSON, so car keeps working while the person decides), exit 1. A version car cannot read
//! (not JSON car knows, or not readable at all: over its 64 MiB bound, not UTF-8) is never merged
//! by car: git's own line merge is left in OURS (`git merge-file`, conflict markers included),
//! exit 1, and car says which version and why; nothing is lost either way. (An exit 2 would leave
//! OURS untouched, and git shows a file that looks clean: `git add` would drop the other
//! branch's lessons.)

use std::path::Path;

use crate::commands::Outcome;
use crate::error::Error;
use crate::files;
use crate::lessons::branch_merge::{self, CONFLICT_FIELD, Library, MergeReport, Side};
use crate::output;
use crate::text::plural;

pub(crate) fn run(base: &Path, ours: &Path, theirs: &Path) -> Result<Outcome, Error> {
    let [base_text, ours_text, theirs_text] =
        [base, ours, theirs].map(|path| files::read_optional(path).map(Option::unwrap_or_default));
    let (base_text, ours_text, theirs_text) = match (base_text, ours_text, theirs_text) {
        (Ok(base_text), Ok(ours_text), Ok(theirs_text)) => (base_text, ours_text, theirs_text),
        // A version car cannot read at all (over its 64 MiB bound, not UTF-8, not a file) is
        // one car cannot merge: git's line merge, as for a version that does not parse.
        (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => {
            return Ok(left_to_git(base, ours, theirs, &error, "library"));
        }
    };
    let library = Library::of([&base_text, &ours_text, &theirs_text]);
    let merged = branch_merge::merge(
        library,
        Side {
            path: base,
            text: &base_text,
        },
        Side {
            path: ours,
            text: &ours_text,
        },
        Side {
            path: theirs,
            text: &theirs_text,
        },
    );
    match merged {
        Ok((text, report)) => {
            files::write_atomic(ours, text.as_bytes())?;
            Ok(tell(library, &report))
        }
        Err(error) => Ok(left_to_git(base, ours, theirs, &error, library.noun())),
    }
}

/// A version car cannot read or merge: says which and why, and leaves git's own line merge in
/// `ours` (exit 1: a conflict for git, so nothing is taken as merged).
fn left_to_git(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    error: &dyn std::fmt::Display,
    noun: &str,
) -> Outcome {
    output::print_error(&format!(
        "car lessons merge: {error}; the {noun} file was not merged by car"
    ));
    leave_to_git(base, ours, theirs);
    output::print_hint(
        "git's own line merge is in the file, with conflict markers: fix it by hand (or \
         take one side: `git checkout --ours|--theirs -- FILE`), then `git add` it",
    );
    Outcome::ProblemsFound
}

/// Says what the merge did; a conflict makes it a failed merge for git.
fn tell(library: Library, report: &MergeReport) -> Outcome {
    let noun = library.noun();
    let mut done = Vec::new();
    if report.added_ours + report.added_theirs > 0 {
        done.push(format!(
            "kept the new {noun}s of both branches ({} from this one, {} from the other)",
            report.added_ours, report.added_theirs
        ));
    }
    if report.removed > 0 {
        done.push(format!(
            "left out {} one branch removed",
            plural(report.removed, noun)
        ));
    }
    if !done.is_empty() {
        output::print_message(&format!("car lessons merge: {}", done.join("; ")));
    }
    for kept in &report.kept_changed {
        output::print_message(&format!(
            "car lessons merge: {noun} {kept} was removed on one branch and changed on the other; \
             kept it (`car lessons rm` removes it)"
        ));
    }
    if report.conflicts.is_empty() {
        return Outcome::Success;
    }
    for conflict in &report.conflicts {
        let what = match &conflict.entry {
            Some(entry) => format!("{noun} {entry}"),
            None => "the file's own fields".to_string(),
        };
        output::print_message(&format!(
            "car lessons merge: CONFLICT in {what}: both branches changed {}; this branch's \
             version is in place, all three (base, ours, theirs) are in its \"{CONFLICT_FIELD}\" \
             field",
            conflict
                .fields
                .iter()
                .map(|field| format!("\"{field}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    output::print_hint(&format!(
        "the file is valid JSON and car keeps using it: choose the text you want, delete \
         \"{CONFLICT_FIELD}\", then `git add` the file and commit"
    ));
    Outcome::ProblemsFound
}

/// Puts git's own three-way line merge into `ours` (best effort: when it cannot run, `ours`
/// keeps this branch's version and git still holds all three in its index).
fn leave_to_git(base: &Path, ours: &Path, theirs: &Path) {
    let args = [
        "merge-file".as_ref(),
        "-L".as_ref(),
        "ours".as_ref(),
        "-L".as_ref(),
        "base".as_ref(),
        "-L".as_ref(),
        "theirs".as_ref(),
        ours.as_os_str(),
        base.as_os_str(),
        theirs.as_os_str(),
    ];
    let _ = crate::git::run(Path::new("."), &args, crate::git::Wait::Command);
}
