//! The briefing's ranked rows as kept beside the library (`lessons.json.briefing`): a first line
//! naming the library file and hit log they were ranked from and their distinct scopes, then one
//! row a line (its scope's index in that list, a tab, the row's JSON).
//!
//! Why this shape: a look for one file's lessons reads the first line alone when no scope covers
//! the file, and otherwise the rows only until it has what it needs, parsing only those of a
//! covering scope. Writing it is best effort: a failure costs speed, never the briefing.

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Row, ranked_rows};
use crate::lessons::LessonsError;
use crate::lessons::cache::Stamp;
use crate::lessons::counters::hits::HitLog;

/// The cache's size bound when read.
const MAX_CACHE_BYTES: u64 = 1024 * 1024;

/// The first read of the cache, on the stack: its header line is usually within it.
pub(super) const HEADER_READ: usize = 1000;

/// The buffer the cache's rows are read through.
const ROW_READ: usize = 512;

/// The cache file's first line: what its rows were ranked from, and their distinct scopes; one
/// row a line follows. A lookup for one file reads this line alone when no scope covers it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Header {
    /// The library file's version ([`Stamp::key`]) when ranked.
    pub(super) library: String,
    /// The hit log's length then.
    pub(super) hits: u64,
    /// The rows' scopes, each once, in order of first use.
    pub(super) scopes: Vec<String>,
}

/// The rows chosen for some files, in rank order: those whose scope covers a file that has fewer
/// than `limit` yet.
pub(super) struct Selection<'a> {
    /// Each scope: the files it covers.
    pub(super) scopes: &'a BTreeMap<String, Vec<usize>>,
    per_file: Vec<usize>,
    limit: usize,
    pub(super) rows: Vec<(Row, Vec<usize>)>,
}

impl<'a> Selection<'a> {
    pub(super) fn new(
        scopes: &'a BTreeMap<String, Vec<usize>>,
        file_count: usize,
        limit: usize,
    ) -> Self {
        Selection {
            scopes,
            per_file: vec![0; file_count],
            limit,
            rows: Vec::new(),
        }
    }

    pub(super) fn is_full(&self) -> bool {
        self.per_file.iter().all(|count| *count >= self.limit)
    }

    /// Takes the row of `scope` (read by `row` only when it is wanted).
    pub(super) fn offer(&mut self, scope: &str, row: impl FnOnce() -> Option<Row>) {
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
pub(super) struct Cache {
    pub(super) header: Header,
    file: std::fs::File,
    /// Where the rows begin in the file.
    rows_at: u64,
}

impl Cache {
    /// The rows; a line car cannot read is left out (the cache is rewritten at the next change).
    /// `None` when the file cannot be read on.
    pub(super) fn rows(self) -> Option<Vec<Row>> {
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
    pub(super) fn offer_rows(self, selection: &mut Selection<'_>) -> Option<()> {
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
pub(super) fn read_cache(lessons_file: &Path) -> Option<Cache> {
    let path = cache_path(lessons_file);
    let (mut file, size) = crate::files::open_regular(&path).ok()?;
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
pub(super) fn rank_and_cache(lessons_file: &Path, stamp: Stamp) -> Result<Vec<Row>, LessonsError> {
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

pub(super) fn distinct_scopes(rows: &[Row]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    rows.iter()
        .filter(|row| seen.insert(row.scope.as_str()))
        .map(|row| row.scope.clone())
        .collect()
}

pub(super) fn cache_path(lessons_file: &Path) -> PathBuf {
    crate::files::sidecar(lessons_file, crate::state::names::BRIEFING_SUFFIX)
}
