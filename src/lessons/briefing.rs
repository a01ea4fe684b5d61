//! The session-start briefing: the project's lessons an agent should know before its first edit,
//! as one compact list the agent reads as context (Claude Code, Codex and Gemini CLI put a
//! SessionStart `additionalContext` before the model).
//!
//! Invariants: only lessons that can fire here — not retired, weight at least
//! [`MIN_WEIGHT`] (a lighter one is an offer to the person, not advice), and a scope that matches
//! one of the project's files when the file list is known; heaviest first, then most heeded, then
//! most recently hit; at most [`MAX_BYTES`], whole lines only; nothing when no lesson qualifies.
//!
//! The same ranked lessons, those whose scope covers one file, are what the agent is given with
//! its writes of that file ([`for_files`], `hook::file_lessons`).
//!
//! Speed: reading a 10,000-lesson library costs hundreds of milliseconds, so the ranked lines
//! (the first [`CACHED_ROWS`]) are kept beside it in `lessons.json.briefing` ([`stored`]). A
//! session start reads only that, when it is current for the library file and its hit log; a look
//! for one file's lessons trusts it for the library file alone, and reads its first line alone
//! when no scope covers the file.

mod stored;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::lessons::LessonsError;
use crate::lessons::cache::Stamp;
use crate::lessons::counters::hits::HitLog;
use crate::lessons::model::Lesson;
use crate::lessons::provenance::Source;
use crate::scope::{Scope, ScopeSet};
use stored::{Cache, Selection, distinct_scopes, rank_and_cache, read_cache};

/// The briefing's size bound.
const MAX_BYTES: usize = 4 * 1024;

/// Lessons lighter than this are not briefed.
const MIN_WEIGHT: u32 = 2;

/// How many ranked lines the cache keeps (a briefing of 4 KB holds a few dozen; the rest leaves
/// room for lessons whose scope matches no file of the project).
const CACHED_ROWS: usize = 400;

/// One ranked lesson: its id, its scope, its line in the briefing and where it came from (the
/// source field as stored; `None` for a lesson written by hand in an older file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) scope: String,
    pub(crate) line: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<String>,
}

impl Row {
    /// Where the lesson came from, when its file says.
    pub(crate) fn source(&self) -> Option<Source> {
        self.source.as_deref().and_then(Source::parse)
    }
}

/// Where the listed lessons came from, in words: `fixed review findings and mistakes made here`.
pub(crate) fn origins(sources: &[Option<Source>]) -> String {
    let mut origins: Vec<&str> = Vec::new();
    for source in sources {
        let words = source.map_or("lessons written by hand", Source::origin_words);
        if !origins.contains(&words) {
            origins.push(words);
        }
    }
    match origins.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "this project".to_string(),
    }
}

/// The briefing's first line, saying truly where the listed lessons came from.
fn header(sources: &[Option<Source>]) -> String {
    format!(
        "car: lessons for this project's code, heaviest first (from {}). Keep them in mind; each names the code that sets it off:",
        origins(sources)
    )
}

/// The briefing for the library at `lessons_file`, given the project's files (`None` when car
/// cannot list them: then every scope counts). `Ok(None)` when nothing qualifies or the file is
/// gone; an error names the library car cannot read (its path and line), for the person.
pub(crate) fn for_library(
    lessons_file: &Path,
    files: Option<&[String]>,
) -> Result<Option<String>, LessonsError> {
    let Some(stamp) = Stamp::of(lessons_file) else {
        return Ok(None);
    };
    let hits = HitLog::of(lessons_file).size();
    let cached = read_cache(lessons_file)
        .filter(|cache| cache.header.library == stamp.key() && cache.header.hits == hits)
        .and_then(Cache::rows);
    let rows = match cached {
        Some(rows) => rows,
        None => rank_and_cache(lessons_file, stamp)?,
    };
    Ok(render(&rows, files))
}

