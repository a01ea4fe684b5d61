//! Valid code of popular libraries the grammars misread (issue "Validators, round 3"), paraphrased:
//! each written by an agent passes the hook without a block and without a "possible slip".

use crate::support::{HookAnswer, TestProject};

/// Claude Code's Write of `file`: a new file, or one that held `original`.
fn write(project: &TestProject, file: &str, content: &str, original: Option<&str>) -> HookAnswer {
    project.hook_as(
        "claude",
        "post-tool-use",
        &project.write_payload(file, content, original),
    )
}

#[test]
fn valid_code_the_grammars_misread_passes_the_hook() {
    let project = TestProject::new();
    for (file, content) in [
        (
            "src/store.ts",
            "export interface BoundStore<S> {\n  (): S\n  <U>(selector: (state: S) => U): U\n  getState(): S\n}\n",
        ),
        (
            "src/lazy.ts",
            "const locale = loadModule<typeof import(\"./locale\")>(\n  \"./locale\",\n  true,\n)\n",
        ),
        (
            "Sources/Ping.swift",
            "import Combine\n\nfunc ping() -> AnyPublisher<Void, Never> {\n    Just(()).eraseToAnyPublisher()\n}\n",
        ),
        (
            "Sources/Model.swift",
            "#if canImport(SwiftUI)\n@MainActor\n#endif\nfinal class Model {\n    var count = 0\n}\n",
        ),
        ("Sources/OpenRow.swift", SWIFT_ROW),
        (
            "Sources/Counter.swift",
            "func tally() -> Int {\n    nonisolated(unsafe) var seen = 0\n    nonisolated(unsafe) let box = Box()\n    seen += box.count\n    return seen\n}\n",
        ),
        (
            "Sources/Builders.swift",
            "public func Component<R>(\n  _ name: String,\n  @ComponentBuilder @_implicitSelfCapture _ body: @escaping @Sendable () async -> sending R\n) -> Component {\n  Component(name, body)\n}\n",
        ),
        (
            "src/Json.kt",
            "fun render(name: String) = $$\"\"\"{ \"name\": \"$$name\", \"note\": \"$schema\" }\"\"\"\n",
        ),
        (
            "Sources/Waiter.swift",
            "func settle(fast: Bool) async {\n  if fast {\n    return ()\n  }\n  await withCheckedContinuation { continuation in\n    queue.setSpecific(key: Self.key, value: ())\n    continuation.resume(returning: ())\n  }\n}\n",
        ),
        (
            "src/Client.kt",
            "/** A client that retries. */\npublic class RetryingClient\n@JvmOverloads\npublic constructor(\n    private val endpoint: String,\n    private val attempts: Int = 3,\n) : Client {\n  override fun call(): String = endpoint.repeat(attempts)\n}\n",
        ),
    ] {
        let answer = write(&project, file, content, None);
        assert!(!answer.is_block(), "{file}: {}", answer.stdout);
        assert!(
            !answer.context().contains("possible slip"),
            "{file}: {}",
            answer.stdout
        );
    }
}

/// vite's `importGlob.d.ts`: overloaded call signatures whose type parameters span lines, after
/// a member with a conditional return type and no `;`.
const GLOB_OVERLOADS: &str = "export interface ImportGlobFunction {\n  <\n    Eager extends boolean,\n    T = unknown,\n  >(\n    glob: string | string[],\n  ): Eager extends true\n    ? Record<string, T>\n    : Record<string, () => Promise<T>>\n  /**\n   * With a type argument.\n   */\n  <\n    M,\n  >(glob: string | string[]): Record<string, M>\n}\n";

#[test]
fn call_signatures_with_type_parameters_on_lines_pass_and_a_slip_in_them_blocks() {
    let project = TestProject::new();
    let answer = write(&project, "types/importGlob.d.ts", GLOB_OVERLOADS, None);
    assert!(!answer.is_block(), "{}", answer.stdout);
    let before = GLOB_OVERLOADS.split("  /**").next().unwrap().to_string() + "}\n";
    let answer = write(
        &project,
        "types/importGlob.d.ts",
        GLOB_OVERLOADS,
        Some(&before),
    );
    assert!(!answer.is_block(), "{}", answer.stdout);
    let slip = GLOB_OVERLOADS.replace(">(glob: string | string[]):", ">(glob: string | string[]:");
    let answer = write(&project, "types/importGlob.d.ts", &slip, Some(&before));
    assert_blocks_at(&answer, "types/importGlob.d.ts");
}

/// vite's Preact template: HTML's attribute names in JSX (`class`, `for`), reserved words in
/// JavaScript.
const PREACT_APP: &str = "export function App() {\n  return (\n    <div class=\"hero\">\n      <label for={id}>Name</label>\n      <button\n        type=\"button\"\n        class=\"counter\"\n      >\n        Count is {count}\n      </button>\n    </div>\n  )\n}\n";

