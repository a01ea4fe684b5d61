use super::*;

fn source<'a>(path: &'a Path, content: &'a str) -> Source<'a> {
    Source {
        path,
        display_path: "f",
        content,
        language: None,
        added: &[],
    }
}

fn judge(language: Language, name: &str, content: &str) -> Verdict {
    let path = PathBuf::from(name);
    Tools::default().judge(language, &source(&path, content), true)
}

/// Skips (loudly) where the machine lacks the tool; the CI machine has gofmt, ruby, node and
/// rustfmt, so there these tests run.
fn has(program: &str) -> bool {
    let found = find_on_path(program).is_some();
    if !found {
        eprintln!("{program} not installed; test skipped");
    }
    found
}

fn rejects_at(verdict: Verdict, validator: &str, line: usize) {
    let Verdict::Rejects(found) = verdict else {
        panic!("expected a rejection, got {verdict:?}");
    };
    assert!(!found.is_empty());
    assert_eq!(found[0].validator, validator, "{found:?}");
    assert_eq!(found[0].line, line, "{found:?}");
    assert!(found[0].is_error());
}

#[test]
fn gofmt_judges_go() {
    if !has("gofmt") {
        return;
    }
    // Type-checker test data: syntactically valid, misread by tree-sitter-go.
    let valid = "package p\n\nfunc f() {\n\t_ = make(1)\nL:\nL1:\n\tgoto L\n\tgoto L1\n}\n";
    assert!(matches!(
        judge(Language::Go, "a.go", valid),
        Verdict::Accepts
    ));
    let broken = "package p\n\nfunc f() {\n\tx := \n}\n";
    rejects_at(judge(Language::Go, "a.go", broken), "gofmt", 5);
}

#[test]
fn ruby_judges_ruby() {
    if !has("ruby") {
        return;
    }
    assert!(matches!(
        judge(Language::Ruby, "a.rb", "def f(x)\n  x + 1\nend\n"),
        Verdict::Accepts
    ));
    let Verdict::Rejects(found) = judge(Language::Ruby, "a.rb", "def f(x)\n  x +\n") else {
        panic!("ruby accepted a broken file");
    };
    assert_eq!(found[0].validator, "ruby");
}

#[test]
fn node_judges_plain_scripts_only() {
    if !has("node") {
        return;
    }
    let module = "const _null = 1;\nexport { _null as null };\n";
    assert!(matches!(
        judge(Language::JavaScript, "a.js", module),
        Verdict::Accepts
    ));
    assert!(matches!(
        judge(Language::JavaScript, "a.mjs", module),
        Verdict::Accepts
    ));
    assert!(matches!(
        judge(Language::JavaScript, "a.cjs", module),
        Verdict::Rejects(ref found) if found.is_empty()
    ));
    assert!(matches!(
        judge(Language::JavaScript, "a.jsx", module),
        Verdict::Undecided(None)
    ));
    assert!(matches!(
        judge(Language::JavaScript, "a.js", "function f( {\n"),
        Verdict::Rejects(ref found) if found.is_empty()
    ));
}

#[test]
fn rustfmt_judges_in_the_crate_edition() {
    if !has("rustfmt") {
        return;
    }
    let crate_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        crate_dir.path().join("Cargo.toml"),
        "[package]\nname = \"old\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let file = crate_dir.path().join("lib.rs");
    assert_eq!(crate_edition(&file), "2015");
    let old = "fn f() -> Result<(), ()> {\n    let x = try!(Ok(1));\n    Ok(())\n}\n";
    assert!(matches!(
        Tools::default().judge(Language::Rust, &source(&file, old), true),
        Verdict::Accepts
    ));
    rejects_at(
        judge(Language::Rust, "a.rs", "fn main() {\n    let x = ;\n}\n"),
        "rustfmt",
        2,
    );
}

#[test]
fn editions_come_from_the_nearest_manifest() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("a/src")).unwrap();
    std::fs::write(
        root.path().join("a/Cargo.toml"),
        "[package]\nname = \"a\"\nedition = \"2018\"\n",
    )
    .unwrap();
    assert_eq!(crate_edition(&root.path().join("a/src/lib.rs")), "2018");
    assert_eq!(crate_edition(&root.path().join("lib.rs")), "2021");
}

#[cfg(unix)]
#[test]
fn swiftc_messages_become_errors() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("fake-swiftc");
    // Prints what swiftc prints for `let x: = 1` on line 2, and fails; accepts a file without `=`.
    std::fs::write(
        &fake,
        "#!/bin/sh\nif grep -q '= 1' \"$2\"; then echo \"$2:2:12: error: expected type\" >&2; exit 1; fi\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let program: &'static str = Box::leak(fake.to_string_lossy().into_owned().into_boxed_str());
    let tools = Tools::with_programs(["gofmt", "ruby", "node", "rustfmt", program]);
    let path = PathBuf::from("A.swift");
    let broken = "struct A {\n    let x: = 1\n}\n";
    rejects_at(
        tools.judge(Language::Swift, &source(&path, broken), true),
        "swiftc",
        2,
    );
    assert!(matches!(
        tools.judge(Language::Swift, &source(&path, "struct A {}\n"), true),
        Verdict::Accepts
    ));
}

#[test]
fn a_missing_tool_leaves_the_grammar_verdict() {
    let tools = Tools::with_programs([
        "car-no-gofmt",
        "car-no-ruby",
        "car-no-node",
        "car-no-rustfmt",
        "car-no-swiftc",
    ]);
    let path = PathBuf::from("a.go");
    assert!(matches!(
        tools.judge(Language::Go, &source(&path, "package p\nfunc ("), true),
        Verdict::Undecided(None)
    ));
    assert!(matches!(
        Tools::default().judge(Language::Kotlin, &source(&path, ""), true),
        Verdict::Undecided(None)
    ));
}

#[test]
fn fast_tools_check_every_file_the_others_only_flagged_ones() {
    let path = PathBuf::from("a.rs");
    let escape = "fn main() {\n    let s = \"\\q\";\n}\n";
    assert!(matches!(
        Tools::default().judge(Language::Rust, &source(&path, escape), false),
        Verdict::Undecided(None)
    ));
    if has("gofmt") {
        let path = PathBuf::from("a.go");
        let escape = "package p\n\nvar s = \"\\q\"\n";
        rejects_at(
            Tools::default().judge(Language::Go, &source(&path, escape), false),
            "gofmt",
            3,
        );
    }
}

/// rustfmt's answer to a `}` missing inside a function (issue 40, item 6): the delimiter it
/// suspects, not the file's end.
const RUSTFMT_UNCLOSED: &str = "error: this file contains an unclosed delimiter\n  --> <stdin>:22:3\n   |\n 7 | pub fn total(l: &Ledger) -> u32 {\n   |                                 - unclosed delimiter\n...\n11 |         _ => {\n   |              - this delimiter might not be properly closed...\n12 |             sum += 1;\n13 |     }\n   |     - ...as it matches this but it has different indentation\n...\n22 | }\n   |  ^\n";

#[test]
fn rustfmt_names_the_delimiter_it_suspects() {
    let (line, column, message) =
        rustfmt_misclosed_delimiter(RUSTFMT_UNCLOSED).expect("a suspected delimiter");
    assert_eq!((line, column), (11, 14));
    assert!(message.contains("on line 13"), "{message}");
    assert_eq!(
        rustfmt_misclosed_delimiter("error: expected `;`\n --> <stdin>:2:3\n"),
        None
    );
}
