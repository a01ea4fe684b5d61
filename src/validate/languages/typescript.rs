//! TypeScript and TSX: tree-sitter-typescript's two grammars.

use super::spec::LanguageSpec;

pub(crate) const TYPESCRIPT: LanguageSpec = LanguageSpec {
    aliases: &["typescript", "ts"],
    extensions: &["ts", "mts", "cts"],
    ..LanguageSpec::named("typescript")
};

pub(crate) const TSX: LanguageSpec = LanguageSpec {
    aliases: &["tsx"],
    extensions: &["tsx"],
    ..LanguageSpec::named("tsx")
};
