//! Triggers: a substring, or `regex:` + a pattern.
//!
//! Invariants: a pattern runs on the linear-time `regex` engine whenever that engine accepts it;
//! only patterns it refuses (lookbehind, lookahead, backreferences) go to fancy-regex, always
//! with a backtrack limit, so no trigger can hang a hook. Patterns compile lazily, once, the first
//! time they are needed: a hook with 10,000 lessons compiles only the regexes whose keyword
//! occurs in the edit. Matching is case-sensitive, like the seed's `in` / `re.search`.
//!
//! The work inside one match is bounded three ways: a compiled pattern (and each part fancy-regex
//! hands to the linear engine) is at most [`PATTERN_SIZE_LIMIT`]; fancy-regex backtracks at most
//! [`BACKTRACK_LIMIT`] steps; a regex never sees a line longer than [`REGEX_LINE_BYTES`] bytes
//! ([`Haystack`]: such a line is blank for it), which keeps even a large counted repetition from
//! thrashing the lazy DFA on a megabyte-long line. Literal triggers see every line whole. The
//! matcher adds a time limit on top.

pub(crate) mod text;

use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The prefix that makes a trigger a regular expression.
pub(crate) const REGEX_PREFIX: &str = "regex:";

/// Backtracking steps fancy-regex may take per search before it gives up.
pub(crate) const BACKTRACK_LIMIT: usize = 200_000;

