//! Shell: `bash -n` ([`crate::validate::shell`]).

use super::spec::{Checker, Interpreter, LanguageSpec, Unless};

pub(crate) const SHELL: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_bash::LANGUAGE),
    aliases: &["bash", "sh", "shell"],
    extensions: &["sh", "bash"],
    interpreters: &[Interpreter::Is("sh"), Interpreter::Is("bash")],
    // A `.sh` file may declare another shell (zsh, fish) that `bash -n` would misread.
    unless: Some(Unless::ShebangNamesAnother),
    checker: Checker::Shell,
    ..LanguageSpec::named("bash")
};
