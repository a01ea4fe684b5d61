//! Triggers synthesised from examples: each example is a line as the agent wrote it (*bad*) and as
//! it was fixed (*good*). What the fix changed is the mistake; a pattern covers it with the
//! tokens around it, and where the examples differ only in a name, a string or a number that
//! position becomes a wildcard (the names one sighting holds never make the trigger); so does a
//! name inside what the fix replaced that each fix renamed differently (`&led_work` →
//! `&led_dwork`, `&fan_work` → `&fan_dwork`: [`renamed`]). When the fix only *added* inside a
//! call (`extractall(dest)` → `extractall(dest, filter="data")`), the safe form contains the
//! unsafe one: the pattern is the call *unless* it passes what the fix added.
//!
//! [`propose`] returns every pattern that covers all examples: first those that hold whole what
//! each fix took away from a term (`Order.all.each`, not `Order.all`, when the fix wrote
//! `Order.find_each`), then most general first; the caller verifies them in that order
//! ([`crate::learning::verification`]) and keeps the first that holds.
//!
//! Invariants (*rather miss than false-alarm*): a pattern keeps, in every example, a literal token
//! of what that example's fix removed (or of the call it added to); it starts with a name or a
//! value, ends with one or with a bracket, holds no `,` or `;` and no closing bracket it did not
//! open, no `import`/`from`/`require` (a module name alone is not a lesson), at most
//! [`rules::MAX_LITERAL_CHARS`] characters of literal text and at least one significant literal (a name
//! of 4 characters or more, a string holding one, a version); two literal atoms, or one with a
//! wildcard beside it. Deterministic and bounded: at most [`MAX_WINDOW`] tokens per window and
//! [`MAX_LINE_CHARS`] per line.

use std::collections::HashSet;

use crate::learning::pattern::{Element, Pattern, Unless};
use crate::learning::precision;
use crate::learning::tokens::{Kind, Token, changed_range, tokenize, trim_spaces};

/// Longest window, in tokens (spaces and punctuation included).
const MAX_WINDOW: usize = 15;
/// Lines longer than this are not split (minified code, data).
pub(crate) const MAX_LINE_CHARS: usize = 400;
/// Patterns proposed at most.
const MAX_PATTERNS: usize = 12;

/// Tokens `from..to` of an example's bad line.
type Window = (usize, usize);

/// One example: the line as written and as fixed (empty when the fix removed it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Example<'a> {
    pub(crate) bad: &'a str,
    pub(crate) good: &'a str,
}

/// Why no pattern can be built from the examples.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoPattern {
    #[error("the fix of {0:?} changed nothing but spacing")]
    NothingChanged(String),
    #[error(
        "the fix of {line:?} only added {added:?} outside a call, so there is no mistake to point at"
    )]
    AddedOutsideCall { line: String, added: String },
    #[error("the fix of {line:?} only added {added:?} to a call, which names nothing specific")]
    AddedNothingSpecific { line: String, added: String },
    #[error("the fix of {line:?} only touched punctuation ({changed:?})")]
    OnlyPunctuation { line: String, changed: String },
    #[error(
        "the fix of {line:?} changed only short names ({changed:?}): none is specific enough for a lesson"
    )]
    OnlyShortNames { line: String, changed: String },
    #[error("the line is longer than {MAX_LINE_CHARS} characters")]
    LineTooLong,
    #[error("no pattern around what the fix of {0:?} changed is specific enough")]
    NotSpecific(String),
    #[error("the sightings share no specific pattern ({0})")]
    NoCommonPattern(String),
}

/// What one example's fix did to its bad line's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// Tokens `start..end` were replaced (or removed).
    Replaced { start: usize, end: usize },
    /// Good tokens `good_start..good_end` were inserted inside the call whose `(` is token
    /// `open`.
    Inserted {
        open: usize,
        good_start: usize,
        good_end: usize,
    },
}

