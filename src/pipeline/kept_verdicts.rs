//! One check per edit: Claude Code and Codex call PreToolUse and then PostToolUse for the same
//! write, and both would check the same content. The verdict PreToolUse made on the content a
//! write would leave is kept in the session's state ([`names::KEPT_VERDICTS`]) under its
//! [key](super::verdict_key); the PostToolUse call that finds that very content on disk takes it
//! instead of checking again. Only the content verdict is kept (the language's syntax check,
//! with its tool or interpreter): the custom rules, car's configuration self-test, lesson
//! matching and learning run after every edit as before.
//!
//! Invariants:
//! - a verdict is taken only under an equal key: the same path, the same bytes as the file on
//!   disk now (the PostToolUse hook's content is read from disk), the same added lines, the same
//!   checkers; anything else is checked again;
//! - a verdict that read other files ([`Report::read_other_files`]: an import resolved, a crate's
//!   edition, the Python a project requires) is never kept: a parallel tool call may change those
//!   files between the two hooks, and no cheap key captures them;
//! - bounded: at most [`MAX_KEPT`] verdicts (one per file, the newest), each taken for at most
//!   [`MAX_AGE_SECONDS`] after it was made, the file read within [`MAX_BYTES`];
//! - only a cache: a missing, unreadable, corrupt or oversized file means checking again, a kept
//!   verdict that cannot be written costs the next hook a check, nothing else. The PostToolUse hook
//!   only reads it (kept verdicts are written whole, by rename).

use serde::{Deserialize, Serialize};

use crate::pipeline::verdict_key::Checkers;
use crate::session::Session;
use crate::state::names;
use crate::validate::{Diagnostic, Origin, Report, Source, Validators};

/// Verdicts kept per session; the oldest goes first.
const MAX_KEPT: usize = 64;

/// The largest file read back or written.
const MAX_BYTES: u64 = 512 * 1024;

/// How long after PreToolUse a verdict may be taken: the write runs between the two hooks, and a
/// person may take minutes to allow it; what changed in that time is not worth guessing about.
const MAX_AGE_SECONDS: i64 = 600;

/// What a hook does with the session's kept verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// PreToolUse: checks, and keeps the verdicts it makes.
    Keeps,
    /// PostToolUse: takes a verdict kept for the content on disk, keeps nothing.
    Takes,
}

/// The session's kept verdicts, as one hook uses them.
#[derive(Debug)]
pub(crate) struct KeptVerdicts<'a> {
    session: Session<'a>,
    role: Role,
    checkers: Checkers,
}

/// One kept verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Kept {
    /// Project-relative path: a newer verdict on the same file replaces this one.
    file: String,
    /// [`Checkers::key`] of the check.
    key: String,
    /// When it was made (Unix seconds, the hook's clock).
    at: i64,
    diagnostics: Vec<KeptDiagnostic>,
    notes: Vec<String>,
}

/// A diagnostic with its origin, which decides what it may do (block, teach) and is not part of
/// a diagnostic's own serialized form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct KeptDiagnostic {
    #[serde(flatten)]
    diagnostic: Diagnostic,
    origin: Origin,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct KeptFile {
    #[serde(default)]
    verdicts: Vec<Kept>,
}

