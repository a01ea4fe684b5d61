//! Rust: tree-sitter-rust, judged by `rustfmt` in the crate's edition.

use super::spec::LanguageSpec;

pub(crate) const RUST: LanguageSpec = LanguageSpec {
    aliases: &["rust"],
    extensions: &["rs"],
    ..LanguageSpec::named("rust")
};
