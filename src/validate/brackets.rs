//! A second witness for grammars that misread valid code: whether the brackets of a file balance,
//! read by a small lexer that knows the language's comments, strings, character literals, string
//! interpolation (Swift `\(…)`, Kotlin `${…}`) and backquoted names, and nothing else. It sees a
//! slip a grammar also reports (an unclosed `{`, a stray `)`) without the grammar's misreads of
//! newer syntax. The same lexer finds the comments of a Kotlin file, whose text is blanked before
//! parsing ([`comments`]).
//!
//! It also reads Rust and Go (raw strings, lifetimes, runes), for one more question: which
//! bracket most likely caused a grammar's errors ([`likely_cause`]), so that an unclosed `{` is
//! named before the errors it causes.
//!
//! Invariant: rather no verdict than a wrong one. Whatever the lexer cannot read for certain gives
//! [`Balance::Unknown`]: C and C++ conditional compilation with more than one branch (`#else`
//! branches may each open a brace) or `#if 0`, macros whose body holds a bracket, Swift raw strings and regex literals, Kotlin multi-dollar
//! strings, C++ raw strings, a string or comment still open at the end of the file.

use std::ops::Range;

use crate::validate::language::Language;

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

/// The languages the lexer reads: those whose grammar car trusts only for what an edit introduced.
pub(crate) fn reads(language: Language) -> bool {
    matches!(
        language,
        Language::Swift | Language::Kotlin | Language::C | Language::Cpp | Language::Css
    )
}

/// Whether the lexer reads `language`: the languages of [`reads`], and Rust and Go, whose
/// grammars car trusts but whose errors after an unclosed bracket need a cause named first.
fn lexes(language: Language) -> bool {
    reads(language) || matches!(language, Language::Rust | Language::Go)
}

/// Whether the brackets of `content` balance in `language`.
pub(crate) fn balance(content: &str, language: Language) -> Balance {
    if !lexes(language) || is_unreadable(content, language) {
        return Balance::Unknown;
    }
    Lexer::new(content, language).run()
}

/// The bracket that most likely caused a file's syntax errors, when its brackets do not balance:
/// a stray or mismatched closing bracket where it stands; for a bracket never closed, the bracket
/// opened inside it that is closed first by a bracket starting a line indented less than the line
/// that opened it (what `rustc` calls "might not be properly closed": the `}` meant for an outer
/// block closed it, so a `}` is missing before that line); else the unclosed bracket itself.
pub(crate) fn likely_cause(content: &str, language: Language) -> Option<LikelyCause> {
    if !lexes(language) || is_unreadable(content, language) {
        return None;
    }
    let mut lexer = Lexer::new(content, language);
    lexer.pairs = Some(Vec::new());
    let Balance::Problem(problem) = lexer.run() else {
        return None;
    };
    let ProblemKind::Unclosed(_) = problem.kind else {
        return Some(LikelyCause {
            problem,
            closed_on: None,
        });
    };
    let indentation = |line: usize| {
        content
            .split('\n')
            .nth(line - 1)
            .map(|text| (text.len() - text.trim_start().len(), text.trim_start()))
    };
    let opened_inside = |pair: &&Pair| (pair.open.0, pair.open.1) > (problem.line, problem.column);
    let misclosed = lexer.pairs.unwrap_or_default().into_iter().filter(|pair| {
        let (Some((open_indent, _)), Some((close_indent, close_text))) =
            (indentation(pair.open.0), indentation(pair.close.0))
        else {
            return false;
        };
        pair.close.0 > pair.open.0
            && close_text.chars().next().is_some_and(|c| "})]".contains(c))
            && close_indent < open_indent
    });
    // The first to close: an outer pair misclosed after it is its consequence.
    let first = misclosed
        .filter(|pair| opened_inside(&pair))
        .min_by_key(|pair| pair.close);
    Some(match first {
        Some(pair) => LikelyCause {
            problem: BracketProblem {
                line: pair.open.0,
                column: pair.open.1,
                kind: ProblemKind::Unclosed(pair.bracket),
            },
            closed_on: Some(pair.close.0),
        },
        None => LikelyCause {
            problem,
            closed_on: None,
        },
    })
}

/// The bracket [`likely_cause`] names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LikelyCause {
    pub(crate) problem: BracketProblem,
    /// For a bracket closed by a less indented line: that line (1-based).
    pub(crate) closed_on: Option<usize>,
}