/// One example, tokenized.
struct Sample<'a> {
    bad: Vec<Token<'a>>,
    good: Vec<Token<'a>>,
    change: Change,
    /// Names the fix renamed inside what it replaced, (bad index, good index)
    /// ([`renamed`]).
    renamed: Vec<(usize, usize)>,
}

impl<'a> Sample<'a> {
    fn new(example: Example<'a>) -> Result<Sample<'a>, NoPattern> {
        let (bad_line, good_line) = (example.bad.trim(), example.good.trim());
        if bad_line.chars().count() > MAX_LINE_CHARS {
            return Err(NoPattern::LineTooLong);
        }
        let bad = tokenize(bad_line);
        let good = tokenize(good_line);
        let (start, end) = changed_range(&bad, &good);
        let (start, end) = trim_spaces(&bad, start, end);
        let (good_start, good_end) = changed_range(&good, &bad);
        let (good_start, good_end) = trim_spaces(&good, good_start, good_end);
        if start < end {
            let removed = &bad[start..end];
            let changed: String = removed.iter().map(|t| t.text).collect();
            if !removed.iter().any(Token::is_atom) {
                return Err(NoPattern::OnlyPunctuation {
                    line: bad_line.to_string(),
                    changed,
                });
            }
            // A version bump (`@v3` → `@v4`) is no change of short names only.
            if !removed
                .iter()
                .any(|t| t.is_value() || t.is_significant() || t.is_version())
            {
                return Err(NoPattern::OnlyShortNames {
                    line: bad_line.to_string(),
                    changed,
                });
            }
            let renamed = renamed::renamed_names(&bad, &good, (start, end), (good_start, good_end));
            return Ok(Sample {
                bad,
                good,
                change: Change::Replaced { start, end },
                renamed,
            });
        }
        if good_start >= good_end {
            return Err(NoPattern::NothingChanged(bad_line.to_string()));
        }
        let added_tokens = &good[good_start..good_end];
        let added: String = added_tokens.iter().map(|t| t.text).collect();
        let line = bad_line.to_string();
        if added_tokens
            .iter()
            .all(|t| matches!(t.kind, Kind::Space | Kind::Punct))
        {
            // `==` → `===`, a `?` or a `!` added: an operator alone is punctuation.
            return Err(NoPattern::OnlyPunctuation {
                line,
                changed: added,
            });
        }
        let Some(open) = enclosing_call(&bad, start) else {
            return Err(NoPattern::AddedOutsideCall { line, added });
        };
        if !added_tokens.iter().any(Token::is_significant) {
            return Err(NoPattern::AddedNothingSpecific { line, added });
        }
        Ok(Sample {
            bad,
            good,
            change: Change::Inserted {
                open,
                good_start,
                good_end,
            },
            renamed: Vec::new(),
        })
    }

    /// The windows `from..to` of the bad line that may hold the mistake, in preference order.
    fn windows(&self) -> Vec<(usize, usize)> {
        let count = self.bad.len();
        let mut windows = Vec::new();
        match self.change {
            Change::Replaced { start, end } => {
                let (run_start, run_end) = self.version_run(start, end).unwrap_or((end, start));
                for from in 0..end.min(run_start + 1) {
                    for to in (from + 1).max(start + 1).max(run_end)..=count.min(from + MAX_WINDOW)
                    {
                        windows.push((from, to));
                    }
                }
            }
            Change::Inserted { open, .. } => {
                let to = open + 1;
                for from in to.saturating_sub(MAX_WINDOW)..open {
                    windows.push((from, to));
                }
            }
        }
        windows.sort_by_key(|(from, to)| (to - from, *from));
        windows
    }

    /// The tokens glued to the first version the change replaced (`actions/cache@v2`,
    /// `python:3.8-slim`): a window holding the version holds all of them, so a version is never
    /// learned without what it is the version of.
    fn version_run(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let version = (start..end).find(|index| self.bad[*index].is_version())?;
        let (mut run_start, run_end) = self.term(version);
        // A reference starts with a name, not the `:` of a YAML key before it.
        while run_start < version && self.bad[run_start].kind == Kind::Punct {
            run_start += 1;
        }
        Some((run_start, run_end))
    }

    /// The term of the bad line that token `at` is part of: the tokens glued to it, without a
    /// space, a string, a bracket or a separator between (`Order.all.each`,
    /// `actions/cache@v2`, `Duration::from_millis`).
    fn term(&self, at: usize) -> (usize, usize) {
        let mut term_start = at;
        while term_start > 0 && is_glued(&self.bad[term_start - 1]) {
            term_start -= 1;
        }
        let mut term_end = at + 1;
        while term_end < self.bad.len() && is_glued(&self.bad[term_end]) {
            term_end += 1;
        }
        (term_start, term_end)
    }

    /// Whether the window holds some of what the fix took away — the atoms of the replaced
    /// tokens that the fixed line no longer holds anywhere — and, of each term it holds some of,
    /// all of it, as literals. `Order.all.each { |o| … }` → `Order.find_each { |o| … }` took
    /// `all` and `each` from one term: the mistake the example shows is `Order.all.each`, and
    /// `Order.all`, which cuts that term, is wider than the evidence (it fires on the correct
    /// `Order.all.size`). A fix that takes nothing away for good (it reorders, or only adds)
    /// leaves every window whole. Terms apart stay apart: `obj = pickle.loads(b)` →
    /// `payload = json.loads(b)` has `pickle.loads` whole without `obj`.
    fn holds_whole_terms(&self, (from, to): Window, elements: &[Element]) -> bool {
        let taken = self.taken();
        if taken.is_empty() {
            return true;
        }
        let holds = |index: usize| {
            (from..to).contains(&index)
                && elements.get(index - from).is_some_and(Element::is_literal)
        };
        let mut touched = false;
        for index in taken.iter().copied().filter(|index| holds(*index)) {
            touched = true;
            let (term_start, term_end) = self.term(index);
            let cut = taken
                .iter()
                .any(|other| (term_start..term_end).contains(other) && !holds(*other));
            if cut {
                return false;
            }
        }
        touched
    }

    /// The atoms of the replaced tokens that the fixed line no longer holds anywhere.
    fn taken(&self) -> Vec<usize> {
        let Change::Replaced { start, end } = self.change else {
            return Vec::new();
        };
        (start..end)
            .filter(|index| {
                let token = &self.bad[*index];
                token.is_atom() && !self.good.iter().any(|kept| kept.text == token.text)
            })
            .collect()
    }

    /// Whether the window's literal positions keep part of what this example's fix changed.
    fn keeps_change(&self, (from, to): (usize, usize), elements: &[Element]) -> bool {
        let (first, last) = match self.change {
            Change::Replaced { start, end } => (start, end),
            // The callee: the name right before the call's `(`.
            Change::Inserted { open, .. } => (open.saturating_sub(1), open + 1),
        };
        (from..to).zip(elements).any(|(index, element)| {
            (first..last).contains(&index) && element.is_literal() && self.bad[index].is_atom()
        })
    }

    /// How much of the window is what the fix took away: its literal atoms in the replaced
    /// part, and whether its last atom is one the fixed line no longer holds anywhere (a pattern
    /// that ends with what the fix kept is a prefix of the fixed form: `Loader=yaml` of
    /// `Loader=yaml.SafeLoader`).
    fn removed_atoms(&self, (from, to): (usize, usize), elements: &[Element]) -> (usize, bool) {
        let Change::Replaced { start, end } = self.change else {
            return (0, false);
        };
        let count = (from..to)
            .zip(elements)
            .filter(|(index, element)| {
                (start..end).contains(index) && element.is_literal() && self.bad[*index].is_atom()
            })
            .count();
        let last_atom = (from..to).rev().find(|index| self.bad[*index].is_atom());
        let ends_removed = last_atom.is_some_and(|index| {
            (start..end).contains(&index)
                && !self
                    .good
                    .iter()
                    .any(|token| token.text == self.bad[index].text)
        });
        (count, ends_removed)
    }

    /// Whether every token of the window that the fix replaced stays literal, but a name the
    /// fix renamed: a wildcard may stand for the context the examples differ in (a receiver, a
    /// variable), never for the mistake itself (`Loader=yaml.FullLoader` and
    /// `Loader=yaml.UnsafeLoader` are no licence for `Loader=yaml.…`, which
    /// `Loader=yaml.SafeLoader` is too). Whether the fixes agree on a renamed name is
    /// [`fixes_disagree`]'s to say.
    fn keeps_mistake_literal(&self, (from, to): (usize, usize), elements: &[Element]) -> bool {
        (from..to).zip(elements).all(|(index, element)| {
            element.is_literal() || !self.is_replaced(index) || self.fixed_name(index).is_some()
        })
    }

    fn is_replaced(&self, index: usize) -> bool {
        matches!(self.change, Change::Replaced { start, end } if (start..end).contains(&index))
    }

    /// What the fixed line holds in place of bad token `index`: the token itself outside what
    /// the fix replaced, the new name of a renamed name, else nothing.
    fn fixed_name(&self, index: usize) -> Option<&'a str> {
        if !self.is_replaced(index) {
            return self.bad.get(index).map(|token| token.text);
        }
        let (_, good_index) = self.renamed.iter().find(|(bad, _)| *bad == index)?;
        Some(self.good[*good_index].text)
    }

