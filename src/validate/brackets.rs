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
//!
//! What the lexer must know of a language is its spec's [`BracketSyntax`]; the lexer itself
//! ([`lexer`]) knows no language by name, and this folder imports nothing of the languages: a
//! language is [`Lexed`] through its spec.

mod lexer;
mod syntax;

use std::ops::Range;

use lexer::Pair;
pub(crate) use lexer::{Balance, BracketProblem, ProblemKind};
pub(crate) use syntax::{Backquote, BracketSyntax, Interpolation, Strings, Unreadable};

/// What the lexer reads: a language (through its spec), or its settings themselves.
pub(crate) trait Lexed: Copy {
    /// How the lexer reads it; `None`: it does not.
    fn bracket_syntax(self) -> Option<&'static BracketSyntax>;
}

impl Lexed for &'static BracketSyntax {
    fn bracket_syntax(self) -> Option<&'static BracketSyntax> {
        Some(self)
    }
}

/// How the lexer reads `content` in `language`: the languages whose grammar car trusts only for
/// what an edit introduced ([`BracketSyntax::witnesses`]), and Rust and Go, whose grammars car
/// trusts but whose errors after an unclosed bracket need a cause named first;
/// `None` when it does not read the language or cannot read this file for certain.
fn syntax(content: &str, language: impl Lexed) -> Option<&'static BracketSyntax> {
    language
        .bracket_syntax()
        .filter(|syntax| !lexer::is_unreadable(content, syntax))
}

/// Whether the brackets of `content` balance in `language`.
pub(crate) fn balance(content: &str, language: impl Lexed) -> Balance {
    match syntax(content, language) {
        Some(syntax) => lexer::balance(content, syntax),
        None => Balance::Unknown,
    }
}

/// The bracket that most likely caused a file's syntax errors, when its brackets do not balance:
/// a stray or mismatched closing bracket where it stands; for a bracket never closed, the bracket
/// opened inside it that is closed first by a bracket starting a line indented less than the line
/// that opened it (what `rustc` calls "might not be properly closed": the `}` meant for an outer
/// block closed it, so a `}` is missing before that line); else the unclosed bracket itself.
pub(crate) fn likely_cause(content: &str, language: impl Lexed) -> Option<LikelyCause> {
    let (balance, pairs) = lexer::balance_and_pairs(content, syntax(content, language)?);
    let Balance::Problem(problem) = balance else {
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
    let misclosed = pairs.into_iter().filter(|pair| {
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

/// The byte ranges of `content`'s comments (`//` to the line's end, `/* … */` whole), in a
/// language the lexer reads as a witness; `None` where it cannot read the file for certain.
/// Brackets that do not balance do not stop it: a slip in code does not move a comment.
pub(crate) fn comments(content: &str, language: impl Lexed) -> Option<Vec<Range<usize>>> {
    let syntax = language
        .bracket_syntax()
        .filter(|syntax| syntax.witnesses)?;
    lexer::comments(content, syntax)
}

#[cfg(test)]
mod tests;
