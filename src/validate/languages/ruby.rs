//! Ruby: tree-sitter-ruby (the `extra-grammars` feature), and `ruby -c` on every file where
//! installed.

use super::spec::{FileName, Interpreter, LanguageSpec, RealTool, Runs, Tool};

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
    tool: Some(RealTool {
        tool: Tool::Ruby,
        program: "ruby",
        runs: Runs::Always,
        shown_as: "Ruby",
        reads_project_files: false,
    }),
    ..LanguageSpec::named("ruby")
};