impl LikelyCause {
    pub(crate) fn message(&self) -> String {
        match (self.problem.kind, self.closed_on) {
            (ProblemKind::Unclosed(open), Some(line)) => format!(
                "unclosed `{open}`: the `{}` on line {line} that closes it is indented like an outer block, so a `{}` is likely missing before line {line}",
                closing(open),
                closing(open)
            ),
            _ => self.problem.message(),
        }
    }
}

/// The bracket that closes `open`.
fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// A bracket and the one that closed it: (line, column) of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pair {
    bracket: char,
    open: (usize, usize),
    close: (usize, usize),
}

/// The byte ranges of `content`'s comments (`//` to the line's end, `/* … */` whole), found by the
/// same lexer; `None` where it cannot read the file for certain. Brackets that do not balance do
/// not stop it: a slip in code does not move a comment.
pub(crate) fn comments(content: &str, language: Language) -> Option<Vec<Range<usize>>> {
    if !reads(language) || is_unreadable(content, language) {
        return None;
    }
    let mut lexer = Lexer::new(content, language);
    lexer.is_lenient = true;
    lexer.comments = Some(Vec::new());
    let balance = lexer.run();
    lexer.comments.filter(|_| balance != Balance::Unknown)
}

/// What the lexer does not read for certain, found before it runs.
fn is_unreadable(content: &str, language: Language) -> bool {
    match language {
        Language::C | Language::Cpp => content.lines().any(|line| {
            let line = line.trim_start();
            let directive = line.strip_prefix('#').map(str::trim_start);
            directive.is_some_and(|directive| {
                is_uncertain_condition(directive)
                    || (directive.starts_with("define")
                        && directive.contains(['{', '}', '(', ')', '[', ']'])
                        && macro_unbalanced(directive))
            }) || line.contains("R\"")
        }),
        Language::Swift => {
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
        Language::Kotlin => content.contains("$$\""),
        _ => false,
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

struct Lexer {
    chars: Vec<char>,
    at: usize,
    /// The byte offset of `at`.
    byte: usize,
    line: usize,
    column: usize,
    language: Language,
    /// Open brackets and interpolations, with where each opened.
    stack: Vec<(Context, usize, usize)>,
    /// Goes on past a bracket that does not balance (only comments are wanted).
    is_lenient: bool,
    /// The comments seen, when they are wanted.
    comments: Option<Vec<Range<usize>>>,
    /// The brackets that closed, when they are wanted.
    pairs: Option<Vec<Pair>>,
}

impl Lexer {
    fn new(content: &str, language: Language) -> Lexer {
        Lexer {
            chars: content.chars().collect(),
            at: 0,
            byte: 0,
            line: 1,
            column: 1,
            language,
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
                '/' if self.peek(1) == Some('/') && self.language != Language::Css => {
                    self.skip_line();
                    self.comment(start)
                }
                '/' if self.peek(1) == Some('*') => {
                    self.skip_block_comment() && self.comment(start)
                }
                '`' if matches!(self.language, Language::Swift | Language::Kotlin) => {
                    self.bump();
                    self.plain_body('`')
                }
                '`' if self.language == Language::Go => {
                    self.bump();
                    self.raw_body("`")
                }
                '\'' if self.language == Language::Rust && !self.starts_char_literal() => {
                    // A lifetime or a loop label.
                    self.bump();
                    true
                }
                'r' | 'b' | 'c' if self.language == Language::Rust && self.starts_raw_string() => {
                    self.skip_raw_string()
                }
                '#' if matches!(self.language, Language::C | Language::Cpp)
                    && self.at_line_start() =>
                {
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
                let ends = if self.language == Language::Swift {
                    ')'
                } else {
                    '}'
                };
                Ok(close == ends && self.string_body(if multiline { "\"\"\"" } else { "\"" }))
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
        let nests = matches!(
            self.language,
            Language::Swift | Language::Kotlin | Language::Rust
        );
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
        if self.language == Language::Rust {
            // A Rust string may span lines; `\` escapes the next character.
            self.bump();
            return self.escaped_body('"');
        }
        let interpolates = matches!(self.language, Language::Swift | Language::Kotlin);
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
            match (self.language, self.peek(0), self.peek(1)) {
                (Language::Swift, Some('\\'), Some('(')) => {
                    self.skip(2);
                    self.stack
                        .push((Context::Interpolation { multiline }, line, column));
                    return true;
                }
                (Language::Kotlin, Some('$'), Some('{')) => {
                    self.skip(2);
                    self.stack
                        .push((Context::Interpolation { multiline }, line, column));
                    return true;
                }
                (_, Some('\\'), _) if !multiline || self.language == Language::Swift => {
                    self.skip(2);
                }
                (_, Some('\n'), _) if !multiline => return false,
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

#[cfg(test)]
mod tests;
