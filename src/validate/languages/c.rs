//! C and C++: tree-sitter-c and tree-sitter-cpp (the `extra-grammars` feature).

use super::spec::{LanguageSpec, TrustRule, Unless};
use crate::validate::brackets::{Backquote, BracketSyntax, Strings, Unreadable};

pub(crate) const C: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_c::LANGUAGE),
    trust: TrustRule::Introduced("macros: `typedef Array(void) Array;`"),
    aliases: &["c"],
    extensions: &["c"],
    brackets: Some(BRACKETS),
    ..LanguageSpec::named("c")
};

pub(crate) const CPP: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_cpp::LANGUAGE),
    trust: TrustRule::Introduced("macros: `_GLIBCXX_VISIBILITY(default)`"),
    aliases: &["c++", "cpp"],
    // A `.h` header may be C or C++; the C++ grammar reads both, the C grammar only one.
    extensions: &["h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "ipp"],
    // An Objective-C header: neither grammar reads `@interface … @end`.
    unless: Some(Unless::ObjectiveC { extension: "h" }),
    brackets: Some(BRACKETS),
    ..LanguageSpec::named("cpp")
};

/// How the bracket lexer reads C and C++.
const BRACKETS: BracketSyntax = BracketSyntax {
    witnesses: true,
    line_comments: true,
    nested_comments: false,
    backquote: Backquote::Nothing,
    strings: Strings::OneLine,
    lifetimes_and_raw_strings: false,
    preprocessor: true,
    unreadable: Unreadable::Preprocessor,
};
