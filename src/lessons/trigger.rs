//! Triggers: a substring, or `regex:` + a pattern.
//!
//! Invariants: a pattern runs on the linear-time `regex` engine whenever that engine accepts it;
//! only patterns it refuses (lookbehind, lookahead, backreferences) go to fancy-regex, always
//! with a backtrack limit, so no trigger can hang a hook. Patterns compile lazily, once, the first
//! time they are needed: a hook with 10,000 lessons compiles only the regexes whose keyword
//! occurs in the edit. Matching is case-sensitive, like the seed's `in` / `re.search`.

use std::sync::{Arc, OnceLock};

/// The prefix that makes a trigger a regular expression.
pub(crate) const REGEX_PREFIX: &str = "regex:";

/// Backtracking steps fancy-regex may take per search before it gives up.
pub(crate) const BACKTRACK_LIMIT: usize = 200_000;

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

    /// Byte offset of the first match in `text`.
    pub(crate) fn find(&self, text: &str) -> Result<Option<usize>, TriggerError> {
        match self {
            Trigger::Literal(literal) => Ok(text.find(literal.as_str())),
            Trigger::Pattern { source, .. } => match self.engine()? {
                Some(Engine::Linear(regex)) => Ok(regex.find(text).map(|m| m.start())),
                Some(Engine::Backtracking(regex)) => regex
                    .find(text)
                    .map(|found| found.map(|m| m.start()))
                    .map_err(|error| TriggerError::Gaveup {
                        trigger: source.clone(),
                        message: error.to_string(),
                    }),
                None => Ok(None),
            },
        }
    }

    /// Whether the trigger fires anywhere in `text` (a give-up counts as no).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        matches!(self.find(text), Ok(Some(_)))
    }
}

/// The `regex` crate first; fancy-regex only for what it refuses.
fn compile(source: &str, pattern: &str) -> Result<Engine, TriggerError> {
    let linear_error = match regex::RegexBuilder::new(pattern)
        .size_limit(10 * (1 << 20))
        .build()
    {
        Ok(regex) => return Ok(Engine::Linear(regex)),
        Err(error) => error,
    };
    match fancy_regex::RegexBuilder::new(pattern)
        .backtrack_limit(BACKTRACK_LIMIT)
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
    fn pathological_patterns_are_bounded() {
        let text = "a".repeat(40_000) + "!";
        let started = std::time::Instant::now();
        assert!(!Trigger::parse("regex:^(a+)+$").unwrap().is_match(&text));
        let fancy = Trigger::parse(r"regex:(?=a)(a+)+\1$").unwrap();
        let _ = fancy.find(&text);
        assert!(started.elapsed().as_millis() < 2_000);
    }
}
