//! Prose inside code: comments, and in programming languages the contents of string literals
//! (a docstring, a log message). A learned lesson is about code: `shell=True` in a docstring or
//! `# fastyaml is not on PyPI` is no repeat of the mistake (see `lessons::placement`).
//!
//! Invariants: decided by the language's tree-sitter parse, made only when asked (a file whose
//! lessons did not fire is never parsed); code inside a string (an f-string's `{…}`, a template
//! literal's `${…}`, a shell `"$(…)"`) is code; so is a string that names a module (`from
//! "fetch-retryx"`, `require("x")`, Go's `import "x"`): the import is the code; in data languages (TOML, CSS, HTML) strings are
//! the content, only comments are prose; a language without a grammar has no prose (the whole
//! line counts) unless its spec names its comment syntax (YAML's `#`, found line by line), and
//! a file that could not be parsed in time has none either.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::validate::language::Language;
use crate::validate::treesitter;

/// Where the prose of one file's content is.
pub(crate) struct Prose<'a> {
    tree: Option<Tree>,
    /// Comments found without a grammar ([`hash_comments`]), as byte ranges.
    comments: Vec<Range<usize>>,
    strings_are_prose: bool,
    content: &'a str,
}

impl<'a> Prose<'a> {
    /// Parses `content` as `language` (no language, or no grammar in this build and no comment
    /// syntax in its spec: no prose).
    pub(crate) fn of(language: Option<Language>, content: &'a str) -> Prose<'a> {
        let tree = language
            .and_then(treesitter::grammar)
            .and_then(|grammar| treesitter::parse(&grammar, content).ok());
        let comments = if tree.is_none() && language.is_some_and(|l| l.spec().hash_comments) {
            hash_comments(content)
        } else {
            Vec::new()
        };
        Prose {
            tree,
            comments,
            strings_are_prose: language.is_some_and(|language| language.spec().strings_are_prose),
            content,
        }
    }

    /// Whether the bytes `range` of the content lie wholly inside a comment, or inside a string
    /// literal's text (not in code interpolated into it).
    pub(crate) fn contains(&self, range: Range<usize>) -> bool {
        if self
            .comments
            .iter()
            .any(|comment| comment.start <= range.start && range.end <= comment.end)
        {
            return true;
        }
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

/// The comments of a language whose `#` starts one at a line's start or after a space (YAML),
/// found line by line: a quote opens a quoted value only where a value starts (the line's first
/// character, or after `: `, `- `, `[`, `{`, `,`), so the apostrophe of `it's` opens nothing. A
/// `#` inside a block scalar (`run: |`) is taken for a comment too: a lesson then stays silent on
/// that line, the safe side.
fn hash_comments(content: &str) -> Vec<Range<usize>> {
    let mut comments = Vec::new();
    let mut line_start = 0;
    for line in content.split_inclusive('\n') {
        if let Some(at) = comment_start(line) {
            let end = line.trim_end_matches(['\n', '\r']).len();
            comments.push(line_start + at..line_start + end);
        }
        line_start += line.len();
    }
    comments
}

/// Where the comment of one line starts, if it has one.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut previous: Option<char> = None;
    let mut last_seen: Option<char> = None;
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(open) if c == open => {
                if open == '\'' && chars.peek().is_some_and(|(_, next)| *next == '\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None if c == '#' && previous.is_none_or(char::is_whitespace) => return Some(at),
            None if (c == '"' || c == '\'')
                && last_seen
                    .is_none_or(|seen| matches!(seen, ':' | '-' | '[' | '{' | ',' | '?')) =>
            {
                quote = Some(c);
            }
            None => {}
        }
        previous = Some(c);
        if !c.is_whitespace() {
            last_seen = Some(c);
        }
    }
    None
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
    fn hash_comments_are_prose_without_a_grammar() {
        let yaml = |content: &str, needle: &str| prose_at(Language::Yaml, content, needle);
        assert!(yaml(
            "# memory: 512m would be half a byte\n",
            "memory: 512m"
        ));
        assert!(yaml("memory: 512Mi # not 512m\n", "512m"));
        assert!(yaml("  - run: make # then: deploy\n", "deploy"));
        assert!(yaml("note: it's fine # memory: 512m\n", "memory: 512m"));
        assert!(!yaml("memory: 512m\n", "memory: 512m"));
        assert!(!yaml("url: http://host/#memory\n", "memory"));
        assert!(!yaml("value: \"a # memory\"\n", "memory"));
        assert!(!yaml("value: 'it''s # memory'\n", "memory"));
        assert!(!yaml("key: \"esc \\\" # memory\"\n", "memory"));
        assert!(!yaml("# first\nmemory: 512m\n", "memory"));
        let docker = |content: &str, needle: &str| prose_at(Language::Dockerfile, content, needle);
        assert!(docker(
            "# FROM node:14 is end of life\nFROM node:22\n",
            "node:14"
        ));
        assert!(!docker("FROM node:14\n", "node:14"));
        assert!(!docker("CMD [\"run\", \"# node:14\"]\n", "node:14"));
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
