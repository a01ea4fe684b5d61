//! The on-disk index of the project's lessons (`lessons.json.index`, git-ignored runtime state).
//!
//! Why: parsing 1,000 lessons and building their automaton costs several milliseconds on every
//! edit (benches/matching.rs), while matching itself costs microseconds. The index lets the hook
//! read only the lessons that can possibly fire on the edit's added text.
//!
//! How: every trigger gets keys — the literal itself, or a regex's required literals (see
//! `keyword`), ASCII-lowercased. Each key is filed under its rarest 4-byte gram in an
//! open-addressing table. A lookup walks the 4-grams of the lowercased added text, verifies the
//! keys filed under them, and reads the JSON of just the lessons those keys belong to, plus the
//! lessons that have a trigger without a usable key (shorter than 4 bytes, or a regex with no
//! required literal), which are always read.
//!
//! Invariants: the shortlist is a superset of the lessons that fire, so matching it gives exactly
//! the hits of matching the whole file (property-tested). The index is valid only for the exact
//! lessons file it was built from (size, modification time, inode); anything else, or any damage,
//! means it is rebuilt from the file. Writing it is best effort: a failure costs speed, never
//! correctness.
//!
//! Damage is found before it costs anything: the section sizes must add up to the file's length
//! (no allocation larger than the file), a checksum covers the header and the sections read in
//! one go, every probe of the table is bounded by its size, and every record, key and lesson id
//! read on demand is checked against its section (a zero-filled or truncated index is rebuilt,
//! never trusted and never spun on).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::files::{FileLock, HOOK_LOCK_WAIT};
use crate::lessons::LessonsError;
use crate::lessons::keyword::required_literals;
use crate::lessons::model::Lesson;
use crate::lessons::store::LessonFile;
use crate::lessons::trigger::Trigger;
use checksum::checksum;

const MAGIC: &[u8; 8] = b"CARIDX05";
const GRAM: usize = 4;
/// Magic, stamp (size, seconds, nanos, inode), lesson count, table bits, section sizes, checksum.
const HEADER: usize = 8 + 8 + 8 + 4 + 8 + 4 + 4 + 8 * SECTIONS + 8;
/// Where the checksum sits: the header's last 8 bytes.
const CHECKSUM_AT: usize = HEADER - 8;
/// An index larger than this is damaged (10,000 lessons make a few megabytes).
pub(super) const MAX_INDEX_BYTES: u64 = 512 * 1024 * 1024;

/// Identifies one version of the lessons file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    size: u64,
    seconds: i64,
    nanos: u32,
    inode: u64,
}

impl Stamp {
    pub(crate) fn of(path: &Path) -> Option<Stamp> {
        let metadata = std::fs::metadata(path).ok()?;
        let modified = metadata
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&metadata);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            size: metadata.len(),
            seconds: modified.as_secs() as i64,
            nanos: modified.subsec_nanos(),
            inode,
        })
    }

    /// The stamp as text, to key other caches of the same file by.
    pub(crate) fn key(&self) -> String {
        format!(
            "{}:{}.{}:{}",
            self.size, self.seconds, self.nanos, self.inode
        )
    }

    /// The stamp stored in an index header (bytes 8..36).
    fn from_header(header: &[u8]) -> Stamp {
        Stamp {
            size: read_u64(&header[8..]),
            seconds: read_u64(&header[16..]) as i64,
            nanos: read_u32(&header[24..]),
            inode: read_u64(&header[28..]),
        }
    }

    fn write_to(&self, out: &mut Vec<u8>) {
        out.extend(self.size.to_le_bytes());
        out.extend(self.seconds.to_le_bytes());
        out.extend(self.nanos.to_le_bytes());
        out.extend(self.inode.to_le_bytes());
    }
}

/// The lessons that may fire on one text, and what learning needs to know.
#[derive(Debug, Default)]
pub struct Shortlist {
    pub lessons: Vec<Lesson>,
    /// Project-relative files with a learned lesson waiting for its fix.
    pub(crate) pending_fix_files: Vec<String>,
}

