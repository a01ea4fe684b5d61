//! The span-recording JSON reader behind [`super::JsonText`].

use serde_json::Value;

use super::{Kind, Member, Node, SyntaxError};

/// A small recursive-descent reader that records spans. It reads the text with its comments
/// blanked ([`super::jsonc`]), so comments are white space to it.
pub(super) struct Parser<'a> {
    /// The text with its comments blanked.
    pub(super) text: &'a str,
    /// The text as written: error positions count its characters.
    pub(super) original: &'a str,
    pub(super) at: usize,
}

/// Deeper nesting is refused rather than risking the stack.
const MAX_DEPTH: usize = 256;

impl Parser<'_> {
    pub(super) fn error(&self, message: &str) -> SyntaxError {
        let (line, column) = crate::files::line_col(self.original, self.at);
        SyntaxError {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// The one value the text holds, with nothing but white space around it.
    pub(super) fn document(&mut self) -> Result<Node, SyntaxError> {
        self.skip_space();
        let root = self.value(0)?;
        self.skip_space();
        if self.at < self.text.len() {
            return Err(self.error("trailing characters after the JSON value"));
        }
        Ok(root)
    }

    fn skip_space(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                _ if self.text[self.at..].starts_with('\u{feff}') => self.at += 3,
                _ => return,
            }
        }
    }

    pub(super) fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => Kind::Object(self.members(depth)?),
            Some(b'[') => Kind::Array(self.elements(depth)?),
            Some(b'"') => Kind::Scalar(Value::String(self.string()?)),
            Some(_) => Kind::Scalar(self.scalar()?),
            None => return Err(self.error("expected a value, found the end of the text")),
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn members(&mut self, depth: usize) -> Result<Vec<Member>, SyntaxError> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(members);
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a key in double quotes"));
            }
            let start = self.at;
            let key = self.string()?;
            let key_end = self.at;
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after the key"));
            }
            self.at += 1;
            self.skip_space();
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                start,
                key_end,
                value,
            });
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(members);
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn elements(&mut self, depth: usize) -> Result<Vec<Node>, SyntaxError> {
        self.at += 1;
        let mut elements = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(elements);
        }
        loop {
            self.skip_space();
            elements.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(elements);
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut at = start + 1;
        while at < bytes.len() {
            match bytes[at] {
                b'\\' => at += 2,
                b'"' => {
                    let slice = &self.text[start..=at];
                    let decoded = serde_json::from_str(slice)
                        .map_err(|error| self.error(&format!("bad string: {error}")))?;
                    self.at = at + 1;
                    return Ok(decoded);
                }
                _ => at += 1,
            }
        }
        Err(self.error("unterminated string"))
    }

    fn scalar(&mut self) -> Result<Value, SyntaxError> {
        let rest = &self.text[self.at..];
        let length = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')))
            .unwrap_or(rest.len());
        let word = &rest[..length];
        let value = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            _ => serde_json::from_str::<serde_json::Number>(word)
                .map(Value::Number)
                .map_err(|_| self.error("expected a value"))?,
        };
        self.at += length;
        Ok(value)
    }
}