/// The ranked lessons whose scope covers one of `files` (project-relative), best first, each
/// with the indexes of the files it covers; for each file at most `limit` rows that cover it.
/// Empty when the library is gone.
///
/// Cheap when no lesson applies: a cache of the current library file is trusted even when hits
/// were recorded since it was ranked (weights move by one a heeded warning; they are current
/// again at the next session start), and its first line, the scopes, decides; otherwise the rows
/// are read only until each file has its `limit`, and only those that cover a file are parsed.
pub(crate) fn for_files(
    lessons_file: &Path,
    files: &[&str],
    limit: usize,
) -> Result<Vec<(Row, Vec<usize>)>, LessonsError> {
    let Some(stamp) = Stamp::of(lessons_file) else {
        return Ok(Vec::new());
    };
    if let Some(cache) =
        read_cache(lessons_file).filter(|cache| cache.header.library == stamp.key())
    {
        let scopes = covering(&cache.header.scopes, files);
        if scopes.values().all(Vec::is_empty) {
            return Ok(Vec::new());
        }
        let mut selection = Selection::new(&scopes, files.len(), limit);
        if cache.offer_rows(&mut selection).is_some() {
            return Ok(selection.rows);
        }
    }
    let rows = rank_and_cache(lessons_file, stamp)?;
    let scopes = covering(&distinct_scopes(&rows), files);
    let mut selection = Selection::new(&scopes, files.len(), limit);
    for row in rows {
        if selection.is_full() {
            break;
        }
        let scope = row.scope.clone();
        selection.offer(&scope, || Some(row));
    }
    Ok(selection.rows)
}

/// Each scope that may cover one of the `files`: the indexes of those it covers (a scope car
/// cannot read covers none).
fn covering(scopes: &[String], files: &[&str]) -> BTreeMap<String, Vec<usize>> {
    // Compiling a glob into its matcher costs far more than the rest of a look that finds
    // nothing: scopes whose name part rules every file out are never compiled, nor the simplest
    // ones (`*.py`, `Makefile`), decided by their text.
    let mut simple: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut parsed: Vec<(String, Scope)> = Vec::new();
    for text in scopes
        .iter()
        .filter(|text| files.iter().any(|file| may_cover(text, file)))
    {
        match simple_cover(text, files) {
            Some(covered) => {
                simple.insert(text.clone(), covered);
            }
            None => {
                if let Ok(scope) = Scope::parse(text) {
                    parsed.push((text.clone(), scope));
                }
            }
        }
    }
    let set = ScopeSet::new(&parsed.iter().map(|(_, scope)| scope).collect::<Vec<_>>());
    let mut covered = vec![Vec::new(); parsed.len()];
    for (file_index, file) in files.iter().enumerate() {
        for (index, hit) in set.matching(file).into_iter().enumerate() {
            if hit {
                covered[index].push(file_index);
            }
        }
    }
    parsed
        .into_iter()
        .map(|(text, _)| text)
        .zip(covered)
        .chain(simple)
        .collect()
}

/// The indexes of the `files` a scope of the simplest kinds covers
/// ([`crate::scope::simple_match`]); `None` when the scope needs its glob.
fn simple_cover(scope: &str, files: &[&str]) -> Option<Vec<usize>> {
    let mut covered = Vec::new();
    for (index, file) in files.iter().enumerate() {
        if crate::scope::simple_match(scope, file)? {
            covered.push(index);
        }
    }
    Some(covered)
}

/// False only when `scope` cannot cover `file`: the scope's last part is `*` and a literal
/// suffix (`*.rs`, `src/**/*.swift`) that the file's name does not end with. A `*` never crosses
/// a `/`, so whatever the scope matches ends with that suffix.
fn may_cover(scope: &str, file: &str) -> bool {
    let last = scope.trim().rsplit('/').next().unwrap_or_default();
    let Some(suffix) = last.strip_prefix('*') else {
        return true;
    };
    let is_literal = !suffix.is_empty() && !suffix.contains(['*', '?', '[', ']', '{', '}', '\\']);
    !is_literal || file.ends_with(suffix)
}