#[test]
fn jsx_reserved_attribute_names_pass_and_a_slip_beside_them_blocks() {
    let project = TestProject::new();
    let answer = write(&project, "src/app.jsx", PREACT_APP, None);
    assert!(!answer.is_block(), "{}", answer.stdout);
    let slip = PREACT_APP.replace("<div class=\"hero\">", "<div class=\"hero>");
    let answer = write(&project, "src/app.jsx", &slip, Some(PREACT_APP));
    assert_blocks_at(&answer, "src/app.jsx");
}

/// The hook blocked the write, naming a line of `file`.
fn assert_blocks_at(answer: &HookAnswer, file: &str) {
    assert!(answer.is_block(), "{}", answer.stdout);
    let reason = answer.reason();
    assert!(reason.contains(&format!("{file}:")), "{reason}");
}

/// SwiftUI code formats a button's second trailing closure with its label on its own line, once
/// after a one-line first closure.
const SWIFT_ROW: &str = "struct OpenRow: View {\n  var body: some View {\n    Button {\n      open()\n    }\n    label: {\n      Text(\"Open\")\n    }\n    Button { close() }\n    label: {\n      Image(systemName: \"xmark\")\n    }\n  }\n}\n";

/// Slips next to the Swift constructs the grammar now reads still block, as a new file (the
/// brackets agree) and as an edit of the valid file.
#[test]
fn swift_slips_next_to_closure_labels_still_block() {
    let project = TestProject::new();
    let unclosed = SWIFT_ROW.replace("Button { close() }", "Button { close()");
    let answer = write(&project, "Sources/New.swift", &unclosed, None);
    assert!(answer.is_block(), "{}", answer.stdout);
    let answer = write(&project, "Sources/OpenRow.swift", SWIFT_ROW, None);
    assert!(!answer.is_block(), "{}", answer.stdout);
    let slip = SWIFT_ROW.replace("Text(\"Open\")", "Text(\"Open\"");
    let answer = write(&project, "Sources/OpenRow.swift", &slip, Some(SWIFT_ROW));
    assert_blocks_at(&answer, "Sources/OpenRow.swift");
}

/// An inline function over a generic receiver with a `crossinline` suspending parameter
/// (`converter: suspend (T) -> Pair<K, V>`) followed by a KDoc whose example holds `${…}`:
/// tree-sitter-kotlin reports a missing name on the function's line, and only because of the
/// comment that follows. car blanks comment text before parsing.
const KOTLIN_PAIRING: &str = include_str!("fixtures/misreads/pipe.kt");

#[test]
fn a_kotlin_misread_that_depends_on_a_following_comment_is_read_right() {
    let project = TestProject::new();
    let answer = write(&project, "src/Pipe.kt", KOTLIN_PAIRING, None);
    assert!(!answer.is_block(), "{}", answer.stdout);
    assert!(
        !answer.context().contains("possible slip"),
        "{}",
        answer.stdout
    );
    // The same file as an edit that added the comment: nothing to block either.
    let before = KOTLIN_PAIRING.split("/**").next().unwrap();
    let answer = write(&project, "src/Pipe.kt", KOTLIN_PAIRING, Some(before));
    assert_eq!(answer.json, serde_json::json!({}), "{}", answer.stdout);
    // A real slip next to it still blocks: the call's `)` deleted.
    let slip = KOTLIN_PAIRING.replace("LinkedHashMap(), converter)", "LinkedHashMap(), converter");
    let answer = write(&project, "src/Pipe.kt", &slip, Some(KOTLIN_PAIRING));
    assert_blocks_at(&answer, "src/Pipe.kt");
}

/// A Kotlin class tree-sitter-kotlin misreads (`val dynamic = …`: `dynamic` is a soft keyword it
/// reads as a type), paraphrased from a React Native bridge class.
const KOTLIN_DYNAMIC: &str = include_str!("fixtures/misreads/map_entry.kt");

/// Claude Code's Write of `content` over [`KOTLIN_DYNAMIC`].
fn edit_map_entry(project: &TestProject, content: &str) -> HookAnswer {
    write(
        project,
        "src/MapEntryValue.kt",
        content,
        Some(KOTLIN_DYNAMIC),
    )
}

