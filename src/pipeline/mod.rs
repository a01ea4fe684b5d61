//! The edit pipeline: check one edit and report what car has to say about it. The PostToolUse
//! hook, `car check` and replay all call [`Checker::check`]; they differ only in what they do with
//! the [`EditReport`] (the hook records it for the stop gate and answers the agent, `car check`
//! prints it, replay compares it with a scenario's expectations).
//!
//! Steps, in order: the validators for the file's language (in the hooks, their verdict on the
//! content may be the one the PreToolUse hook kept for the same content: [`kept_verdicts`]); when
//! they found no error and the file is car's own configuration, its self-test ([`config`]); then
//! the lessons: match the added text. Checks return facts: learning from them happens in one place, the learning door the
//! PostToolUse hook calls with the report (`learning::signals::after_edit`).
//!
//! Invariants: the pipeline never fails (every problem is a diagnostic or a note); it knows no
//! agent protocol, no command line and no replay; which lesson layers apply and whether the edit
//! may teach is the caller's explicit choice, never a global switch.

pub(crate) mod config;
pub(crate) mod kept_verdicts;
pub(crate) mod verdict_key;

use crate::clock::Clock;
use crate::edit::{Delta, Edit};
use crate::lessons::{LessonScope, Warning};
use crate::pipeline::kept_verdicts::{KeptVerdicts, Role};
use crate::project::Project;
use crate::session::Session;
use crate::session::change_set::Revalidate;
use crate::settings::Settings;
use crate::validate::{Diagnostic, Source, Validators};

/// What the lesson engine may do for an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LessonUse {
    /// Write: record hits, learn from the edit's errors, run the daily maintenance and keep the
    /// lessons index fresh. Only the agent's edits do (the hook, and replay's hook steps); `car
    /// check` and replay's `check` steps are read-only and create no state.
    pub(crate) record: bool,
    /// Layer the user-wide lessons under the project's.
    pub(crate) user_layer: bool,
}

/// What car found in one edit.
#[derive(Debug, Clone, Default)]
pub(crate) struct EditReport {
    /// Every diagnostic, errors and warnings, with the edit's project-relative path.
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) warnings: Vec<Warning>,
    /// Lines for the human from the validators (a skipped check, a missing tool…).
    pub(crate) notes: Vec<String>,
    /// Lines for the human from the lessons (a broken lessons file…): kept apart, as the
    /// PreToolUse hook says these alone.
    pub(crate) lesson_notes: Vec<String>,
    /// What learning needs besides the diagnostics and warnings (`learning::signals`).
    pub(crate) lesson_facts: LessonFacts,
}

/// Facts of the lesson engine about one edit that the learning step uses.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LessonFacts {
    /// The project's lessons file could be read (a corrupt one is never written).
    pub(crate) library_readable: bool,
    /// A learned lesson waits for the fix of an error in this file.
    pub(crate) fix_pending: bool,
}

impl EditReport {
    pub(crate) fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks edits of one project with one set of validators.
pub(crate) struct Checker<'a> {
    project: &'a Project,
    settings: &'a Settings,
    clock: Clock,
    lessons: LessonUse,
    validators: Validators,
    /// The session's kept content verdicts, in the hooks.
    kept: Option<KeptVerdicts<'a>>,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(
        project: &'a Project,
        settings: &'a Settings,
        clock: Clock,
        lessons: LessonUse,
    ) -> Checker<'a> {
        Checker {
            project,
            settings,
            clock,
            lessons,
            validators: Validators::load(project, settings),
            kept: None,
        }
    }

    /// Takes content verdicts from the session's kept ones, and keeps its own in the
    /// [`Role::Keeps`] role ([`kept_verdicts`]).
    pub(crate) fn with_kept_verdicts(self, session: Session<'a>, role: Role) -> Checker<'a> {
        Checker {
            kept: Some(KeptVerdicts::new(session, role)),
            ..self
        }
    }

    /// Drops the project's own command rules (see [`Validators::skip_project_commands`]).
    pub(crate) fn skip_project_commands(&mut self) -> usize {
        self.validators.skip_project_commands()
    }

    /// The validators in use (`car check` asks them which files of a folder to check).
    pub(crate) fn validators(&self) -> &Validators {
        &self.validators
    }

    /// Validators, the configuration self-test, then the lessons (for files in the project).
    pub(crate) fn check(&self, edit: &Edit) -> EditReport {
        self.check_hashed(edit, None)
    }

    /// [`Checker::check`] of an edit whose content's
    /// [hash](crate::session::event::content_hash) the caller already made (the PostToolUse hook
    /// records it): the kept verdicts' key is made with it rather than hashing the content again.
    pub(crate) fn check_hashed(&self, edit: &Edit, content_hash: Option<&str>) -> EditReport {
        let kept = self.kept.as_ref().map(|kept| (kept, content_hash));
        let mut report = validate(&self.validators, kept, edit, || {
            self.project.head_version(&edit.relative_path)
        });
        // Lessons are about the project's files: a file elsewhere (`car check /tmp/x.py`) is only
        // validated.
        if self.project.relative(&edit.path).is_none() {
            return report;
        }
        let scope = LessonScope {
            project: self.project,
            settings: self.settings,
            clock: self.clock,
            record: self.lessons.record,
            user_layer: self.lessons.user_layer,
        };
        let outcome = crate::lessons::match_edit(scope, edit, &report.diagnostics);
        report.warnings = outcome.warnings;
        report.lesson_notes = outcome.notes;
        report.lesson_facts = LessonFacts {
            library_readable: outcome.library_readable,
            fix_pending: outcome.fix_pending,
        };
        report
    }
}

