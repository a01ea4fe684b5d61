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
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

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

fn read_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

fn read_u64(bytes: &[u8]) -> u64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}

/// An open, fresh index: the head sections in memory, the rest read where lookups point.
struct IndexReader {
    file: std::fs::File,
    lesson_count: usize,
    table_bits: u32,
    starts: [u64; SECTIONS],
    sizes: [u64; SECTIONS],
    head: Vec<u8>,
}

impl IndexReader {
    /// Opens the index if it was built from exactly this version of the lessons file and is
    /// whole: sizes that add up to the file, a matching checksum.
    fn open(index: &Path, stamp: Stamp) -> Option<IndexReader> {
        let (mut file, length) = crate::files::open_regular(index).ok()?;
        if !(HEADER as u64..=MAX_INDEX_BYTES).contains(&length) {
            return None;
        }
        let mut header = [0u8; HEADER];
        file.read_exact(&mut header).ok()?;
        if &header[..8] != MAGIC || Stamp::from_header(&header) != stamp {
            return None;
        }
        let table_bits = read_u32(&header[40..]);
        let mut sizes = [0u64; SECTIONS];
        let mut starts = [0u64; SECTIONS];
        let mut at = HEADER as u64;
        for (index, size) in sizes.iter_mut().enumerate() {
            *size = read_u64(&header[44 + index * 8..]);
            starts[index] = at;
            at = at.checked_add(*size)?;
        }
        let lesson_count = read_u32(&header[36..]) as usize;
        if at != length || !Self::is_shaped(table_bits, &sizes, lesson_count) {
            return None;
        }
        let head_len = usize::try_from(starts[Section::Records as usize] - HEADER as u64).ok()?;
        // Read into spare capacity: zeroing the buffer first (`vec![0; len]`) cost more than the
        // read itself (the slot table is most of the head).
        let mut head = Vec::with_capacity(head_len);
        (&mut file)
            .take(head_len as u64)
            .read_to_end(&mut head)
            .ok()?;
        if head.len() != head_len {
            return None;
        }
        let reader = IndexReader {
            file,
            lesson_count,
            table_bits,
            starts,
            sizes,
            head,
        };
        let sections: Vec<&[u8]> = [
            Section::Slots,
            Section::Entries,
            Section::Always,
            Section::Pending,
        ]
        .into_iter()
        .map(|section| reader.head_section(section))
        .collect();
        let stored = read_u64(&header[CHECKSUM_AT..]);
        (checksum(&header[..CHECKSUM_AT], &sections) == stored).then_some(reader)
    }

    /// Whether the section sizes fit the layout `build` writes.
    fn is_shaped(table_bits: u32, sizes: &[u64; SECTIONS], lesson_count: usize) -> bool {
        let size = |section: Section| sizes[section as usize];
        (4..=30).contains(&table_bits)
            && size(Section::Slots) == (8u64 << table_bits)
            && size(Section::Entries) % 4 == 0
            && size(Section::Always) % 4 == 0
            && size(Section::Records) % 20 == 0
            && size(Section::KeyLessons) % 4 == 0
            && size(Section::Offsets) == 8 * (lesson_count as u64 + 1)
    }

    fn head_section(&self, section: Section) -> &[u8] {
        let start = (self.starts[section as usize] - HEADER as u64) as usize;
        &self.head[start..start + self.sizes[section as usize] as usize]
    }

    /// `len` bytes at `offset` inside a section that is not in memory.
    fn read_at(&self, section: Section, offset: u64, len: usize) -> Option<Vec<u8>> {
        if offset.checked_add(len as u64)? > self.sizes[section as usize] {
            return None;
        }
        let mut handle = &self.file;
        handle
            .seek(SeekFrom::Start(self.starts[section as usize] + offset))
            .ok()?;
        let mut bytes = vec![0u8; len];
        handle.read_exact(&mut bytes).ok()?;
        Some(bytes)
    }

