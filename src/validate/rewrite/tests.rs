//! Each rewrite: valid code the grammar misreads is read right after it (same length), and the
//! same construct broken still errors.

use super::typescript::may_have_variance;
use super::*;
use crate::validate::grammar::prepare;
use crate::validate::language::Language;
use crate::validate::treesitter;

fn errors(language: Language, content: &str) -> usize {
    treesitter::parse_errors(content, language, 5)
        .expect("grammar")
        .len()
}

#[test]
fn toml_line_continuation_with_trailing_spaces() {
    let valid = "a = \"\"\"\\  \n  b\"\"\"\n";
    assert!(errors(Language::Toml, valid) > 0, "the grammar misreads it");
    assert_eq!(errors(Language::Toml, &prepare(Language::Toml, valid)), 0);
    let invalid = "a = 1 \\  \nb = 2\n";
    assert!(errors(Language::Toml, &prepare(Language::Toml, invalid)) > 0);
}

#[test]
fn typescript_export_type_star() {
    for valid in [
        "export type * from './types';\n",
        "export type * as t from \"./t\";\n",
    ] {
        assert!(errors(Language::TypeScript, valid) > 0, "misread: {valid}");
        let prepared = prepare(Language::TypeScript, valid);
        assert_eq!(prepared.len(), valid.len());
        assert_eq!(errors(Language::TypeScript, &prepared), 0, "{prepared}");
    }
    let invalid = "export type * from;\n";
    assert!(
        errors(
            Language::TypeScript,
            &prepare(Language::TypeScript, invalid)
        ) > 0
    );
}

/// Valid TypeScript the grammar misreads, read right after the rewrite (same length), and
/// the same constructs broken, still errors.
fn rewritten(valid: &[&str], invalid: &[&str]) {
    for valid in valid {
        assert!(errors(Language::TypeScript, valid) > 0, "misread: {valid}");
        let prepared = prepare(Language::TypeScript, valid);
        assert_eq!(prepared.len(), valid.len());
        assert_eq!(prepared.lines().count(), valid.lines().count());
        assert_eq!(errors(Language::TypeScript, &prepared), 0, "{prepared}");
        assert_eq!(errors(Language::Tsx, &prepare(Language::Tsx, valid)), 0);
    }
    for invalid in invalid {
        let prepared = prepare(Language::TypeScript, invalid);
        assert!(errors(Language::TypeScript, &prepared) > 0, "{prepared}");
    }
}

/// Valid `language` code its grammar misreads, read right after the rewrite (same length), and
/// the same constructs broken, still errors.
fn rewritten_in(language: Language, valid: &[&str], invalid: &[&str]) {
    for valid in valid {
        assert!(errors(language, valid) > 0, "misread: {valid}");
        let prepared = prepare(language, valid);
        assert_eq!(prepared.len(), valid.len());
        assert_eq!(errors(language, &prepared), 0, "{prepared}");
    }
    for invalid in invalid {
        let prepared = prepare(language, invalid);
        assert!(errors(language, &prepared) > 0, "{prepared}");
    }
}

#[test]
fn swift_empty_tuple_arguments_and_attribute_conditions() {
    rewritten_in(
        Language::Swift,
        &[
            "import Combine\nfunc f() -> AnyPublisher<Void, Never> {\n    return Just(()).eraseToAnyPublisher()\n}\n",
            "#if os(iOS)\n@MainActor\n#endif\nfinal class A {\n    var x = 1\n}\n",
            "#if compiler(>=5.9)\n@preconcurrency\n#else\n@available(*, deprecated)\n#endif\nfunc run() {}\n",
            "extension R {\n  #if FLAG\n    @available(\n      *,\n      deprecated\n    )\n  #endif\n  func b() {}\n}\n",
            "extension R {\n  #if FLAG\n    @available(\n      *,\n      deprecated,\n      message: \"use c() (it (waits))\"\n    )\n  #else\n    @available(\n      iOS,\n      deprecated: 9999\n    )\n  #endif\n  public func b() {}\n}\n",
        ],
        &[
            "func f() {\n    return Just(()).erase(\n}\n",
            "#if os(iOS)\n@MainActor\n#endif\nfinal class A {\n    var x = \n}\n",
            "extension R {\n  #if FLAG\n    @available(\n      *,\n      deprecated\n    )\n  #endif\n  func b( {}\n}\n",
            "extension R {\n  #if FLAG\n    @available(\n      *,\n      deprecated\n  #endif\n  func b() {}\n}\n",
        ],
    );
}

