//! The bracket lexer: what hides brackets, where a slip is found, what gives no verdict.

use super::*;
use crate::validate::language::Language;

fn problem(content: &str, language: Language) -> Option<(usize, usize, ProblemKind)> {
    match balance(content, language) {
        Balance::Problem(problem) => Some((problem.line, problem.column, problem.kind)),
        Balance::Balanced => None,
        Balance::Unknown => panic!("no verdict on {content:?}"),
    }
}

#[test]
fn comments_strings_and_interpolation_hide_their_brackets() {
    let swift = "func f() {\n    // }\n    /* { /* } */ ( */\n    let s = \"}\\(g(x)) ) \\\" {\"\n    let m = \"\"\"\n    { \\(a[0]) \n    \"\"\"\n}\n";
    assert_eq!(problem(swift, Language::Swift), None);
    let kotlin = "fun f() {\n    val s = \"}${map[\"k\"]} { $x\"\n    val c = '{'\n    val r = \"\"\"\n    ) ${ listOf(1) }\n    \"\"\"\n}\n";
    assert_eq!(problem(kotlin, Language::Kotlin), None);
    let c = "#include <stdio.h>\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint f(void) {\n    char c = '}';\n    puts(\"{ (\");\n    return MAX(1, 2);\n}\n";
    assert_eq!(problem(c, Language::C), None);
    let css = "a { content: \"}\"; }\n/* { */\n@media (min-width: 10px) { b { color: red; } }\n";
    assert_eq!(problem(css, Language::Css), None);
}

#[test]
fn a_slip_is_found_where_the_bracket_opened_or_strayed() {
    assert_eq!(
        problem("func f() {\n    if x {\n        g()\n}\n", Language::Swift),
        Some((1, 10, ProblemKind::Unclosed('{')))
    );
    assert_eq!(
        problem("fun f() {\n}\n}\n", Language::Kotlin),
        Some((3, 1, ProblemKind::Stray('}')))
    );
    assert_eq!(
        problem("int f(void) {\n    g(1;\n}\n", Language::C),
        Some((
            3,
            1,
            ProblemKind::Mismatched {
                open: '(',
                close: '}'
            }
        ))
    );
    assert_eq!(
        problem("a { color: red;\n", Language::Css),
        Some((1, 3, ProblemKind::Unclosed('{')))
    );
}

#[test]
fn comments_are_found_past_a_slip_and_never_inside_strings_or_names() {
    let kotlin = "val u = \"a//b\" // one\nfun `x /* y`() = f(\n/* two /* nested */ */\n";
    let found: Vec<&str> = comments(kotlin, Language::Kotlin)
        .expect("readable")
        .into_iter()
        .map(|range| &kotlin[range])
        .collect();
    assert_eq!(found, ["// one", "/* two /* nested */ */"]);
    assert_eq!(comments("val s = $$\"{$x\" // c\n", Language::Kotlin), None);
    assert_eq!(comments("/* never ends\n", Language::Kotlin), None);
    assert_eq!(comments("// c\n", Language::Rust), None);
}

#[test]
fn single_branch_conditions_are_counted_through() {
    let header = "#ifndef UTIL_H\n#define UTIL_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nint twice(int x);\n#ifdef __cplusplus\n}\n#endif\n#endif\n";
    assert_eq!(problem(header, Language::Cpp), None);
    let slip =
        "#ifndef UTIL_H\n#define UTIL_H\nstatic int twice(int x) {\n    return x * 2;\n#endif\n";
    assert_eq!(
        problem(slip, Language::C),
        Some((3, 25, ProblemKind::Unclosed('{')))
    );
    assert_eq!(
        balance("#if 0\nint f( {\n#endif\n", Language::C),
        Balance::Unknown
    );
}

#[test]
fn what_the_lexer_cannot_read_gives_no_verdict() {
    for (content, language) in [
        (
            "#ifdef X\nint f() {\n#else\nint f(int a) {\n#endif\n}\n",
            Language::C,
        ),
        ("#define BEGIN {\nBEGIN\n}\n", Language::Cpp),
        ("auto s = R\"({)\";\n", Language::Cpp),
        ("let r = #\"\\d{\"#\n", Language::Swift),
        ("let r = /[a-z/\n", Language::Swift),
        ("val s = $$\"{$x\"\n", Language::Kotlin),
        ("let s = \"never ends\n", Language::Swift),
        ("/* never ends {\n", Language::Kotlin),
    ] {
        assert_eq!(balance(content, language), Balance::Unknown, "{content:?}");
    }
    assert_eq!(balance("x", Language::Java), Balance::Unknown);
}

#[test]
fn rust_and_go_literals_hide_their_brackets() {
    let rust = "fn f<'a>(s: &'a str) -> char {\n    let r = r#\"}\"# ;\n    let b = br\"{\";\n    let s = \"multi\n line }\";\n    /* nested /* } */ { */\n    'outer: loop { break 'outer; }\n    let c = '{';\n    let e = '\\'';\n    let r#type = 1;\n    '}'\n}\n";
    assert_eq!(problem(rust, Language::Rust), None);
    let go = "package p\n\nfunc f() string {\n\tr := '{'\n\treturn `}\n(` + \"]\"\n}\n";
    assert_eq!(problem(go, Language::Go), None);
}

#[test]
fn the_likely_cause_is_the_bracket_an_outer_line_closed() {
    let ledger = "use serde::Serialize;\n\npub fn total(l: &Ledger) -> u32 {\n    match l.entries.len() {\n        0 => return 0,\n        _ => {\n            sum += 1;\n    }\n    sum\n}\n\npub fn other() -> u32 {\n    1\n}\n";
    let cause = likely_cause(ledger, Language::Rust).expect("unbalanced");
    assert_eq!((cause.problem.line, cause.problem.column), (6, 14));
    assert_eq!(cause.closed_on, Some(8));
    assert!(
        cause.message().contains("missing before line 8"),
        "{}",
        cause.message()
    );
    // Every closing bracket where it belongs: the unclosed bracket itself.
    let flat = "fn f() {\n    g(\n}\n";
    let cause = likely_cause(flat, Language::Rust).expect("unbalanced");
    assert_eq!(
        cause.problem.kind,
        ProblemKind::Mismatched {
            open: '(',
            close: '}'
        }
    );
    assert_eq!(likely_cause("fn f() {}\n", Language::Rust), None);
}
