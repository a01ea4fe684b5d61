//! JavaScript and JSX: tree-sitter-javascript, judged by `node --check` for plain scripts.

use super::spec::{Interpreter, LanguageSpec};

pub(crate) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    aliases: &["javascript", "js", "jsx", "node"],
    extensions: &["js", "mjs", "cjs", "jsx"],
    interpreters: &[Interpreter::Is("node"), Interpreter::Is("nodejs")],
    ..LanguageSpec::named("javascript")
};
