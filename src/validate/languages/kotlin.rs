//! Kotlin: tree-sitter-kotlin-ng (the `extra-grammars` feature).

use super::spec::{LanguageSpec, TrustRule};

pub(crate) const KOTLIN: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_kotlin_ng::LANGUAGE),
    trust: TrustRule::Introduced(
        "annotated primary constructors on their own line, `?:` on a continuation line",
    ),
    aliases: &["kotlin"],
    extensions: &["kt", "kts"],
    ..LanguageSpec::named("kotlin")
};
