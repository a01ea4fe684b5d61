//! Loading and saving the lesson and candidate files.
//!
//! Invariants:
//! - Reads take no lock (a reader sees the old or the new file, never half of one, because writers
//!   rename a complete temporary file over it). Read-modify-write always happens under the
//!   sidecar `<file>.lock` with a bounded wait (`library::with_lessons`, [`with_candidates`]),
//!   re-reading the file inside the lock so parallel hooks lose no update.
//! - A file that is not valid JSON, or not shaped like a lesson file, is an error naming the path
//!   and line; it is never rewritten (byte-identical), so a hand-broken file loses nothing.
//! - Missing file, empty file and `{}` are all empty.
//! - The user-wide file (`$XDG_CONFIG_HOME/car/lessons.json`, else `~/.config/car/lessons.json`)
//!   is layered under the project's and only ever read by the hook.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::files::{self, FileLock};
use crate::lessons::LessonsError;
use crate::lessons::model::{Candidate, Entry, Lesson, RawCandidateFile, RawLessonFile};

/// A lessons file in memory: the entries in file order plus unknown top-level fields.
#[derive(Debug, Clone, Default)]
pub struct LessonFile {
    pub(crate) path: PathBuf,
    pub(crate) entries: Vec<Entry>,
    pub(crate) extra: Map<String, Value>,
    /// The text as read from disk: a save edits it minimally, so the team's file keeps its
    /// formatting and a change shows as a small diff.
    pub(crate) original: Option<String>,
    /// Hits read from the hit log and applied in memory, not yet in the file on disk
    /// ([`crate::lessons::library::load_live`]); 0 for a plain [`LessonFile::load`].
    pub(crate) pending_hits: usize,
}

impl LessonFile {
    /// An empty file at `path` (not written).
    pub(crate) fn empty(path: &Path) -> LessonFile {
        LessonFile {
            path: path.to_path_buf(),
            ..LessonFile::default()
        }
    }

    /// Reads `path`; a missing file is empty.
    pub(crate) fn load(path: &Path) -> Result<LessonFile, LessonsError> {
        match files::read_optional(path)? {
            None => Ok(LessonFile::empty(path)),
            Some(text) => {
                let mut file = LessonFile::parse(path, &text)?;
                file.original = Some(text);
                Ok(file)
            }
        }
    }

    /// Parses lesson-file text; `path` is for messages.
    pub fn parse(path: &Path, text: &str) -> Result<LessonFile, LessonsError> {
        let document = parse_document(path, text)?;
        let raw: RawLessonFile =
            serde_json::from_value(Value::Object(document)).map_err(|error| {
                LessonsError::Shape {
                    path: path.to_path_buf(),
                    message: format!("\"lessons\" must be an array of lessons ({error})"),
                }
            })?;
        let mut file = LessonFile {
            path: path.to_path_buf(),
            entries: Vec::with_capacity(raw.lessons.len()),
            extra: raw.extra,
            original: None,
            pending_hits: 0,
        };
        let mut seen = std::collections::HashSet::new();
        for value in raw.lessons {
            let entry = match Lesson::from_value(&value) {
                Ok(mut lesson) => {
                    make_unique(&mut lesson, &mut seen);
                    Entry::Valid(lesson)
                }
                Err(problem) => Entry::Invalid {
                    raw: value,
                    problem: problem.to_string(),
                },
            };
            file.entries.push(entry);
        }
        Ok(file)
    }

    pub fn lessons(&self) -> impl Iterator<Item = &Lesson> {
        self.entries.iter().filter_map(|entry| match entry {
            Entry::Valid(lesson) => Some(lesson),
            Entry::Invalid { .. } => None,
        })
    }

    pub(crate) fn lessons_mut(&mut self) -> impl Iterator<Item = &mut Lesson> {
        self.entries.iter_mut().filter_map(|entry| match entry {
            Entry::Valid(lesson) => Some(lesson),
            Entry::Invalid { .. } => None,
        })
    }

    pub(crate) fn find(&self, id: &str) -> Option<&Lesson> {
        self.lessons().find(|lesson| lesson.id == id)
    }

    /// Removes a lesson by id; whether it was there.
    pub(crate) fn remove(&mut self, id: &str) -> bool {
        let before = self.entries.len();
        self.entries
            .retain(|entry| !matches!(entry, Entry::Valid(lesson) if lesson.id == id));
        self.entries.len() != before
    }

