//! Swift: tree-sitter-swift (the `extra-grammars` feature), judged by `swiftc -parse`.

use super::spec::{LanguageSpec, RealTool, Runs, Tool, TrustRule};
use crate::validate::brackets::{Backquote, BracketSyntax, Interpolation, Strings, Unreadable};
use crate::validate::rewrite;

pub(crate) const SWIFT: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_swift::LANGUAGE),
    trust: TrustRule::Introduced(
        "a custom prefix operator on a type (`[~T.self]`), `()` as a value on a declaring line (`let x = ()`)",
    ),
    aliases: &["swift"],
    extensions: &["swift"],
    brackets: Some(BracketSyntax {
        witnesses: true,
        line_comments: true,
        nested_comments: true,
        backquote: Backquote::Name,
        strings: Strings::Interpolated(Interpolation {
            opens: ('\\', '('),
            closes: ')',
            escapes_in_multiline: true,
        }),
        lifetimes_and_raw_strings: false,
        preprocessor: false,
        unreadable: Unreadable::RawStringsAndRegexLiterals,
    }),
    rewrite: Some(rewrite::swift::prepare),
    tool: Some(RealTool {
        tool: Tool::Swiftc,
        program: "swiftc",
        runs: Runs::WhenFlagged,
        shown_as: "Swift",
        reads_project_files: false,
    }),
    ..LanguageSpec::named("swift")
};
