//! Ruby: tree-sitter-ruby (the `extra-grammars` feature), and `ruby -c` on every file where
//! installed.

use super::spec::{FileName, Interpreter, LanguageSpec};

pub(crate) const RUBY: LanguageSpec = LanguageSpec {
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
