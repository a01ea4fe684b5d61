//! Reading the index: opening a fresh one (its stamp, sizes and checksum checked), the lessons a
//! text's 4-grams point at, and each lesson's JSON read on demand, bounded by its section.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use super::checksum::checksum;
use super::{
    CHECKSUM_AT, GRAM, HEADER, MAGIC, MAX_INDEX_BYTES, SECTIONS, Section, Shortlist, Stamp,
    gram_of, notes, slot_of,
};
use crate::lessons::model::Lesson;

pub(super) fn read_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

pub(super) fn read_u64(bytes: &[u8]) -> u64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}

/// An open, fresh index: the head sections in memory, the rest read where lookups point.
pub(super) struct IndexReader {
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
    pub(super) fn open(index: &Path, stamp: Stamp) -> Option<IndexReader> {
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

    pub(super) fn head_section(&self, section: Section) -> &[u8] {
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
pub(super) fn read_shortlist(index: &Path, stamp: Stamp, lowered: &[u8]) -> Option<Shortlist> {
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