/// The lessons worth briefing, best first, as lines.
fn ranked_rows<'a>(lessons: impl IntoIterator<Item = &'a Lesson>) -> Vec<Row> {
    let mut chosen: Vec<&Lesson> = lessons
        .into_iter()
        .filter(|lesson| !lesson.is_retired() && lesson.weight >= MIN_WEIGHT)
        .collect();
    chosen.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then(b.heeded.cmp(&a.heeded))
            .then(b.last_hit.cmp(&a.last_hit))
            .then(a.id.cmp(&b.id))
    });
    chosen
        .into_iter()
        .take(CACHED_ROWS)
        .map(|lesson| Row {
            id: lesson.id.clone(),
            scope: lesson.scope.as_str().to_string(),
            line: line_of(lesson),
            source: Source::of(&lesson.extra).map(|source| source.as_str().to_string()),
        })
        .collect()
}

/// The briefing text: the rows whose scope covers one of `files` (all when `None`), in order,
/// whole lines up to [`MAX_BYTES`].
fn render(rows: &[Row], files: Option<&[String]>) -> Option<String> {
    let applies = scopes_that_apply(rows, files);
    // The header's words are at most a line; the lines below it keep to the bound with it.
    let room = MAX_BYTES.saturating_sub(header(&[]).len() + 120);
    let mut lines = String::new();
    let mut sources = Vec::new();
    for row in rows {
        if !applies.get(&row.scope).copied().unwrap_or(false) {
            continue;
        }
        if lines.len() + 1 + row.line.len() > room {
            break;
        }
        lines.push('\n');
        lines.push_str(&row.line);
        sources.push(row.source());
    }
    (!sources.is_empty()).then(|| format!("{}{lines}", header(&sources)))
}

/// Each distinct scope of `rows`: does it cover one of `files`?
fn scopes_that_apply(rows: &[Row], files: Option<&[String]>) -> BTreeMap<String, bool> {
    let distinct: Vec<(String, Scope)> = {
        let mut seen = BTreeMap::new();
        for row in rows {
            if !seen.contains_key(&row.scope)
                && let Ok(scope) = Scope::parse(&row.scope)
            {
                seen.insert(row.scope.clone(), scope);
            }
        }
        seen.into_iter().collect()
    };
    let Some(files) = files else {
        return distinct.into_iter().map(|(text, _)| (text, true)).collect();
    };
    let scopes: Vec<&Scope> = distinct.iter().map(|(_, scope)| scope).collect();
    let set = ScopeSet::new(&scopes);
    let mut applies = vec![false; distinct.len()];
    for file in files {
        for (index, hit) in set.matching(file).into_iter().enumerate() {
            applies[index] |= hit;
        }
        if applies.iter().all(|hit| *hit) {
            break;
        }
    }
    distinct
        .into_iter()
        .zip(applies)
        .map(|((text, _), hit)| (text, hit))
        .collect()
}

/// `- `trigger` (scope, weight N): the lesson`.
fn line_of(lesson: &Lesson) -> String {
    let triggers: Vec<String> = lesson
        .triggers
        .iter()
        .take(3)
        .map(|trigger| {
            let readable = super::trigger::text::readable(trigger.as_str());
            format!("`{}`", one_line(&readable, 80))
        })
        .collect();
    format!(
        "- {} ({}, weight {}): {}",
        triggers.join(" or "),
        lesson.scope.as_str(),
        lesson.weight,
        one_line(&lesson.text, 300)
    )
}

