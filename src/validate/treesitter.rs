//! The in-process syntax check: parse with the language's tree-sitter grammar and report its
//! ERROR and MISSING nodes as `path:line:col: message` with the offending line.
//!
//! Invariants: at most [`MAX_REPORTED`] distinct errors per file (one typo can make hundreds of
//! ERROR nodes); a parse that outlives [`PARSE_BUDGET`] is abandoned with a note, never waited on.
//! The grammars of the `extra-grammars` feature are compiled in only with that feature.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, Parser};

use crate::validate::language::Language;
use crate::validate::languages::spec::TreeCheck;
use crate::validate::{Diagnostic, Origin, Severity, snippet_at};

/// Errors reported per file; the rest are usually consequences of the first.
pub(crate) const MAX_REPORTED: usize = 5;

/// Longest a parse may take (a 2 MiB file parses in well under this).
pub(crate) const PARSE_BUDGET: Duration = Duration::from_secs(3);

/// The grammar for `language`, if this build has one.
pub(crate) fn grammar(language: Language) -> Option<tree_sitter::Language> {
    language.spec().grammar.map(tree_sitter::Language::new)
}

/// The validator name for a language's tree-sitter check ("tree-sitter-rust").
pub(crate) fn validator_name(language: Language) -> String {
    format!("tree-sitter-{}", language.name())
}

/// Parses `content` and reports its first [`MAX_REPORTED`] syntax errors as errors. `Err` is a
/// note: no grammar in this build, or the parse ran out of time.
pub(crate) fn check(
    display_path: &str,
    content: &str,
    language: Language,
) -> Result<Vec<Diagnostic>, String> {
    let found = parse_errors(content, language, MAX_REPORTED)
        .map_err(|why| format!("{display_path}: {why}; not checked"))?;
    Ok(found
        .iter()
        .map(|error| error.to_diagnostic(display_path, content, language, Severity::Error))
        .collect())
}

/// The first `limit` distinct syntax errors of `content`. `Err` says why there is no parse: no
/// grammar in this build, or the parse ran out of time.
pub(crate) fn parse_errors(
    content: &str,
    language: Language,
    limit: usize,
) -> Result<Vec<SyntaxError>, String> {
    parse_rewritten_errors(content, content, language, limit)
}

/// Like [`parse_errors`] for `prepared`, a rewrite of `content` that keeps every line and every
/// position up to a line's end ([`crate::validate::rewrite`]); messages quote `content`, the file
/// as written.
pub(crate) fn parse_rewritten_errors(
    content: &str,
    prepared: &str,
    language: Language,
    limit: usize,
) -> Result<Vec<SyntaxError>, String> {
    parse_rewritten(content, prepared, language, limit).map(|(_, found)| found)
}

/// [`parse_rewritten_errors`] with the tree of `prepared` it read them from.
pub(crate) fn parse_rewritten(
    content: &str,
    prepared: &str,
    language: Language,
    limit: usize,
) -> Result<(tree_sitter::Tree, Vec<SyntaxError>), String> {
    let Some(grammar) = grammar(language) else {
        return Err(format!(
            "this build of car has no {} grammar (enable the `extra-grammars` feature)",
            language.name()
        ));
    };
    let tree =
        parse(&grammar, prepared).map_err(|why| format!("the {} parse {why}", language.name()))?;
    let mut found = syntax_errors(tree.root_node(), content, limit);
    let tree_checks = language.spec().tree_checks;
    if !tree_checks.is_empty() && found.len() < limit {
        for check in tree_checks {
            found.extend(match check {
                TreeCheck::StatementsOutsideItems => {
                    statements_outside_items(tree.root_node(), content)
                }
                TreeCheck::MacroStatementsWithoutSemicolon => {
                    macro_statements_without_semicolon(tree.root_node(), content)
                }
            });
        }
        found.sort_by_key(|error| (error.line, error.column));
        found.truncate(limit);
    }
    Ok((tree, found))
}

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