/// Issue 26: "an unrelated edit turned an existing misread into a whole-file error". Appending a
/// declaration at the end makes the grammar report one error from line 1 to the end instead of
/// its misread: the error spans the lines the misread held, and the brackets balance, so it is
/// the misread re-worded, not the edit's.
#[test]
fn an_edit_that_rewords_an_existing_misread_does_not_block() {
    let project = TestProject::new();
    let appended = format!("{KOTLIN_DYNAMIC}private val addedFlag = 1\n");
    let answer = edit_map_entry(&project, &appended);
    assert_eq!(answer.json, serde_json::json!({}), "{}", answer.stdout);
    // An unclosed call in the appended line still blocks: the brackets stopped balancing. (A slip
    // that leaves them balanced is taken into the grammar's whole-file error: not told apart.)
    let broken = format!("{KOTLIN_DYNAMIC}private val addedFlag = listOf(1\n");
    let answer = edit_map_entry(&project, &broken);
    assert!(answer.is_block(), "{}", answer.stdout);
}

/// Issue 26: "a slip next to an existing misread is hidden by it". A deleted `)` or `{` on the
/// misread lines was reported inside the misread's own error, so car took it for the misread; the
/// file's brackets balanced before the edit and do not after, and the grammar reports an error:
/// two witnesses agree, and the edit is blocked at the bracket.
#[test]
fn a_slip_inside_an_existing_misread_blocks_when_the_brackets_stop_balancing() {
    let project = TestProject::new();
    let slips = [
        KOTLIN_DYNAMIC.replace("companion object {", "companion object"),
        KOTLIN_DYNAMIC.replace("dynamic.apply {", "dynamic.apply"),
    ];
    for slip in slips {
        let answer = edit_map_entry(&project, &slip);
        assert!(answer.is_block(), "{}", answer.stdout);
        let reason = answer.reason();
        assert!(
            reason.contains("src/MapEntryValue.kt:37:1: stray `}`"),
            "{reason}"
        );
        assert!(reason.contains("they balanced before the edit"), "{reason}");
    }
}

/// Issue 26, the same in C and C++: `JNIEXPORT jint JNICALL JNI_OnLoad(…)` (macros the grammars
/// cannot see through) is misread, and a brace deleted in the function was reported inside that
/// misread, so it passed. The brackets balanced before the edit and do not after: it blocks now,
/// while a valid edit of the same function still passes.
#[test]
fn c_family_slips_hidden_by_a_macro_misread_block() {
    let project = TestProject::new();
    for (file, original, valid, slip) in [
        (
            "jni/on_load.c",
            include_str!("fixtures/misreads/on_load.c"),
            ("return JNI_ERR;", "return JNI_EVERSION;"),
            ("!= 0) {", "!= 0)"),
        ),
        (
            "jni/on_load.cpp",
            include_str!("fixtures/misreads/on_load.cpp"),
            (
                "registerNatives();",
                "registerNatives();\n    bridge::TracingBridge::warmUp();",
            ),
            ("  });\n}\n", "  });\n\n"),
        ),
    ] {
        let edited = original.replace(valid.0, valid.1);
        let answer = write(&project, file, &edited, Some(original));
        assert_eq!(
            answer.json,
            serde_json::json!({}),
            "{file}: {}",
            answer.stdout
        );
        let broken = original.replace(slip.0, slip.1);
        assert_ne!(broken, original);
        let answer = write(&project, file, &broken, Some(original));
        assert_blocks_at(&answer, file);
        assert!(
            answer.reason().contains("they balanced before the edit"),
            "{}",
            answer.reason()
        );
    }
}

/// A deprecation kept for one compiler only: `#if` around an `@available(` whose arguments span
/// lines (Swift libraries format long deprecation messages this way). The edits that add such a
/// block, then an `#else` branch with its own attribute, pass; a slip in the attribute blocks.
#[test]
fn swift_conditional_attributes_over_several_lines_pass_as_real_edits() {
    let project = TestProject::new();
    let before = "extension Store {\n  func send(_ action: Action) {}\n}\n";
    project.write("Sources/Store.swift", before);
    project.commit_all();
    let guarded = "extension Store {\n  #if swift(<6)\n    @available(\n      *,\n      deprecated,\n      message: \"Use 'send(_:animation:)' (it waits for the effect)\"\n    )\n  #endif\n  func send(_ action: Action) {}\n}\n";
    let answer = write(&project, "Sources/Store.swift", guarded, Some(before));
    assert!(!answer.is_block(), "{}", answer.stdout);
    assert!(
        !answer.context().contains("syntax error"),
        "{}",
        answer.stdout
    );
    let branched = guarded.replace(
        "  #endif\n",
        "  #else\n    @available(\n      iOS,\n      deprecated: 9999\n    )\n  #endif\n",
    );
    let answer = write(&project, "Sources/Store.swift", &branched, Some(guarded));
    assert!(!answer.is_block(), "{}", answer.stdout);
    let slip = branched.replace(
        "      deprecated: 9999\n    )\n",
        "      deprecated: 9999\n",
    );
    let answer = write(&project, "Sources/Store.swift", &slip, Some(&branched));
    assert_blocks_at(&answer, "Sources/Store.swift");
}
