//! The bracket lexer: reads a file as a language's [`BracketSyntax`] says (what hides a bracket,
//! what it cannot read for certain) and answers whether its brackets balance, which pairs closed,
//! and where its comments are. It knows no language by name: each one's settings are its spec's.

use std::ops::Range;

use super::syntax::{Backquote, BracketSyntax, Strings, Unreadable};

/// What the brackets of a file say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Balance {
    Balanced,
    Problem(BracketProblem),
    /// The lexer cannot read this file for certain.
    Unknown,
}

/// The first bracket that does not balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BracketProblem {
    /// 1-based.
    pub(crate) line: usize,
    /// 1-based, in characters.
    pub(crate) column: usize,
    pub(crate) kind: ProblemKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProblemKind {
    /// Opened and never closed (the innermost one still open at the end).
    Unclosed(char),
    /// A closing bracket with nothing open.
    Stray(char),
    /// A closing bracket that does not match the one open (`{` closed by `)`).
    Mismatched { open: char, close: char },
}

impl BracketProblem {
    pub(crate) fn message(&self) -> String {
        match self.kind {
            ProblemKind::Unclosed(open) => format!("unclosed `{open}` (never closed)"),
            ProblemKind::Stray(close) => format!("stray `{close}` (nothing open to close)"),
            ProblemKind::Mismatched { open, close } => {
                format!("`{close}` closes a `{open}`")
            }
        }
    }
}

/// Whether the brackets of `content` balance, read with `syntax` (the caller has checked that
/// the file is readable, [`is_unreadable`]).
pub(super) fn balance(content: &str, syntax: &BracketSyntax) -> Balance {
    Lexer::new(content, syntax).run()
}

/// [`balance`], with the pairs of brackets that closed.
pub(super) fn balance_and_pairs(content: &str, syntax: &BracketSyntax) -> (Balance, Vec<Pair>) {
    let mut lexer = Lexer::new(content, syntax);
    lexer.pairs = Some(Vec::new());
    let balance = lexer.run();
    (balance, lexer.pairs.unwrap_or_default())
}

/// The byte ranges of `content`'s comments (`//` to the line's end, `/* … */` whole), read with
/// `syntax`; `None` where it cannot read the file for certain. Brackets that do not balance do
/// not stop it: a slip in code does not move a comment.
pub(super) fn comments(content: &str, syntax: &BracketSyntax) -> Option<Vec<Range<usize>>> {
    if is_unreadable(content, syntax) {
        return None;
    }
    let mut lexer = Lexer::new(content, syntax);
    lexer.is_lenient = true;
    lexer.comments = Some(Vec::new());
    let balance = lexer.run();
    lexer.comments.filter(|_| balance != Balance::Unknown)
}

/// A bracket and the one that closed it: (line, column) of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pair {
    pub(super) bracket: char,
    pub(super) open: (usize, usize),
    pub(super) close: (usize, usize),
}

/// What the lexer does not read for certain, found before it runs.
pub(super) fn is_unreadable(content: &str, syntax: &BracketSyntax) -> bool {
    match syntax.unreadable {
        Unreadable::Preprocessor => content.lines().any(|line| {
            let line = line.trim_start();
            let directive = line.strip_prefix('#').map(str::trim_start);
            directive.is_some_and(|directive| {
                is_uncertain_condition(directive)
                    || (directive.starts_with("define")
                        && directive.contains(['{', '}', '(', ')', '[', ']'])
                        && macro_unbalanced(directive))
            }) || line.contains("R\"")
        }),
        Unreadable::RawStringsAndRegexLiterals => {
            content.contains("#\"")
                || content.lines().any(|line| {
                    let code = line.split("//").next().unwrap_or("");
                    code.contains("= /")
                        || code.contains("(/")
                        || code.contains(", /")
                        || code.trim_start().starts_with('/')
                            && !code.trim_start().starts_with("/*")
                })
        }
        Unreadable::MultiDollarStrings => content.contains("$$\""),
        Unreadable::Nothing => false,
    }
}

/// Whether a conditional directive may leave brackets that only balance per branch: an `#else`
/// or `#elif` (each branch may open the same brace), or `#if 0` (what it holds need not be C at
/// all). An `#if`, `#ifdef` or `#ifndef` without another branch (an include guard, `extern "C" {`
/// under `#ifdef __cplusplus`) holds code that balances when its condition holds, so the brackets
/// are counted through it.
fn is_uncertain_condition(directive: &str) -> bool {
    let word: String = directive
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match word.as_str() {
        "else" | "elif" | "elifdef" | "elifndef" => true,
        "if" => directive[2..].trim_start().starts_with('0'),
        _ => false,
    }
}

/// Whether a `#define` line's own brackets do not balance (a macro that opens a block another
/// closes: `#define BEGIN {`).
fn macro_unbalanced(directive: &str) -> bool {
    let mut depth: i64 = 0;
    for c in directive.chars() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    depth != 0
}