/// The validators for the file's language, then (when they found no error) the configuration
/// self-test: every diagnostic an edit gets before the lessons. The file's earlier content is
/// what an error "introduced by this edit" is measured against: the edit's `before`, else (unless
/// the edit added every line: a new file has none) what `head` gives, the committed version. The
/// verdict on the content is `kept`'s, when given (with the content's hash, when known).
fn validate(
    validators: &Validators,
    kept: Option<(&KeptVerdicts<'_>, Option<&str>)>,
    edit: &Edit,
    head: impl FnOnce() -> Option<String>,
) -> EditReport {
    let source = Source::of_edit(edit);
    let committed;
    let before = match edit.before.as_deref() {
        Some(before) => Some(before),
        None if !source.added_everything() && crate::validate::needs_before(&source) => {
            committed = head();
            committed.as_deref()
        }
        None => None,
    };
    let mut validated = match kept {
        Some((kept, content_hash)) => kept.verdict(validators, &source, before, content_hash),
        None => validators.check_content(&source, before),
    };
    validators.check_around(&source, &mut validated);
    let mut report = EditReport {
        diagnostics: validated.diagnostics,
        notes: validated.notes,
        ..EditReport::default()
    };
    if !report.has_errors() {
        report.diagnostics.extend(config::check_config_edit(
            &edit.relative_path,
            &edit.content,
        ));
    }
    report
}

/// Validates project files as they are on disk now, with the same validators and configuration
/// self-test as an edit and no lessons: the stop gate's truth at stop time, and what `car review
/// status` and `car review submit` show. The validators load on first use (most stops re-check
/// nothing). The lines the session added since `before` are what import checks look at.
pub(crate) struct OnDisk<'a> {
    project: &'a Project,
    settings: &'a Settings,
    validators: std::sync::OnceLock<Validators>,
}

impl<'a> OnDisk<'a> {
    pub(crate) fn new(project: &'a Project, settings: &'a Settings) -> OnDisk<'a> {
        OnDisk {
            project,
            settings,
            validators: std::sync::OnceLock::new(),
        }
    }
}

impl Revalidate for OnDisk<'_> {
    fn errors_now(&self, file: &str, before: Option<&str>) -> Option<Vec<Diagnostic>> {
        // Only a file that resolves inside the project is read: a link leading out of it (made
        // through the shell) is reviewed by name only, never validated.
        let path = self.project.checkout().join(file);
        let (_, content) = crate::edit::read_project_file(self.project, &path).ok()?;
        let delta = Delta::Whole {
            before: before.map(str::to_string),
        };
        let edit = Edit {
            added: delta.added_lines(&content),
            path,
            relative_path: file.to_string(),
            tool: "stop".into(),
            content,
            before: before.map(str::to_string),
            language: None,
        };
        let validators = self
            .validators
            .get_or_init(|| Validators::load(self.project, self.settings));
        // `before` is the content before the session: an error the session did not introduce is
        // not its own.
        let report = validate(validators, None, &edit, || None);
        Some(
            report
                .diagnostics
                .into_iter()
                .filter(Diagnostic::is_error)
                .collect(),
        )
    }
}
