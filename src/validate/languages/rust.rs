//! Rust: tree-sitter-rust, judged by `rustfmt` in the crate's edition, with two checks of the tree
//! for what the grammar accepts and rustc rejects.

use tree_sitter::Node;

use super::spec::{ImportResolver, LanguageSpec, RealTool, Runs, Tool};
use crate::validate::brackets::{Backquote, BracketSyntax, Strings, Unreadable};
use crate::validate::rewrite;
use crate::validate::treesitter::{SyntaxError, char_column, top_level_span};

pub(crate) const RUST: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_rust::LANGUAGE),
    aliases: &["rust"],
    extensions: &["rs"],
    // Read to name the likely cause of the grammar's errors.
    brackets: Some(BracketSyntax {
        witnesses: false,
        line_comments: true,
        nested_comments: true,
        backquote: Backquote::Nothing,
        strings: Strings::OverLines,
        lifetimes_and_raw_strings: true,
        preprocessor: false,
        unreadable: Unreadable::Nothing,
    }),
    rewrite: Some(rewrite::rust::rename_primitive_macros),
    tool: Some(RealTool {
        tool: Tool::Rustfmt,
        program: "rustfmt",
        runs: Runs::WhenFlagged,
        shown_as: "Rust",
        // rustfmt reads the crate's edition from its Cargo.toml.
        reads_project_files: true,
    }),
    imports: Some(ImportResolver::Rust),
    tree_checks: &[statements_outside_items, macro_statements_without_semicolon],
    ..LanguageSpec::named("rust")
};

/// Rust: a file holds items (`fn`, `struct`, `use`, `impl`, a macro invocation, …), never
/// statements, but the grammar accepts a `let` or an expression at the top level, which rustc
/// rejects (`expected item, found keyword `let``). Each such statement is an error; a macro
/// invocation is an item.
fn statements_outside_items(root: Node<'_>, content: &str) -> Vec<SyntaxError> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|node| match node.kind() {
            "let_declaration" => true,
            "expression_statement" => node
                .named_child(0)
                .is_some_and(|inner| inner.kind() != "macro_invocation"),
            _ => false,
        })
        .map(|node| {
            let start = node.start_position();
            let what = if node.kind() == "let_declaration" {
                "`let`"
            } else {
                "an expression"
            };
            SyntaxError {
                line: start.row + 1,
                end_line: node.end_position().row + 1,
                scope: (start.row + 1, node.end_position().row + 1),
                column: char_column(content, start.row, start.column),
                message: format!(
                    "syntax error: {what} outside a function (a Rust file holds items: fn, struct, use, …)"
                ),
                subject: None,
            }
        })
        .collect()
}

/// Rust: a macro call with `(…)` or `[…]` used as a statement needs a `;` unless it ends its
/// block (`println!("a")` then `let x = 1;`: rustc "expected `;`, found keyword `let`"); the
/// grammar accepts it (issue 40, item 5). A `{…}` macro needs none. Only the lines that end in
/// `)` or `]` are looked at, each by one lookup of the node there (walking the whole tree cost
/// 1.2 M instructions on a 100-line file, a fifth of a `car check`).
fn macro_statements_without_semicolon(root: Node<'_>, content: &str) -> Vec<SyntaxError> {
    if !content.contains("!(") && !content.contains("![") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        let code = line.trim_end();
        if code.ends_with([')', ']']) {
            let at = offset + code.len() - 1;
            if let Some(call) = root
                .descendant_for_byte_range(at, at + 1)
                .and_then(|closing| unseparated_macro(closing, at + 1))
            {
                found.push(missing_semicolon(call, content));
            }
        }
        offset += line.len();
    }
    found
}

/// The macro call that `closing` (its last bracket, ending at byte `end`) ends, when the call is
/// a statement of a block that another statement follows.
fn unseparated_macro(closing: Node<'_>, end: usize) -> Option<Node<'_>> {
    let call = closing.parent()?.parent()?;
    let is_statement = call.kind() == "macro_invocation"
        && call.end_byte() == end
        && call.parent().is_some_and(|block| block.kind() == "block");
    let mut next = call.next_named_sibling();
    while next.is_some_and(|node| node.kind().ends_with("comment")) {
        next = next.and_then(|node| node.next_named_sibling());
    }
    (is_statement && next.is_some()).then_some(call)
}

fn missing_semicolon(call: Node<'_>, content: &str) -> SyntaxError {
    let end = call.end_position();
    let text = content.get(call.byte_range()).unwrap_or_default();
    let name = text.split('!').next().unwrap_or_default().trim();
    SyntaxError {
        line: end.row + 1,
        end_line: end.row + 1,
        scope: top_level_span(call),
        column: char_column(content, end.row, end.column),
        message: format!(
            "syntax error: missing `;` after the `{name}!` call (another statement follows it)"
        ),
        subject: None,
    }
}
