//! TOML: tree-sitter-toml-ng.

use super::spec::{FileName, LanguageSpec};
use crate::validate::rewrite;

pub(crate) const TOML: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    grammar: Some(tree_sitter_toml_ng::LANGUAGE),
    aliases: &["toml"],
    extensions: &["toml"],
    file_names: &[FileName::Is("cargo.lock"), FileName::Is("pipfile")],
    // A line-ending backslash followed by spaces in a `"""` string (valid TOML 1.0).
    rewrite: Some(rewrite::trim_after_line_continuation),
    ..LanguageSpec::named("toml")
};