    /// Lesson ids whose keys occur in the lowercased text.
    fn candidates(&self, lowered: &[u8]) -> Option<Vec<u32>> {
        let slots = self.head_section(Section::Slots);
        let entries = self.head_section(Section::Entries);
        let mask = (1usize << self.table_bits) - 1;
        // Keys read once per lookup: a frequent gram must not cost a read per occurrence.
        let mut keys: HashMap<u32, ([u32; 5], Vec<u8>)> = HashMap::new();
        let mut matched: HashSet<u32> = HashSet::new();
        let mut found = Vec::new();
        for (position, window) in lowered.windows(GRAM).enumerate() {
            let gram = gram_of(window);
            let mut slot = slot_of(gram, self.table_bits);
            // A sound table always has an empty slot; a damaged one may not: each slot at most once.
            let mut probes = 0;
            loop {
                probes += 1;
                if probes > mask + 1 {
                    return None;
                }
                let start = read_u32(slots.get(slot * 8 + 4..slot * 8 + 8)?);
                if start == u32::MAX {
                    break;
                }
                if read_u32(slots.get(slot * 8..slot * 8 + 4)?) == gram {
                    let start = start as usize;
                    let count = read_u32(entries.get(start * 4..start * 4 + 4)?) as usize;
                    let ids = entries.get((start + 1) * 4..(start + 1 + count) * 4)?;
                    for key in ids.chunks_exact(4).map(read_u32) {
                        if matched.contains(&key) {
                            continue;
                        }
                        let (record, bytes) = match keys.entry(key) {
                            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
                            std::collections::hash_map::Entry::Vacant(entry) => {
                                entry.insert(self.key(key, gram)?)
                            }
                        };
                        if occurs_at(record, bytes, lowered, position) {
                            matched.insert(key);
                            found.extend(self.key_lessons(record)?);
                        }
                    }
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        Some(found)
    }

    fn record(&self, key: u32) -> Option<[u32; 5]> {
        let bytes = self.read_at(Section::Records, u64::from(key) * 20, 20)?;
        let mut record = [0u32; 5];
        for (index, value) in record.iter_mut().enumerate() {
            *value = read_u32(&bytes[index * 4..]);
        }
        Some(record)
    }

    /// A key's record and bytes, checked: a key is at least a gram long and holds the gram it
    /// was filed under at the recorded offset (a zeroed or shifted key fails this).
    fn key(&self, key: u32, gram: u32) -> Option<([u32; 5], Vec<u8>)> {
        let record = self.record(key)?;
        let [_, length, gram_offset, _, count] = record;
        let gram_end = (gram_offset as usize).checked_add(GRAM)?;
        if (length as usize) < gram_end || count == 0 {
            return None;
        }
        let bytes = self.read_at(Section::KeyBytes, u64::from(record[0]), length as usize)?;
        (gram_of(&bytes[gram_offset as usize..gram_end]) == gram).then_some((record, bytes))
    }

    /// The lesson ids of a key, each checked against the lesson count.
    fn key_lessons(&self, record: &[u32; 5]) -> Option<Vec<u32>> {
        let [_, _, _, start, count] = *record;
        let bytes = self.read_at(
            Section::KeyLessons,
            u64::from(start) * 4,
            count as usize * 4,
        )?;
        let ids: Vec<u32> = bytes.chunks_exact(4).map(read_u32).collect();
        ids.iter()
            .all(|id| (*id as usize) < self.lesson_count)
            .then_some(ids)
    }

    fn lesson(&self, id: u32) -> Option<Lesson> {
        if id as usize >= self.lesson_count {
            return None;
        }
        let range = self.read_at(Section::Offsets, u64::from(id) * 8, 16)?;
        let (start, end) = (read_u64(&range), read_u64(&range[8..]));
        let blob = self.read_at(
            Section::Blobs,
            start,
            usize::try_from(end.checked_sub(start)?).ok()?,
        )?;
        let value: Value = serde_json::from_slice(&blob).ok()?;
        Lesson::from_value(&value).ok()
    }
}

/// Whether a key occurs in the text with its indexed gram at `position`.
fn occurs_at(record: &[u32; 5], bytes: &[u8], lowered: &[u8], position: usize) -> bool {
    let gram_offset = record[2] as usize;
    position
        .checked_sub(gram_offset)
        .and_then(|start| lowered.get(start..start + bytes.len()))
        == Some(bytes)
}

/// Reads a fresh index and answers from it; `None` when it is missing, stale or damaged.
fn read_shortlist(index: &Path, stamp: Stamp, lowered: &[u8]) -> Option<Shortlist> {
    let reader = IndexReader::open(index, stamp)?;
    let mut wanted = reader.candidates(lowered)?;
    let always: Vec<u32> = reader
        .head_section(Section::Always)
        .chunks_exact(4)
        .map(read_u32)
        .collect();
    if always.iter().any(|id| *id as usize >= reader.lesson_count) {
        return None;
    }
    wanted.extend(always);
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = Shortlist {
        pending_fix_files: notes::read(reader.head_section(Section::Pending))?.pending_fix_files,
        ..Shortlist::default()
    };
    for id in wanted {
        out.lessons.push(reader.lesson(id)?);
    }
    Some(out)
}

mod checksum;
mod notes;
mod patch;
#[cfg(test)]
mod tests;

pub(crate) use notes::problems_of;
pub(crate) use patch::patch;