#[test]
fn swift_closure_labels_unsafe_nonisolation_stacked_attributes_and_sending_results() {
    rewritten_in(
        Language::Swift,
        &[
            "struct Row: View {\n  var body: some View {\n    Button {\n      open()\n    }\n    label: {\n      Text(\"Open\")\n    }\n  }\n}\n",
            "struct Row: View {\n  var body: some View {\n    Button { open() }\n    label: {\n      Text(\"Open\")\n    }\n  }\n}\n",
            "func f() {\n  nonisolated(unsafe) let payload = Payload()\n  use(payload)\n}\n",
            "func run(@ViewBuilder @_implicitSelfCapture _ body: () -> Void) {}\n",
            "func run<R>(\n  _ name: String,\n  @_inheritActorContext @_implicitSelfCapture _ work: sending @escaping @Sendable () async throws -> sending R\n) {}\n",
        ],
        &[
            "func f() {\n    if ready {\n      open()\n    }\n    label: {\n      g()\n    }\n}\n",
            "func f() {\n    Button {\n      open()\n    }\n    label: {\n      g(\n    }\n}\n",
            "func f() {\n  nonisolated(unsafe) let payload = (\n}\n",
            "func run(@ViewBuilder @_implicitSelfCapture _ body: () -> ) {}\n",
            "func run<R>(_ work: () -> sending R {}\n",
        ],
    );
}

/// A generic receiver's inline function with a `crossinline` suspending parameter, then a KDoc
/// whose example holds `${…}` in a string: the grammar reports a missing name on the function's
/// line (the misread depends on what follows: without the comment it reads the file right).
const KOTLIN_PAIRING: &str = include_str!("../../../tests/fixtures/misreads/pipe.kt");

#[test]
fn kotlin_comments_are_blanked() {
    let without_comment = KOTLIN_PAIRING.split("/**").next().unwrap_or_default();
    assert_eq!(errors(Language::Kotlin, without_comment), 0);
    rewritten_in(
        Language::Kotlin,
        &[KOTLIN_PAIRING],
        &[
            &KOTLIN_PAIRING.replace(
                "pairUpInto(LinkedHashMap(), converter)",
                "pairUpInto(LinkedHashMap(), converter",
            ),
            &KOTLIN_PAIRING.replace("accumulator.add(value)", "accumulator.add(value) +"),
        ],
    );
    let prepared = prepare(Language::Kotlin, KOTLIN_PAIRING);
    assert!(prepared.contains("\n/* \n          "), "{prepared}");
    assert!(prepared.ends_with("*/\n"), "{prepared}");
    // A `//` or `/*` inside a string is no comment: the string stays as written.
    let string = "val url = \"http://x/*\" // note\n";
    assert_eq!(
        prepare(Language::Kotlin, string),
        "val url = \"http://x/*\" //     \n"
    );
}

#[test]
fn kotlin_multi_dollar_strings() {
    rewritten_in(
        Language::Kotlin,
        &[
            "fun f(name: String) = $$\"\"\"{ \"name\": \"$$name\", \"x\": \"$default\" }\"\"\"\nval s = $$\"cost: $$amount $\"\n",
        ],
        &["fun f(name: String) = $$\"{ $$name\nval s = 1\n"],
    );
}

#[test]
fn typescript_call_signatures_without_separators_and_typeof_imports() {
    rewritten(
        &[
            "export interface UseBoundStore<S> {\n  (): S\n  <U>(selector: (state: S) => U): U\n  getState(): S\n}\n",
            "type Draft = {\n  <T extends object>(base: T): T\n  (base: number): number\n}\nexport type P<S> = {\n  (): S\n  <U>(s: (state: S) => U): U\n}\n",
            "const mod = load<typeof import(\"./mod\")>(\n  \"./mod\",\n  true,\n)\n",
        ],
        &[
            "export interface S<S> {\n  (): S\n  <U>(selector: (state: S) => U): \n}\n",
            "const mod = load<typeof import(\"./mod\")>(\n  \"./mod\"\n  true,\n)\n",
        ],
    );
}

