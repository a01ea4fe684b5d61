//! Ruby: tree-sitter-ruby (the `extra-grammars` feature), and `ruby -c` on every file where
//! installed.

use super::spec::{FileName, Interpreter, LanguageSpec};

pub(crate) const RUBY: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_ruby::LANGUAGE),
    aliases: &["ruby"],
    extensions: &["rb", "rake", "gemspec", "ru"],
    file_names: &[
        FileName::Is("gemfile"),
        FileName::Is("rakefile"),
        FileName::Is("podfile"),
        FileName::Is("fastfile"),
        FileName::Is("guardfile"),
    ],
    interpreters: &[Interpreter::Is("ruby")],
    ..LanguageSpec::named("ruby")
};