/// What the lexer is inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// An open bracket of code.
    Bracket(char),
    /// An interpolation in a string: code until its closing bracket, then the string goes on.
    Interpolation { multiline: bool },
}

struct Lexer<'a> {
    chars: Vec<char>,
    at: usize,
    /// The byte offset of `at`.
    byte: usize,
    line: usize,
    column: usize,
    syntax: &'a BracketSyntax,
    /// Open brackets and interpolations, with where each opened.
    stack: Vec<(Context, usize, usize)>,
    /// Goes on past a bracket that does not balance (only comments are wanted).
    is_lenient: bool,
    /// The comments seen, when they are wanted.
    comments: Option<Vec<Range<usize>>>,
    /// The brackets that closed, when they are wanted.
    pairs: Option<Vec<Pair>>,
}

impl Lexer<'_> {
    fn new<'a>(content: &str, syntax: &'a BracketSyntax) -> Lexer<'a> {
        Lexer {
            chars: content.chars().collect(),
            at: 0,
            byte: 0,
            line: 1,
            column: 1,
            syntax,
            stack: Vec::new(),
            is_lenient: false,
            comments: None,
            pairs: None,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(index, c)| self.peek(index) == Some(c))
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        self.byte += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip(&mut self, count: usize) {
        for _ in 0..count {
            self.bump();
        }
    }

    fn run(&mut self) -> Balance {
        while let Some(c) = self.peek(0) {
            let (line, column, start) = (self.line, self.column, self.byte);
            let done = match c {
                '/' if self.peek(1) == Some('/') && self.syntax.line_comments => {
                    self.skip_line();
                    self.comment(start)
                }
                '/' if self.peek(1) == Some('*') => {
                    self.skip_block_comment() && self.comment(start)
                }
                '`' if self.syntax.backquote == Backquote::Name => {
                    self.bump();
                    self.plain_body('`')
                }
                '`' if self.syntax.backquote == Backquote::RawString => {
                    self.bump();
                    self.raw_body("`")
                }
                '\'' if self.syntax.lifetimes_and_raw_strings && !self.starts_char_literal() => {
                    // A lifetime or a loop label.
                    self.bump();
                    true
                }
                'r' | 'b' | 'c'
                    if self.syntax.lifetimes_and_raw_strings && self.starts_raw_string() =>
                {
                    self.skip_raw_string()
                }
                '#' if self.syntax.preprocessor && self.at_line_start() => {
                    self.skip_directive();
                    true
                }
                '"' | '\'' => self.skip_string(),
                '{' | '(' | '[' => {
                    self.bump();
                    self.stack.push((Context::Bracket(c), line, column));
                    true
                }
                '}' | ')' | ']' => match self.close(c, line, column) {
                    Ok(readable) => readable,
                    Err(_) if self.is_lenient => true,
                    Err(problem) => return Balance::Problem(problem),
                },
                _ => {
                    self.bump();
                    true
                }
            };
            if !done {
                return Balance::Unknown;
            }
        }
        match self.stack.last() {
            None => Balance::Balanced,
            Some((Context::Bracket(open), line, column)) => Balance::Problem(BracketProblem {
                line: *line,
                column: *column,
                kind: ProblemKind::Unclosed(*open),
            }),
            Some((Context::Interpolation { .. }, _, _)) => Balance::Unknown,
        }
    }

    /// Records the comment from `start` to here, when comments are wanted.
    fn comment(&mut self, start: usize) -> bool {
        let end = self.byte;
        if let Some(comments) = &mut self.comments {
            comments.push(start..end);
        }
        true
    }

    /// A closing bracket: it closes the open one, or ends an interpolation (then the string it
    /// was in goes on). `Ok(false)`: what follows cannot be read for certain.
    fn close(&mut self, close: char, line: usize, column: usize) -> Result<bool, BracketProblem> {
        self.bump();
        match self.stack.pop() {
            None => Err(BracketProblem {
                line,
                column,
                kind: ProblemKind::Stray(close),
            }),
            Some((Context::Bracket(open), open_line, open_column)) if matches(open, close) => {
                if let Some(pairs) = &mut self.pairs {
                    pairs.push(Pair {
                        bracket: open,
                        open: (open_line, open_column),
                        close: (line, column),
                    });
                }
                Ok(true)
            }
            Some((Context::Bracket(open), _, _)) => Err(BracketProblem {
                line,
                column,
                kind: ProblemKind::Mismatched { open, close },
            }),
            Some((Context::Interpolation { multiline }, _, _)) => {
                let Strings::Interpolated(interpolation) = self.syntax.strings else {
                    return Ok(false);
                };
                Ok(close == interpolation.closes
                    && self.string_body(if multiline { "\"\"\"" } else { "\"" }))
            }
        }
    }

    fn at_line_start(&self) -> bool {
        self.chars[..self.at]
            .iter()
            .rev()
            .take_while(|c| **c != '\n')
            .all(|c| c.is_whitespace())
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                return;
            }
            self.bump();
        }
    }

    /// A preprocessor line and its `\` continuations.
    fn skip_directive(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\\' && self.peek(1) == Some('\n') {
                self.skip(2);
                continue;
            }
            if c == '\n' {
                return;
            }
            self.bump();
        }
    }

    /// `/* … */`, nested in Swift, Kotlin and Rust; false when it never ends.
    fn skip_block_comment(&mut self) -> bool {
        let nests = self.syntax.nested_comments;
        self.skip(2);
        let mut depth = 1;
        while self.peek(0).is_some() {
            if self.starts_with("*/") {
                self.skip(2);
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            } else if nests && self.starts_with("/*") {
                self.skip(2);
                depth += 1;
            } else {
                self.bump();
            }
        }
        false
    }

    /// A string or character literal from its opening quote; false when it never ends.
    fn skip_string(&mut self) -> bool {
        let quote = self.peek(0).unwrap_or('"');
        if quote == '\'' {
            // A character literal (C, C++, Kotlin) or a CSS string: to the closing quote.
            self.bump();
            return self.plain_body('\'');
        }
        if self.syntax.strings == Strings::OverLines {
            // A Rust string may span lines; `\` escapes the next character.
            self.bump();
            return self.escaped_body('"');
        }
        let interpolates = matches!(self.syntax.strings, Strings::Interpolated(_));
        if self.starts_with("\"\"\"") && interpolates {
            self.skip(3);
            return self.string_body("\"\"\"");
        }
        self.bump();
        if interpolates {
            self.string_body("\"")
        } else {
            self.plain_body('"')
        }
    }

    /// Rust: whether the `'` here opens a character literal (`'x'`, `'\n'`, `'\u{1F600}'`), not a
    /// lifetime or a label (`'a`, `'static`, `'outer:`).
    fn starts_char_literal(&self) -> bool {
        match (self.peek(1), self.peek(2)) {
            (Some('\\'), _) => true,
            (Some(c), Some('\'')) => c != '\'',
            _ => false,
        }
    }

    /// Rust: whether a raw string starts here (`r"`, `r#"`, `br"`, `cr#"`), not a raw identifier
    /// (`r#type`) or a name ending in `r`.
    fn starts_raw_string(&self) -> bool {
        let follows_name = self.at > 0 && {
            let before = self.chars[self.at - 1];
            before.is_alphanumeric() || before == '_'
        };
        if follows_name {
            return false;
        }
        let mut ahead = match (self.peek(0), self.peek(1)) {
            (Some('r'), _) => 1,
            (Some('b' | 'c'), Some('r')) => 2,
            _ => return false,
        };
        while self.peek(ahead) == Some('#') {
            ahead += 1;
        }
        self.peek(ahead) == Some('"')
    }

    /// A raw string from its prefix to its closing `"` and as many `#`; false when it never ends.
    fn skip_raw_string(&mut self) -> bool {
        while self.peek(0) != Some('#') && self.peek(0) != Some('"') {
            self.bump();
        }
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump();
        let end = format!("\"{}", "#".repeat(hashes));
        self.raw_body(&end)
    }

    /// A body without escapes to `end`, over lines (a Go raw string, a Rust raw string); false
    /// when it never ends.
    fn raw_body(&mut self, end: &str) -> bool {
        while self.peek(0).is_some() {
            if self.starts_with(end) {
                self.skip(end.chars().count());
                return true;
            }
            self.bump();
        }
        false
    }

    /// A body to `quote` where `\` escapes the next character, over lines (a Rust string); false
    /// when it never ends.
    fn escaped_body(&mut self, quote: char) -> bool {
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                c if c == quote => return true,
                _ => {}
            }
        }
        false
    }

    /// A string body without interpolation, to `quote`; a line end ends it (C, CSS) only
    /// unterminated, which gives no verdict.
    fn plain_body(&mut self, quote: char) -> bool {
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '\n' => return false,
                c if c == quote => return true,
                _ => {}
            }
        }
        false
    }

    /// A Swift or Kotlin string body to `end` (`"` or `"""`); an interpolation opens code on the
    /// stack and returns (its closing bracket resumes the string). False when it never ends.
    fn string_body(&mut self, end: &str) -> bool {
        let multiline = end.len() == 3;
        while self.peek(0).is_some() {
            if self.starts_with(end) {
                self.skip(end.len());
                return true;
            }
            let (line, column) = (self.line, self.column);
            let interpolation = match self.syntax.strings {
                Strings::Interpolated(interpolation) => interpolation,
                _ => return false,
            };
            match (self.peek(0), self.peek(1)) {
                (Some(first), Some(second)) if (first, second) == interpolation.opens => {
                    self.skip(2);
                    self.stack
                        .push((Context::Interpolation { multiline }, line, column));
                    return true;
                }
                (Some('\\'), _) if !multiline || interpolation.escapes_in_multiline => {
                    self.skip(2);
                }
                (Some('\n'), _) if !multiline => return false,
                _ => {
                    self.bump();
                }
            }
        }
        false
    }
}

fn matches(open: char, close: char) -> bool {
    matches!((open, close), ('{', '}') | ('(', ')') | ('[', ']'))
}