/// Real-code round 5: vite's `importGlob.d.ts` overloads an interface's call signature with type
/// parameters on lines of their own (prettier's layout), after a conditional return type.
#[test]
fn typescript_call_signatures_with_type_parameters_on_lines_of_their_own() {
    let overloads = "export interface ImportGlob {\n  <\n    Eager extends boolean,\n    T = Q extends keyof M\n      ? M[Q]\n      : unknown,\n  >(\n    glob: string,\n  ): Eager extends true\n    ? Record<string, T>\n    : Record<string, () => Promise<T>>\n  /**\n   * Overload 2.\n   */\n  <\n    M,\n  >(glob: string): Record<string, M>\n}\n";
    rewritten(
        &[overloads],
        &[
            &overloads.replace(": Record<string, M>", ": Record<string, M"),
            &overloads.replace("    M,\n  >(glob", "    M,\n  >(glob:"),
            &overloads.replace("  >(glob: string)", "  >(glob: string"),
        ],
    );
    // A `<` alone in an expression is left alone: the line before it ends no member.
    let comparison = "const small =\n  a\n  <\n  b;\nconst f = <\n  T,\n>(v: T) => v;\n";
    assert!(matches!(
        prepare(Language::TypeScript, comparison),
        Cow::Borrowed(_)
    ));
}

#[test]
fn typescript_declaration_file_constructs() {
    rewritten(
        &[
            "declare module \"timers\" {\n    global {\n        function setTimeout(cb: () => void): number;\n    }\n}\n",
            "interface Flags {\n  abstract?: boolean\n  in: number\n  instanceof?: { a?: boolean }\n}\n",
            "type Keys = { [type in keyof Node]?: number };\ntype K = { [P in keyof readonly any[]]?: boolean };\n",
            "declare const f: ({ event: { inside }, }: E) => void;\n",
            "type B<T> = T extends `${infer L}\\{${infer R}\\}` ? L : R;\n",
            "type M<T> = {\n    (h: H): T\n    <F extends H<any> = R<D>>(h: F): T\n    <P = Params>(h: P): T\n}\n",
        ],
        &[
            "declare module \"timers\" {\n    global {\n        function setTimeout(cb: () => void): number;\n    }\n",
            "interface Flags {\n  abstract?: \n}\n",
            "declare const f: ({ event: { inside } }: E) => ;\n",
            "type B<T> = T extends `${infer L}\\{${infer R}\\}` ? L : ;\n",
            "type M<T> = {\n    (h: H): T\n    <F extends H<any> = R<D>>(h: F):\n}\n",
        ],
    );
    // Outside a type alias an escape is left alone, and so is a line with a quote.
    let expression = "const s = `a\\{${x}`;\ntype Q = `\\{` | \"x\";\n";
    assert_eq!(prepare(Language::TypeScript, expression), expression);
}

#[test]
fn typescript_import_types_with_type_arguments() {
    rewritten(
        &[
            "export declare const a: import(\"./t\").F<string>;\n",
            "export declare const a: import(\"./t\") .F<string>;\n",
            "export declare const lastDay: import(\"./types.ts\").FPFn1<\n  Date,\n  import(\"../fp.ts\").DateArg<Date>\n>;\n",
            "type X = import('./t', { with: { \"resolution-mode\": \"import\" } }).A.B<string>[];\n",
            "declare const _default: import(\"a\").R<\"x\", [], import(\"b\").D> & {\n    name: string;\n};\n",
        ],
        &[
            "export declare const lastDay: import(\"./types.ts\").FPFn1<\n  Date,\n  import(\"../fp.ts).DateArg<Date>\n>;\n",
            "declare const _default: import(\"a\").R<\"x\"> & {\n    name: string;\n;\n",
            "type X = import(\"./t\").F<string;\n",
        ],
    );
}

#[test]
fn typescript_default_function_signatures_and_variance() {
    rewritten(
        &[
            "export default function (): {\n    a: number;\n};\n",
            "export default function <T>(x: T): T;\n",
            "export interface Z<out O = unknown, in I = unknown> {}\n",
            "export interface Z<\n  in out T extends object,\n> {}\n",
            "export interface Z<\n/** @ts-ignore Cast variance */\nout S extends A = B, out C = D> {}\n",
        ],
        &[
            "export default function (): {\n    a: number;\n;\n",
            "export interface Z<out O = unknown, in I = unknown {}\n",
        ],
    );
    // Only modifiers of type parameters: `in` in an expression stays.
    let expression = "for (const k in o) f(a, b);\n";
    assert_eq!(prepare(Language::TypeScript, expression), expression);
    assert!(!may_have_variance(expression));
    assert!(may_have_variance("interface A<\n  in T> {}"));
    assert!(!may_have_variance(
        "const x = a <b, c>(d) // join in a list\n"
    ));
}

