//! Which lines of one version of a file another version changed or removed, each paired with the
//! line that replaced it: what a fix did around a review finding, what a person did to the lines
//! the agent wrote.
//!
//! Invariants: only changed or removed lines are reported (pure insertions change no old line);
//! within one changed block, old and new lines pair by position when the block kept its length,
//! else each old line takes the most similar unused new line (at least half alike), and an old
//! line without one was removed (its `new` is empty).

use similar::{DiffOp, TextDiff};

/// One line a change replaced: its 1-based number in the old text, the old line, and the new
/// line (empty when the line was removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineChange {
    pub(crate) line: usize,
    pub(crate) old: String,
    pub(crate) new: String,
}

/// Lines of `before` that `after` changed or removed, in order, numbered in `before` (1-based).
pub(crate) fn changed_lines(before: &str, after: &str) -> Vec<LineChange> {
    let diff = TextDiff::from_lines(before, after);
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let mut out = Vec::new();
    let mut block: Option<(std::ops::Range<usize>, std::ops::Range<usize>)> = None;
    for op in diff.ops() {
        let (old_range, new_range) = (op.old_range(), op.new_range());
        if matches!(op, DiffOp::Equal { .. }) {
            if let Some((old_block, new_block)) = block.take() {
                pair_block(&old, &new, old_block, new_block, &mut out);
            }
            continue;
        }
        block = Some(match block.take() {
            Some((old_block, new_block)) => (
                old_block.start..old_range.end.max(old_block.end),
                new_block.start..new_range.end.max(new_block.end),
            ),
            None => (old_range, new_range),
        });
    }
    if let Some((old_block, new_block)) = block {
        pair_block(&old, &new, old_block, new_block, &mut out);
    }
    out
}

fn line_at<'a>(lines: &[&'a str], index: usize) -> &'a str {
    lines.get(index).copied().unwrap_or_default()
}

fn pair_block(
    old: &[&str],
    new: &[&str],
    old_block: std::ops::Range<usize>,
    new_block: std::ops::Range<usize>,
    out: &mut Vec<LineChange>,
) {
    let same_length = old_block.len() == new_block.len();
    let mut used = vec![false; new_block.len()];
    for (offset, index) in old_block.clone().enumerate() {
        let old_line = line_at(old, index);
        let partner = if same_length {
            Some(offset)
        } else {
            most_similar(old_line, new, &new_block, &used)
        };
        if let Some(partner) = partner {
            used[partner] = true;
        }
        out.push(LineChange {
            line: index + 1,
            old: old_line.to_string(),
            new: partner
                .map(|partner| line_at(new, new_block.start + partner).to_string())
                .unwrap_or_default(),
        });
    }
}

/// How alike two lines are, 0 to 1: the better of their character similarity and the share of
/// the shorter line that both keep at their start and end (`run(cmd, shell=True)` and
/// `run(args)` keep `run(` and `)`: a call whose arguments changed).
fn likeness(a: &str, b: &str) -> f32 {
    let shorter = a.chars().count().min(b.chars().count());
    if shorter == 0 {
        return 0.0;
    }
    let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let suffix = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take(shorter - prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let kept = (prefix + suffix) as f32 / shorter as f32;
    kept.max(TextDiff::from_chars(a, b).ratio())
}

/// The unused line of `new_block` most like `line`, if it is at least half alike.
fn most_similar(
    line: &str,
    new: &[&str],
    new_block: &std::ops::Range<usize>,
    used: &[bool],
) -> Option<usize> {
    new_block
        .clone()
        .enumerate()
        .filter(|(offset, _)| !used[*offset])
        .map(|(offset, index)| {
            let other = new.get(index).copied().unwrap_or_default();
            (offset, likeness(line.trim(), other.trim()))
        })
        .filter(|(_, likeness)| *likeness >= 0.5)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(offset, _)| offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(line: usize, old: &str, new: &str) -> LineChange {
        LineChange {
            line,
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn replaced_removed_and_inserted_lines() {
        let before = "a\nctx.check_hostname = False\nb\nshell=True,\nc\n";
        let after = "a\nctx.check_hostname = True\nb\nc\nd\n";
        assert_eq!(
            changed_lines(before, after),
            [
                change(2, "ctx.check_hostname = False", "ctx.check_hostname = True"),
                change(4, "shell=True,", "")
            ]
        );
        assert!(changed_lines("a\n", "a\nb\n").is_empty());
    }

    #[test]
    fn blocks_of_another_length_pair_by_likeness() {
        let before = "x\n    run(cmd, shell=True)\ny\n";
        let after = "x\n    args = shlex.split(cmd)\n    run(args)\ny\n";
        assert_eq!(
            changed_lines(before, after),
            [change(2, "    run(cmd, shell=True)", "    run(args)")]
        );
    }
}