/// `text` on one line, cut at `limit` characters with `…`.
fn one_line(text: &str, limit: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() <= limit {
        return flat;
    }
    let cut: String = flat.chars().take(limit).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::stored::{HEADER_READ, cache_path};
    use super::*;

    fn row(scope: &str, line: &str) -> Row {
        Row {
            id: line.into(),
            scope: scope.into(),
            line: line.into(),
            source: None,
        }
    }

    #[test]
    fn only_scopes_that_cover_a_file_and_whole_lines_within_the_bound() {
        let rows = vec![
            row("**/*.go", "- go"),
            row("**/*.py", "- py one"),
            row("src/**", "- src"),
            row("**/*.py", &format!("- {}", "x".repeat(MAX_BYTES))),
            row("**/*.py", "- py two"),
        ];
        let files = vec!["src/app.py".to_string(), "README.md".to_string()];
        let text = render(&rows, Some(&files)).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            ["- py one", "- src"],
            "stops at the first line too long"
        );
        assert!(
            render(&rows[..1], Some(&files)).is_none(),
            "no Go file here"
        );
        assert!(
            render(&rows[..1], None).is_some(),
            "no file list: every scope counts"
        );
    }

    /// The cache answers as the library does, whether its header fits the first read or not.
    #[test]
    fn the_cache_answers_as_the_library_does() {
        for scopes in [3, 80] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("lessons.json");
            let lessons: Vec<serde_json::Value> = (0..scopes)
                .map(|index| {
                    serde_json::json!({"scope": format!("area{index}/a/long/folder/name/**/*.py"),
                        "triggers": [format!("old_call_{index}(")], "lesson": format!("lesson {index}"),
                        "weight": 3})
                })
                .collect();
            std::fs::write(&path, serde_json::json!({ "lessons": lessons }).to_string()).unwrap();
            let file = "area2/a/long/folder/name/x/app.py";
            let fresh = for_files(&path, &[file, "other.rs"], 3).unwrap();
            let header = std::fs::read_to_string(cache_path(&path)).unwrap();
            let header_length = header.lines().next().unwrap().len();
            assert_eq!(header_length > HEADER_READ, scopes == 80, "{header_length}");
            let cached = for_files(&path, &[file, "other.rs"], 3).unwrap();
            assert_eq!(fresh, cached);
            assert_eq!(cached.len(), 1);
            assert_eq!(
                cached[0].0.line,
                "- `old_call_2(` (area2/a/long/folder/name/**/*.py, weight 3): lesson 2"
            );
            assert_eq!(cached[0].1, [0]);
            assert!(for_files(&path, &["other.rs"], 3).unwrap().is_empty());
            let briefing = for_library(&path, None).unwrap().unwrap();
            assert_eq!(briefing, for_library(&path, None).unwrap().unwrap());
            assert!(briefing.contains("lesson 2"), "{briefing}");
        }
    }

    /// The shortcut never rules out a file the scope's matcher covers.
    #[test]
    fn may_cover_agrees_with_the_matcher() {
        let scopes = [
            "*.rs",
            "src/**/*.swift",
            "*.{ts,tsx}",
            "**",
            "*",
            "",
            "Makefile",
            "a*b.py",
            "*py",
            "docs/*.md",
            "*.R",
            "**/*.py",
            "*[ab].c",
        ];
        let files = [
            "main.rs",
            "src/a/b.swift",
            "b.swift",
            "x.tsx",
            "Makefile",
            "a1b.py",
            "x.py",
            "docs/x.md",
            "x.r",
            "src/y.py",
            "xa.c",
            "README",
        ];
        let mut ruled_out = 0;
        for scope in scopes {
            let matcher = Scope::parse(scope).unwrap();
            for file in files {
                if !may_cover(scope, file) {
                    ruled_out += 1;
                    assert!(!matcher.matches(file), "{scope} covers {file}");
                }
            }
        }
        assert!(
            ruled_out > 30,
            "the shortcut rules out most pairs: {ruled_out}"
        );
    }

    #[test]
    fn the_header_names_where_the_listed_lessons_came_from() {
        assert!(
            header(&[Some(Source::Review), Some(Source::Validator)])
                .contains("(from fixed review findings and mistakes made here)")
        );
        assert!(header(&[None]).contains("(from lessons written by hand)"));
        assert!(
            header(&[Some(Source::Starter), Some(Source::Starter)])
                .contains("(from car's starter set)")
        );
    }
}