#[cfg(feature = "extra-grammars")]
#[test]
fn html_processing_instructions() {
    let valid =
        "<?xml version=\"1.0\"\n encoding=\"UTF-8\"?>\n<html><body><p>hi</p></body></html>\n";
    let prepared = prepare(Language::Html, valid);
    assert_eq!(prepared.lines().count(), valid.lines().count());
    assert_eq!(errors(Language::Html, &prepared), 0, "{prepared}");
}

/// The TypeScript rewrites run on every edit of a TypeScript file: common code that holds their
/// words (`margin:`, `export default function App(`, `f({ a })`) is left as it is, borrowed.
#[test]
fn typescript_code_that_only_looks_like_a_misread_is_not_rewritten() {
    let content = "export default function App() {\n  const style = { margin: 0, within: 1 };\n  for (const k in style) {}\n  return render({ style, key: 'a' }, abstractFactory);\n}\nconst x = <T,>(v: T) => v;\n";
    assert!(matches!(
        prepare(Language::TypeScript, content),
        std::borrow::Cow::Borrowed(_)
    ));
    assert_eq!(errors(Language::Tsx, content), 0);
}

#[test]
fn kotlin_annotated_constructor_with_a_visibility_on_its_own_line() {
    rewritten_in(
        Language::Kotlin,
        &[
            "public class Client\n@JvmOverloads\npublic constructor(\n    id: String,\n    private val retries: Int = 3,\n) : Callback {\n  fun name() = id\n}\n",
            "internal class Store<T : Any>\n@Named(\"main\")\ninternal constructor(private val source: Source<T>) : Base<T>() {\n  fun read(): T = source.read()\n}\n",
            "class Cache\n@VisibleForTesting internal constructor(val size: Int) {\n  fun full() = size > 10\n}\n",
        ],
        &[
            "public class Client\n@JvmOverloads\npublic constructor(\n    id: String,\n    private val retries: Int = 3,\n : Callback {\n  fun name() = id\n}\n",
            "class Cache\n@VisibleForTesting internal constructor(val size: Int) {\n  fun full() = size > \n}\n",
        ],
    );
    // Not below a class header: left as written.
    let member = "class A {\n  @Inject\n  internal constructor(x: Int) : this()\n}\n";
    assert!(matches!(
        prepare(Language::Kotlin, member),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn swift_empty_tuple_values() {
    rewritten_in(
        Language::Swift,
        &[
            "func capture() {\n  if fast {\n    onSaved([\"id\": id])\n    return ()\n  }\n}\n",
            "func wait() async {\n  await withCheckedContinuation { continuation in\n    continuation.resume(returning: ())\n  }\n}\n",
            "func watch() {\n  queue.setSpecific(key: Self.key, value: ())\n}\n",
            "func convert(_ count: Int) -> Args? {\n  switch count {\n  case 0:\n    return () as? Args\n  default:\n    return nil\n  }\n}\n",
        ],
        &[
            "func capture() {\n  if fast {\n    return ()\n  \n}\n",
            "func watch() {\n  queue.setSpecific(key: Self.key, value: ()\n}\n",
        ],
    );
    // Types and calls stay as written.
    for kept in [
        "typealias Done = ()\n",
        "let handler: () -> Void = {}\n",
        "func run() -> () {}\n",
        "struct A { var f: Result<(), Error> }\n",
        "foo()\nbar()()\n",
    ] {
        assert!(
            matches!(
                prepare(Language::Swift, kept),
                std::borrow::Cow::Borrowed(_)
            ),
            "{kept}"
        );
    }
}

/// Issue 40, item 1: `&` in a JSX attribute string (TSX and JSX) and a comment between a member
/// and a generic call signature.
#[test]
fn jsx_attribute_ampersands_and_commented_call_signatures() {
    let link = "export const Head = () => (\n  <link href=\"https://fonts.googleapis.com/css2?family=Inter&display=swap\" rel=\"stylesheet\" />\n);\n";
    let quoted = "export const A = () => <a title='Q&A' href=\"?a=1&\">x &amp; y</a>;\n";
    for language in [Language::Tsx, Language::JavaScript] {
        rewritten_in(
            language,
            &[link, quoted],
            &[
                &link.replace("\" rel=", " rel="),
                &link.replace("/>", ">"),
                "export const A = () => <a href=\"?a=1&b=2\" title=>x</a>;\n",
            ],
        );
    }
    // A complete reference and a lone `&` are read as they are: nothing to rewrite.
    let entity = "export const A = () => <a title=\"a &amp; b\" alt=\"1 & 2\">x</a>;\n";
    assert!(matches!(prepare(Language::Tsx, entity), Cow::Borrowed(_)));
    let signature = "export interface Query {\n  name: string\n  /** The data. */\n  <TData = unknown>(options: Options<TData>): Result<TData> &\n    Extra;\n}\n";
    rewritten_in(
        Language::Tsx,
        &[signature],
        &[&signature.replace("(options: Options<TData>)", "(options: Options<TData>")],
    );
    rewritten(&[signature], &[&signature.replace("(options", "(options:")]);
}

/// Real-code round 5: vite's Preact, Solid and Qwik templates write HTML's attribute names in JSX
/// (`class`, `for`), reserved words tree-sitter-javascript reads as keywords.
#[test]
fn jsx_reserved_words_as_attribute_names() {
    let app = "export function App() {\n  return (\n    <div class=\"hero\">\n      <img src={logo} class=\"base\" alt=\"\" />\n      <label for={id} class='x'>Name</label>\n      <button\n        type=\"button\"\n        class=\"counter\"\n        onClick={() => setCount((count) => count + 1)}\n      >\n        Count is {count}\n      </button>\n    </div>\n  )\n}\n";
    rewritten_in(
        Language::JavaScript,
        &[app],
        &[
            &app.replace("<div class=\"hero\">", "<div class=\"hero>"),
            &app.replace("class=\"base\" alt=\"\" />", "class=\"base\" alt=\"\" "),
            &app.replace("        class=\"counter\"\n", "        class=\"counter\n"),
        ],
    );
    // Outside a tag the word is left alone: `class=` there is an error either way.
    for code in [
        "const o = { class=\"x\" };\n",
        "class=\"x\";\n",
        "const a = 1;\n  for={x};\n",
    ] {
        assert!(
            matches!(prepare(Language::JavaScript, code), Cow::Borrowed(_)),
            "{code}"
        );
        assert!(errors(Language::JavaScript, code) > 0, "{code}");
    }
}

/// Issue 40, item 2: Swift 6.2 lifetime dependences and ownership operators on a `switch`.
#[test]
fn swift_lifetime_dependences_and_switched_ownership_operators() {
    rewritten_in(
        Language::Swift,
        &[
            "struct S: ~Copyable {\n    @_lifetime(borrow self)\n    func view() -> Int { x }\n}\n",
            "struct S: ~Escapable {\n    @lifetime(target: copy source, borrow other)\n    init(source: S, other: T) {}\n}\n",
            "func f(value: consuming E) {\n    switch consume value {\n    case .a: break\n    }\n}\n",
            "struct D {\n  public subscript(position: Int) -> Element {\n    @_transparent\n    borrow {\n      return base[position]\n    }\n    @inline(__always)\n    mutate {\n      return &base[position]\n    }\n  }\n}\n",
        ],
        &[
            "struct S: ~Copyable {\n    @_lifetime(borrow self\n    func view() -> Int { x }\n}\n",
            "struct S {\n    @_lifetime(borrow self)\n    func view() -> Int { x \n}\n",
            "func f(value: consuming E) {\n    switch consume value \n    case .a: break\n    }\n}\n",
            "struct D {\n  public subscript(position: Int) -> Element {\n    @_transparent\n    borrow {\n      return base[position\n    }\n  }\n}\n",
            "func f(value: consuming E) {\n    switch consume value {\n    case .a break\n    }\n}\n",
        ],
    );
}

/// Issue 40, item 3: a macro named like a primitive type (snapbox's `str!`).
#[test]
fn rust_macros_named_like_primitive_types() {
    rewritten_in(
        Language::Rust,
        &[
            "#[test]\nfn t() {\n    let a = str![[r#\"\nhello\n\"#]];\n    let b = str![\"a\"];\n    assert_eq!(a, b);\n}\n",
            "fn t() {\n    cmd.assert().stdout_eq(str!(\"ok\"));\n}\n",
        ],
        &[
            "fn t() {\n    let a = str![[r#\"\nhello\n\"#];\n}\n",
            "fn t() {\n    let b = str![\"a\";\n    let c = 1;\n}\n",
        ],
    );
    // A comparison with a variable called `str`, and a path's `::str`, stay as written.
    let kept = "fn t(str: u8) -> bool {\n    str != 2 && std::str::from_utf8(b\"\").is_ok()\n}\n";
    assert!(matches!(prepare(Language::Rust, kept), Cow::Borrowed(_)));
}
