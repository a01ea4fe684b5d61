//! Lines an edit carried over rather than wrote: a line moved as it was (the file holds no more
//! copies of it than before), or re-indented (wrapped in an `if`, moved into a function: the same
//! text, trimmed, as a line the edit removed). A diff reports both as added, but a lesson about
//! them would tell the agent about code it did not write, and count a hit it did not earn.
//! A copy is written: the file then holds one more of it.

use std::collections::{HashMap, HashSet};

/// The lines of one edit's `before` and `after`, counted.
pub(crate) struct CarriedOver<'a> {
    before: HashMap<&'a str, usize>,
    after: HashMap<&'a str, usize>,
    /// Trimmed texts of the lines the edit removed (fewer copies after than before).
    removed: HashSet<&'a str>,
}

impl<'a> CarriedOver<'a> {
    pub(crate) fn new(before: &'a str, after: &'a str) -> CarriedOver<'a> {
        let count = |text: &'a str| {
            let mut counts: HashMap<&str, usize> = HashMap::new();
            for line in text.lines() {
                *counts.entry(line).or_insert(0) += 1;
            }
            counts
        };
        let (before, after) = (count(before), count(after));
        let removed = before
            .iter()
            .filter(|(line, n)| after.get(*line).copied().unwrap_or(0) < **n)
            .map(|(line, _)| line.trim())
            .filter(|line| !line.is_empty())
            .collect();
        CarriedOver {
            before,
            after,
            removed,
        }
    }

    /// Whether the added line `text` (as it stands in `after`) was carried over, not written.
    pub(crate) fn contains(&self, text: &str) -> bool {
        let before = self.before.get(text).copied().unwrap_or(0);
        let after = self.after.get(text).copied().unwrap_or(0);
        (before > 0 && after <= before) || self.removed.contains(text.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_and_reindented_lines_are_carried_over_copies_and_new_lines_are_not() {
        let before = "def load(path):\n    return yaml.load(path)\n\nx = 1\n";
        let moved = "x = 1\n\ndef load(path):\n    return yaml.load(path)\n";
        let reindented =
            "if ready:\n    def load(path):\n        return yaml.load(path)\n\nx = 1\n";
        let copied = "def load(path):\n    return yaml.load(path)\n\ndef again(path):\n    return yaml.load(path)\n\nx = 1\n";
        let line = "    return yaml.load(path)";
        assert!(CarriedOver::new(before, moved).contains(line));
        assert!(CarriedOver::new(before, reindented).contains("        return yaml.load(path)"));
        assert!(!CarriedOver::new(before, copied).contains(line));
        assert!(
            !CarriedOver::new("x = 1\n", "x = 1\ny = yaml.load(f)\n").contains("y = yaml.load(f)")
        );
    }
}
