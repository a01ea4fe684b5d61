//! A learned trigger as a sequence of elements: tokens every example wrote the same way, and
//! wildcards where the examples differ only in a name, a string or a number (the names one
//! sighting holds are generalised away). When the fix *added* to the call instead of replacing
//! something, the pattern carries an `unless`: the call without it is the mistake
//! (`….extractall(` unless `filter=` is passed in that call).
//!
//! A pattern becomes the trigger a lesson stores: a plain substring when every element is a
//! literal (matched as whole identifiers in code), else `regex:` with the wildcards and the
//! negative lookahead ([`Pattern::trigger`]).
//!
//! Invariants: a pattern's regex matches exactly the texts its elements describe; a wildcard
//! never matches across a line; the `unless` lookahead looks inside the call the pattern opens
//! (one level of nested brackets, across lines) and no further.

use std::fmt::Write as _;

use crate::learning::tokens::{Kind, Token};

/// One position of a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Element {
    /// A token written the same way in every example (spaces: some space).
    Literal { text: String, kind: Kind },
    /// A name that differs between examples.
    AnyName,
    /// A string literal that differs between examples; `quote` is its first example's quote.
    AnyText { quote: char },
    /// A number that differs between examples.
    AnyNumber,
}

impl Element {
    pub(crate) fn of(token: &Token<'_>) -> Element {
        Element::Literal {
            text: token.text.to_string(),
            kind: token.kind,
        }
    }

    /// The wildcard standing for both tokens, when they are atoms of the same kind.
    pub(crate) fn generalising(a: &Token<'_>, b: &Token<'_>) -> Option<Element> {
        if a.text == b.text || (a.kind == Kind::Space && b.kind == Kind::Space) {
            return Some(Element::of(a));
        }
        if a.kind != b.kind || !a.is_atom() || !b.is_atom() {
            return None;
        }
        match a.kind {
            // A keyword or value word stays what it is: `True` and `False` are not one thing.
            Kind::Word if a.is_value() || b.is_value() => None,
            Kind::Word => Some(Element::AnyName),
            Kind::Text => Some(Element::AnyText {
                quote: a.text.chars().next().unwrap_or('"'),
            }),
            Kind::Number => Some(Element::AnyNumber),
            Kind::Space | Kind::Punct => None,
        }
    }

    /// Whether `token` is one this element stands for.
    pub(crate) fn admits(&self, token: &Token<'_>) -> bool {
        match self {
            Element::Literal { text, kind } => {
                token.text == text || (*kind == Kind::Space && token.kind == Kind::Space)
            }
            Element::AnyName => token.kind == Kind::Word && token.is_atom() && !token.is_value(),
            Element::AnyText { .. } => token.kind == Kind::Text,
            Element::AnyNumber => token.kind == Kind::Number,
        }
    }

    pub(crate) fn is_literal(&self) -> bool {
        matches!(self, Element::Literal { .. })
    }

    /// A name, a string, a number or a value, literal or not.
    fn is_atom(&self) -> bool {
        match self {
            Element::Literal { text, kind } => Token { kind: *kind, text }.is_atom(),
            _ => true,
        }
    }
}

/// What the fix added to the call: the call without it is the mistake.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Unless {
    /// The word the fix passed (`filter`, `Loader`, `timeout`).
    pub(crate) word: String,
    /// Passed as `word=` (or `word:`): a keyword argument.
    pub(crate) is_keyword_argument: bool,
    /// What the fixes inserted, when they agree (`, filter="data"`), for the lesson's text.
    pub(crate) inserted: Option<String>,
}

/// A trigger built from examples.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Pattern {
    pub(crate) elements: Vec<Element>,
    /// The pattern ends with the call's `(` and the call must not hold this.
    pub(crate) unless: Option<Unless>,
}

impl Pattern {
    /// The trigger a lesson stores: the literal text, or `regex:` + the pattern.
    pub(crate) fn trigger(&self) -> String {
        if self.unless.is_none() && self.elements.iter().all(Element::is_literal) {
            return self.literal_text();
        }
        format!("{}{}", crate::lessons::trigger::REGEX_PREFIX, self.regex())
    }