/// The largest compiled pattern (bytes of the compiled program), for either engine.
pub(crate) const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The longest line a regex trigger sees: a longer line (minified or generated code, not where a
/// lesson's mistake is written) is blank for regexes. Blank rather than cut: a cut would invent a
/// line end where `$` matches (*rather miss than false-alarm*).
pub(crate) const REGEX_LINE_BYTES: usize = 1024;

/// The text a regex runs on: the text itself, or — when a line is longer than
/// [`REGEX_LINE_BYTES`] — a copy with such lines blank, and where each line starts in both, to
/// report offsets in the original.
#[derive(Debug, Clone)]
pub struct Haystack {
    text: String,
    /// `(start in the regex text, start in the original)` per line; empty when nothing was
    /// blanked.
    lines: Vec<(usize, usize)>,
}

impl Haystack {
    pub fn new(text: &str) -> Haystack {
        if !text.split('\n').any(|line| line.len() > REGEX_LINE_BYTES) {
            return Haystack {
                text: text.to_string(),
                lines: Vec::new(),
            };
        }
        let mut kept = String::with_capacity(text.len().min(1 << 20));
        let mut lines = Vec::new();
        let mut original = 0;
        for line in text.split('\n') {
            if !lines.is_empty() {
                kept.push('\n');
            }
            lines.push((kept.len(), original));
            if line.len() <= REGEX_LINE_BYTES {
                kept.push_str(line);
            }
            original += line.len() + 1;
        }
        Haystack { text: kept, lines }
    }

    /// The text regexes run on.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// An offset in [`Haystack::text`] as an offset in the original text.
    pub(crate) fn original_offset(&self, offset: usize) -> usize {
        if self.lines.is_empty() {
            return offset;
        }
        let index = self.lines.partition_point(|(start, _)| *start <= offset);
        let (cut_start, original_start) = self.lines[index.saturating_sub(1)];
        original_start + (offset - cut_start)
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum TriggerError {
    #[error("empty trigger")]
    Empty,
    #[error("trigger `{trigger}`: the pattern does not compile: {message}")]
    Compile { trigger: String, message: String },
    #[error("trigger `{trigger}`: gave up on this text ({message})")]
    Gaveup { trigger: String, message: String },
}

/// A compiled pattern: linear when possible.
#[derive(Debug)]
pub(crate) enum Engine {
    Linear(regex::Regex),
    Backtracking(fancy_regex::Regex),
}

/// A trigger as written in the lesson file, with its lazily compiled engine.
#[derive(Debug, Clone)]
pub enum Trigger {
    Literal(String),
    Pattern {
        /// As written, including `regex:`.
        source: String,
        engine: Arc<OnceLock<Result<Engine, TriggerError>>>,
    },
}

impl Trigger {
    /// Parses without compiling (see [`Trigger::validate`]).
    pub(crate) fn parse(text: &str) -> Result<Trigger, TriggerError> {
        match text.strip_prefix(REGEX_PREFIX) {
            Some("") => Err(TriggerError::Empty),
            Some(_) => Ok(Trigger::Pattern {
                source: text.to_string(),
                engine: Arc::new(OnceLock::new()),
            }),
            None if text.is_empty() => Err(TriggerError::Empty),
            None => Ok(Trigger::Literal(text.to_string())),
        }
    }

    /// Parses and compiles now: for `add`, `import` and distill, which must refuse bad patterns
    /// with the compiler's message.
    pub(crate) fn validate(text: &str) -> Result<Trigger, TriggerError> {
        let trigger = Trigger::parse(text)?;
        trigger.engine()?;
        Ok(trigger)
    }

    /// The trigger as written.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Trigger::Literal(text) => text,
            Trigger::Pattern { source, .. } => source,
        }
    }

    /// The pattern without `regex:`, for regex triggers.
    pub fn pattern(&self) -> Option<&str> {
        match self {
            Trigger::Literal(_) => None,
            Trigger::Pattern { source, .. } => source.strip_prefix(REGEX_PREFIX),
        }
    }

    /// The compiled engine (compiled on first use), or `None` for a literal.
    pub(crate) fn engine(&self) -> Result<Option<&Engine>, TriggerError> {
        let Trigger::Pattern { source, engine } = self else {
            return Ok(None);
        };
        let pattern = source.strip_prefix(REGEX_PREFIX).unwrap_or(source);
        match engine.get_or_init(|| compile(source, pattern)) {
            Ok(engine) => Ok(Some(engine)),
            Err(error) => Err(error.clone()),
        }
    }

    /// Byte offset of the first match in `text` (a regex sees each line's first
    /// [`REGEX_LINE_BYTES`]).
    pub(crate) fn find(&self, text: &str) -> Result<Option<usize>, TriggerError> {
        match self {
            Trigger::Literal(literal) => Ok(text.find(literal.as_str())),
            Trigger::Pattern { .. } => self.find_in(&Haystack::new(text)),
        }
    }

    /// [`Trigger::find`] on a prepared haystack (built once for many triggers); the offset is in
    /// the original text.
    pub(crate) fn find_in(&self, haystack: &Haystack) -> Result<Option<usize>, TriggerError> {
        let text = haystack.text();
        let found = match self {
            Trigger::Literal(literal) => text.find(literal.as_str()),
            Trigger::Pattern { source, .. } => match self.engine()? {
                Some(Engine::Linear(regex)) => regex.find(text).map(|m| m.start()),
                Some(Engine::Backtracking(regex)) => regex
                    .find(text)
                    .map_err(|error| TriggerError::Gaveup {
                        trigger: source.clone(),
                        message: error.to_string(),
                    })?
                    .map(|m| m.start()),
                None => None,
            },
        };
        Ok(found.map(|offset| haystack.original_offset(offset)))
    }

    /// The byte ranges of the first `limit` matches in `text` (offsets in the original text),
    /// in order. A give-up stops the search with what was found so far; a regex that does not
    /// compile finds nothing.
    pub(crate) fn find_all(&self, haystack: &Haystack, limit: usize) -> Vec<Range<usize>> {
        let text = haystack.text();
        let found: Vec<Range<usize>> = match self {
            Trigger::Literal(literal) => text
                .match_indices(literal.as_str())
                .take(limit)
                .map(|(start, found)| start..start + found.len())
                .collect(),
            Trigger::Pattern { .. } => match self.engine() {
                Ok(Some(Engine::Linear(regex))) => regex
                    .find_iter(text)
                    .take(limit)
                    .map(|m| m.range())
                    .collect(),
                Ok(Some(Engine::Backtracking(regex))) => regex
                    .find_iter(text)
                    .take(limit)
                    .map_while(Result::ok)
                    .map(|m| m.range())
                    .collect(),
                Ok(None) | Err(_) => Vec::new(),
            },
        };
        found
            .into_iter()
            .map(|range| {
                let start = haystack.original_offset(range.start);
                start..start + range.len()
            })
            .collect()
    }

    /// Whether the trigger fires anywhere in `text` (a give-up counts as no).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        matches!(self.find(text), Ok(Some(_)))
    }
}