/// Parses within [`PARSE_BUDGET`]; `Err` says why there is no tree.
pub(crate) fn parse(
    grammar: &tree_sitter::Language,
    content: &str,
) -> Result<tree_sitter::Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(grammar)
        .map_err(|error| format!("could not start ({error})"))?;
    let started = Instant::now();
    let mut out_of_time = |_: &tree_sitter::ParseState| {
        if started.elapsed() > PARSE_BUDGET {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = content.as_bytes();
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut out_of_time);
    parser
        .parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            None,
            Some(options),
        )
        .ok_or_else(|| format!("took over {} s", PARSE_BUDGET.as_secs()))
}

/// One ERROR or MISSING node, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// 1-based line of the node's start.
    pub(crate) line: usize,
    /// 1-based line of the node's end (an ERROR node may span many lines).
    pub(crate) end_line: usize,
    /// 1-based first and last line of the top-level node (a declaration, a statement) the error
    /// is in: a grammar notices an unclosed bracket where the next statement does not fit, often
    /// lines below the slip.
    pub(crate) scope: (usize, usize),
    pub(crate) column: usize,
    pub(crate) message: String,
    pub(crate) subject: Option<String>,
}

impl SyntaxError {
    /// The error as a diagnostic of the given severity, with the offending line as snippet.
    pub(crate) fn to_diagnostic(
        &self,
        display_path: &str,
        content: &str,
        language: Language,
        severity: Severity,
    ) -> Diagnostic {
        Diagnostic {
            file: display_path.to_string(),
            line: self.line,
            column: self.column,
            severity,
            validator: validator_name(language),
            origin: Origin::TreeSitter,
            message: self.message.clone(),
            snippet: snippet_at(content, self.line, self.column),
            subject: self.subject.clone(),
        }
    }
}

/// The first `limit` distinct ERROR/MISSING nodes in document order. Subtrees without errors are
/// skipped; an ERROR node's children are not searched (they are the same mistake).
pub(crate) fn syntax_errors(root: Node<'_>, content: &str, limit: usize) -> Vec<SyntaxError> {
    let mut found: Vec<SyntaxError> = Vec::new();
    if !root.has_error() {
        return found;
    }
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let is_problem = node.is_error() || node.is_missing();
        if is_problem {
            let error = describe(node, content);
            if !found
                .iter()
                .any(|seen| seen.line == error.line && seen.message == error.message)
            {
                found.push(error);
                if found.len() >= limit {
                    break;
                }
            }
        }
        if !is_problem && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    found
}

fn describe(node: Node<'_>, content: &str) -> SyntaxError {
    let start = node.start_position();
    let line = start.row + 1;
    let end_line = node.end_position().row + 1;
    let scope = top_level_span(node);
    let column = char_column(content, start.row, start.column);
    if node.is_missing() {
        let kind = node.kind();
        let message = if node.is_named() {
            format!("syntax error: missing {kind}")
        } else {
            format!("syntax error: missing `{kind}`")
        };
        return SyntaxError {
            line,
            end_line,
            scope,
            column,
            message,
            subject: None,
        };
    }
    let text = text_between(content, start, node.end_position());
    let first_line = text.lines().next().unwrap_or("").trim();
    let message = if first_line.is_empty() {
        "syntax error".to_string()
    } else {
        format!(
            "syntax error near `{}`",
            crate::text::shorten(first_line, 40)
        )
    };
    SyntaxError {
        line,
        end_line,
        scope,
        column,
        message,
        subject: precise_token(node, text),
    }
}

/// The lines of the outermost node below the root that holds `node` (its own, at the top).
fn top_level_span(node: Node<'_>) -> (usize, usize) {
    let mut top = node;
    while let Some(parent) = top.parent() {
        if parent.parent().is_none() {
            break;
        }
        top = parent;
    }
    (top.start_position().row + 1, top.end_position().row + 1)
}

