//! Rust: tree-sitter-rust, judged by `rustfmt` in the crate's edition.

use super::spec::LanguageSpec;

pub(crate) const RUST: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_rust::LANGUAGE),
    aliases: &["rust"],
    extensions: &["rs"],
    ..LanguageSpec::named("rust")
};
