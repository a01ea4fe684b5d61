//! TOML: tree-sitter-toml-ng.

use super::spec::{FileName, LanguageSpec};

pub(crate) const TOML: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    grammar: Some(tree_sitter_toml_ng::LANGUAGE),
    aliases: &["toml"],
    extensions: &["toml"],
    file_names: &[FileName::Is("cargo.lock"), FileName::Is("pipfile")],
    ..LanguageSpec::named("toml")
};
