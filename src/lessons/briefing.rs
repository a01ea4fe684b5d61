//! The session-start briefing: the project's lessons an agent should know before its first edit,
//! as one compact list the agent reads as context (Claude Code, Codex and Gemini CLI put a
//! SessionStart `additionalContext` before the model).
//!
//! Invariants: only lessons that can fire here — not retired, weight at least
//! [`MIN_WEIGHT`] (a lighter one is an offer to the person, not advice), and a scope that matches
//! one of the project's files when the file list is known; heaviest first, then most heeded, then
//! most recently hit; at most [`MAX_BYTES`], whole lines only; nothing when no lesson qualifies.
//!
//! The same ranked lessons, those whose scope covers one file, are what the PreToolUse hook
//! gives the agent before it edits that file ([`for_files`], `hook::file_lessons`).
//!
//! Speed: reading a 10,000-lesson library costs hundreds of milliseconds, so the ranked lines
//! (the first [`CACHED_ROWS`]) are kept beside it in `lessons.json.briefing`: a first line naming
//! the library file and hit log they were ranked from and their distinct scopes, then one row a
//! line. A session start reads only that, when it is current for both; a look before an edit
//! reads its first line alone when no scope covers the file. Writing it is best effort: a
//! failure costs speed, never the briefing.

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::lessons::LessonsError;
use crate::lessons::cache::Stamp;
use crate::lessons::counters::hits::HitLog;
use crate::lessons::model::Lesson;
use crate::lessons::provenance::Source;
use crate::scope::{Scope, ScopeSet};

/// The briefing's size bound.
const MAX_BYTES: usize = 4 * 1024;

/// Lessons lighter than this are not briefed.
const MIN_WEIGHT: u32 = 2;

/// How many ranked lines the cache keeps (a briefing of 4 KB holds a few dozen; the rest leaves
/// room for lessons whose scope matches no file of the project).
const CACHED_ROWS: usize = 400;

/// The cache's size bound when read.
const MAX_CACHE_BYTES: u64 = 1024 * 1024;

/// The first read of the cache, on the stack: its header line is usually within it.
const HEADER_READ: usize = 1000;

/// The buffer the cache's rows are read through.
const ROW_READ: usize = 512;

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

/// The cache file's first line: what its rows were ranked from, and their distinct scopes; one
/// row a line follows. A lookup for one file reads this line alone when no scope covers it.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    /// The library file's version ([`Stamp::key`]) when ranked.
    library: String,
    /// The hit log's length then.
    hits: u64,
    /// The rows' scopes, each once, in order of first use.
    scopes: Vec<String>,
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

/// The rows chosen for some files, in rank order: those whose scope covers a file that has fewer
/// than `limit` yet.
struct Selection<'a> {
    /// Each scope: the files it covers.
    scopes: &'a BTreeMap<String, Vec<usize>>,
    per_file: Vec<usize>,
    limit: usize,
    rows: Vec<(Row, Vec<usize>)>,
}

impl<'a> Selection<'a> {
    fn new(scopes: &'a BTreeMap<String, Vec<usize>>, file_count: usize, limit: usize) -> Self {
        Selection {
            scopes,
            per_file: vec![0; file_count],
            limit,
            rows: Vec::new(),
        }
    }

    fn is_full(&self) -> bool {
        self.per_file.iter().all(|count| *count >= self.limit)
    }

    /// Takes the row of `scope` (read by `row` only when it is wanted).
    fn offer(&mut self, scope: &str, row: impl FnOnce() -> Option<Row>) {
        let Some(covered) = self.scopes.get(scope) else {
            return;
        };
        if !covered.iter().any(|file| self.per_file[*file] < self.limit) {
            return;
        }
        let Some(row) = row() else {
            return;
        };
        for file in covered {
            self.per_file[*file] += 1;
        }
        self.rows.push((row, covered.clone()));
    }
}

/// The cache as opened: its header read, its rows not yet (a look that finds no scope covering
/// its files never reads them). A row's line is its scope's index in the header, a tab, and the
/// row's JSON.
struct Cache {
    header: Header,
    file: std::fs::File,
    /// Where the rows begin in the file.
    rows_at: u64,
}

impl Cache {
    /// The rows; a line car cannot read is left out (the cache is rewritten at the next change).
    /// `None` when the file cannot be read on.
    fn rows(self) -> Option<Vec<Row>> {
        let mut rows = Vec::new();
        self.each_line(|_, json| {
            if let Ok(row) = serde_json::from_slice(json) {
                rows.push(row);
            }
            true
        })?;
        Some(rows)
    }

