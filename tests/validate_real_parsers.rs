//! Where a real parser or compiler decides instead of a grammar (issue: block only what is really
//! broken, catch every slip the real tool rejects), driven through the binary: `car check` and
//! the PostToolUse hook with Edit and Write payloads.

use serde_json::json;

use crate::support::{self, TestProject};

/// PyYAML's own example (examples/pygments-lexer/example.yaml): a `%TAG` directive right after a
/// document, without `...`. PyYAML and libyaml read it; tree-sitter-yaml reported 2:1.
const YAML_SPEC_EXAMPLES: &str = "\
#
# Examples from the Preview section of the YAML specification
#

application specific tag: !something |
 The semantics of the tag
 above may be different for
 different documents.

# Global tags
%TAG ! tag:clarkevans.com,2002:
--- !shape
  # Use the ! handle for presenting
  # tag:clarkevans.com,2002:circle
- !circle
  center: &ORIGIN {x: 73, y: 129}
  radius: 7
- !line
  start: *ORIGIN
  finish: { x: 89, y: 102 }
";

#[test]
fn yaml_that_pyyaml_reads_is_not_blocked() {
    let project = TestProject::new();
    project.write("example.yaml", YAML_SPEC_EXAMPLES);
    let run = project.run(&["check", "example.yaml"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("0 errors in 1 file"), "{run:?}");

    // The agent adds the directive and the document after it to an existing file.
    let (head, tail) = YAML_SPEC_EXAMPLES.split_at(YAML_SPEC_EXAMPLES.find("# Global").unwrap());
    project.write("spec.yaml", head);
    project.commit_all();
    project.write("spec.yaml", YAML_SPEC_EXAMPLES);
    let payload = project.edit_payload(
        "spec.yaml",
        " different documents.\n",
        &format!(" different documents.\n\n{tail}"),
    );
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

#[test]
fn yaml_slips_block_with_libyamls_message() {
    let project = TestProject::new();
    let original = "steps:\n  - run: make\n    with: [a, b]\n";
    let broken = original.replace("[a, b]", "[a, b");
    let payload = project.write_payload("ci.yml", &broken, Some(original));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains(
            "ci.yml:4:1: did not find expected ',' or ']', while parsing a flow sequence that starts at 3:11 [yaml]"
        ),
        "{reason}"
    );
}

/// Slips tree-sitter-yaml read as valid and PyYAML rejects: a deleted quote that leaves an alias
/// `*.lock`, an alias to an anchor of another document.
#[test]
fn yaml_slips_the_grammar_missed_block() {
    let project = TestProject::new();
    let original = "ignore:\n  - \"*.lock\"\n  - '**/dist/**'\n";
    let broken = original.replace("\"*.lock\"", "*.lock\"");
    let payload = project.write_payload("config.yaml", &broken, Some(original));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(
        answer.reason().contains(
            "config.yaml:2:6: did not find expected alphabetic or numeric character, while scanning an alias that starts at 2:5 [yaml]"
        ),
        "{answer:?}"
    );
    project.write(
        "config.yaml",
        "base: &defaults {a: 1}\n---\nuse: *defaults\n",
    );
    let run = project.run(&["check", "config.yaml"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("config.yaml:3:6: found undefined alias `defaults` [yaml]"),
        "{run:?}"
    );
}

/// `{{ … }}` inside values that parse (a Taskfile, an Ansible task) leaves the rest of the file
/// checked: a slip on another line blocks. A Helm chart, whose expressions are not YAML until
/// rendered, gets a note for the error on its expression, never a block.
#[test]
fn yaml_slips_beside_template_expressions_block_and_helm_charts_do_not() {
    let project = TestProject::new();
    let original = "version: '3'\ntasks:\n  build:\n    cmds:\n      - go build -o {{.BIN}} .\n  test:\n    cmds:\n      - go test ./...\n";
    let broken = original.replace("  test:", "   test:");
    let payload = project.write_payload("Taskfile.yml", &broken, Some(original));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("Taskfile.yml:6:"), "{answer:?}");

    let chart = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\nspec:\n  replicas: {{ .Values.replicas }}\n";
    let payload = project.write_payload("chart/templates/deployment.yaml", chart, None);
    let answer = project.hook("post-tool-use", &payload);
    assert!(!answer.is_block(), "{answer:?}");
    let run = project.run(&["check", "chart/templates/deployment.yaml"]);
    assert_eq!(run.code, 0, "{run:?}");
}

/// What `tsc` emits into declaration files (date-fns, typescript-eslint, expo): import types with
/// type arguments, a default export's signature.
const DECLARATIONS: &str = "\
export declare const lastDayOfISOWeekYear: import(\"./types.ts\").FPFn1<
  Date,
  import(\"../fp.ts\").DateArg<Date>
>;
declare const _default: import(\"@typescript-eslint/utils/ts-eslint\").RuleModule<\"preferTypeParameter\", []> & {
    name: string;
};
export default _default;
export declare class ValidationError extends Error {
    constructor(message: string);
}
";

#[test]
fn typescript_constructs_tsc_emits_are_read() {
    let project = TestProject::new();
    project.write("types.d.ts", DECLARATIONS);
    project.write(
        "variance.ts",
        "export interface Box<out T, in U = unknown> {\n    get(): T;\n}\nexport default function (): Box<string>;\n",
    );
    let run = project.run(&["check", "types.d.ts", "variance.ts"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("0 errors in 2 files, 0 warnings"),
        "{run:?}"
    );
}

/// Slips in declaration files that the grammar reported outside the declaration the edit changed
/// (the benchmark's four missed mutants): each blocks as an agent's Write.
#[test]
fn declaration_file_slips_block_wherever_the_grammar_notices_them() {
    let project = TestProject::new();
    for (broken, expected) in [
        // A quote: the string runs on inside the import type.
        (
            DECLARATIONS.replace("\"../fp.ts\"", "\"../fp.ts"),
            "types.d.ts:3:",
        ),
        // The brace closing the intersection: reported at the declaration, quoted as written
        // (car reads the import types through a rewrite).
        (
            DECLARATIONS.replace("};\nexport default", ";\nexport default"),
            "types.d.ts:5:1: syntax error near `declare const _default: import(\"@typescr…`",
        ),
        // The last brace of the file: reported at the end of the class's last member.
        (
            DECLARATIONS.replace("string);\n}\n", "string);\n\n"),
            "types.d.ts:10:",
        ),
    ] {
        let payload = project.write_payload("types.d.ts", &broken, Some(DECLARATIONS));
        let answer = project.hook("post-tool-use", &payload);
        assert!(answer.is_block(), "{broken}\n{answer:?}");
        assert!(answer.reason().contains(expected), "{expected}: {answer:?}");
    }
}

/// A global augmentation inside a module (`global {}`, as @types/node writes it), which the
/// grammar misread until car rewrote it: a valid edit does not block, a slip in the edited
/// declaration does, and only there.
#[test]
fn declaration_file_global_augmentations_are_read_and_slips_beside_them_block() {
    let project = TestProject::new();
    let original = "declare module \"timers\" {\n    global {\n        function setTimeout(cb: () => void): number;\n    }\n}\nexport declare const a: number;\n";
    let valid = original.replace(
        "export declare const a: number;\n",
        "export declare const a: number;\nexport declare const b: string;\n",
    );
    let payload = project.write_payload("timers.d.ts", &valid, Some(original));
    let answer = project.hook("post-tool-use", &payload);
    assert_eq!(answer.json, json!({}), "{answer:?}");
    let broken = valid.replace("b: string;", "b: (string;");
    let payload = project.write_payload("timers.d.ts", &broken, Some(original));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("timers.d.ts:7:"), "{answer:?}");
    assert!(!answer.reason().contains("timers.d.ts:2:"), "{answer:?}");
}

/// Issue 26: `car check` only warned on a real syntax error in a `.d.ts` file (declaration files
/// were trusted only for what an edit introduced, and `car check` has no edit). Now the grammar
/// reads what `tsc` emits and what @types packages write (global augmentations, members named
/// `abstract` or `in`, mapped types over `keyof readonly`, destructured parameters in function
/// types, escapes in template literal types), so a declaration file's error is an error, in `car
/// check` as in a new file an agent writes.
#[test]
fn a_syntax_error_in_a_declaration_file_is_an_error_in_car_check() {
    let project = TestProject::new();
    let valid = "declare module \"stream\" {\n    global {\n        interface Flags { abstract?: boolean; in: number }\n    }\n}\nexport type Keys = { [type in keyof readonly string[]]?: boolean };\nexport declare const onEvent: ({ detail: { inside } }: CustomEvent) => void;\nexport type Braced<T> = T extends `${infer L}\\{${infer R}\\}` ? [L, R] : never;\n";
    project.write("types/stream.d.ts", valid);
    let run = project.run(&["check", "types/stream.d.ts"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("0 errors in 1 file, 0 warnings"),
        "{run:?}"
    );
    // A function expression without a body after `export =` (published so by a sourcemap
    // library; tsc's parser rejects it: `'{' expected`).
    let broken = format!("{valid}export = function remap(input: string): string;\n");
    project.write("types/stream.d.ts", &broken);
    let run = project.run(&["check", "types/stream.d.ts"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("types/stream.d.ts:9:"), "{run:?}");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("types/new.d.ts", &broken, None),
    );
    assert!(answer.is_block(), "{answer:?}");
}

/// Errors only the compiler sees (the grammar reads the literal as valid): where the fast real
/// tool is installed it checks every edit, not only those the grammar flags.
#[test]
fn ruby_and_go_errors_only_the_compiler_sees_block() {
    let project = TestProject::new();
    // debian's rake: a deleted `)` inside a regex literal (the benchmark's missed mutant).
    let rake = "str = ARGV.first\nif str\n  str = str.b[/\\A_(.*)_\\z/, 1]\nend\n";
    let go = "package main\n\nfunc main() {\n\ts := \"\\n\"\n\t_ = s\n}\n";
    let cases = [
        (
            "ruby",
            "bin/rake.rb",
            rake,
            rake.replace("(.*)_", "(.*_"),
            "bin/rake.rb:3:",
            "[ruby]",
        ),
        (
            "gofmt",
            "main.go",
            go,
            go.replace("\\n", "\\q"),
            "main.go:4:9: unknown escape sequence [gofmt]",
            "",
        ),
    ];
    for (tool, path, original, broken, expected, validator) in cases {
        if !support::is_installed(tool) {
            eprintln!("{tool} is not installed: skipped");
            continue;
        }
        project.write(path, original);
        assert_eq!(project.run(&["check", path]).code, 0, "{path}");
        let payload = project.write_payload(path, &broken, Some(original));
        let answer = project.hook("post-tool-use", &payload);
        assert!(answer.is_block(), "{path}: {answer:?}");
        let reason = answer.reason();
        assert!(
            reason.contains(expected) && reason.contains(validator),
            "{reason}"
        );
        let run = project.run(&["check", path]);
        assert_eq!(run.code, 1, "{run:?}");
    }
}

/// Valid edits of files a grammar misreads (the real-code benchmark's `--edits`): an Objective-C
/// header is not read as C++ at all, and a misread the edit only moved does not block.
#[cfg(feature = "extra-grammars")]
#[test]
fn valid_edits_of_misread_c_family_files_do_not_block() {
    let project = TestProject::new();
    let header = "#import <Foundation/Foundation.h>\n\nNS_ASSUME_NONNULL_BEGIN\n\n@interface RCTComponentEvent : NSObject <RCTEvent>\n\n- (instancetype)initWithName:(NSString *)name;\n\n@end\n\nNS_ASSUME_NONNULL_END\n";
    let edited = format!("{header}\n// An edited line\n");
    let payload = project.write_payload("ios/RCTComponentEvent.h", &edited, Some(header));
    assert_eq!(project.hook("post-tool-use", &payload).json, json!({}));
    let run = project.run(&["check", "ios/RCTComponentEvent.h"]);
    // Before: the C++ grammar's misreads as warnings.
    assert_eq!(
        run.stdout, "car check: 0 errors in 1 file, 0 warnings\n",
        "{run:?}"
    );

    // meson's static.h: the split `extern "C" {` of C and C++ headers, misread by the grammar
    // (a missing `#endif`); a comment line moves the misread onto the added line.
    let split = "#pragma once\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\nint add_numbers(int a, int b);\n\n#ifdef __cplusplus\n}\n#endif\n";
    let commented = split.replace(
        "#ifdef __cplusplus\n}",
        "#ifdef __cplusplus\n// closes extern \"C\"\n}",
    );
    let payload = project.write_payload("static.h", &commented, Some(split));
    assert_eq!(project.hook("post-tool-use", &payload).json, json!({}));
    // A slip in the same file still blocks.
    let broken = split.replace("int b);", "int b;");
    let payload = project.write_payload("static.h", &broken, Some(split));
    let answer = project.hook("post-tool-use", &payload);
    assert!(answer.is_block(), "{answer:?}");
    assert!(answer.reason().contains("static.h:7:"), "{answer:?}");
}
