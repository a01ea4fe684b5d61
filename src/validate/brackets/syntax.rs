//! What the bracket lexer must know of a language, as settings a language's spec holds: the lexer
//! itself knows no language by name.

/// What the bracket lexer must know of a language to count its brackets: what hides a bracket
/// (comments, strings, character literals, backquoted names) and what it cannot read for certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BracketSyntax {
    /// Whether the balance is a second witness of the grammar's errors (a grammar trusted only for
    /// what an edit introduced); otherwise the lexer only names the likely cause of a trusted
    /// grammar's errors.
    pub(crate) witnesses: bool,
    /// Whether `//` starts a comment (not in CSS).
    pub(crate) line_comments: bool,
    /// Whether `/* */` comments nest (Swift, Kotlin, Rust).
    pub(crate) nested_comments: bool,
    /// What a backquote opens.
    pub(crate) backquote: Backquote,
    /// What a `"` string is.
    pub(crate) strings: Strings,
    /// Rust's `'a` lifetimes and labels (no character literal) and `r#"…"#` raw strings.
    pub(crate) lifetimes_and_raw_strings: bool,
    /// Whether a `#` starting a line is a preprocessor line, skipped with its continuations (C,
    /// C++).
    pub(crate) preprocessor: bool,
    /// What makes a file unreadable for the lexer, checked before it runs.
    pub(crate) unreadable: Unreadable,
}

/// What a backquote opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backquote {
    /// Nothing: it is a character like any other.
    Nothing,
    /// A name on one line (Swift, Kotlin: `` `default` ``).
    Name,
    /// A raw string over lines, without escapes (Go).
    RawString,
}

/// What a `"` string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strings {
    /// To the closing quote on its line, `\` escaping (C, CSS, Go).
    OneLine,
    /// To the closing quote over lines, `\` escaping (Rust).
    OverLines,
    /// With `"""` strings over lines and code interpolated into both kinds (Swift, Kotlin).
    Interpolated(Interpolation),
}

/// Code inside a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Interpolation {
    /// The two characters that open it: `\(` (Swift), `${` (Kotlin).
    pub(crate) opens: (char, char),
    /// The bracket that ends it: `)` (Swift), `}` (Kotlin).
    pub(crate) closes: char,
    /// Whether `\` escapes in a `"""` string too (Swift; Kotlin's are raw).
    pub(crate) escapes_in_multiline: bool,
}

/// What the lexer cannot read for certain, found before it runs: it then gives no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// It reads every file.
    Nothing,
    /// Conditional compilation with more than one branch or `#if 0`, a `#define` whose brackets
    /// do not balance, a C++ raw string `R"…"` (C, C++).
    Preprocessor,
    /// Raw strings `#"…"#` and regex literals `/…/` (Swift).
    RawStringsAndRegexLiterals,
    /// Multi-dollar strings `$$"…"` (Kotlin).
    MultiDollarStrings,
}
