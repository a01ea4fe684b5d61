//! Rust: tree-sitter-rust, judged by `rustfmt` in the crate's edition.

use super::spec::{ImportResolver, LanguageSpec, RealTool, Runs, Tool, TreeCheck};
use crate::validate::brackets::{Backquote, BracketSyntax, Strings, Unreadable};
use crate::validate::rewrite;

pub(crate) const RUST: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_rust::LANGUAGE),
    aliases: &["rust"],
    extensions: &["rs"],
    // Read to name the likely cause of the grammar's errors.
    brackets: Some(BracketSyntax {
        witnesses: false,
        line_comments: true,
        nested_comments: true,
        backquote: Backquote::Nothing,
        strings: Strings::OverLines,
        lifetimes_and_raw_strings: true,
        preprocessor: false,
        unreadable: Unreadable::Nothing,
    }),
    rewrite: Some(rewrite::rust::rename_primitive_macros),
    tool: Some(RealTool {
        tool: Tool::Rustfmt,
        program: "rustfmt",
        runs: Runs::WhenFlagged,
        shown_as: "Rust",
        // rustfmt reads the crate's edition from its Cargo.toml.
        reads_project_files: true,
    }),
    imports: Some(ImportResolver::Rust),
    // What the grammar accepts and rustc rejects.
    tree_checks: &[
        TreeCheck::StatementsOutsideItems,
        TreeCheck::MacroStatementsWithoutSemicolon,
    ],
    ..LanguageSpec::named("rust")
};
