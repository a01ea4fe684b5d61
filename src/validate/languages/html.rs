//! HTML: tree-sitter-html (the `extra-grammars` feature); its findings never block.

use super::spec::LanguageSpec;

pub(crate) const HTML: LanguageSpec = LanguageSpec {
    aliases: &["html"],
    extensions: &["html", "htm", "xhtml"],
    ..LanguageSpec::named("html")
};
