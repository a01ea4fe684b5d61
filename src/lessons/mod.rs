//! The lesson library: weighted triggers matched against what each edit added, their weights,
//! decay, merge and distill. What becomes a candidate or a lesson is decided in `learning`.
//!
//! Files: `model` (stored and validated forms), `trigger` / `scope` / `keyword` (what a lesson
//! matches), `store` (load/save of the files, the user-wide layer), `outcome` (what became of a
//! warning: heeded, ignored; demotion and retirement), `hits` (the hit log: an outcome is one
//! appended line), `retired` (the retired lessons' file), `library` (the file, its hit log and its index kept consistent: live reads,
//! locked rewrites that fold the log), `matcher` (the Aho-Corasick index), `cache` (the on-disk
//! index the hook reads), `warn` (one edit's hits), `problems` (unusable entries, told once), `maintain` (and `maintenance_log`: what each run let go of), `proposals` (learned lessons waiting for a person, and the rejected ones), `distill`, `starter`,
//! `branch_merge` (two branches' versions of a library file merged, for git's merge driver),
//! `branch_merge/diff` (what changed between two versions of the library).
//!
//! The entry point for edits is [`match_edit`]: match and record hits. Its cost does not grow
//! with the library: whole-library work (folding the hit log, decay, candidate expiry, merge) runs
//! at [`close_session`] and `car lessons maintain`. Neither fails: every problem (a corrupt file,
//! a busy lock, a regex that gave up) becomes a note.

pub(crate) mod branch_merge;
pub(crate) mod briefing;
pub mod cache;
pub(crate) mod counters;
pub(crate) mod distill;
pub(crate) mod examples;
pub(crate) mod import;
pub mod keyword;
pub(crate) mod library;
pub(crate) mod maintain;
pub(crate) mod maintenance_log;
pub mod matcher;
pub mod model;
pub(crate) mod placement;
pub(crate) mod problems;
pub(crate) mod proposals;
pub(crate) mod provenance;
pub(crate) mod starter;
pub mod store;
pub mod trigger;
pub(crate) mod warn;

use crate::clock::Clock;
use crate::diagnostic::Diagnostic;
use crate::edit::Edit;
use crate::project::Project;
use crate::settings::Settings;

pub(crate) use crate::lesson_warning::Warning;
pub(crate) use starter::install_starter_lessons;

/// Everything that can go wrong with lesson files and lesson commands; each variant names the
/// file, lesson or trigger involved.
#[derive(Debug, thiserror::Error)]
pub enum LessonsError {
    #[error("{0}")]
    Invalid(String),
    #[error("{path}:{line}:{column}: not valid JSON ({message}); the file was left as it is")]
    Corrupt {
        path: std::path::PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}; the file was left as it is")]
    Shape {
        path: std::path::PathBuf,
        message: String,
    },
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Trigger(#[from] trigger::TriggerError),
    #[error("no lesson with id {id:?} in {path} (see `car lessons list`)")]
    NotFound {
        id: String,
        path: std::path::PathBuf,
    },
    #[error("a lesson with scope {scope:?} and these triggers already exists: {id}")]
    Duplicate { id: String, scope: String },
}

impl Warning {
    /// `⚠️ lesson (weight N): text (file:line, trigger `T`)` — a pattern trigger as the code it
    /// looks for, ``pattern `yaml.load(` `` ([`trigger::text::labelled`]) — and `; learned from …`
    /// for a learned lesson: how every warning reads, to the agent and to people.
    pub(crate) fn render(&self) -> String {
        let location = if self.line > 0 {
            format!("{}:{}", self.file, self.line)
        } else {
            self.file.clone()
        };
        let origin = self
            .origin
            .as_deref()
            .map(|origin| format!("; learned from {origin}"))
            .unwrap_or_default();
        format!(
            "⚠️ lesson (weight {}): {} ({location}, {}{origin})",
            self.weight,
            self.lesson,
            trigger::text::labelled(&self.trigger)
        )
    }
}

/// What the lesson engine has to say about one edit.
#[derive(Debug, Clone, Default)]
pub(crate) struct EditLessons {
    pub(crate) warnings: Vec<Warning>,
    /// Lines for the human (a broken lessons file, a skipped write…).
    pub(crate) notes: Vec<String>,
    /// The project's lessons file could be read: learning may write it (a corrupt file is never
    /// touched).
    pub(crate) library_readable: bool,
    /// A learned lesson of an older file waits for the fix of an error in this file.
    pub(crate) fix_pending: bool,
}

/// What the lesson engine needs besides the edit: where, with which settings, and when.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LessonScope<'a> {
    pub(crate) project: &'a Project,
    pub(crate) settings: &'a Settings,
    pub(crate) clock: Clock,
    /// Write: record hits, learn, maintain, refresh the index (false for `car check`: read-only).
    pub(crate) record: bool,
    /// Layer the user-wide lessons under the project's. A replay runs in a throwaway project and
    /// passes false: the user's own lessons must not change what a scenario sees.
    pub(crate) user_layer: bool,
}

impl<'a> LessonScope<'a> {
    /// The scope of a command that learns for the project: it records, without the user's layer.
    pub(crate) fn learning(
        project: &'a Project,
        settings: &'a Settings,
        clock: Clock,
    ) -> LessonScope<'a> {
        LessonScope {
            project,
            settings,
            clock,
            record: true,
            user_layer: false,
        }
    }
}

/// Matches the edit's added text against the layered lessons: the warnings, and the facts the
/// learning step needs (`learning::signals::after_edit`). Only reads.
/// `diagnostics` are what the checkers said of the edit: a lesson learned from a checker's
/// error fires only where the checker reports its subject again.
pub(crate) fn match_edit(
    scope: LessonScope<'_>,
    edit: &Edit,
    diagnostics: &[Diagnostic],
) -> EditLessons {
    let mut out = EditLessons::default();
    if !scope.settings.lessons_enabled {
        return out;
    }
    let layers = warn::Layers::load(&scope, edit, &mut out.notes);
    warn::match_edit(&scope, edit, diagnostics, &layers, &mut out);
    out.library_readable = layers.project.is_some();
    out.fix_pending = layers.has_pending_fix(&edit.relative_path);
    out
}

/// The end of a session: fold the hits it recorded into `lessons.json`, and once a day run the
/// maintenance (decay, candidate expiry, merge, which fold too). Returns lines for the human.
pub(crate) fn close_session(project: &Project, settings: &Settings, clock: Clock) -> Vec<String> {
    let mut notes = Vec::new();
    let maintained = settings.lessons_enabled && {
        match maintain::run_if_due(project, clock) {
            Ok(Some(report)) => {
                if !report.is_empty() {
                    notes.push(format!("lesson maintenance: {}", report.summary()));
                }
                true
            }
            Ok(None) => false,
            Err(error) => {
                notes.push(format!("lesson maintenance skipped: {error}"));
                false
            }
        }
    };
    if !maintained
        && let Err(error) = library::fold(&project.lessons_file(), crate::files::HOOK_LOCK_WAIT)
    {
        notes.push(format!(
            "lesson hits were not folded into the file: {error}"
        ));
    }
    notes
}