/// Where the index of `lessons_file` lives.
pub fn index_path(lessons_file: &Path) -> PathBuf {
    crate::files::sidecar(lessons_file, crate::state::names::INDEX_SUFFIX)
}

/// The shortlist for `text` from the index, rebuilding it when stale. A missing lessons file is
/// an empty shortlist; a corrupt one is an error (and no index is written).
pub fn shortlist(lessons_file: &Path, text: &str) -> Result<Shortlist, LessonsError> {
    shortlist_with(lessons_file, &index_path(lessons_file), text, true)
}

/// [`shortlist`] with the index kept at `index` (the user-wide layer keeps its index in the
/// cache folder, never beside the user's file). With `may_write` false (`car check`, read-only)
/// a missing or stale index is not rebuilt: the file is matched in memory.
pub(crate) fn shortlist_with(
    lessons_file: &Path,
    index: &Path,
    text: &str,
    may_write: bool,
) -> Result<Shortlist, LessonsError> {
    let Some(stamp) = Stamp::of(lessons_file) else {
        return Ok(Shortlist::default());
    };
    let lowered = text.to_ascii_lowercase();
    if let Some(found) = read_shortlist(index, stamp, lowered.as_bytes()) {
        return Ok(found);
    }
    // One hook builds the index. The others wait for that build, bounded, and read it: parsing
    // every lesson is most of what a hook without the index costs (10,000 lessons: about 80% of
    // 500 M instructions against 2 M with the index), and 99 hooks of a burst each paying it made
    // the burst grow with the machine's load. A build that is not done in time is not waited
    // for any longer: the lessons are matched in memory.
    let lock = may_write.then(|| FileLock::acquire(index, Duration::ZERO));
    match lock {
        Some(Ok(_builder)) => {
            // Built meanwhile by the hook that held the lock before: use it.
            if let Some(found) = read_shortlist(index, stamp, lowered.as_bytes()) {
                return Ok(found);
            }
            let file = LessonFile::load(lessons_file)?;
            if write_index(index, &build(&file, stamp))
                && let Some(found) = read_shortlist(index, stamp, lowered.as_bytes())
            {
                return Ok(found);
            }
            return Ok(in_memory(&file, &lowered));
        }
        Some(Err(_)) => {
            // The lock is only taken to see the build end; the index is read without it (it is
            // replaced by a rename), so the waiting hooks do not queue behind each other.
            let build_ended = FileLock::acquire(index, HOOK_LOCK_WAIT).is_ok();
            if build_ended && let Some(found) = read_shortlist(index, stamp, lowered.as_bytes()) {
                return Ok(found);
            }
        }
        None => {}
    }
    Ok(in_memory(&LessonFile::load(lessons_file)?, &lowered))
}

fn in_memory(file: &LessonFile, lowered: &str) -> Shortlist {
    let lessons: Vec<&Lesson> = file.lessons().collect();
    shortlist_in_memory(&lessons, lowered)
}

/// Writes the index through a temporary file and a rename, without `fsync`: it is a cache, a
/// torn or lost one is rebuilt, and syncing would cost more than the rebuild. Parallel hooks may
/// race to write it; each renames a complete file.
fn write_index(index: &Path, bytes: &[u8]) -> bool {
    use std::io::Write;
    let Some(folder) = index.parent() else {
        return false;
    };
    if crate::files::ensure_parent(index).is_err() {
        return false;
    }
    let Ok(mut temp) = tempfile::Builder::new()
        .prefix(".car-index-")
        .tempfile_in(folder)
    else {
        return false;
    };
    temp.write_all(bytes).is_ok() && temp.persist(index).is_ok()
}

/// Rebuilds the index from the file car just saved (call it while still holding the lock, so
/// `file` is exactly what is on disk); keeps the next edit fast.
pub(crate) fn refresh(file: &LessonFile) {
    if let Some(stamp) = Stamp::of(&file.path) {
        write_index(&index_path(&file.path), &build(file, stamp));
    }
}

