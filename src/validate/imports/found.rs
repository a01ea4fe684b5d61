//! The imports an edit added, found in the file's tree-sitter parse rather than by patterns over
//! its text: a string that looks like an import inside a comment or another string is not one.
//!
//! Invariants: only the imports whose module name starts on an added line count (an old import
//! is not blamed on a later edit); a module name that is not a plain literal (a template string,
//! an escape, a concatenation) is left out; the file is parsed only when an added line mentions
//! what an import of its language needs (`import`, `require`, `from`, `use`, `extern`).

use std::collections::HashSet;

use tree_sitter::Node;

use crate::edit::AddedLine;
use crate::validate::language::Language;
use crate::validate::languages::spec::ImportResolver;
use crate::validate::treesitter;

/// One import the edit added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// 1-based line and column of the module name.
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// The module as written: `./util`, `fetch-retryx/sub`, `github.com/a/b`, or a Rust
    /// crate name.
    pub(crate) specifier: String,
    /// A `require()` or `import()` that runs only in some cases: inside a function, a `try`,
    /// an `if`, a loop or a condition (an optional dependency loaded when present).
    pub(crate) is_conditional: bool,
    /// A Rust `extern crate` (rather than a `use`).
    pub(crate) is_extern_crate: bool,
}

/// Where a `require()` or `import()` stops running on every load of the module.
const CONDITIONAL: &[&str] = &[
    "try_statement",
    "catch_clause",
    "if_statement",
    "switch_statement",
    "ternary_expression",
    "binary_expression",
    "for_statement",
    "for_in_statement",
    "while_statement",
    "do_statement",
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "class_body",
];

/// Whether `node` runs only in some cases (see [`CONDITIONAL`]).
fn is_conditional(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        if CONDITIONAL.contains(&ancestor.kind()) {
            return true;
        }
        current = ancestor.parent();
    }
    false
}

/// The imports of `content` (as `language`) whose module name starts on one of `added`'s lines;
/// `tree` is `content`'s parse when the caller has one.
pub(crate) fn added_imports(
    language: Language,
    content: &str,
    added: &[AddedLine],
    tree: Option<&tree_sitter::Tree>,
) -> Vec<Import> {
    let Some(resolver) = language.spec().imports else {
        return Vec::new();
    };
    let words: &[&str] = match resolver {
        ImportResolver::Node => &["import", "require", "from"],
        ImportResolver::Go => &["\""],
        ImportResolver::Rust => &["use ", "extern"],
    };
    let lines: HashSet<usize> = added
        .iter()
        .filter(|line| {
            words.iter().any(|word| line.text.contains(word)) || resolver == ImportResolver::Go
        })
        .map(|line| line.line)
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let parsed;
    let tree = match tree {
        Some(tree) => tree,
        None => {
            let Some(own) = treesitter::grammar(language)
                .and_then(|grammar| treesitter::parse(&grammar, content).ok())
            else {
                return Vec::new();
            };
            parsed = own;
            &parsed
        }
    };
    let spans = line_spans(content, &lines);
    let mut found = Vec::new();
    collect(tree.root_node(), resolver, content, &spans, &mut found);
    found.retain(|import| lines.contains(&import.line));
    found
}

/// The byte ranges of `lines` (1-based) in `content`, in order.
fn line_spans(content: &str, lines: &HashSet<usize>) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (index, line) in content.split_inclusive('\n').enumerate() {
        if lines.contains(&(index + 1)) {
            spans.push((start, start + line.len()));
        }
        start += line.len();
    }
    spans
}

/// Walks only the nodes that overlap an added line: the rest of the tree (most of a file) holds
/// no added import, and visiting every node cost more than the parse.
fn collect(
    node: Node<'_>,
    resolver: ImportResolver,
    content: &str,
    spans: &[(usize, usize)],
    found: &mut Vec<Import>,
) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let (start, end) = (child.start_byte(), child.end_byte());
        let after = spans.partition_point(|span| span.1 <= start);
        if spans
            .get(after)
            .is_none_or(|span| span.0 >= end.max(start + 1))
        {
            continue;
        }
        match resolver {
            ImportResolver::Go => go_import(child, content, found),
            ImportResolver::Rust => {
                // Only the crate's top-level `use`s: inside a function or a `mod` block a path
                // may start at a local item.
                rust_import(child, content, found);
                continue;
            }
            ImportResolver::Node => script_import(child, content, found),
        }
        if child.child_count() > 0 {
            collect(child, resolver, content, spans, found);
        }
    }
}

/// `import … from "x"`, `export … from "x"`, `import x = require("x")`, `import("x")`,
/// `require("x")`.
fn script_import(node: Node<'_>, content: &str, found: &mut Vec<Import>) {
    let source = match node.kind() {
        "import_statement" | "export_statement" | "import_require_clause" => {
            node.child_by_field_name("source")
        }
        "call_expression" => {
            let function = node.child_by_field_name("function");
            let is_loader = function.is_some_and(|function| {
                function.kind() == "import"
                    || (function.kind() == "identifier" && text(function, content) == "require")
            });
            let arguments = node.child_by_field_name("arguments").filter(|_| is_loader);
            arguments
                .filter(|arguments| arguments.named_child_count() == 1)
                .and_then(|arguments| arguments.named_child(0))
        }
        _ => None,
    };
    if let Some(source) = source.filter(|source| source.kind() == "string") {
        push_literal(source, content, found);
        if node.kind() == "call_expression"
            && let Some(last) = found.last_mut()
        {
            last.is_conditional = is_conditional(node);
        }
    }
}

/// `import "path"` and each spec of `import ( … )`; cgo's `"C"` is no package.
fn go_import(node: Node<'_>, content: &str, found: &mut Vec<Import>) {
    if node.kind() != "import_spec" {
        return;
    }
    if let Some(path) = node.child_by_field_name("path") {
        push_literal(path, content, found);
        found.retain(|import| import.specifier != "C");
    }
}

