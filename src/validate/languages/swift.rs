//! Swift: tree-sitter-swift (the `extra-grammars` feature), judged by `swiftc -parse`.

use super::spec::{LanguageSpec, TrustRule};

pub(crate) const SWIFT: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_swift::LANGUAGE),
    trust: TrustRule::Introduced(
        "a custom prefix operator on a type (`[~T.self]`), `()` as a value on a declaring line (`let x = ()`)",
    ),
    aliases: &["swift"],
    extensions: &["swift"],
    ..LanguageSpec::named("swift")
};