    /// What the fix passed to the call, for an insertion.
    fn unless(&self) -> Option<Unless> {
        let Change::Inserted {
            good_start,
            good_end,
            ..
        } = self.change
        else {
            return None;
        };
        let inserted = &self.good[good_start..good_end];
        let position = inserted.iter().position(Token::is_significant)?;
        let word = inserted[position].text.to_string();
        let next = inserted[position + 1..]
            .iter()
            .find(|t| t.kind != Kind::Space)
            .map(|t| t.text);
        let text: String = inserted.iter().map(|t| t.text).collect();
        Some(Unless {
            word,
            is_keyword_argument: matches!(next, Some("=" | ":")),
            inserted: Some(text.trim().to_string()),
        })
    }
}

/// Whether `token` is glued to its neighbours in one term: no space, string, bracket or
/// separator.
fn is_glued(token: &Token<'_>) -> bool {
    !matches!(token.kind, Kind::Space | Kind::Text)
        && !token.is_open_bracket()
        && !token.is_close_bracket()
        && !matches!(token.text, "," | ";" | "\"" | "'" | "=" | "`")
}

/// The `(` of the innermost call still open at token `at`, with a name right before it.
fn enclosing_call(tokens: &[Token<'_>], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for index in (0..at.min(tokens.len())).rev() {
        let token = &tokens[index];
        if token.is_close_bracket() {
            depth += 1;
        } else if token.is_open_bracket() {
            if depth == 0 {
                let is_call = token.text == "("
                    && index > 0
                    && tokens[index - 1].kind == Kind::Word
                    && !precision::is_keyword(tokens[index - 1].text);
                return is_call.then_some(index);
            }
            depth -= 1;
        }
    }
    None
}