    /// Offers the rows in order to `selection` until it is full (`None`: the file cannot be read
    /// on).
    fn offer_rows(self, selection: &mut Selection<'_>) -> Option<()> {
        let scopes = self.header.scopes.clone();
        self.each_line(|index, json| {
            if let Some(scope) = scopes.get(index) {
                selection.offer(scope, || serde_json::from_slice(json).ok());
            }
            !selection.is_full()
        })
    }

    /// Calls `visit` with each row line's scope index and JSON until it returns false.
    fn each_line(mut self, mut visit: impl FnMut(usize, &[u8]) -> bool) -> Option<()> {
        self.file.seek(SeekFrom::Start(self.rows_at)).ok()?;
        // A small buffer: a large first allocation costs the allocator more than the reading.
        let mut reader =
            std::io::BufReader::with_capacity(ROW_READ, self.file).take(MAX_CACHE_BYTES);
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).ok()? == 0 {
                return Some(());
            }
            let Some(tab) = line.iter().position(|byte| *byte == b'\t') else {
                continue;
            };
            let index = std::str::from_utf8(&line[..tab])
                .ok()
                .and_then(|text| text.parse().ok());
            let Some(index) = index else {
                continue;
            };
            if !visit(index, &line[tab + 1..]) {
                return Some(());
            }
        }
    }
}

/// The cache with its header read. The header is read through a buffer on the stack when it
/// fits: a look that ends there allocates no buffer (a first large allocation in the hook's
/// thread costs the allocator more than the whole look).
fn read_cache(lessons_file: &Path) -> Option<Cache> {
    let (mut file, size) = crate::files::open_regular(&cache_path(lessons_file)).ok()?;
    if size > MAX_CACHE_BYTES {
        return None;
    }
    let mut head = [0u8; HEADER_READ];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let (header, end) = match head[..filled].iter().position(|byte| *byte == b'\n') {
        Some(end) => (serde_json::from_slice(&head[..end]).ok()?, end),
        None => {
            // A header longer than the stack buffer (many scopes): read on to its end.
            let mut line = head[..filled].to_vec();
            file.seek(SeekFrom::Start(filled as u64)).ok()?;
            std::io::BufReader::new(&mut file)
                .take(MAX_CACHE_BYTES)
                .read_until(b'\n', &mut line)
                .ok()?;
            let end = line.iter().position(|byte| *byte == b'\n')?;
            (serde_json::from_slice(&line[..end]).ok()?, end)
        }
    };
    Some(Cache {
        header,
        file,
        rows_at: end as u64 + 1,
    })
}

/// Ranks the library's lessons (live weights) and caches the rows, best effort.
fn rank_and_cache(lessons_file: &Path, stamp: Stamp) -> Result<Vec<Row>, LessonsError> {
    // The hit log's length before the library is read: a hit recorded meanwhile makes the cache
    // look stale (ranked again), never current.
    let hits = HitLog::of(lessons_file).size();
    let library = crate::lessons::library::load_live(lessons_file)?;
    let rows = ranked_rows(library.lessons());
    let header = Header {
        library: stamp.key(),
        hits,
        scopes: distinct_scopes(&rows),
    };
    let index: std::collections::HashMap<&str, usize> = header
        .scopes
        .iter()
        .enumerate()
        .map(|(index, scope)| (scope.as_str(), index))
        .collect();
    if let Ok(mut text) = serde_json::to_vec(&header) {
        for row in &rows {
            text.push(b'\n');
            text.extend(format!("{}\t", index[row.scope.as_str()]).bytes());
            if serde_json::to_writer(&mut text, row).is_err() {
                return Ok(rows);
            }
        }
        text.push(b'\n');
        let _ = crate::files::write_atomic_unsynced(&cache_path(lessons_file), &text);
    }
    Ok(rows)
}

fn distinct_scopes(rows: &[Row]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    rows.iter()
        .filter(|row| seen.insert(row.scope.as_str()))
        .map(|row| row.scope.clone())
        .collect()
}

/// Each scope that may cover one of the `files`: the indexes of those it covers (a scope car
/// cannot read covers none).
fn covering(scopes: &[String], files: &[&str]) -> BTreeMap<String, Vec<usize>> {
    // Compiling a glob into its matcher costs far more than the rest of a look that finds
    // nothing: scopes whose name part rules every file out are never compiled.
    let parsed: Vec<(String, Scope)> = scopes
        .iter()
        .filter(|text| files.iter().any(|file| may_cover(text, file)))
        .filter_map(|text| Scope::parse(text).ok().map(|scope| (text.clone(), scope)))
        .collect();
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
        .collect()
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

fn cache_path(lessons_file: &Path) -> PathBuf {
    crate::files::sidecar(lessons_file, crate::state::names::BRIEFING_SUFFIX)
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
