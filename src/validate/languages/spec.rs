//! What car knows of one language, as data: its names and how its files are recognised. Each
//! language's file in this folder holds its [`LanguageSpec`]; the cross-language machinery
//! (detection, the grammar check, trust, the bracket lexer, the real tools, the import check)
//! reads the spec instead of matching on the language.
//!
//! Invariants: a spec is a `const`, read through a `static` table ([`super::SPECS`]): reading
//! one costs an index, never an allocation; the names, extensions and file names of two
//! languages never overlap, so the order in which detection reads the specs decides nothing.

/// One language car validates.
#[derive(Debug)]
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
        }
    }
}