/// Every pattern that covers all `examples`, most general first (see the module docs).
pub(crate) fn propose(examples: &[Example<'_>]) -> Result<Vec<Pattern>, NoPattern> {
    let samples = examples
        .iter()
        .map(|example| Sample::new(*example))
        .collect::<Result<Vec<_>, _>>()?;
    let Some((first, others)) = samples.split_first() else {
        return Err(NoPattern::NotSpecific(String::new()));
    };
    let unless = common_unless(&samples)?;
    let mut seen: HashSet<Pattern> = HashSet::new();
    // Each pattern with whether it holds every example's terms whole, and how much of it the
    // first example's fix took away.
    let mut found: Vec<(Pattern, bool, (usize, bool))> = Vec::new();
    for window in first.windows() {
        let Some((elements, windows)) = combine(first, window, others) else {
            continue;
        };
        let pattern = Pattern {
            elements,
            unless: unless.clone().filter(|_| ends_with_call(first, window)),
        };
        if unless.is_some() && pattern.unless.is_none() {
            continue;
        }
        if is_specific(&pattern) && seen.insert(pattern.clone()) {
            let whole = samples
                .iter()
                .zip(std::iter::once(window).chain(windows))
                .all(|(sample, window)| sample.holds_whole_terms(window, &pattern.elements));
            let removed = first.removed_atoms(window, &pattern.elements);
            found.push((pattern, whole, removed));
        }
    }
    // First the patterns that hold whole what every fix took away from a term (`Order.all.each`
    // before `Order.all`: the examples show nothing wrong with the rest of `Order.all`); when
    // none does (the fixes took different things away from it: `Order.all.each` and
    // `Order.all.each_slice`), the part they share. Then most general first: fewest atoms, then fewest
    // wildcards; among equals the one made most of what the fix replaced, then the one whose
    // literals say most (significant names, not a one-letter variable), then one that ends with
    // what the fix took away (`yaml.FullLoader`, neither `yaml.load` nor `Loader=yaml`, when the
    // fix turned `yaml.load(fh, Loader=yaml.FullLoader)` into `yaml.safe_load(fh)`), then the
    // shortest.
    found.sort_by_key(|(pattern, whole, (removed, ends_removed))| {
        let (atoms, literal) = pattern.atom_counts();
        (
            !is_balanced(pattern),
            !whole,
            atoms,
            atoms - literal,
            std::cmp::Reverse(*removed),
            std::cmp::Reverse(significant_literals(pattern)),
            !ends_removed,
            pattern.display().len(),
        )
    });
    let mut found: Vec<Pattern> = found.into_iter().map(|(pattern, ..)| pattern).collect();
    found.truncate(MAX_PATTERNS);
    if found.is_empty() {
        let lines: Vec<&str> = examples.iter().map(|e| e.bad.trim()).collect();
        return Err(if examples.len() == 1 {
            NoPattern::NotSpecific(lines[0].to_string())
        } else {
            NoPattern::NoCommonPattern(
                lines
                    .iter()
                    .map(|line| format!("{line:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        });
    }
    Ok(found)
}

/// The significant names and values the example's fix took away for good
/// (`k_delayed_work_submit`, and `led_work`, of `k_delayed_work_submit(&led_work, …)` →
/// `k_work_schedule(&led_dwork, …)`): two sightings of a scope that share one are taken for the
/// same mistake when saying that no pattern joins them.
pub(crate) fn taken_words(example: Example<'_>) -> Vec<String> {
    let Ok(sample) = Sample::new(example) else {
        return Vec::new();
    };
    sample
        .taken()
        .into_iter()
        .map(|index| sample.bad[index])
        .filter(Token::is_significant)
        .map(|token| token.text.to_string())
        .collect()
}

/// The `unless` every insertion agrees on: the same word passed to the call. Replacements do
/// not add one; an insertion beside them still does (its fix is the safe form of the call).
fn common_unless(samples: &[Sample<'_>]) -> Result<Option<Unless>, NoPattern> {
    let mut common: Option<Unless> = None;
    for sample in samples {
        let Some(unless) = sample.unless() else {
            continue;
        };
        common = Some(match common {
            None => unless,
            Some(known) if known.word == unless.word => Unless {
                inserted: known
                    .inserted
                    .filter(|text| Some(text) == unless.inserted.as_ref()),
                is_keyword_argument: known.is_keyword_argument && unless.is_keyword_argument,
                word: known.word,
            },
            Some(known) => {
                return Err(NoPattern::NoCommonPattern(format!(
                    "the fixes passed different things: {} and {}",
                    known.word, unless.word
                )));
            }
        });
    }
    Ok(common)
}

/// Whether the window ends with the `(` of the call the example's fix added to (or, for a
/// replacement, with any `(`).
fn ends_with_call(sample: &Sample<'_>, (_, to): (usize, usize)) -> bool {
    match sample.change {
        Change::Inserted { open, .. } => to == open + 1,
        Change::Replaced { .. } => sample.bad.get(to - 1).is_some_and(|t| t.text == "("),
    }
}

/// The window of `first` generalised over the others: for each other sample, its window of the
/// same length that agrees best (each position the same token, or atoms of one kind), which
/// must keep part of that sample's change too. The elements, with each other sample's window;
/// `None` when a sample has no such window.
fn combine(
    first: &Sample<'_>,
    window: (usize, usize),
    others: &[Sample<'_>],
) -> Option<(Vec<Element>, Vec<Window>)> {
    let (from, to) = window;
    let mut elements: Vec<Element> = first.bad[from..to].iter().map(Element::of).collect();
    let mut windows = Vec::with_capacity(others.len());
    for other in others {
        let mut best: Option<(usize, Vec<Element>, Window)> = None;
        for (other_from, other_to) in other.windows() {
            if other_to - other_from != to - from {
                continue;
            }
            let Some(merged) = merge(&elements, &other.bad[other_from..other_to]) else {
                continue;
            };
            if !other.keeps_change((other_from, other_to), &merged)
                || !other.keeps_mistake_literal((other_from, other_to), &merged)
            {
                continue;
            }
            let literal = merged.iter().filter(|e| e.is_literal()).count();
            if best.as_ref().is_none_or(|(known, ..)| literal > *known) {
                best = Some((literal, merged, (other_from, other_to)));
            }
        }
        let (_, merged, other_window) = best?;
        elements = merged;
        windows.push(other_window);
    }
    let samples = std::iter::once(first).chain(others);
    let all_windows: Vec<Window> = std::iter::once(window)
        .chain(windows.iter().copied())
        .collect();
    let holds = first.keeps_change(window, &elements)
        && samples
            .clone()
            .zip(&all_windows)
            .all(|(sample, window)| sample.keeps_mistake_literal(*window, &elements))
        && fixes_disagree(samples, &all_windows, &elements);
    holds.then_some((elements, windows))
}

/// Whether, at each wildcard standing for a name some fix renamed, the fixes wrote different
/// names (see [`renamed`]): `led_work` → `led_dwork` and `fan_work` → `fan_dwork` make the
/// variable a particular of each sighting; `FullLoader` and `UnsafeLoader` both → `SafeLoader`
/// keep the name the mistake.
fn fixes_disagree<'s, 'a: 's>(
    samples: impl Iterator<Item = &'s Sample<'a>> + Clone,
    windows: &[Window],
    elements: &[Element],
) -> bool {
    elements.iter().enumerate().all(|(offset, element)| {
        let renamed_somewhere = samples
            .clone()
            .zip(windows)
            .any(|(sample, (from, _))| sample.is_replaced(from + offset));
        if element.is_literal() || !renamed_somewhere {
            return true;
        }
        let fixed: Option<HashSet<&str>> = samples
            .clone()
            .zip(windows)
            .map(|(sample, (from, _))| sample.fixed_name(from + offset))
            .collect();
        fixed.is_some_and(|names| names.len() > 1)
    })
}

/// The elements generalised to admit `tokens` too, position by position.
fn merge(elements: &[Element], tokens: &[Token<'_>]) -> Option<Vec<Element>> {
    elements
        .iter()
        .zip(tokens)
        .map(|(element, token)| {
            if element.admits(token) {
                return Some(element.clone());
            }
            match element {
                Element::Literal { text, kind } => {
                    Element::generalising(&Token { kind: *kind, text }, token)
                }
                _ => None,
            }
        })
        .collect()
}

mod fix;
mod renamed;
mod rules;

pub(crate) use fix::common_fix;
use rules::{is_balanced, is_specific};
pub(crate) use rules::{significant_literals, significant_words};

#[cfg(test)]
mod tests;
