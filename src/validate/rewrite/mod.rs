//! Known misreads of a grammar that car undoes before parsing; a language's spec names its rewrite
//! (`LanguageSpec::rewrite`), and the grammar check applies it. Each rewrite turns a valid
//! construct the grammar cannot read into one it can, and never turns an invalid file into a
//! valid one; all keep every line where it was (lines may only lose trailing characters), so the
//! positions of errors are positions in the file as written.
//!
//! | language | construct | rewrite |
//! | --- | --- | --- |
//! | TOML | a line-ending backslash followed by spaces in a `"""` string (valid TOML 1.0) | the spaces are dropped |
//! | TypeScript, TSX | `export type * from` (TypeScript 5.0) | `type` becomes spaces |
//! | TypeScript, TSX | an import type with type arguments, `import("./t").F<string>` (what `tsc` emits into `.d.ts` files) | `import("./t")` becomes `_` of the same length, an identifier |
//! | TypeScript, TSX | `export default function (): T;`, a default export's signature | `export function ______(): T;` |
//! | TypeScript, TSX | variance annotations `<in T, out U>` (TypeScript 4.7) | `in`, `out` become spaces |
//! | TypeScript, TSX | a generic call signature on its own line after a member without `;` (`(): S` then `<U>(s: S) => U`: state libraries write them so) | the line's first indentation character becomes `;` |
//! | JavaScript (JSX) | a reserved word as an attribute's name inside a tag (`<div class="hero">`, `<label for={id}>`: Preact, Solid, Qwik) | its first letter becomes `_` |
//! | TSX, JavaScript (JSX) | `&` in an attribute's string that starts no complete character reference (`href="…?a=1&b=2"`) | `_` |
//! | TypeScript, TSX | a comment line between a member without `;` and a generic call signature | read past, as above |
//! | TypeScript, TSX | a generic call signature whose type parameters span lines (`<` alone, the parameters, `>(…`: prettier's layout, vite's `importGlob.d.ts`) after a member without `;` | as above |
//! | TypeScript, TSX | `typeof import("./m")` as a type (a generic call's type argument, then a trailing comma) | `import("./m")` becomes `_` of the same length |
//! | Swift | an empty tuple as the only argument, `Just(())`, `.success(())` | `(())` becomes `(0 )` |
//! | Swift | `()` as a value after `return`, `=`, `(`, `,` or an argument label, on a line that declares nothing | `0 ` |
//! | Swift | `#if … #endif` holding only attributes before a declaration (Swift 5.8) | the directive lines become spaces |
//! | Swift | `nonisolated(unsafe)` before a `let`/`var` (read on a member, not on a local) | spaces |
//! | Swift | a parameter with two attributes or more, `(@ViewBuilder @_implicitSelfCapture _ body: …` | every attribute but the last becomes spaces |
//! | Swift | `-> sending T`, a result marked as sent (Swift 6) | `sending` becomes spaces |
//! | Swift | a later trailing closure's label on its own line (`}` then `label: {`), after a `}` that closes a call's closure at that indentation | the label becomes spaces (a closure on the next line is the call's next trailing closure) |
//! | Swift | a lifetime dependence, `@_lifetime(borrow self)`, `@lifetime(a: copy b)` (Swift 6.2) | `borrow`, `copy` become spaces |
//! | Swift | `switch consume value {`, `switch copy value {` | the operator becomes spaces |
//! | Swift | a `borrow {` / `mutate {` accessor on its own line (Swift 6.4) | `get    {` / `set    {` |
//! | Rust | a macro named like a primitive type, `str![…]` (snapbox) | the name's last letter becomes `_` |
//! | Kotlin | multi-dollar string interpolation, `$$"…$$name…"` (Kotlin 2.x) | the `$$` prefix becomes spaces |
//! | Kotlin | a primary constructor below its class header with an annotation line and a visibility (`public class Client` / `@JvmOverloads` / `public constructor(`: ktfmt's layout) | the visibility becomes spaces |
//! | Kotlin | any comment (a KDoc example with `${…}` after a generic receiver's function made the grammar miss the function's name lines above) | its text becomes spaces (the lexer of [`brackets`](crate::validate::brackets) finds comments, knowing strings) |
//! | HTML | `<?xml …?>` and other processing instructions (XHTML) | blanked |

pub(crate) mod jsx;
pub(crate) mod kotlin;
pub(crate) mod rust;
pub(crate) mod swift;
#[cfg(test)]
mod tests;
pub(crate) mod typescript;

use std::borrow::Cow;

use regex::Regex;

/// JavaScript (JSX): the attribute rewrites tree-sitter-javascript needs.
pub(crate) fn javascript(content: &str) -> Cow<'_, str> {
    in_order(
        content,
        jsx::blank_attribute_ampersands,
        &[jsx::rename_reserved_attribute_names],
    )
}

/// TSX: TypeScript's rewrites, then JSX's.
pub(crate) fn tsx(content: &str) -> Cow<'_, str> {
    match typescript::prepare(content) {
        Cow::Borrowed(_) => jsx::blank_attribute_ampersands(content),
        Cow::Owned(prepared) => Cow::Owned(jsx::blank_attribute_ampersands(&prepared).into_owned()),
    }
}

/// `content` with `rewrites` applied one after the other (`first` before them); borrowed while
/// none changes anything.
fn in_order<'a>(
    content: &'a str,
    first: fn(&str) -> Cow<'_, str>,
    rewrites: &[fn(&str) -> Cow<'_, str>],
) -> Cow<'a, str> {
    rewrites.iter().fold(first(content), |prepared, rewrite| {
        match rewrite(&prepared) {
            Cow::Borrowed(_) => prepared,
            Cow::Owned(rewritten) => Cow::Owned(rewritten),
        }
    })
}

/// `\` + spaces/tabs + newline → `\` + newline. Outside a string a backslash is an error either way.
pub(crate) fn trim_after_line_continuation(content: &str) -> Cow<'_, str> {
    if !content.contains("\\ ") && !content.contains("\\\t") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| Regex::new(r"\\[ \t]+(\r?\n)").expect("valid regex"));
    pattern.replace_all(content, "\\$1")
}

/// `<?…?>` → spaces, line breaks kept.
pub(crate) fn blank_processing_instructions(content: &str) -> Cow<'_, str> {
    if !content.contains("<?") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| Regex::new(r"(?s)<\?.*?\?>").expect("valid regex"));
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        found[0]
            .chars()
            .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
            .collect::<String>()
    })
}
