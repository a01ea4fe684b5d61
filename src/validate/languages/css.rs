//! CSS: tree-sitter-css (the `extra-grammars` feature).

use super::spec::LanguageSpec;

pub(crate) const CSS: LanguageSpec = LanguageSpec {
    aliases: &["css"],
    extensions: &["css"],
    ..LanguageSpec::named("css")
};
