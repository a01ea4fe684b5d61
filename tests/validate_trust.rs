//! How far car trusts a grammar (issue: block only what is really broken), driven through the
//! binary: the hook with the real payload fixtures, and `car check` on valid published
//! constructs each grammar misreads.

#[cfg(feature = "extra-grammars")]
use serde_json::{Value, json};

use crate::support::{self, TestProject};

/// The MultiEdit fixture (a Swift file) with `original` as the file before the edit and the
/// fixture's two edits applied to it on disk; `new_secondary` replaces the first edit's new text.
#[cfg(feature = "extra-grammars")]
fn swift_multiedit(project: &TestProject, original: &str, new_secondary: &str) -> Value {
    let mut payload = project.fixture_json("claude-post-multiedit.json");
    let text = payload.to_string().replace(
        "label.textColor = DankeTheme.secondaryText",
        &format!("label.textColor = {new_secondary}"),
    );
    payload = serde_json::from_str(&text).unwrap();
    payload["tool_response"]["originalFileContents"] = json!(original);
    let mut content = original.to_string();
    for edit in payload["tool_input"]["edits"].as_array().unwrap() {
        content = content.replacen(
            edit["old_string"].as_str().unwrap(),
            edit["new_string"].as_str().unwrap(),
            1,
        );
    }
    project.write("src/Theme.swift", &content);
    payload
}

/// Valid Swift tree-sitter-swift misreads (`missing `!``): the Void value `()`.
#[cfg(feature = "extra-grammars")]
const THEME_WITH_MISREAD: &str = "import UIKit\n\nfunc style(label: UILabel, title: UILabel) {\n    label.textColor = .gray\n    title.textColor = .black\n    done(.success(()))\n}\n";

/// Where swiftc is installed it judges the file itself; these tests are about the grammar.
#[cfg(feature = "extra-grammars")]
fn without_swiftc(project: &TestProject, payload: &Value) -> support::HookAnswer {
    let path = std::env::var("PATH").unwrap_or_default();
    let kept: Vec<String> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("swiftc").exists())
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect();
    project.hook_with_env(
        "post-tool-use",
        &payload.to_string(),
        &[("PATH", &kept.join(":"))],
    )
}

#[cfg(feature = "extra-grammars")]
#[test]
fn swift_error_the_edit_introduced_on_an_added_line_blocks() {
    let project = TestProject::new();
    let payload = swift_multiedit(&project, THEME_WITH_MISREAD, "DankeTheme.secondaryText)");
    let answer = without_swiftc(&project, &payload);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains("src/Theme.swift:4:47: syntax error near `)` [tree-sitter-swift]"),
        "{reason}"
    );
    assert!(
        !reason.contains(":6:"),
        "the old misread is not blamed: {reason}"
    );
}

#[cfg(feature = "extra-grammars")]
#[test]
fn swift_slip_the_grammar_notices_lines_below_still_blocks() {
    let project = TestProject::new();
    // An unclosed call on line 4: tree-sitter-swift reads on and fails on line 6.
    let payload = swift_multiedit(&project, THEME_WITH_MISREAD, "DankeTheme.secondaryText(");
    let answer = without_swiftc(&project, &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains("[tree-sitter-swift]"),
        "{answer:?}"
    );
}

