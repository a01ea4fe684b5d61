//! A line of code as tokens: names, numbers, quoted strings, spaces and single punctuation
//! characters, whose texts concatenate back to the line. What a learned trigger is built from
//! ([`crate::learning::synthesis`]) and how a line's shape is compared
//! ([`crate::learning::verification`]).
//!
//! Invariants: tokenizing never loses a character; a token's kind depends on its text only, never
//! on the language (a trigger learned in Python and in TypeScript is built the same way).

use crate::learning::precision;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Word,
    Number,
    Text,
    Space,
    Punct,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Kind,
    pub(crate) text: &'a str,
}

/// Words that are values, not statements: they count as atoms (`= False` is about a value).
const VALUE_WORDS: &[&str] = &["true", "false", "none", "null", "nil", "undefined"];

/// Words that start a definition: the name after one is defined there, not used.
const DEFINING_WORDS: &[&str] = &[
    "def",
    "function",
    "fn",
    "func",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
];

impl Token<'_> {
    /// A name, a number, a string or a value word: what a pattern is about.
    pub(crate) fn is_atom(&self) -> bool {
        match self.kind {
            Kind::Number | Kind::Text => true,
            // `_` is a placeholder, not a name.
            Kind::Word => {
                (!precision::is_keyword(self.text) || is_value_word(self.text))
                    && !self.text.chars().all(|c| c == '_')
            }
            Kind::Space | Kind::Punct => false,
        }
    }

    /// A name that says what a pattern is about: not a keyword, 4 characters or more; or a
    /// string holding such a name (`"redis_host"`, `"lodash"`); or a dotted version (`3.11`).
    pub(crate) fn is_significant(&self) -> bool {
        match self.kind {
            Kind::Word => self.text.chars().count() >= 4 && !precision::is_keyword(self.text),
            Kind::Text => {
                let inner = self.text.trim_matches(|c| c == '"' || c == '\'');
                inner.chars().filter(|c| c.is_alphabetic()).count() >= 4
            }
            Kind::Number => self.is_version(),
            Kind::Space | Kind::Punct => false,
        }
    }

    /// A literal value: a number, a string, `True`/`False`/`None`/`null`.
    pub(crate) fn is_value(&self) -> bool {
        matches!(self.kind, Kind::Number | Kind::Text)
            || (self.kind == Kind::Word && is_value_word(self.text))
    }

    /// A version: `v3`, `v4.1`, `3.11`, `1.2.3` (a bump from one to another is a lesson: the
    /// version is an atom with its context, `actions/cache@v2`).
    pub(crate) fn is_version(&self) -> bool {
        let text = match self.kind {
            Kind::Word => match self.text.strip_prefix('v') {
                Some(rest) => rest,
                None => return false,
            },
            Kind::Number => self.text,
            _ => return false,
        };
        !text.is_empty()
            && text.starts_with(|c: char| c.is_ascii_digit())
            && text.chars().all(|c| c.is_ascii_digit() || c == '.')
            && (self.kind == Kind::Word || text.contains('.'))
    }

    /// `def`, `function`, `class`…: the next name is being defined.
    pub(crate) fn is_defining(&self) -> bool {
        self.kind == Kind::Word && DEFINING_WORDS.contains(&self.text)
    }

    pub(crate) fn is_open_bracket(&self) -> bool {
        self.kind == Kind::Punct && matches!(self.text, "(" | "[" | "{")
    }

    pub(crate) fn is_close_bracket(&self) -> bool {
        self.kind == Kind::Punct && matches!(self.text, ")" | "]" | "}")
    }
}

fn is_value_word(word: &str) -> bool {
    VALUE_WORDS.contains(&word.to_lowercase().as_str())
}