/// Keys of one trigger; `None` when the trigger has no usable key (the lesson is always read).
fn keys_of(trigger: &Trigger) -> Option<Vec<Vec<u8>>> {
    let keys: Vec<String> = match trigger {
        Trigger::Literal(text) => vec![text.clone()],
        Trigger::Pattern { .. } => required_literals(trigger.pattern()?)?,
    };
    keys.iter()
        .map(|key| (key.len() >= GRAM).then(|| key.to_ascii_lowercase().into_bytes()))
        .collect()
}

/// The same selection without an index (used right after a rebuild, and by tests).
pub(crate) fn shortlist_in_memory(lessons: &[&Lesson], lowered: &str) -> Shortlist {
    let mut out = Shortlist::default();
    for lesson in lessons {
        let keys: Option<Vec<Vec<u8>>> = lesson
            .triggers
            .iter()
            .map(keys_of)
            .collect::<Option<Vec<_>>>()
            .map(|nested| nested.concat());
        let possible = match keys {
            None => true,
            Some(keys) => keys.iter().any(|key| memfind(lowered.as_bytes(), key)),
        };
        if possible {
            out.lessons.push((*lesson).clone());
        }
        if let Some(file) = notes::pending_file(lesson) {
            out.pending_fix_files.push(file);
        }
    }
    out
}