/// The `regex` crate first; fancy-regex only for what it refuses.
fn compile(source: &str, pattern: &str) -> Result<Engine, TriggerError> {
    let linear_error = match regex::RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
    {
        Ok(regex) => return Ok(Engine::Linear(regex)),
        Err(error) => error,
    };
    match fancy_regex::RegexBuilder::new(pattern)
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(PATTERN_SIZE_LIMIT)
        .build()
    {
        Ok(regex) => Ok(Engine::Backtracking(regex)),
        Err(fancy_error) => Err(TriggerError::Compile {
            trigger: source.to_string(),
            // The linear engine's message shows the pattern with a caret; prefer it unless it
            // only complains about the features fancy-regex adds.
            message: if is_unsupported_feature(&linear_error) {
                fancy_error.to_string()
            } else {
                linear_error.to_string()
            },
        }),
    }
}

fn is_unsupported_feature(error: &regex::Error) -> bool {
    let text = error.to_string();
    text.contains("look-around") || text.contains("backreferences")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_and_regex() {
        let literal = Trigger::parse("DankeTheme.secondaryText").unwrap();
        assert_eq!(literal.find("x DankeTheme.secondaryText").unwrap(), Some(2));
        assert!(!literal.is_match("DankeTheme.textSecondary"));
        let regex = Trigger::parse(r"regex:re\.compile\(").unwrap();
        assert!(matches!(regex.engine().unwrap(), Some(Engine::Linear(_))));
        assert!(regex.is_match("x = re.compile('a')"));
    }

    #[test]
    fn lookbehind_uses_fancy() {
        let trigger = Trigger::parse(r"regex:(?<!_)re\.compile").unwrap();
        assert!(matches!(
            trigger.engine().unwrap(),
            Some(Engine::Backtracking(_))
        ));
        assert!(trigger.is_match("re.compile(x)"));
        assert!(!trigger.is_match("_re.compile(x)"));
        let backref = Trigger::parse(r"regex:(\w+) \1").unwrap();
        assert!(backref.is_match("the the"));
    }

    #[test]
    fn bad_pattern_names_pattern_and_message() {
        let error = Trigger::validate("regex:foo(").unwrap_err().to_string();
        assert!(error.contains("regex:foo("), "{error}");
        assert!(error.contains("unclosed"), "{error}");
        assert!(matches!(Trigger::parse("regex:"), Err(TriggerError::Empty)));
    }

    #[test]
    fn regexes_never_see_a_line_longer_than_the_limit() {
        let long = format!("{}needle", "x".repeat(REGEX_LINE_BYTES));
        let text = format!("a\n{long}\nb needle");
        let trigger = Trigger::parse("regex:need+le").unwrap();
        // Not seen on the long line 2; seen on line 3, at its offset in the original text.
        assert_eq!(
            trigger.find(&text).unwrap(),
            Some(text.rfind("needle").unwrap())
        );
        let literal = Trigger::parse("needle").unwrap();
        assert_eq!(literal.find(&text).unwrap(), text.find("needle"));
        // No line end is invented where a long line would have been cut.
        let anchored = Trigger::parse("regex:^x+$").unwrap();
        assert_eq!(anchored.find(&format!("{long}\n")).unwrap(), None);
    }

    #[test]
    fn huge_counted_repetitions_finish() {
        let one_line = "a".repeat(1 << 20);
        let many_lines = format!("{}\n", "a".repeat(1000)).repeat(1000);
        // That these return at all is the point; how fast is `cargo bench --bench matching`'s.
        for pattern in [
            "regex:(?:a{100}){100}(?=z)",
            "regex:(?:a{100}){30}z",
            "regex:(?:a{100}){30}(?=z)",
        ] {
            let trigger = Trigger::parse(pattern).unwrap();
            for text in [&one_line, &many_lines] {
                assert!(!trigger.is_match(text), "{pattern}");
            }
        }
    }

    #[test]
    fn pathological_patterns_are_bounded() {
        // Lines at the length limit: the engines' own bounds are what keeps this fast.
        let text = format!("{}!\n", "a".repeat(REGEX_LINE_BYTES - 1)).repeat(40);
        assert!(!Trigger::parse("regex:^(a+)+$").unwrap().is_match(&text));
        // The backtracking engine stops at its step limit: an error, not a hang.
        let fancy = Trigger::parse(r"regex:(?=a)(a+)+\1$").unwrap();
        assert!(!matches!(fancy.find(&text), Ok(Some(_))));
    }
}
