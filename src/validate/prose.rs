//! Prose inside code: comments, and in programming languages the contents of string literals
//! (a docstring, a log message). A learned lesson is about code: `shell=True` in a docstring or
//! `# fastyaml is not on PyPI` is no repeat of the mistake (see `lessons::placement`).
//!
//! Invariants: decided by the language's tree-sitter parse, made only when asked (a file whose
//! lessons did not fire is never parsed); code inside a string (an f-string's `{…}`, a template
//! literal's `${…}`, a shell `"$(…)"`) is code; so is a string that names a module (`from
//! "fetch-retryx"`, `require("x")`, Go's `import "x"`): the import is the code; in data languages (TOML, CSS, HTML) strings are
//! the content, only comments are prose; a language without a grammar has no prose (the whole
//! line counts), and so has a file that could not be parsed in time.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::validate::language::Language;
use crate::validate::treesitter;

/// Where the prose of one file's content is.
pub(crate) struct Prose<'a> {
    tree: Option<Tree>,
    strings_are_prose: bool,
    content: &'a str,
}

impl<'a> Prose<'a> {
    /// Parses `content` as `language` (no language, or no grammar in this build: no prose).
    pub(crate) fn of(language: Option<Language>, content: &'a str) -> Prose<'a> {
        let tree = language
            .and_then(treesitter::grammar)
            .and_then(|grammar| treesitter::parse(&grammar, content).ok());
        Prose {
            tree,
            strings_are_prose: language.is_some_and(|language| language.spec().strings_are_prose),
            content,
        }
    }

    /// Whether the bytes `range` of the content lie wholly inside a comment, or inside a string
    /// literal's text (not in code interpolated into it).
    pub(crate) fn contains(&self, range: Range<usize>) -> bool {
        let Some(tree) = &self.tree else {
            return false;
        };
        let end = range.end.max(range.start + 1);
        let mut node = tree.root_node().descendant_for_byte_range(range.start, end);
        while let Some(current) = node {
            match kind_of(&current) {
                Kind::CodeInString => return false,
                Kind::String if names_a_module(&current, self.content) => return false,
                Kind::Comment => return true,
                Kind::String if self.strings_are_prose => return true,
                Kind::String | Kind::Other => {}
            }
            node = current.parent();
        }
        false
    }
}

enum Kind {
    Comment,
    String,
    CodeInString,
    Other,
}

/// Grammar node kinds, named alike across the grammars car has: `comment`, `line_comment`,
/// `block_comment`; `string`, `string_literal`, `raw_string_literal`, `template_string`,
/// `heredoc_body`; `interpolation`, `template_substitution`, `command_substitution`, `expansion`.
fn kind_of(node: &Node<'_>) -> Kind {
    let kind = node.kind();
    if kind.contains("comment") {
        Kind::Comment
    } else if kind.contains("interpolat")
        || kind.contains("substitution")
        || kind.contains("expansion")
    {
        Kind::CodeInString
    } else if kind.contains("string")
        || kind.starts_with("heredoc")
        || kind.ends_with("char_literal")
    {
        Kind::String
    } else {
        Kind::Other
    }
}

/// Whether a string literal is the module an import names: the source of an `import`/`export …
/// from`, of `import x = require(…)`, a Go import spec's path, or the one argument of
/// `require(…)` or `import(…)`.
fn names_a_module(node: &Node<'_>, content: &str) -> bool {
    // From the text inside the literal (`string_fragment`) up to the literal itself.
    let mut literal = *node;
    while let Some(parent) = literal.parent().filter(|p| p.kind().contains("string")) {
        literal = parent;
    }
    let Some(parent) = literal.parent() else {
        return false;
    };
    match parent.kind() {
        "import_statement" | "export_statement" | "import_require_clause" | "import_spec" => true,
        "arguments" => parent
            .parent()
            .filter(|call| call.kind() == "call_expression" && parent.named_child_count() == 1)
            .and_then(|call| call.child_by_field_name("function"))
            .is_some_and(|function| {
                function.kind() == "import"
                    || (function.kind() == "identifier"
                        && content.get(function.byte_range()) == Some("require"))
            }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose_at(language: Language, content: &str, needle: &str) -> bool {
        let start = content.find(needle).unwrap();
        Prose::of(Some(language), content).contains(start..start + needle.len())
    }

    #[test]
    fn python_comments_docstrings_and_strings_are_prose() {
        let content = "def f():\n    \"\"\"Never use shell=True here.\"\"\"\n    # shell=True is bad\n    log('shell=True')\n    run(cmd, shell=True)\n";
        let start = content.find("shell=True").unwrap();
        let prose = Prose::of(Some(Language::Python), content);
        assert!(prose.contains(start..start + 10));
        let comment = content.find("# shell").unwrap() + 2;
        assert!(prose.contains(comment..comment + 10));
        let logged = content.find("'shell").unwrap() + 1;
        assert!(prose.contains(logged..logged + 10));
        let code = content.rfind("shell=True").unwrap();
        assert!(!prose.contains(code..code + 10));
    }

    #[test]
    fn code_interpolated_into_a_string_is_code() {
        assert!(!prose_at(
            Language::Python,
            "x = f\"{yaml.load(fh)}\"\n",
            "yaml.load"
        ));
        assert!(!prose_at(
            Language::TypeScript,
            "const x = `${eval(code)}`;\n",
            "eval(code)"
        ));
        assert!(!prose_at(
            Language::Shell,
            "echo \"$(rm -rf /tmp/x)\"\n",
            "rm -rf"
        ));
        assert!(prose_at(
            Language::Shell,
            "echo \"rm -rf is bad\"\n",
            "rm -rf"
        ));
    }

    #[test]
    fn a_match_reaching_out_of_a_string_is_code() {
        assert!(!prose_at(
            Language::Python,
            "yaml.load(fh, Loader=\"x\")\n",
            "Loader=\"x\""
        ));
    }

    #[test]
    fn rust_and_typescript_comments() {
        assert!(prose_at(
            Language::Rust,
            "// .unwrap() here\nlet x = 1;\n",
            ".unwrap()"
        ));
        assert!(!prose_at(
            Language::Rust,
            "let x = y.unwrap();\n",
            ".unwrap()"
        ));
        assert!(prose_at(
            Language::TypeScript,
            "/* as any */\nconst x = 1;\n",
            "as any"
        ));
    }

    #[test]
    fn a_string_naming_a_module_is_code() {
        let content = "import { retry } from \"fetch-retryx\";\nconst a = require('fetch-retryx');\nconst b = await import('fetch-retryx');\nlog('fetch-retryx');\nresolve('fetch-retryx');\n";
        let prose = Prose::of(Some(Language::TypeScript), content);
        let at: Vec<bool> = content
            .match_indices("fetch-retryx")
            .map(|(start, found)| prose.contains(start..start + found.len()))
            .collect();
        assert_eq!(at, [false, false, false, true, true]);
        assert!(!prose_at(
            Language::Go,
            "package x\n\nimport \"github.com/acme/retryx\"\n",
            "github.com/acme/retryx"
        ));
        assert!(prose_at(
            Language::Go,
            "package x\n\nvar s = \"github.com/acme/retryx\"\n",
            "github.com/acme/retryx"
        ));
    }

    #[test]
    fn data_languages_keep_their_strings() {
        assert!(!prose_at(Language::Toml, "version = \"1.0\"\n", "1.0"));
        assert!(prose_at(Language::Toml, "# version 1.0\n", "1.0"));
        assert!(!Prose::of(Some(Language::Json), "{\"a\": 1}").contains(1..2));
        assert!(!Prose::of(None, "# x").contains(2..3));
    }
}
