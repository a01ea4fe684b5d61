//! Kotlin: tree-sitter-kotlin-ng (the `extra-grammars` feature).

use std::borrow::Cow;

use super::spec::{LanguageSpec, TrustRule};
use crate::validate::brackets::{
    self, Backquote, BracketSyntax, Interpolation, Strings, Unreadable,
};
use crate::validate::rewrite;

pub(crate) const KOTLIN: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_kotlin_ng::LANGUAGE),
    trust: TrustRule::Introduced(
        "annotated primary constructors on their own line, `?:` on a continuation line",
    ),
    aliases: &["kotlin"],
    extensions: &["kt", "kts"],
    brackets: Some(BRACKETS),
    rewrite: Some(prepare),
    ..LanguageSpec::named("kotlin")
};

/// How the bracket lexer reads Kotlin.
pub(crate) const BRACKETS: BracketSyntax = BracketSyntax {
    witnesses: true,
    line_comments: true,
    nested_comments: true,
    backquote: Backquote::Name,
    strings: Strings::Interpolated(Interpolation {
        opens: ('$', '{'),
        closes: '}',
        escapes_in_multiline: false,
    }),
    lifetimes_and_raw_strings: false,
    preprocessor: false,
    unreadable: Unreadable::MultiDollarStrings,
};

/// Kotlin's rewrites, given the comments the bracket lexer finds (their text is blanked).
fn prepare(content: &str) -> Cow<'_, str> {
    rewrite::kotlin::prepare(content, brackets::comments(content, &BRACKETS))
}
