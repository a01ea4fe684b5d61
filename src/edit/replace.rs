//! A string replacement as the agents' edit tools make it (Claude Code `Edit` / `MultiEdit`,
//! Gemini CLI `replace`, Cursor's file edits), and the file it would leave.
//!
//! Invariants: [`apply`] gives a result only where the tool's own rule gives exactly one: the old
//! text found as it is, as often as the tool requires. Anything else (not found, found more often
//! than allowed, an empty old text in a file that has content) is the tool's own error or a
//! fuzzy repair the tool may try (Claude Code straightens quotes, Gemini CLI re-indents and may
//! ask a model); car says nothing about such an edit before it runs.
//!
//! Memory: nothing larger than the caller's bound is ever built. Each pair's result size
//! (occurrences × (new − old) added to the text it applies to) is computed from the count alone,
//! before any text is made, so a 4 KB `replace_all` on a file of a million matches, or chained
//! pairs that each multiply the text, end as [`NotApplied::TooLarge`] instead of asking for
//! gigabytes.

/// One old/new pair of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    pub(crate) old: String,
    pub(crate) new: String,
    /// How many places the tool replaces.
    pub(crate) occurrences: Occurrences,
}

/// How many places a replacement applies to, as the tool's input says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Occurrences {
    /// The old text must occur exactly once (the tools' default).
    One,
    /// Every occurrence (Claude Code `replace_all`, Gemini CLI `allow_multiple`).
    Every,
    /// Exactly this many (Gemini CLI's older `expected_replacements`).
    Exactly(usize),
}

impl Replacement {
    /// A pair that replaces one occurrence.
    #[cfg(test)]
    pub(crate) fn once(old: impl Into<String>, new: impl Into<String>) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            occurrences: Occurrences::One,
        }
    }
}

/// Why car cannot say what a replacement would leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotApplied {
    /// The old text is not in the file as it is (the tool fails, or repairs it its own way).
    NotFound,
    /// Found `found` times where the tool allows `allowed` (the tool fails).
    Count { found: usize, allowed: usize },
    /// An empty old text in a file that has content, or old and new the same.
    Meaningless,
    /// The result would be larger than the bound (`projected` bytes, or more).
    TooLarge { projected: u64 },
}

/// The file `current` (`None`: it does not exist) after `replacements`, applied in order, each to
/// the result of the one before (MultiEdit's rule); [`NotApplied::TooLarge`] as soon as a step
/// would leave more than `limit` bytes, before that step builds anything.
pub(crate) fn apply(
    current: Option<&str>,
    replacements: &[Replacement],
    limit: u64,
) -> Result<String, NotApplied> {
    let mut text = current.unwrap_or_default().to_string();
    for (index, replacement) in replacements.iter().enumerate() {
        if replacement.old == replacement.new {
            return Err(NotApplied::Meaningless);
        }
        if replacement.old.is_empty() {
            // Creates the file with the new text: only the first pair, only on nothing.
            if index > 0 || !text.is_empty() {
                return Err(NotApplied::Meaningless);
            }
            check_size(replacement.new.len() as u64, limit)?;
            text = replacement.new.clone();
            continue;
        }
        let found = text.matches(replacement.old.as_str()).count();
        let allowed = match replacement.occurrences {
            Occurrences::One => 1,
            Occurrences::Every => found.max(1),
            Occurrences::Exactly(count) => count,
        };
        if found == 0 {
            return Err(NotApplied::NotFound);
        }
        if found != allowed {
            return Err(NotApplied::Count { found, allowed });
        }
        check_size(projected_size(&text, replacement, found), limit)?;
        text = text.replace(replacement.old.as_str(), &replacement.new);
    }
    Ok(text)
}

/// The size of `text` with `found` occurrences of the pair's old text replaced, counted without
/// building it (saturating: a count past `u64` is past any bound).
fn projected_size(text: &str, replacement: &Replacement, found: usize) -> u64 {
    let found = found as u64;
    let removed = found.saturating_mul(replacement.old.len() as u64);
    let added = found.saturating_mul(replacement.new.len() as u64);
    (text.len() as u64 - removed).saturating_add(added)
}

fn check_size(projected: u64, limit: u64) -> Result<(), NotApplied> {
    if projected > limit {
        return Err(NotApplied::TooLarge { projected });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: u64 = 1024;

    #[test]
    fn one_occurrence_is_replaced_and_edits_apply_in_order() {
        let edits = [
            Replacement::once("a = 1", "a = 2"),
            Replacement::once("a = 2", "b = 3"),
        ];
        assert_eq!(
            apply(Some("x\na = 1\n"), &edits, LIMIT).unwrap(),
            "x\nb = 3\n"
        );
    }

    #[test]
    fn a_non_unique_old_text_is_the_tools_own_error() {
        let edit = [Replacement::once("x", "y")];
        assert_eq!(
            apply(Some("x x"), &edit, LIMIT),
            Err(NotApplied::Count {
                found: 2,
                allowed: 1
            })
        );
        let every = [Replacement {
            occurrences: Occurrences::Every,
            ..Replacement::once("x", "y")
        }];
        assert_eq!(apply(Some("x x"), &every, LIMIT).unwrap(), "y y");
        let exactly = [Replacement {
            occurrences: Occurrences::Exactly(3),
            ..Replacement::once("x", "y")
        }];
        assert!(apply(Some("x x"), &exactly, LIMIT).is_err());
    }

    #[test]
    fn missing_old_text_and_empty_old_text_give_no_result() {
        assert_eq!(
            apply(Some("abc"), &[Replacement::once("zzz", "y")], LIMIT),
            Err(NotApplied::NotFound)
        );
        assert_eq!(
            apply(Some("abc"), &[Replacement::once("", "y")], LIMIT),
            Err(NotApplied::Meaningless)
        );
        assert_eq!(
            apply(None, &[Replacement::once("", "new file\n")], LIMIT).unwrap(),
            "new file\n"
        );
        assert_eq!(
            apply(Some("a"), &[Replacement::once("a", "a")], LIMIT),
            Err(NotApplied::Meaningless)
        );
    }

    #[test]
    fn a_result_past_the_bound_is_refused_before_it_is_built() {
        let every = |old: &str, new: &str| Replacement {
            occurrences: Occurrences::Every,
            ..Replacement::once(old, new)
        };
        let file = "a".repeat(100);
        // 100 × (10 − 1) more bytes: 1,000 fits, 1,100 does not.
        assert!(apply(Some(&file), &[every("a", &"b".repeat(10))], 1_000).is_ok());
        assert_eq!(
            apply(Some(&file), &[every("a", &"b".repeat(11))], 1_000),
            Err(NotApplied::TooLarge { projected: 1_100 })
        );
        // Chained pairs are bounded at every step, the first one past the bound ends it.
        // 200, 400, 800 bytes, then 1,600.
        let chained = vec![every("a", "aa"); 4];
        assert_eq!(
            apply(Some(&file), &chained, 1_000),
            Err(NotApplied::TooLarge { projected: 1_600 })
        );
        assert_eq!(
            apply(None, &[Replacement::once("", "x".repeat(1_001))], 1_000),
            Err(NotApplied::TooLarge { projected: 1_001 })
        );
    }
}