    /// `file: lesson #N: problem` for every entry car cannot use; an empty file (0 bytes or only
    /// blanks, never what car writes: a truncation, a bad merge) is named too, since it silently
    /// means "no lessons".
    pub(crate) fn problems(&self) -> Vec<String> {
        if self
            .original
            .as_deref()
            .is_some_and(|text| text.trim().is_empty())
        {
            return vec![format!(
                "{}: the file is empty, so no lessons are checked; car never writes it empty: if \
                 it held lessons, restore it from git",
                self.path.display()
            )];
        }
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(index, entry)| match entry {
                Entry::Invalid { problem, .. } => Some(format!(
                    "{}: lesson #{}: {problem}; ignored (kept in the file)",
                    self.path.display(),
                    index + 1
                )),
                Entry::Valid(_) => None,
            })
            .collect()
    }

    /// The file's text as car writes it: pretty JSON, unknown fields kept in order.
    pub(crate) fn render(&self) -> String {
        // Serialised straight from the raw structs: going through `Value` doubled the cost of
        // every hit on a large file.
        let mut text = serde_json::to_string_pretty(&self.rendered()).unwrap_or_default();
        text.push('\n');
        text
    }

    fn rendered(&self) -> RenderedFile<'_> {
        RenderedFile {
            lessons: self
                .entries
                .iter()
                .map(|entry| match entry {
                    Entry::Valid(lesson) => RenderedEntry::Valid(lesson.to_raw()),
                    Entry::Invalid { raw, .. } => RenderedEntry::Invalid(raw),
                })
                .collect(),
            extra: &self.extra,
        }
    }

    /// Writes atomically; the caller holds the lock when others may write. A file read from disk
    /// is edited minimally (see [`LessonFile::original`]).
    pub(crate) fn save(&self) -> Result<(), LessonsError> {
        files::write_atomic(&self.path, self.text().as_bytes())?;
        Ok(())
    }

    /// The text [`LessonFile::save`] writes: the file as read, edited minimally, else
    /// [`LessonFile::render`].
    pub(crate) fn text(&self) -> String {
        match &self.original {
            Some(original) => match serde_json::to_value(self.rendered()) {
                Ok(value) => crate::json_edit::rewrite_text(Some(original), &value),
                Err(_) => self.render(),
            },
            None => self.render(),
        }
    }
}

/// The lessons file as written: `lessons` first, then unknown top-level fields in their order.
#[derive(serde::Serialize)]
struct RenderedFile<'a> {
    lessons: Vec<RenderedEntry<'a>>,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // short-lived, one per lesson while writing
enum RenderedEntry<'a> {
    Valid(crate::lessons::model::RawLesson),
    Invalid(&'a Value),
}

/// Two lessons with the same scope and triggers would share an id; the later one gets a suffix
/// so `rm`/`show` can still address each (only when the ids were not stored).
fn make_unique(lesson: &mut Lesson, seen: &mut std::collections::HashSet<String>) {
    if seen.insert(lesson.id.clone()) {
        return;
    }
    let base = lesson.id.clone();
    for suffix in 2.. {
        let candidate = format!("{base}-{suffix}");
        if seen.insert(candidate.clone()) {
            lesson.id = candidate;
            return;
        }
    }
}

/// The candidate pool in memory; entries car cannot read are kept verbatim.
#[derive(Debug, Clone, Default)]
pub(crate) struct CandidateFile {
    pub(crate) path: PathBuf,
    pub(crate) candidates: Vec<Candidate>,
    pub(crate) unreadable: Vec<Value>,
    pub(crate) extra: Map<String, Value>,
}

impl CandidateFile {
    pub(crate) fn load(path: &Path) -> Result<CandidateFile, LessonsError> {
        let Some(text) = files::read_optional(path)? else {
            return Ok(CandidateFile {
                path: path.to_path_buf(),
                ..CandidateFile::default()
            });
        };
        CandidateFile::parse(path, &text)
    }

    /// Parses candidate-pool text; `path` is for messages.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<CandidateFile, LessonsError> {
        let document = parse_document(path, text)?;
        let raw: RawCandidateFile =
            serde_json::from_value(Value::Object(document)).map_err(|error| {
                LessonsError::Shape {
                    path: path.to_path_buf(),
                    message: format!("\"candidates\" must be an array ({error})"),
                }
            })?;
        let mut file = CandidateFile {
            path: path.to_path_buf(),
            extra: raw.extra,
            ..CandidateFile::default()
        };
        for value in raw.candidates {
            match serde_json::from_value::<Candidate>(value.clone()) {
                Ok(candidate) => file.candidates.push(candidate),
                Err(_) => file.unreadable.push(value),
            }
        }
        Ok(file)
    }

    pub(crate) fn render(&self) -> String {
        let mut list: Vec<Value> = self
            .candidates
            .iter()
            .map(|candidate| serde_json::to_value(candidate).unwrap_or(Value::Null))
            .collect();
        list.extend(self.unreadable.iter().cloned());
        let mut object = Map::new();
        object.insert("candidates".into(), Value::Array(list));
        for (key, value) in &self.extra {
            object.insert(key.clone(), value.clone());
        }
        render_json(&Value::Object(object))
    }

    pub(crate) fn save(&self) -> Result<(), LessonsError> {
        files::write_atomic(&self.path, self.render().as_bytes())?;
        Ok(())
    }
}