/// `use name::…;` and `extern crate name;` at the top of the file: the crate name each starts
/// with (`::name` too).
fn rust_import(node: Node<'_>, content: &str, found: &mut Vec<Import>) {
    let first = match node.kind() {
        "extern_crate_declaration" => node.child_by_field_name("name").into_iter().collect(),
        "use_declaration" => node
            .child_by_field_name("argument")
            .map(|argument| first_segments(argument))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    for segment in first
        .into_iter()
        .filter(|segment| segment.kind() == "identifier")
    {
        let position = segment.start_position();
        found.push(Import {
            line: position.row + 1,
            column: position.column + 1,
            specifier: text(segment, content).to_string(),
            is_conditional: false,
            is_extern_crate: node.kind() == "extern_crate_declaration",
        });
    }
}

/// The first segment of each path a `use` names (`a` of `a::b::{c, d}`, both of `{a::b, c}`).
fn first_segments(node: Node<'_>) -> Vec<Node<'_>> {
    match node.kind() {
        "scoped_identifier" | "scoped_use_list" | "use_as_clause" | "use_wildcard" => {
            let path = node.child_by_field_name("path").or_else(|| {
                node.named_child(0)
                    .filter(|child| child.kind() != "use_list")
            });
            match path {
                Some(path) => first_segments(path),
                // `::name`: a global path; the name is the crate.
                None => node.child_by_field_name("name").into_iter().collect(),
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .flat_map(first_segments)
                .collect()
        }
        _ => vec![node],
    }
}

/// A string literal's text, when it is plain (no escape, no interpolation).
fn push_literal(literal: Node<'_>, content: &str, found: &mut Vec<Import>) {
    let raw = text(literal, content);
    let inner = raw
        .get(1..raw.len().saturating_sub(1))
        .filter(|_| raw.len() >= 2)
        .unwrap_or_default();
    let mut cursor = literal.walk();
    let has_escape = literal
        .named_children(&mut cursor)
        .any(|child| child.kind() == "escape_sequence");
    if inner.is_empty() || has_escape || inner.contains(['\n', '`', '$']) {
        return;
    }
    let position = literal.start_position();
    found.push(Import {
        line: position.row + 1,
        column: position.column + 2,
        specifier: inner.to_string(),
        is_conditional: false,
        is_extern_crate: false,
    });
}

fn text<'a>(node: Node<'_>, content: &'a str) -> &'a str {
    content.get(node.byte_range()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports(language: Language, content: &str) -> Vec<String> {
        added_imports(language, content, &AddedLine::every_line(content), None)
            .into_iter()
            .map(|import| import.specifier)
            .collect()
    }

    #[test]
    fn script_imports_of_every_form() {
        let content = "import a from \"pkg-a\";\nimport type { B } from '@scope/b/sub';\nexport * from './c';\nimport x = require('d');\nconst e = require(\"e\");\nconst f = await import('f');\n// import g from 'g'\nconst h = \"import h from 'h'\";\nrequire(`i${x}`);\nload('j');\n";
        assert_eq!(
            imports(Language::TypeScript, content),
            ["pkg-a", "@scope/b/sub", "./c", "d", "e", "f"]
        );
        let js = "import a from 'a';\nmodule.exports = require('b');\n";
        assert_eq!(imports(Language::JavaScript, js), ["a", "b"]);
    }

    #[test]
    fn a_require_inside_a_function_or_try_is_conditional() {
        let content = "const a = require('a');\nconst b = require('b').x;\ntry { require('c'); } catch {}\nfunction f() { return require('d'); }\nconst e = x ? require('e') : null;\nconst g = () => import('g');\nimport h from 'h';\n";
        let found: Vec<(String, bool)> = added_imports(
            Language::JavaScript,
            content,
            &AddedLine::every_line(content),
            None,
        )
        .into_iter()
        .map(|import| (import.specifier, import.is_conditional))
        .collect();
        let expected = [
            ("a", false),
            ("b", false),
            ("c", true),
            ("d", true),
            ("e", true),
            ("g", true),
            ("h", false),
        ];
        assert_eq!(
            found,
            expected.map(|(name, conditional)| (name.to_string(), conditional))
        );
    }

    #[test]
    fn only_imports_on_added_lines() {
        let content = "import a from 'old';\nimport b from 'new';\n";
        let added = AddedLine::numbered(&[(2, "import b from 'new';")]);
        let found = added_imports(Language::TypeScript, content, &added, None);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line, found[0].column), (2, 16));
        assert_eq!(found[0].specifier, "new");
        let untouched = AddedLine::numbered(&[(3, "const x = 1;")]);
        assert!(added_imports(Language::TypeScript, content, &untouched, None).is_empty());
    }

    #[test]
    fn go_import_specs() {
        let content = "package main\n\nimport (\n\t\"fmt\"\n\tr \"github.com/acme/retry\"\n\t\"C\"\n)\n\nimport \"os\"\n";
        assert_eq!(
            imports(Language::Go, content),
            ["fmt", "github.com/acme/retry", "os"]
        );
    }

    #[test]
    fn rust_crate_names_at_the_top() {
        let content = "use serde::Deserialize;\nuse std::{fs, io};\nuse {anyhow::Result, crate::x};\nuse ::regex::Regex;\nuse tokio;\nextern crate libc;\nuse foo::bar as baz;\nfn f() { use local::x; }\nmod m { use inner::y; }\n";
        assert_eq!(
            imports(Language::Rust, content),
            ["serde", "std", "anyhow", "regex", "tokio", "libc", "foo"]
        );
    }
}
