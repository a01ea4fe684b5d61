//! Go: tree-sitter-go, and `gofmt -e` on every file where installed.

use super::spec::LanguageSpec;

pub(crate) const GO: LanguageSpec = LanguageSpec {
    aliases: &["go"],
    extensions: &["go"],
    ..LanguageSpec::named("go")
};
