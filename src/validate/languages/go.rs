//! Go: tree-sitter-go, and `gofmt -e` on every file where installed.

use super::spec::LanguageSpec;

pub(crate) const GO: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_go::LANGUAGE),
    aliases: &["go"],
    extensions: &["go"],
    ..LanguageSpec::named("go")
};
