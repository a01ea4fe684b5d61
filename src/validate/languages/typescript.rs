//! TypeScript and TSX: tree-sitter-typescript's two grammars.

use super::spec::{ImportResolver, LanguageSpec};
use crate::validate::rewrite;

pub(crate) const TYPESCRIPT: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
    aliases: &["typescript", "ts"],
    extensions: &["ts", "mts", "cts"],
    rewrite: Some(rewrite::typescript::prepare),
    imports: Some(ImportResolver::Node),
    ..LanguageSpec::named("typescript")
};

pub(crate) const TSX: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_typescript::LANGUAGE_TSX),
    aliases: &["tsx"],
    extensions: &["tsx"],
    rewrite: Some(rewrite::tsx),
    imports: Some(ImportResolver::Node),
    ..LanguageSpec::named("tsx")
};
