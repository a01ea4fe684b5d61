//! Kotlin: tree-sitter-kotlin-ng (the `extra-grammars` feature).

use super::spec::LanguageSpec;

pub(crate) const KOTLIN: LanguageSpec = LanguageSpec {
    aliases: &["kotlin"],
    extensions: &["kt", "kts"],
    ..LanguageSpec::named("kotlin")
};
