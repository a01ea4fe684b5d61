//! Swift: tree-sitter-swift (the `extra-grammars` feature), judged by `swiftc -parse`.

use super::spec::LanguageSpec;

pub(crate) const SWIFT: LanguageSpec = LanguageSpec {
    aliases: &["swift"],
    extensions: &["swift"],
    ..LanguageSpec::named("swift")
};
