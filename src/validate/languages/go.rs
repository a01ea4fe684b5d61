//! Go: tree-sitter-go, and `gofmt -e` on every file where installed.

use super::spec::{ImportResolver, LanguageSpec, RealTool, Runs, Tool};
use crate::validate::brackets::{Backquote, BracketSyntax, Strings, Unreadable};

pub(crate) const GO: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_go::LANGUAGE),
    aliases: &["go"],
    extensions: &["go"],
    // Read to name the likely cause of the grammar's errors.
    brackets: Some(BracketSyntax {
        witnesses: false,
        line_comments: true,
        nested_comments: false,
        backquote: Backquote::RawString,
        strings: Strings::OneLine,
        lifetimes_and_raw_strings: false,
        preprocessor: false,
        unreadable: Unreadable::Nothing,
    }),
    tool: Some(RealTool {
        tool: Tool::Gofmt,
        program: "gofmt",
        runs: Runs::Always,
        shown_as: "Go",
        reads_project_files: false,
    }),
    imports: Some(ImportResolver::Go),
    ..LanguageSpec::named("go")
};
