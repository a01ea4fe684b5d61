//! Where a trigger matched, for lessons that match code as a person reads it
//! ([`Matching::CODE`]): a literal trigger only as whole identifiers (`DankeTheme.secondaryText`
//! is no repeat inside `DankeTheme.secondaryTextMuted`), and any trigger only in code, never
//! wholly inside a comment or a string literal's text (`# fastyaml is not on PyPI`).
//!
//! Invariants: runs after the index found a hit, only for lessons that ask for it, so the no-hit
//! path costs nothing and the file is parsed at most once per edit (lazily, on the first such
//! hit); every match of every trigger of the lesson is tried in the lesson's order (the first
//! match may sit in a comment while a later one is code); a lesson whose triggers matched only
//! in prose or inside longer names does not fire (*rather miss than false-alarm*).

use std::cell::OnceCell;
use std::ops::Range;
use std::path::Path;

use crate::edit::AddedLine;
use crate::lessons::matcher::Hit;
use crate::lessons::model::{Lesson, Matching};
use crate::lessons::trigger::{Haystack, Trigger};
use crate::validate::language::Language;
use crate::validate::prose::Prose;

/// Matches of one trigger tried before giving up on it (a line repeated thousands of times is
/// not where a lesson's mistake is decided).
const MATCHES_TRIED: usize = 64;

/// One edit's added lines placed in the file's content, parsed on demand.
pub(crate) struct Placement<'a> {
    added: &'a [AddedLine],
    joined: String,
    /// Start of each added line in `joined`.
    starts: Vec<usize>,
    /// Start of each added line in `content`, when it is found there as it is.
    in_content: Vec<Option<usize>>,
    language: Option<Language>,
    content: &'a str,
    prose: OnceCell<Prose<'a>>,
}

impl<'a> Placement<'a> {
    /// `content` is the file as the edit left it; `language` its language, when car knows it.
    pub(crate) fn new(
        path: &Path,
        content: &'a str,
        language: Option<&str>,
        added: &'a [AddedLine],
    ) -> Placement<'a> {
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(added.len());
        for (index, line) in added.iter().enumerate() {
            if index > 0 {
                joined.push('\n');
            }
            starts.push(joined.len());
            joined.push_str(&line.text);
        }
        let line_starts = line_starts(content);
        let in_content = added
            .iter()
            .map(|line| {
                let start = *line_starts.get(line.line.checked_sub(1)?)?;
                content[start..]
                    .starts_with(line.text.as_str())
                    .then_some(start)
            })
            .collect();
        Placement {
            added,
            joined,
            starts,
            in_content,
            language: Language::detect(path, content, language),
            content,
            prose: OnceCell::new(),
        }
    }

    /// The hit as a person reading the code would count it: the first trigger of the lesson (in
    /// its order) with a match that passes the lesson's [`Matching`], or `None`.
    pub(crate) fn confirm(&self, lesson: &Lesson, hit: Hit) -> Option<Hit> {
        if lesson.matching.is_substring() {
            return Some(hit);
        }
        let haystack = Haystack::new(&self.joined);
        lesson
            .triggers
            .iter()
            .enumerate()
            .find_map(|(index, trigger)| {
                let found = trigger
                    .find_all(&haystack, MATCHES_TRIED)
                    .into_iter()
                    .find(|range| self.counts(lesson.matching, trigger, range.clone()))?;
                Some(Hit {
                    lesson: hit.lesson,
                    trigger: index,
                    line: self.line_at(found.start),
                })
            })
    }

    /// Every match of the lesson's triggers that counts (at most [`MATCHES_TRIED`] per trigger),
    /// as the file line it starts on and its byte range within that line's text; in line order.
    /// How a lesson is checked against whole files ([`crate::learning::verification`]).
    pub(crate) fn confirmed_matches(&self, lesson: &Lesson) -> Vec<(usize, Range<usize>)> {
        let haystack = Haystack::new(&self.joined);
        let mut found: Vec<(usize, Range<usize>)> = Vec::new();
        for trigger in &lesson.triggers {
            for range in trigger.find_all(&haystack, MATCHES_TRIED) {
                if lesson.matching.is_substring()
                    || self.counts(lesson.matching, trigger, range.clone())
                {
                    let index = self.starts.partition_point(|start| *start <= range.start) - 1;
                    let start = range.start - self.starts[index];
                    let length = self.added[index].text.len();
                    let end = (range.end - self.starts[index]).min(length);
                    found.push((self.added[index].line, start..end));
                }
            }
        }
        found.sort_by_key(|(line, range)| (*line, range.start));
        found.dedup_by_key(|(line, range)| (*line, range.start));
        found
    }

    /// Whether one match counts under `matching`.
    fn counts(&self, matching: Matching, trigger: &Trigger, range: Range<usize>) -> bool {
        if matching.whole_identifiers
            && matches!(trigger, Trigger::Literal(_))
            && !is_whole(&self.joined, range.clone())
        {
            return false;
        }
        !(matching.code_only && self.is_prose(range))
    }

    /// Whether the match lies in a comment or a string's text of the file. A match the file does
    /// not hold where the added line says (a notebook cell, a line ending car did not expect) is
    /// taken as code.
    fn is_prose(&self, range: Range<usize>) -> bool {
        let index = self.starts.partition_point(|start| *start <= range.start) - 1;
        let Some(line_start) = self.in_content[index] else {
            return false;
        };
        let offset = line_start + (range.start - self.starts[index]);
        let prose = self
            .prose
            .get_or_init(|| Prose::of(self.language, self.content));
        prose.contains(offset..offset + range.len())
    }

    /// The file line of the added line holding byte `offset` of the joined text.
    fn line_at(&self, offset: usize) -> usize {
        let index = self.starts.partition_point(|start| *start <= offset);
        index
            .checked_sub(1)
            .and_then(|index| self.added.get(index))
            .map_or(0, |line| line.line)
    }
}

