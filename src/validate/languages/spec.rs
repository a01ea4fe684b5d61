//! What car knows of one language, as data: its names and how its files are recognised, its
//! grammar, how far it is trusted and what it misreads, how its brackets are counted. Each
//! language's file in this folder holds its [`LanguageSpec`]; the cross-language machinery
//! (detection, the grammar check, trust, the bracket lexer, the real tools, the import check)
//! reads the spec instead of matching on the language.
//!
//! Invariants: a spec is a `const`, read through a `static` table ([`super::SPECS`]): reading
//! one costs an index, never an allocation; the names, extensions and file names of two
//! languages never overlap, so the order in which detection reads the specs decides nothing.

use std::borrow::Cow;

use tree_sitter_language::LanguageFn;

use crate::validate::brackets::BracketSyntax;

/// A rewrite of a file's content that undoes what a grammar misreads; borrowed when nothing
/// changed.
pub(crate) type Rewrite = fn(&str) -> Cow<'_, str>;

/// One language car validates.
pub(crate) struct LanguageSpec {
    /// A short lower-case name, used in validator names and notes ("python", "bash", "cpp").
    pub(crate) name: &'static str,
    /// The names notebooks and agents give it ("python3", "ipython", "js"), lower-case.
    pub(crate) aliases: &'static [&'static str],
    /// Extensions, lower-case and without the dot.
    pub(crate) extensions: &'static [&'static str],
    /// File names that decide the language on their own, before the extension.
    pub(crate) file_names: &'static [FileName],
    /// The programs a `#!` line names for it.
    pub(crate) interpreters: &'static [Interpreter],
    /// A file of one of its extensions that is another language after all.
    pub(crate) unless: Option<Unless>,
    /// Its tree-sitter grammar, when this build has one (`None`: its own checker, or a grammar of
    /// the `extra-grammars` feature in a build without it).
    pub(crate) grammar: Option<LanguageFn>,
    /// What an error of its grammar may do ([`crate::validate::trust`]).
    pub(crate) trust: TrustRule,
    /// Whether the text of its string literals is prose (what a program says, not what it does),
    /// as in programming languages; in data languages (TOML, CSS, JSON) strings are the content.
    pub(crate) strings_are_prose: bool,
    /// Text that makes a file a template, not the language until rendered (`{{` in HTML).
    pub(crate) template_markers: &'static [&'static str],
    /// What its grammar misreads, undone before parsing ([`crate::validate::rewrite`]): a rewrite
    /// that keeps every line and every position up to a line's end.
    pub(crate) rewrite: Option<Rewrite>,
    /// How the bracket lexer reads it ([`crate::validate::brackets`]); `None`: it does not.
    pub(crate) brackets: Option<BracketSyntax>,
}

/// What an error of a grammar may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trust {
    /// The grammar reads valid code right: its errors block.
    Blocks,
    /// The grammar misreads valid code: an error blocks only when the edit introduced it; every
    /// other finding (and every finding on a new file or in `car check`) is a warning.
    Introduced,
    /// Never blocks: every finding is a warning (HTML: browsers accept anything, and server
    /// templates live in `.html` files).
    Warns,
}

/// How far a language's grammar is believed, measured on published code with the real-code
/// benchmark (`benches/real-code/`); each rule that lowers the trust says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrustRule {
    /// Clean on the benchmark: [`Trust::Blocks`].
    Blocks,
    /// [`Trust::Introduced`]: the grammar misreads what the text says.
    Introduced(&'static str),
    /// [`Trust::Warns`], for the reason given.
    Warns(&'static str),
    /// [`Trust::Blocks`], but [`Trust::Introduced`] for a file with a `@flow` pragma in its
    /// leading comments: Flow type annotations are not JavaScript, and the grammar cannot read
    /// them.
    BlocksUnlessFlow,
}

/// A (lower-cased) file name that decides the language.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FileName {
    /// The whole name: `gemfile`, `cargo.lock`.
    Is(&'static str),
    /// A name starting so: `dockerfile.dev`.
    StartsWith(&'static str),
    /// A `.json` name starting so: `tsconfig.build.json`.
    JsonStartingWith(&'static str),
    /// Any `.json` file in a folder of this name: `.vscode/settings.json`.
    JsonIn(&'static str),
}

/// A program a `#!` line names (its base name, after `env` and its options).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Interpreter {
    /// Exactly this name: `bash`, `node`.
    Is(&'static str),
    /// This name, or this name and a version: `python`, `python3`, `python3.12`.
    Versioned(&'static str),
}

/// Content that takes a file of the language's extensions away from it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unless {
    /// A `#!` line that names another program (zsh, fish): `bash -n` would misread it.
    ShebangNamesAnother,
    /// A header with this extension that is Objective-C (a line starting `@interface`,
    /// `@protocol`, `@implementation`, `@end`, `@class` or `#import`): neither C grammar reads it.
    ObjectiveC { extension: &'static str },
}

impl LanguageSpec {
    /// A spec that names the language and recognises nothing: each language's file fills in the
    /// rest.
    pub(crate) const fn named(name: &'static str) -> LanguageSpec {
        LanguageSpec {
            name,
            aliases: &[],
            extensions: &[],
            file_names: &[],
            interpreters: &[],
            unless: None,
            grammar: None,
            trust: TrustRule::Blocks,
            strings_are_prose: true,
            template_markers: &[],
            rewrite: None,
            brackets: None,
        }
    }
}
