//! Where each (lesson, file, line) is in a snapshot's lesson warnings: a long session warns
//! thousands of times about a few dozen places, and a linear search for each was a tenth of a
//! cold stop. Keyed by a hash of the three, each candidate checked, so a collision costs a
//! comparison, never a wrong answer.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::lesson_warning::Warning;

#[derive(Debug, Clone, Default)]
pub(crate) struct WarningPlaces {
    /// Key hash → indexes into the warnings.
    places: HashMap<u64, Vec<usize>>,
    /// How many of the warnings are indexed (warnings are only ever added, or replaced in place
    /// by one with the same key).
    indexed: usize,
}

impl WarningPlaces {
    /// Indexes the warnings added since the last call.
    pub(crate) fn catch_up(&mut self, warnings: &[Warning]) {
        for (index, warning) in warnings.iter().enumerate().skip(self.indexed) {
            let key = key(&warning.lesson_id, &warning.file, warning.line);
            self.places.entry(key).or_default().push(index);
        }
        self.indexed = self.indexed.max(warnings.len());
    }

    /// The index of the warning about (lesson, file, line), when there is one.
    pub(crate) fn find(
        &self,
        warnings: &[Warning],
        lesson_id: &str,
        file: &str,
        line: usize,
    ) -> Option<usize> {
        self.places
            .get(&key(lesson_id, file, line))?
            .iter()
            .copied()
            .find(|&index| {
                let known = &warnings[index];
                known.lesson_id == lesson_id && known.file == file && known.line == line
            })
    }
}

fn key(lesson_id: &str, file: &str, line: usize) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (lesson_id, file, line).hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(lesson_id: &str, file: &str, line: usize) -> Warning {
        Warning {
            lesson_id: lesson_id.into(),
            weight: 1,
            lesson: "l".into(),
            trigger: "t".into(),
            file: file.into(),
            line,
            origin: None,
        }
    }

    #[test]
    fn finds_each_place_and_only_it() {
        let mut warnings = vec![warning("L1", "a.py", 3), warning("L1", "b.py", 3)];
        let mut places = WarningPlaces::default();
        places.catch_up(&warnings);
        assert_eq!(places.find(&warnings, "L1", "b.py", 3), Some(1));
        assert_eq!(places.find(&warnings, "L1", "a.py", 4), None);
        warnings.push(warning("L2", "a.py", 3));
        places.catch_up(&warnings);
        assert_eq!(places.find(&warnings, "L2", "a.py", 3), Some(2));
        assert_eq!(places.find(&warnings, "L1", "a.py", 3), Some(0));
    }
}