/// Whether `range` of `text` neither starts right after nor ends right before an identifier
/// character where its own edge is one.
pub(crate) fn is_whole(text: &str, range: Range<usize>) -> bool {
    let found = &text[range.clone()];
    let before = text[..range.start].chars().next_back();
    let after = text[range.end..].chars().next();
    let first = found.chars().next();
    let last = found.chars().next_back();
    !(first.is_some_and(is_identifier) && before.is_some_and(is_identifier)
        || last.is_some_and(is_identifier) && after.is_some_and(is_identifier))
}

fn is_identifier(character: char) -> bool {
    character.is_alphanumeric() || character == '_'
}

fn line_starts(content: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(content.match_indices('\n').map(|(index, _)| index + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lesson(scope: &str, triggers: &[&str], matching: Matching) -> Lesson {
        let mut lesson = Lesson::from_value(&json!({"scope": scope, "triggers": triggers,
            "lesson": "l"}))
        .unwrap();
        lesson.matching = matching;
        lesson
    }

    /// The confirmed `(trigger, line)` of a lesson over a whole file written by one edit.
    fn confirmed(path: &str, content: &str, lesson: &Lesson) -> Option<(usize, usize)> {
        let added: Vec<AddedLine> = content
            .lines()
            .enumerate()
            .map(|(index, text)| AddedLine {
                line: index + 1,
                text: text.to_string(),
            })
            .collect();
        let placement = Placement::new(Path::new(path), content, None, &added);
        let hit = Hit {
            lesson: 0,
            trigger: 0,
            line: 1,
        };
        placement
            .confirm(lesson, hit)
            .map(|hit| (hit.trigger, hit.line))
    }

    #[test]
    fn whole_identifiers_only() {
        let shell = lesson("*.py", &["shell=True"], Matching::CODE);
        assert_eq!(confirmed("a.py", "run(x, use_shell=True)\n", &shell), None);
        assert_eq!(
            confirmed(
                "a.py",
                "run(x, use_shell=True)\nrun(x, shell=True)\n",
                &shell
            ),
            Some((0, 2))
        );
        let theme = lesson("*.swift", &["DankeTheme.secondaryText"], Matching::CODE);
        assert_eq!(
            confirmed("a.swift", "let c = DankeTheme.secondaryTextMuted\n", &theme),
            None
        );
        assert_eq!(
            confirmed("a.swift", "let c = DankeTheme.secondaryText\n", &theme),
            Some((0, 1))
        );
        // An edge that is not an identifier character has no boundary to keep.
        let call = lesson("*.py", &[".load("], Matching::CODE);
        assert_eq!(
            confirmed("a.py", "x = yaml.load(fh)\n", &call),
            Some((0, 1))
        );
    }

    #[test]
    fn comments_and_strings_are_not_code() {
        let module = lesson("*.py", &["fastyaml"], Matching::CODE);
        assert_eq!(
            confirmed("a.py", "# fastyaml is not on PyPI\nimport yaml\n", &module),
            None
        );
        assert_eq!(
            confirmed(
                "a.py",
                "\"\"\"Uses fastyaml.\"\"\"\nimport fastyaml\n",
                &module
            ),
            Some((0, 2))
        );
    }

    #[test]
    fn a_later_trigger_in_code_fires_when_the_first_is_only_in_prose() {
        let both = lesson("*.py", &["pytest", "unittest2"], Matching::CODE);
        assert_eq!(
            confirmed("t.py", "# run with pytest\nimport unittest2\n", &both),
            Some((1, 2))
        );
    }

    #[test]
    fn the_seed_semantics_are_a_plain_substring() {
        let seed = lesson("*.py", &["shell=True"], Matching::default());
        assert_eq!(confirmed("a.py", "# use_shell=True\n", &seed), Some((0, 1)));
    }

    #[test]
    fn a_language_car_cannot_parse_counts_every_line() {
        let module = lesson("*.xyz", &["fastyaml"], Matching::CODE);
        assert_eq!(confirmed("a.xyz", "# fastyaml\n", &module), Some((0, 1)));
    }
}