impl<'a> KeptVerdicts<'a> {
    pub(crate) fn new(session: Session<'a>, role: Role) -> KeptVerdicts<'a> {
        KeptVerdicts {
            session,
            role,
            checkers: Checkers::default(),
        }
    }

    /// The content verdict on `source` ([`Validators::check_content`]): in the [`Role::Takes`]
    /// role the one kept under the same key, else checked now (and kept, in the [`Role::Keeps`]
    /// role, unless it read other files). `content_hash`: the content's
    /// [hash](crate::session::event::content_hash), when the caller made it.
    pub(crate) fn verdict(
        &self,
        validators: &Validators,
        source: &Source<'_>,
        before: Option<&str>,
        content_hash: Option<&str>,
    ) -> Report {
        let programs = validators.checker_programs(source);
        let made;
        let content_hash = match content_hash {
            Some(hash) => hash,
            None => {
                made = crate::session::event::content_hash(source.content.as_bytes());
                &made
            }
        };
        let key = self.checkers.key(
            self.session.settings,
            source,
            content_hash,
            before,
            &programs,
        );
        let now = self.session.clock.now();
        if self.role == Role::Takes
            && let Some(kept) = key.as_deref().and_then(|key| self.take(key, now))
        {
            return kept;
        }
        let report = validators.check_content(source, before);
        if let (Role::Keeps, Some(key)) = (self.role, key)
            && !report.read_other_files
        {
            // Only a cache: a verdict that cannot be kept is checked again after the write.
            let _ = self.keep(source.display_path, key, now, &report);
        }
        report
    }

    /// The verdict kept under `key`, when it is young enough.
    fn take(&self, key: &str, now: i64) -> Option<Report> {
        let text = crate::files::read_text_or_none(&self.path(), MAX_BYTES)?;
        let file: KeptFile = serde_json::from_str(&text).ok()?;
        let kept = file
            .verdicts
            .into_iter()
            .rev()
            .find(|kept| kept.key == key)?;
        if !(0..=MAX_AGE_SECONDS).contains(&(now - kept.at)) {
            return None;
        }
        Some(Report {
            diagnostics: kept
                .diagnostics
                .into_iter()
                .map(|kept| Diagnostic {
                    origin: kept.origin,
                    ..kept.diagnostic
                })
                .collect(),
            notes: kept.notes,
            read_other_files: false,
        })
    }

    /// Keeps `report` for `file` under `key`, in place of the file's older verdict.
    fn keep(
        &self,
        file: &str,
        key: String,
        now: i64,
        report: &Report,
    ) -> Result<(), crate::files::FileError> {
        let kept = Kept {
            file: file.to_string(),
            key,
            at: now,
            diagnostics: report
                .diagnostics
                .iter()
                .map(|diagnostic| KeptDiagnostic {
                    diagnostic: diagnostic.clone(),
                    origin: diagnostic.origin,
                })
                .collect(),
            notes: report.notes.clone(),
        };
        let path = self.path();
        crate::files::ensure_parent(&path)?;
        crate::files::update_json(&path, MAX_BYTES, |list: &mut KeptFile| {
            list.verdicts.retain(|older| older.file != kept.file);
            list.verdicts.push(kept);
            let excess = list.verdicts.len().saturating_sub(MAX_KEPT);
            list.verdicts.drain(..excess);
            // Oldest first, until what is written is read back (a verdict too large alone goes).
            let sizes: Vec<u64> = list.verdicts.iter().map(written_size).collect();
            let mut total = sizes
                .iter()
                .fold(16u64, |sum, size| sum.saturating_add(*size));
            let mut dropped = 0;
            while total > MAX_BYTES && dropped < sizes.len() {
                total -= sizes[dropped];
                dropped += 1;
            }
            list.verdicts.drain(..dropped);
        })
    }

    fn path(&self) -> std::path::PathBuf {
        self.session.file(names::KEPT_VERDICTS)
    }
}

/// A verdict's bytes in the file, with its comma.
fn written_size(kept: &Kept) -> u64 {
    serde_json::to_string(kept).map_or(u64::MAX, |text| text.len() as u64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::diagnostic::Severity;
    use crate::project::Project;
    use crate::settings::Settings;

    fn with_session(now: i64, test: impl FnOnce(Session<'_>, &Validators)) {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let settings = Settings::default();
        let validators = Validators::load(&project, &settings);
        test(
            Session {
                project: &project,
                settings: &settings,
                clock: Clock::fixed(now),
                id: "s",
            },
            &validators,
        );
    }

    fn json_source(content: &str) -> Source<'_> {
        Source {
            path: std::path::Path::new("/p/config.json"),
            display_path: "config.json",
            content,
            language: None,
            added: &[],
        }
    }

    #[test]
    fn a_kept_verdict_comes_back_with_its_origin() {
        with_session(100, |session, validators| {
            let keeps = KeptVerdicts::new(session, Role::Keeps);
            let source = json_source("{\"a\": 1,}\n");
            let made = keeps.verdict(validators, &source, None, None);
            assert!(made.diagnostics.iter().any(Diagnostic::is_error));
            let hash = crate::session::event::content_hash(source.content.as_bytes());
            let key = keeps
                .checkers
                .key(
                    session.settings,
                    &source,
                    &hash,
                    None,
                    &validators.checker_programs(&source),
                )
                .unwrap();
            let taken = KeptVerdicts::new(session, Role::Takes)
                .take(&key, 100)
                .expect("kept");
            assert_eq!(taken.diagnostics, made.diagnostics);
            assert_eq!(taken.diagnostics[0].origin, Origin::JsonParser);
            assert_eq!(taken.diagnostics[0].severity, Severity::Error);
            // Too old: checked again.
            let later = KeptVerdicts::new(session, Role::Takes);
            assert!(later.take(&key, 100 + MAX_AGE_SECONDS + 1).is_none());
        });
    }

    #[test]
    fn the_list_keeps_one_verdict_per_file_and_at_most_max_kept() {
        with_session(1, |session, _| {
            let keeps = KeptVerdicts::new(session, Role::Keeps);
            let report = Report::default();
            for index in 0..(MAX_KEPT + 10) {
                let file = format!("f{index}.json");
                keeps.keep(&file, format!("k{index}"), 1, &report).unwrap();
            }
            keeps.keep("f0.json", "again".into(), 1, &report).unwrap();
            keeps.keep("f0.json", "newest".into(), 1, &report).unwrap();
            let text = std::fs::read_to_string(keeps.path()).unwrap();
            let list: KeptFile = serde_json::from_str(&text).unwrap();
            assert_eq!(list.verdicts.len(), MAX_KEPT);
            let of_f0: Vec<&str> = list
                .verdicts
                .iter()
                .filter(|kept| kept.file == "f0.json")
                .map(|kept| kept.key.as_str())
                .collect();
            assert_eq!(of_f0, ["newest"]);
        });
    }

    #[test]
    fn a_corrupt_list_is_no_verdict_and_is_replaced() {
        with_session(1, |session, _| {
            let keeps = KeptVerdicts::new(session, Role::Keeps);
            std::fs::create_dir_all(keeps.path().parent().unwrap()).unwrap();
            std::fs::write(keeps.path(), "{\"verdicts\": [{\"file\": ").unwrap();
            assert!(keeps.take("k", 1).is_none());
            keeps
                .keep("a.json", "k".into(), 1, &Report::default())
                .unwrap();
            assert!(keeps.take("k", 1).is_some());
        });
    }
}