#[cfg(feature = "extra-grammars")]
#[test]
fn swift_misread_that_was_there_before_does_not_block() {
    let project = TestProject::new();
    let payload = swift_multiedit(&project, THEME_WITH_MISREAD, "DankeTheme.secondaryText");
    let answer = without_swiftc(&project, &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

#[cfg(feature = "extra-grammars")]
#[test]
fn swift_edit_without_the_previous_content_is_judged_against_the_undone_edit() {
    let project = TestProject::new();
    project.write("src/Theme.swift", THEME_WITH_MISREAD);
    project.commit_all();
    let broken = THEME_WITH_MISREAD.replace(".gray", ".gray)");
    project.write("src/Theme.swift", &broken);
    let payload: Value = serde_json::from_str(&project.edit_payload(
        "src/Theme.swift",
        "label.textColor = .gray",
        "label.textColor = .gray)",
    ))
    .unwrap();
    let answer = without_swiftc(&project, &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("src/Theme.swift:4:"), "{answer:?}");
    assert!(!answer.reason().contains(":6:"), "{answer:?}");
}

#[cfg(feature = "extra-grammars")]
#[test]
fn new_swift_file_warns_instead_of_blocking() {
    let project = TestProject::new();
    let payload = project.write_payload("src/New.swift", "struct A {\n    let x: = 1\n}\n", None);
    let payload: Value = serde_json::from_str(&payload).unwrap();
    let answer = without_swiftc(&project, &payload);
    assert!(!answer.is_block(), "{answer:?}");
}

#[cfg(feature = "extra-grammars")]
#[test]
fn html_never_blocks() {
    let project = TestProject::new();
    let page = "<!DOCTYPE html>\n<html><body>\n<p>hi</p>\n</body></html>\n";
    project.write("index.html", page);
    let broken = page.replace("<p>hi</p>", "<a href=\"x\" <b>");
    let payload = project.write_payload("index.html", &broken, Some(page));
    let answer = project.hook("post-tool-use", &payload);
    assert!(!answer.is_block(), "{answer:?}");
    let run = project.run(&["check", "index.html"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("1 warning"), "{run:?}");
}

/// Valid files the grammars misread, published in real packages: `car check` exits 0.
#[test]
fn valid_constructs_the_grammars_misread_pass_car_check() {
    let project = TestProject::new();
    let mut files = vec![
        // TOML 1.0: a line-ending backslash may be followed by spaces (toml-test).
        ("multiline.toml", "a = \"\"\"\\  \n  b\"\"\"\n".to_string()),
        // RFC 8259 allows a lone surrogate escape; nesting past serde_json's 128 levels.
        ("whatwg.json", "[\"\\uD800\", \"\\uDEAD x\"]\n".to_string()),
        (
            "sample.json",
            format!("{}1{}\n", "[".repeat(468), "]".repeat(468)),
        ),
        // tree-sitter-yaml counts rows in 16 bits.
        (
            "icons.yml",
            (0..33_000).map(|n| format!("'{n}':\n  v: {n}\n")).collect(),
        ),
        // TypeScript 5.0, and what tsc emits into declaration files.
        ("index.ts", "export type * from './types';\n".to_string()),
        // The module it re-exports (imports that resolve nowhere are checked too).
        ("types.ts", "export type A = 1;\n".to_string()),
        (
            "t.d.ts",
            "export declare const a: import(\"./t\").F<string>;\n".to_string(),
        ),
    ];
    if cfg!(feature = "extra-grammars") {
        files.push((
            "doc.html",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html><body><p>x</p></body></html>\n"
                .to_string(),
        ));
        files.push((
            "admin.html",
            "<link rel=\"stylesheet\" href=\"{% static \"a.css\" %}\" {% csp_nonce_attr %}>\n"
                .to_string(),
        ));
        files.push(("Theme.swift", THEME_SWIFT_MISREAD.to_string()));
    }
    if support::is_installed("gofmt") {
        // Type-checker test data in Go's own tree: valid syntax.
        files.push((
            "builtins.go",
            "package p\n\nfunc f() {\n\t_ = make(1)\nL:\nL1:\n\tgoto L\n\tgoto L1\n}\n".to_string(),
        ));
    }
    if support::is_installed("node") {
        files.push((
            "schemas.js",
            "const _null = 1;\nexport { _null as null };\n".to_string(),
        ));
    }
    let mut names = vec!["check"];
    for (name, content) in &files {
        project.write(name, content);
        names.push(name);
    }
    let run = project.run(&names);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .contains(&format!("0 errors in {} files", files.len())),
        "{run:?}"
    );
}

const THEME_SWIFT_MISREAD: &str =
    "func f(done: (Result<Void, Error>) -> Void) {\n    done(.success(()))\n}\n";

/// The fixes stay fixes of misreads: the same files with a real error still fail.
#[test]
fn real_errors_in_the_same_languages_still_fail_car_check() {
    let project = TestProject::new();
    let files = [
        ("multiline.toml", "a = \"\"\"\\  \n  b\"\"\n"),
        ("bad.json", "[\"\\uD800\" \"x\"]\n"),
        ("index.ts", "export type * from;\n"),
    ];
    for (name, content) in files {
        project.write(name, content);
        let run = project.run(&["check", name]);
        assert_eq!(run.code, 1, "{name}: {run:?}");
    }
    let deep = format!("{}1{}\n", "[".repeat(1_001), "]".repeat(1_001));
    project.write("deep.json", &deep);
    let run = project.run(&["check", "deep.json"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.contains("nested deeper than 1000 levels"),
        "{run:?}"
    );
}

/// Macro invocations without semicolons, as in numpy's `tools/swig/test/Tensor.h`: the C++
/// grammar misreads them, and where a comment line lands decides where it reports the misread.
#[cfg(feature = "extra-grammars")]
const MACRO_HEADER: &str = r"#ifndef TENSOR_H
#define TENSOR_H

#define TEST_FUNC_PROTOS(TYPE, SNAME) \
\
TYPE SNAME ## Norm(   TYPE tensor[2][2][2]); \
TYPE SNAME ## Max(    TYPE * tensor, int slices, int rows, int cols); \
TYPE SNAME ## Min(    int slices, int rows, int cols, TYPE * tensor); \
void SNAME ## Scale(  TYPE array[3][3][3], TYPE val); \
void SNAME ## Floor(  TYPE * array, int slices, int rows, int cols, TYPE floor); \
void SNAME ## Ceil(   int slices, int rows, int cols, TYPE * array, TYPE ceil ); \
void SNAME ## LUSplit(TYPE tensor[2][2][2], TYPE lower[2][2][2], TYPE upper[2][2][2]);

TEST_FUNC_PROTOS(signed char       , schar    )
TEST_FUNC_PROTOS(unsigned char     , uchar    )
TEST_FUNC_PROTOS(short             , short    )
TEST_FUNC_PROTOS(unsigned short    , ushort   )
TEST_FUNC_PROTOS(int               , int      )
TEST_FUNC_PROTOS(unsigned int      , uint     )
TEST_FUNC_PROTOS(long              , long     )
TEST_FUNC_PROTOS(unsigned long     , ulong    )
TEST_FUNC_PROTOS(long long         , longLong )
TEST_FUNC_PROTOS(unsigned long long, ulongLong)
TEST_FUNC_PROTOS(float             , float    )

#endif
";

/// An edit that adds only comment lines cannot break code: what a misreading grammar reports
/// then is its misread, moved, never a block. The same place with code added still blocks.
#[cfg(feature = "extra-grammars")]
#[test]
fn a_comment_line_added_to_a_misread_file_never_blocks() {
    let project = TestProject::new();
    project.write("Tensor.h", MACRO_HEADER);
    project.commit_all();
    let at = "TEST_FUNC_PROTOS(int ";
    for comment in [
        "// car: an edited line\n",
        "/* one line */\n",
        "/**\n * A doc comment\n */\n",
    ] {
        let edited = MACRO_HEADER.replacen(at, &format!("{comment}{at}"), 1);
        project.write("Tensor.h", &edited);
        let payload = project.write_payload("Tensor.h", &edited, Some(MACRO_HEADER));
        let answer = project.hook("post-tool-use", &payload);
        assert!(!answer.is_block(), "{comment:?}: {answer:?}");
    }
    let edited = MACRO_HEADER.replacen(at, &format!("int x = (1;\n{at}"), 1);
    project.write("Tensor.h", &edited);
    let payload = project.write_payload("Tensor.h", &edited, Some(MACRO_HEADER));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "code, not a comment: {answer:?}");
    // A deleted closing brace leaves a blank line behind, which counts as added: a slip, not a
    // comment (in a file the grammar reads cleanly, so the slip is known to be the edit's).
    let clean = "int f() {\n  return 1;\n}\n\nint g() {\n  return 2;\n}\n";
    project.write("clean.c", clean);
    project.commit_all();
    let slip = clean.replacen("  return 1;\n}", "  return 1;\n", 1);
    project.write("clean.c", &slip);
    let payload = project.write_payload("clean.c", &slip, Some(clean));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "a deleted brace: {answer:?}");
}
