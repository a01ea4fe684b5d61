//! Java: tree-sitter-java (the `extra-grammars` feature).

use super::spec::LanguageSpec;

pub(crate) const JAVA: LanguageSpec = LanguageSpec {
    aliases: &["java"],
    extensions: &["java"],
    ..LanguageSpec::named("java")
};