/// Load, change and save the candidate pool under its lock (the lessons file's counterpart is
/// [`crate::lessons::library::with_lessons`]). `change` returns its result and whether it changed
/// anything; nothing is written otherwise.
pub(crate) fn with_candidates<T>(
    path: &Path,
    wait: Duration,
    change: impl FnOnce(&mut CandidateFile) -> Result<(T, bool), LessonsError>,
) -> Result<T, LessonsError> {
    let _lock = FileLock::acquire(path, wait)?;
    let mut file = CandidateFile::load(path)?;
    let (result, changed) = change(&mut file)?;
    if changed {
        file.save()?;
    }
    Ok(result)
}

/// The user-wide lessons file ([`crate::paths::user_lessons_file`]).
pub(crate) fn user_lessons_path() -> Option<PathBuf> {
    crate::paths::user_lessons_file()
}

/// Where the hook keeps the index of the user-wide lessons: in car's cache folder (the user's
/// config folder is only ever read).
pub(crate) fn user_index_path() -> Option<PathBuf> {
    crate::paths::cache_dir().map(|dir| dir.join(crate::state::names::USER_LESSONS_INDEX))
}

/// The top-level object of a lesson or candidate file; empty text is an empty object.
fn parse_document(path: &Path, text: &str) -> Result<Map<String, Value>, LessonsError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(LessonsError::Shape {
            path: path.to_path_buf(),
            message: "the top level must be a JSON object".into(),
        }),
        Err(error) => {
            let located = crate::text::JsonError::locate(text, &error);
            Err(LessonsError::Corrupt {
                path: path.to_path_buf(),
                line: located.line,
                column: located.column,
                message: located.message,
            })
        }
    }
}

fn render_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::HOOK_LOCK_WAIT;

    const SEED: &str = r#"{"lessons": [{"scope": "*.py", "triggers": ["import os.path"],
        "lesson": "use pathlib", "weight": 2, "created": "2026-05-21", "note": "keep me"},
        {"scope": "*.py", "triggers": ["regex:("], "lesson": "broken"}], "version": 3}"#;

    #[test]
    fn seed_file_round_trips_and_keeps_invalid_entries() {
        let file = LessonFile::parse(Path::new("l.json"), SEED).unwrap();
        assert_eq!(file.lessons().count(), 2, "regexes compile lazily");
        let text = file.render();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], 3);
        assert_eq!(value["lessons"][0]["note"], "keep me");
        assert_eq!(value["lessons"][1]["triggers"][0], "regex:(");
        let no_triggers = r#"{"lessons": [{"scope": "*", "lesson": "x", "odd": 1}]}"#;
        let file = LessonFile::parse(Path::new("l.json"), no_triggers).unwrap();
        assert_eq!(file.problems().len(), 1);
        assert!(file.render().contains("\"odd\": 1"));
    }

    #[test]
    fn corrupt_file_names_path_and_line_and_stays_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        let broken = "{\"lessons\": [\n  {\"scope\": \"*.py\",,}\n]}";
        std::fs::write(&path, broken).unwrap();
        let error =
            crate::lessons::library::with_lessons(&path, HOOK_LOCK_WAIT, |_| Ok(((), true)))
                .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("lessons.json:2:"), "{message}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    }

    #[test]
    fn empty_objects_are_empty_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, "{}").unwrap();
        assert!(CandidateFile::load(&path).unwrap().candidates.is_empty());
        assert_eq!(LessonFile::parse(&path, "{}").unwrap().entries.len(), 0);
        assert_eq!(LessonFile::parse(&path, "").unwrap().entries.len(), 0);
        assert!(LessonFile::parse(&path, "[]").is_err());
    }

    #[test]
    fn duplicate_computed_ids_get_suffixes() {
        let text = r#"{"lessons": [{"scope": "*", "triggers": ["abcd"], "lesson": "a"},
            {"scope": "*", "triggers": ["abcd"], "lesson": "b"}]}"#;
        let file = LessonFile::parse(Path::new("l.json"), text).unwrap();
        let ids: Vec<&str> = file.lessons().map(|l| l.id.as_str()).collect();
        assert_eq!(ids[1], format!("{}-2", ids[0]));
    }
}
