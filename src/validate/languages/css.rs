//! CSS: tree-sitter-css (the `extra-grammars` feature).

use super::spec::{LanguageSpec, TrustRule};
use crate::validate::brackets::{Backquote, BracketSyntax, Strings, Unreadable};

pub(crate) const CSS: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_css::LANGUAGE),
    trust: TrustRule::Introduced("range media queries, `! important`, backslash-continued strings"),
    strings_are_prose: false,
    aliases: &["css"],
    extensions: &["css"],
    brackets: Some(BracketSyntax {
        witnesses: true,
        // `//` is no comment in CSS.
        line_comments: false,
        nested_comments: false,
        backquote: Backquote::Nothing,
        strings: Strings::OneLine,
        lifetimes_and_raw_strings: false,
        preprocessor: false,
        unreadable: Unreadable::Nothing,
    }),
    ..LanguageSpec::named("css")
};