fn memfind(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn gram_of(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

fn slot_of(gram: u32, bits: u32) -> usize {
    (gram.wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
}

/// Serialises the index of `file`. Layout: header, then the sections in [`Section`] order; the
/// first four are read in one go, the rest only where a lookup points.
pub(crate) fn build(file: &LessonFile, stamp: Stamp) -> Vec<u8> {
    let lessons: Vec<&Lesson> = file.lessons().collect();
    let (keys, always) = collect_keys(&lessons);
    let grams = rarest_grams(&keys);
    let (table_bits, slots, entries) = table(&grams);
    let (records, key_bytes, key_lessons) = key_sections(&keys, &grams);
    let pending: Vec<String> = lessons
        .iter()
        .filter_map(|l| notes::pending_file(l))
        .collect();
    let (offsets, blobs) = lesson_sections(&lessons);
    let sections: [Vec<u8>; SECTIONS] = [
        u32_bytes(&slots),
        u32_bytes(&entries),
        u32_bytes(&always),
        serde_json::to_vec(&notes::IndexNotes {
            pending_fix_files: pending,
            problems: file.problems(),
        })
        .unwrap_or_default(),
        u32_bytes(&records),
        key_bytes,
        u32_bytes(&key_lessons),
        offsets.iter().flat_map(|v| v.to_le_bytes()).collect(),
        blobs,
    ];
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    stamp.write_to(&mut out);
    out.extend((lessons.len() as u32).to_le_bytes());
    out.extend(table_bits.to_le_bytes());
    for section in &sections {
        out.extend((section.len() as u64).to_le_bytes());
    }
    let head: Vec<&[u8]> = sections[..Section::Records as usize]
        .iter()
        .map(Vec::as_slice)
        .collect();
    let sum = checksum(&out, &head);
    out.extend(sum.to_le_bytes());
    debug_assert_eq!(out.len(), HEADER);
    for section in sections {
        out.extend(section);
    }
    out
}

/// A distinct key (lowercased bytes) and the lessons it belongs to.
type KeyEntry = (Vec<u8>, Vec<u32>);

/// Each distinct key with the lessons it belongs to, and the lessons that must always be read.
fn collect_keys(lessons: &[&Lesson]) -> (Vec<KeyEntry>, Vec<u32>) {
    let mut keys: Vec<KeyEntry> = Vec::new();
    let mut key_ids: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut always: Vec<u32> = Vec::new();
    for (index, lesson) in lessons.iter().enumerate() {
        let Some(lesson_keys) = lesson
            .triggers
            .iter()
            .map(keys_of)
            .collect::<Option<Vec<_>>>()
        else {
            always.push(index as u32);
            continue;
        };
        for key in lesson_keys.into_iter().flatten() {
            let id = *key_ids.entry(key.clone()).or_insert_with(|| {
                keys.push((key, Vec::new()));
                keys.len() - 1
            });
            if keys[id].1.last() != Some(&(index as u32)) {
                keys[id].1.push(index as u32);
            }
        }
    }
    (keys, always)
}

/// The sections of the index, in file order.
#[derive(Clone, Copy)]
enum Section {
    Slots,
    Entries,
    Always,
    Pending,
    Records,
    KeyBytes,
    KeyLessons,
    Offsets,
    Blobs,
}

const SECTIONS: usize = 9;

fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// For each key: its rarest 4-gram (fewest keys share it) and where it sits in the key.
fn rarest_grams(keys: &[KeyEntry]) -> Vec<(u32, u32)> {
    let mut counts: HashMap<u32, u32> = HashMap::new();
    for (key, _) in keys {
        let distinct: HashSet<u32> = key.windows(GRAM).map(gram_of).collect();
        for gram in distinct {
            *counts.entry(gram).or_default() += 1;
        }
    }
    keys.iter()
        .map(|(key, _)| {
            key.windows(GRAM)
                .enumerate()
                .map(|(offset, window)| (gram_of(window), offset as u32))
                .min_by_key(|(gram, _)| counts.get(gram).copied().unwrap_or(0))
                .unwrap_or((0, 0))
        })
        .collect()
}

/// Open-addressing slots `[gram, start]` (start `u32::MAX` = empty) into entries laid out as
/// `count, key ids…` per gram.
fn table(grams: &[(u32, u32)]) -> (u32, Vec<u32>, Vec<u32>) {
    let mut by_gram: HashMap<u32, Vec<u32>> = HashMap::new();
    for (id, (gram, _)) in grams.iter().enumerate() {
        by_gram.entry(*gram).or_default().push(id as u32);
    }
    let bits = (by_gram.len() * 4 / 3 + 1)
        .max(16)
        .next_power_of_two()
        .trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut slots = vec![u32::MAX; 2 << bits];
    let mut entries: Vec<u32> = Vec::with_capacity(grams.len() * 2);
    let mut sorted: Vec<(&u32, &Vec<u32>)> = by_gram.iter().collect();
    sorted.sort();
    for (gram, ids) in sorted {
        let mut slot = slot_of(*gram, bits);
        while slots[slot * 2 + 1] != u32::MAX {
            slot = (slot + 1) & mask;
        }
        slots[slot * 2] = *gram;
        slots[slot * 2 + 1] = entries.len() as u32;
        entries.push(ids.len() as u32);
        entries.extend(ids);
    }
    (bits, slots, entries)
}

/// Per key `[bytes offset, length, gram offset, lessons offset, lessons count]`, the key bytes,
/// and the lesson ids.
fn key_sections(keys: &[KeyEntry], grams: &[(u32, u32)]) -> (Vec<u32>, Vec<u8>, Vec<u32>) {
    let mut records = Vec::with_capacity(keys.len() * 5);
    let mut key_bytes = Vec::new();
    let mut lesson_ids = Vec::new();
    for ((key, lessons), (_, gram_offset)) in keys.iter().zip(grams) {
        records.extend([
            key_bytes.len() as u32,
            key.len() as u32,
            *gram_offset,
            lesson_ids.len() as u32,
            lessons.len() as u32,
        ]);
        key_bytes.extend_from_slice(key);
        lesson_ids.extend_from_slice(lessons);
    }
    (records, key_bytes, lesson_ids)
}

/// Offsets (count + 1) of each lesson's JSON in the blob section, and the blobs.
fn lesson_sections(lessons: &[&Lesson]) -> (Vec<u64>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(lessons.len() + 1);
    let mut blobs = Vec::new();
    for lesson in lessons {
        offsets.push(blobs.len() as u64);
        blobs.extend(serde_json::to_vec(&lesson.to_raw()).unwrap_or_default());
    }
    offsets.push(blobs.len() as u64);
    (offsets, blobs)
}

mod checksum;
mod notes;
mod patch;
mod reader;
#[cfg(test)]
mod tests;

pub(crate) use notes::problems_of;
pub(crate) use patch::patch;
use reader::{IndexReader, read_shortlist, read_u32, read_u64};
