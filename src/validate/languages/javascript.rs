//! JavaScript and JSX: tree-sitter-javascript, judged by `node --check` for plain scripts.

use super::spec::{ImportResolver, Interpreter, LanguageSpec, RealTool, Runs, Tool, TrustRule};
use crate::validate::rewrite;

pub(crate) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_javascript::LANGUAGE),
    trust: TrustRule::BlocksUnlessFlow,
    aliases: &["javascript", "js", "jsx", "node"],
    extensions: &["js", "mjs", "cjs", "jsx"],
    interpreters: &[Interpreter::Is("node"), Interpreter::Is("nodejs")],
    rewrite: Some(rewrite::javascript),
    // Plain scripts only: node reads no JSX and no notebook cell.
    tool: Some(RealTool {
        tool: Tool::Node,
        program: "node",
        runs: Runs::WhenFlagged,
        shown_as: "JavaScript (.js .mjs .cjs)",
        reads_project_files: false,
    }),
    imports: Some(ImportResolver::Node),
    ..LanguageSpec::named("javascript")
};
