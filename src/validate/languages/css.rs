//! CSS: tree-sitter-css (the `extra-grammars` feature).

use super::spec::{LanguageSpec, TrustRule};

pub(crate) const CSS: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_css::LANGUAGE),
    trust: TrustRule::Introduced("range media queries, `! important`, backslash-continued strings"),
    strings_are_prose: false,
    aliases: &["css"],
    extensions: &["css"],
    ..LanguageSpec::named("css")
};