    /// The elements' text, wildcards written `…`: how a person reads the pattern.
    pub(crate) fn display(&self) -> String {
        let mut out = String::new();
        for element in &self.elements {
            match element {
                Element::Literal { text, .. } => out.push_str(text),
                Element::AnyName | Element::AnyText { .. } | Element::AnyNumber => out.push('…'),
            }
        }
        out
    }

    /// The literal text (only meaningful when every element is literal).
    fn literal_text(&self) -> String {
        self.display()
    }

    /// The pattern as a regex: whole identifiers at its edges, wildcards, the lookahead.
    pub(crate) fn regex(&self) -> String {
        let mut out = String::new();
        if self.starts_with_word() {
            out.push_str(r"\b");
        }
        for element in &self.elements {
            match element {
                Element::Literal {
                    kind: Kind::Space, ..
                } => out.push_str(r"[ \t]+"),
                Element::Literal { text, .. } => out.push_str(&regex::escape(text)),
                Element::AnyName => out.push_str(r"[A-Za-z_][A-Za-z0-9_]*"),
                Element::AnyText { quote } => {
                    let _ = write!(out, "{quote}[^{quote}\\n]*{quote}");
                }
                Element::AnyNumber => out.push_str(r"[0-9][0-9A-Za-z_.]*"),
            }
        }
        match &self.unless {
            Some(unless) => {
                let word = regex::escape(&unless.word);
                let after = if unless.is_keyword_argument {
                    r"[ \t]*[=:]"
                } else {
                    r"\b"
                };
                // Inside this call only: text without brackets, or one bracketed level.
                let _ = write!(out, r"(?![^()]*(?:\([^()]*\)[^()]*)*?\b{word}{after})");
            }
            None if self.ends_with_word() => out.push_str(r"\b"),
            None => {}
        }
        out
    }

    fn starts_with_word(&self) -> bool {
        match self.elements.first() {
            Some(Element::Literal { text, .. }) => text.starts_with(is_identifier),
            Some(Element::AnyName | Element::AnyNumber) => true,
            _ => false,
        }
    }

    fn ends_with_word(&self) -> bool {
        match self.elements.last() {
            Some(Element::Literal { text, .. }) => text.ends_with(is_identifier),
            Some(Element::AnyName | Element::AnyNumber) => true,
            _ => false,
        }
    }

    /// Atoms (literal or wildcard) and literal atoms.
    pub(crate) fn atom_counts(&self) -> (usize, usize) {
        let atoms = self.elements.iter().filter(|e| e.is_atom()).count();
        let literal = self
            .elements
            .iter()
            .filter(|e| e.is_atom() && e.is_literal())
            .count();
        (atoms, literal)
    }
}

fn is_identifier(character: char) -> bool {
    character.is_alphanumeric() || character == '_'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::tokens::tokenize;

    fn literal(line: &str) -> Vec<Element> {
        tokenize(line).iter().map(Element::of).collect()
    }

    #[test]
    fn literal_patterns_are_plain_triggers() {
        let pattern = Pattern {
            elements: literal("pickle.loads"),
            unless: None,
        };
        assert_eq!(pattern.trigger(), "pickle.loads");
        assert_eq!(pattern.display(), "pickle.loads");
    }

    #[test]
    fn wildcards_and_unless_become_a_regex() {
        let mut elements = vec![Element::AnyName];
        elements.extend(literal(".extractall("));
        let pattern = Pattern {
            elements,
            unless: Some(Unless {
                word: "filter".into(),
                is_keyword_argument: true,
                inserted: None,
            }),
        };
        let trigger = pattern.trigger();
        let pattern_text = trigger.strip_prefix("regex:").unwrap();
        let regex = fancy_regex::Regex::new(pattern_text).unwrap();
        assert!(regex.is_match("    tar.extractall(dest)").unwrap());
        assert!(regex.is_match("archive.extractall(path=out)").unwrap());
        assert!(
            !regex
                .is_match("tar.extractall(dest, filter=\"data\")")
                .unwrap()
        );
        assert!(
            !regex
                .is_match("tar.extractall(\n    os.path.join(a, b),\n    filter='data',\n)")
                .unwrap()
        );
        assert!(
            regex
                .is_match("tar.extractall(dest)\nother(filter=1)")
                .unwrap(),
            "a later call's keyword is not this call's"
        );
        assert_eq!(pattern.display(), "….extractall(");
    }
}
