//! Java: tree-sitter-java (the `extra-grammars` feature).

use super::spec::LanguageSpec;

pub(crate) const JAVA: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_java::LANGUAGE),
    aliases: &["java"],
    extensions: &["java"],
    ..LanguageSpec::named("java")
};