/// The token an ERROR node is about, when it is exactly one identifier (`DankeTheme`,
/// `secondaryText`): precise enough to learn from. Keywords (anonymous nodes), punctuation and
/// multi-token spans are not: a trigger like `elif` or `)` would fire everywhere.
fn precise_token(node: Node<'_>, text: &str) -> Option<String> {
    let child = node.child(0).filter(|_| node.child_count() == 1)?;
    let is_identifier =
        child.is_named() && child.child_count() == 0 && child.kind().contains("identifier");
    let text = text.trim();
    (is_identifier && text.chars().count() >= 3).then(|| text.to_string())
}

/// The text of `content` between two tree-sitter points (row, byte column), clamped to the lines
/// and character boundaries that exist.
fn text_between(content: &str, start: tree_sitter::Point, end: tree_sitter::Point) -> &str {
    let offset = |point: tree_sitter::Point| {
        let line_start: usize = content
            .split_inclusive('\n')
            .take(point.row)
            .map(str::len)
            .sum();
        let line = content[line_start.min(content.len())..]
            .split('\n')
            .next()
            .unwrap_or("");
        let mut at = point.column.min(line.len());
        while !line.is_char_boundary(at) {
            at -= 1;
        }
        line_start + at
    };
    let (from, to) = (offset(start), offset(end));
    content.get(from..to.max(from)).unwrap_or_default()
}