/// Splits a line into tokens; the tokens' texts concatenate to the line.
pub(crate) fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = line;
    while let Some(first) = rest.chars().next() {
        let length = if first.is_alphabetic() || first == '_' {
            run_length(rest, |c| c.is_alphanumeric() || c == '_')
        } else if first.is_ascii_digit() {
            run_length(rest, |c| c.is_alphanumeric() || c == '_' || c == '.')
        } else if first.is_whitespace() {
            run_length(rest, char::is_whitespace)
        } else if first == '"' || first == '\'' {
            quoted_length(rest, first).unwrap_or(first.len_utf8())
        } else {
            first.len_utf8()
        };
        let kind = match first {
            c if c.is_alphabetic() || c == '_' => Kind::Word,
            c if c.is_ascii_digit() => Kind::Number,
            c if c.is_whitespace() => Kind::Space,
            '"' | '\'' if length > 1 => Kind::Text,
            _ => Kind::Punct,
        };
        tokens.push(Token {
            kind,
            text: &rest[..length],
        });
        rest = &rest[length..];
    }
    tokens
}

fn run_length(text: &str, part: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .find(|(_, c)| !part(*c))
        .map_or(text.len(), |(index, _)| index)
}

/// The length of a quoted string starting at `text[0]`, closing quote included.
fn quoted_length(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (index, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == quote => return Some(index + c.len_utf8()),
            _ => {}
        }
    }
    None
}

/// The old tokens a change replaced: everything between the common start and the common end
/// (compared by text; spaces of any width are the same).
pub(crate) fn changed_range(old: &[Token<'_>], new: &[Token<'_>]) -> (usize, usize) {
    // Spacing is formatting: any space equals any space.
    let same = |(a, b): &(&Token<'_>, &Token<'_>)| {
        a.text == b.text || (a.kind == Kind::Space && b.kind == Kind::Space)
    };
    let prefix = old.iter().zip(new).take_while(same).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(same)
        .count();
    (prefix, old.len() - suffix)
}

/// `start..end` without the spaces at its edges.
pub(crate) fn trim_spaces(
    tokens: &[Token<'_>],
    mut start: usize,
    mut end: usize,
) -> (usize, usize) {
    while start < end && tokens[start].kind == Kind::Space {
        start += 1;
    }
    while end > start && tokens[end - 1].kind == Kind::Space {
        end -= 1;
    }
    (start, end)
}

/// The shape of tokens as a person compares two lines of the same mistake: names, strings and
/// numbers as their kind, everything else as written, spaces as one space. A comment ends it.
pub(crate) fn shape(tokens: &[Token<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous: Option<Token<'_>> = None;
    for token in tokens {
        let starts_comment =
            token.text == "#" || (token.text == "/" && previous.is_some_and(|p| p.text == "/"));
        if starts_comment {
            if token.text == "/" {
                out.pop();
            }
            break;
        }
        out.push(match token.kind {
            Kind::Word if token.is_atom() && !token.is_value() => "N".to_string(),
            Kind::Text => "S".to_string(),
            Kind::Number => "0".to_string(),
            Kind::Space => " ".to_string(),
            _ => token.text.to_string(),
        });
        previous = Some(*token);
    }
    while out.last().is_some_and(|last| last == " ") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_rebuild_the_line() {
        let line = r#"  x = f("a, \"b\"", 'c') + 1.5e3 # ünïcode"#;
        let rebuilt: String = tokenize(line).iter().map(|t| t.text).collect();
        assert_eq!(rebuilt, line);
        let kinds: Vec<Kind> = tokenize(r#"f("a, b")"#).iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [Kind::Word, Kind::Punct, Kind::Text, Kind::Punct]);
    }

    #[test]
    fn versions_are_significant_atoms() {
        let tokens = tokenize("uses: actions/cache@v2 python:3.11 x==2 v");
        let versions: Vec<&str> = tokens
            .iter()
            .filter(|t| t.is_version())
            .map(|t| t.text)
            .collect();
        assert_eq!(versions, ["v2", "3.11"]);
        assert!(
            tokens
                .iter()
                .any(|t| t.text == "3.11" && t.is_significant())
        );
    }

    #[test]
    fn shapes_compare_the_same_mistake() {
        let a = shape(&tokenize("(body)"));
        let b = shape(&tokenize("(raw_bytes)  # parse"));
        assert_eq!(a, b);
        assert_ne!(a, shape(&tokenize("(body, Loader=yaml.SafeLoader)")));
        assert_eq!(shape(&tokenize("(x) // note")), shape(&tokenize("(y)")));
    }
}
