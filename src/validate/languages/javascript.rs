//! JavaScript and JSX: tree-sitter-javascript, judged by `node --check` for plain scripts.

use super::spec::{Interpreter, LanguageSpec, TrustRule};
use crate::validate::rewrite;

pub(crate) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_javascript::LANGUAGE),
    trust: TrustRule::BlocksUnlessFlow,
    aliases: &["javascript", "js", "jsx", "node"],
    extensions: &["js", "mjs", "cjs", "jsx"],
    interpreters: &[Interpreter::Is("node"), Interpreter::Is("nodejs")],
    rewrite: Some(rewrite::jsx::blank_attribute_ampersands),
    ..LanguageSpec::named("javascript")
};
