//! Patching the index after a fold of hits, instead of rebuilding it.
//!
//! A fold changes only the stored counters of the lessons that were hit: the same lessons in the
//! same order with the same triggers and scopes, so every key section stays valid and only those
//! lessons' JSON blobs (and the stamp) change. Rewriting the blob section costs a copy of the
//! index; a rebuild would parse the whole library.
//!
//! Invariant: the patch applies only to an index that was fresh for the previous version of the
//! lessons file and holds every changed lesson; otherwise nothing is written and the next reader
//! rebuilds the index as for any other change.

use std::path::Path;

use super::{
    HEADER, MAGIC, MAX_INDEX_BYTES, SECTIONS, Section, Stamp, read_u32, read_u64, write_index,
};
use crate::lessons::model::Lesson;

/// Re-stamps the index of `lessons_file` (fresh for version `previous`) for the file's current
/// version, with the blobs of `changed` replaced; whether it did.
pub(crate) fn patch(lessons_file: &Path, previous: Stamp, changed: &[&Lesson]) -> bool {
    let index = super::index_path(lessons_file);
    // Read like every state file: bounded, a regular file, no link followed (a FIFO or a link to
    // `/dev/zero` in its place would hold or fill the process).
    let read = crate::files::read_bounded(&index, MAX_INDEX_BYTES);
    let (Ok(bytes), Some(current)) = (read, Stamp::of(lessons_file)) else {
        return false;
    };
    match patched(&bytes, previous, current, changed) {
        Some(patched) => write_index(&index, &patched),
        None => false,
    }
}

fn patched(bytes: &[u8], previous: Stamp, current: Stamp, changed: &[&Lesson]) -> Option<Vec<u8>> {
    let header = bytes.get(..HEADER)?;
    if &header[..8] != MAGIC || Stamp::from_header(header) != previous {
        return None;
    }
    let lesson_count = read_u32(&header[36..]) as usize;
    let mut starts = [0usize; SECTIONS];
    let mut sizes = [0usize; SECTIONS];
    let mut at = HEADER;
    for section in 0..SECTIONS {
        sizes[section] = usize::try_from(read_u64(&header[44 + section * 8..])).ok()?;
        starts[section] = at;
        at = at.checked_add(sizes[section])?;
    }
    if at != bytes.len() {
        return None;
    }
    let section = |which: Section| &bytes[starts[which as usize]..][..sizes[which as usize]];
    let offsets: Vec<usize> = section(Section::Offsets)
        .chunks_exact(8)
        .map(|chunk| read_u64(chunk) as usize)
        .collect();
    let blobs = section(Section::Blobs);
    if offsets.len() != lesson_count + 1 || offsets.last() != Some(&blobs.len()) {
        return None;
    }
    let mut replacements: Vec<Option<Vec<u8>>> = vec![None; lesson_count];
    for lesson in changed {
        let prefix = format!("{{\"id\":{},", serde_json::to_string(&lesson.id).ok()?);
        let position = (0..lesson_count).find(|k| {
            blobs
                .get(offsets[*k]..offsets[k + 1])
                .is_some_and(|blob| blob.starts_with(prefix.as_bytes()))
        })?;
        replacements[position] = Some(serde_json::to_vec(&lesson.to_raw()).ok()?);
    }
    let mut new_offsets = Vec::with_capacity(offsets.len() * 8);
    let mut new_blobs = Vec::with_capacity(blobs.len() + 256 * changed.len());
    for (k, replacement) in replacements.iter().enumerate() {
        new_offsets.extend((new_blobs.len() as u64).to_le_bytes());
        match replacement {
            Some(blob) => new_blobs.extend_from_slice(blob),
            None => new_blobs.extend_from_slice(&blobs[offsets[k]..offsets[k + 1]]),
        }
    }
    new_offsets.extend((new_blobs.len() as u64).to_le_bytes());
    let mut out = Vec::with_capacity(bytes.len() + new_blobs.len() - blobs.len());
    out.extend_from_slice(&header[..8]);
    current.write_to(&mut out);
    out.extend_from_slice(&header[36..44]);
    for (index, size) in sizes.iter().enumerate() {
        let size = if index == Section::Blobs as usize {
            new_blobs.len()
        } else {
            *size
        };
        out.extend((size as u64).to_le_bytes());
    }
    // The checksum covers the header and the head sections, which the patch leaves as they were.
    let head: Vec<&[u8]> = (0..Section::Records as usize)
        .map(|which| &bytes[starts[which]..][..sizes[which]])
        .collect();
    out.extend(super::checksum::checksum(&out, &head).to_le_bytes());
    out.extend_from_slice(&bytes[HEADER..starts[Section::Offsets as usize]]);
    out.extend(new_offsets);
    out.extend(new_blobs);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::store::LessonFile;

    #[test]
    fn a_patched_index_equals_a_rebuilt_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lessons.json");
        let text = |hits: u32| {
            serde_json::json!({"lessons": [
                {"id": "a", "scope": "*.py", "triggers": ["import os.path"], "lesson": "x", "weight": 2},
                {"id": "b", "scope": "*.ts", "triggers": ["regex:moment\\("], "lesson": "y", "hits": hits},
                {"id": "c", "scope": "*", "triggers": ["ab"], "lesson": "z"}
            ]})
            .to_string()
        };
        std::fs::write(&path, text(1)).unwrap();
        let previous = Stamp::of(&path).unwrap();
        super::super::refresh(&LessonFile::load(&path).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&path, text(12)).unwrap();
        let file = LessonFile::load(&path).unwrap();
        let changed: Vec<&Lesson> = file.lessons().filter(|l| l.id == "b").collect();
        assert!(patch(&path, previous, &changed));
        let index = std::fs::read(super::super::index_path(&path)).unwrap();
        assert_eq!(index, super::super::build(&file, Stamp::of(&path).unwrap()));
        assert!(
            !patch(&path, previous, &changed),
            "stale: the index is no longer for `previous`"
        );
    }
}