/// tree-sitter columns are bytes; people count characters.
fn char_column(content: &str, row: usize, byte_column: usize) -> usize {
    let line = content.split('\n').nth(row).unwrap_or("");
    let mut end = byte_column.min(line.len());
    while end > 0 && !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_statements_outside_a_function_are_errors_and_macros_are_items() {
        let content = "use std::io;\nlet x = 1;\nlazy_static! { static ref A: u8 = 1; }\nx + 1;\nfn main() {\n    let y = 2;\n    y + 1;\n}\n";
        let found = parse_errors(content, Language::Rust, 10).unwrap();
        let lines: Vec<(usize, &str)> = found
            .iter()
            .map(|error| (error.line, error.message.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (
                    2,
                    "syntax error: `let` outside a function (a Rust file holds items: fn, struct, use, …)"
                ),
                (
                    4,
                    "syntax error: an expression outside a function (a Rust file holds items: fn, struct, use, …)"
                ),
            ]
        );
    }

    fn errors(language: Language, content: &str) -> Vec<Diagnostic> {
        check("file", content, language).expect("grammar available")
    }

    fn assert_flags(language: Language, good: &str, bad: &str, line: usize) {
        assert!(
            errors(language, good).is_empty(),
            "{language:?} valid file flagged: {:?}",
            errors(language, good)
        );
        let found = errors(language, bad);
        assert!(!found.is_empty(), "{language:?} broken file passed");
        assert_eq!(found[0].line, line, "{language:?}: {found:?}");
        assert_eq!(found[0].validator, validator_name(language));
        assert!(found[0].snippet.is_some());
    }

    #[test]
    fn core_languages() {
        assert_flags(
            Language::Rust,
            "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
            "fn main() {\n    let x = ;\n}\n",
            2,
        );
        assert_flags(
            Language::JavaScript,
            "const f = (a) => <div>{a}</div>;\nexport default f;\n",
            "function f( {\n  return 1;\n}\n",
            1,
        );
        assert_flags(
            Language::TypeScript,
            "interface A { x: number }\nconst a: A = { x: 1 };\nexport function f<T>(v: T): T { return v; }\n",
            "const a: number = 1;\nconst b = (a + ;\n",
            2,
        );
        assert_flags(
            Language::Tsx,
            "export const App = (p: {n: number}) => <div>{p.n}</div>;\n",
            "export const App = () => <div>{</div>;\n",
            1,
        );
        assert_flags(
            Language::Go,
            "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n",
            "package main\n\nfunc main() {\n\tx := \n}\n",
            4,
        );
        assert_flags(
            Language::Toml,
            "[package]\nname = \"x\"\n",
            "[package]\nname = \n",
            2,
        );
        assert_flags(
            Language::Python,
            "def f(x):\n    return x\n",
            "df = load('data.csv'\nprint(df.head())\n",
            1,
        );
        assert_flags(
            Language::Shell,
            "echo hi\n",
            "if true; then\n  echo\nfi fi\n",
            3,
        );
    }

    #[cfg(feature = "extra-grammars")]
    #[test]
    fn extra_languages() {
        assert_flags(
            Language::Swift,
            "struct A {\n    let x: Int\n}\n",
            "struct A {\n    let x: = 1\n}\n",
            2,
        );
        assert_flags(
            Language::Java,
            "class A {\n  int f() { return 1; }\n}\n",
            "class A {\n  int f() { return 1 }\n}\n",
            2,
        );
        assert_flags(
            Language::C,
            "int main(void) {\n  return 0;\n}\n",
            "int main(void) {\n  return 0\n}\n",
            2,
        );
        assert_flags(
            Language::Cpp,
            "#include <vector>\nint main() {\n  std::vector<int> v{1};\n  return v[0];\n}\n",
            "int main() {\n  int x = (1 + ;\n}\n",
            2,
        );
        assert_flags(
            Language::Ruby,
            "def f(x)\n  x + 1\nend\n",
            "def f(x)\n  x +\n",
            1,
        );
        assert_flags(
            Language::Kotlin,
            "fun main() {\n    val x = 1\n    println(x)\n}\n",
            "fun main() {\n    val x = \n}\n",
            2,
        );
        assert_flags(
            Language::Css,
            "a { color: red; }\n",
            "a { color: red; }\nb { color: }\n}\n",
            2,
        );
        assert_flags(
            Language::Html,
            "<!DOCTYPE html>\n<html><body><p>hi</p></body></html>\n",
            "<div>\n<p>hi</p>\n<a href=\"x\" <b>\n</div>\n",
            3,
        );
    }

    #[test]
    fn reports_a_few_distinct_errors_not_hundreds() {
        let content = "fn main() {\n".to_string() + &"    let = ;\n".repeat(200) + "}\n";
        let found = errors(Language::Rust, &content);
        assert!(
            !found.is_empty() && found.len() <= MAX_REPORTED,
            "{found:?}"
        );
    }

    #[test]
    fn keywords_and_spans_are_never_subjects() {
        for (language, content) in [
            (Language::Python, "x = 1\nelif x:\n    pass\n"),
            (
                Language::JavaScript,
                "const a = 1\nconst b = a secondaryText c;\n",
            ),
        ] {
            let found = errors(language, content);
            assert!(!found.is_empty());
            assert!(
                found.iter().all(|error| error.subject.is_none()),
                "{found:?}"
            );
        }
    }

    #[test]
    fn rust_macro_statements_need_a_semicolon_unless_they_end_the_block() {
        let slip = "fn main() {\n    println!(\"hello\")\n    let x = 1;\n}\n";
        let found = errors(Language::Rust, slip);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].line, found[0].column), (2, 22));
        assert!(found[0].message.contains("`println!`"), "{found:?}");
        assert_eq!(
            errors(
                Language::Rust,
                "fn f() -> Vec<u8> {\n    let v = 1;\n    vec![v] // tail\n}\n"
            )
            .len(),
            0
        );
        let valid = "fn main() {\n    println!(\"a\");\n    thread_local! { static A: u8 = 1 }\n    // c\n    assert!(true);\n    vec![1]\n}\n";
        assert!(errors(Language::Rust, valid).is_empty());
        assert_eq!(
            errors(Language::Rust, "fn f() {\n    vec![1]\n    g()\n}\n").len(),
            1
        );
    }

    #[test]
    fn missing_nodes_are_named() {
        let found = errors(Language::Rust, "fn main() {\n    let x = 1\n}\n");
        assert_eq!(found[0].message, "syntax error: missing `;`");
        assert_eq!((found[0].line, found[0].column), (2, 14));
    }
}
