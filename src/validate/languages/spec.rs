//! What car knows of one language, as data: its names and how its files are recognised, its
//! checker and grammar, how far the grammar is trusted and what it misreads, how its brackets
//! are counted, its real tool and how its imports resolve. Each
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
    /// Whether, where no grammar reads it, a `#` at a line's start or after a space, outside a
    /// quoted value, starts a comment to the line's end (YAML; Dockerfiles, whose `#` after an
    /// instruction is its shell's comment): the comments lessons must not match
    /// ([`crate::validate::prose`]).
    pub(crate) hash_comments: bool,
    /// Text that makes a file a template, not the language until rendered (`{{` in HTML).
    pub(crate) template_markers: &'static [&'static str],
    /// Which checker validates it.
    pub(crate) checker: Checker,
    /// The real tool that judges its files, when one is installed ([`crate::validate::tools`]).
    pub(crate) tool: Option<RealTool>,
    /// How the imports an edit adds are resolved ([`crate::validate::imports`]); `None`: not
    /// checked (Python's are its interpreter's).
    pub(crate) imports: Option<ImportResolver>,
    /// What its grammar misreads, undone before parsing ([`crate::validate::rewrite`]): a rewrite
    /// that keeps every line and every position up to a line's end.
    pub(crate) rewrite: Option<Rewrite>,
    /// How the bracket lexer reads it ([`crate::validate::brackets`]); `None`: it does not.
    pub(crate) brackets: Option<BracketSyntax>,
    /// Errors its grammar accepts and its compiler rejects, found in the parsed tree (Rust: a
    /// `let` outside a function).
    pub(crate) tree_checks: &'static [TreeCheck],
    /// What happens to its syntax errors in a file that is a template ([`crate::validate::template`]).
    pub(crate) template_errors: TemplateErrors,
}

/// A check of a parsed tree for an error the grammar accepts and the language's compiler rejects
/// ([`crate::validate::treesitter`] runs each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TreeCheck {
    /// A file holds items, never statements (Rust: a `let` outside a function).
    StatementsOutsideItems,
    /// A `(…)` or `[…]` macro call used as a statement needs a `;` unless it ends its block.
    MacroStatementsWithoutSemicolon,
}

/// What happens to a file's syntax errors when the file is a template (Jinja, ERB, Go templates):
/// not the language until rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TemplateErrors {
    /// Dropped, with a note saying why: they are the template's, not the file's.
    Dropped,
    /// Its checker has a rule of its own (YAML's checker notes a template itself; HTML's findings
    /// never block).
    OwnRule,
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

/// The checker of a language's syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checker {
    /// The project's interpreter ([`crate::validate::python`]).
    Python,
    /// `bash -n` ([`crate::validate::shell`]).
    Shell,
    /// serde_json, accepting comments and trailing commas when `comments`.
    Json { comments: bool },
    /// serde_json on every non-blank line.
    JsonLines,
    /// libyaml ([`crate::validate::yaml`]).
    Yaml,
    /// The exec forms only ([`crate::validate::dockerfile`]).
    Dockerfile,
    /// Its tree-sitter grammar, judged by its real tool and trust ([`crate::validate::grammar`]).
    Grammar,
}

/// One real tool that judges a language's files; [`crate::validate::tools`] runs each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Gofmt,
    Ruby,
    Node,
    Rustfmt,
    Swiftc,
}

impl Tool {
    /// Every tool, in the order `car status` lists them.
    pub(crate) const ALL: [Tool; 5] = [
        Tool::Gofmt,
        Tool::Ruby,
        Tool::Node,
        Tool::Rustfmt,
        Tool::Swiftc,
    ];
}

/// When a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runs {
    /// On every file: it starts in a few milliseconds (`gofmt -e` ~1 ms, `ruby -c` ~7 ms) and
    /// sees what a grammar cannot (an escape in a string, a regex literal).
    Always,
    /// Only on a file the grammar flagged: its start-up costs more than the grammar's parse.
    WhenFlagged,
}

/// A language's real tool: which, its program (looked up on PATH) and when it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RealTool {
    pub(crate) tool: Tool,
    pub(crate) program: &'static str,
    pub(crate) runs: Runs,
    /// The language as `car status` names it ("JavaScript (.js .mjs .cjs)").
    pub(crate) shown_as: &'static str,
    /// Whether its verdict reads a project file (rustfmt: the crate's edition in `Cargo.toml`).
    pub(crate) reads_project_files: bool,
}

/// How the imports an edit adds are resolved, the way the language's own tool looks them up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImportResolver {
    /// Node's and TypeScript's resolution (`package.json`, `tsconfig.json`, `node_modules`).
    Node,
    /// Go modules (`go.mod`, the module cache, the standard library).
    Go,
    /// Cargo's crates (`Cargo.toml`, the crate's own modules).
    Rust,
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
            checker: Checker::Grammar,
            tool: None,
            imports: None,
            trust: TrustRule::Blocks,
            strings_are_prose: true,
            hash_comments: false,
            template_markers: &[],
            rewrite: None,
            brackets: None,
            tree_checks: &[],
            template_errors: TemplateErrors::Dropped,
        }
    }
}
