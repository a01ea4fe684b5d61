//! Swift misreads of tree-sitter-swift, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

/// `content` with every Swift rewrite applied, in order.
pub(crate) fn prepare(content: &str) -> Cow<'_, str> {
    super::in_order(
        content,
        empty_tuple_arguments,
        &[
            empty_tuple_values,
            blank_attribute_conditions,
            blank_unsafe_nonisolation,
            blank_stacked_parameter_attributes,
            blank_sending_results,
            blank_own_line_closure_labels,
            blank_lifetime_dependencies,
            blank_switched_ownership_operators,
            rename_borrow_accessors,
        ],
    )
}

/// A lifetime dependence's kind inside `@_lifetime(…)` / `@lifetime(…)` (`@_lifetime(borrow
/// self)`, `@_lifetime(target: copy source)`, Swift 6.2) → `borrow`, `copy` become spaces: the
/// grammar reads an attribute's arguments as expressions, and `borrow self` is two of them. What
/// stays (`self`, `target: source`) is a plain argument list.
fn blank_lifetime_dependencies(content: &str) -> Cow<'_, str> {
    if !content.contains("lifetime(") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern =
        PATTERN.get_or_init(|| Regex::new(r"@_?lifetime\([^()\n]*\)").expect("valid regex"));
    static KIND: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let kind = KIND.get_or_init(|| {
        Regex::new(r"([(,:][ \t]*)(borrow|copy)([ \t]+[A-Za-z_&])").expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        kind.replace_all(&found[0], |inner: &regex::Captures<'_>| {
            format!("{}{}{}", &inner[1], " ".repeat(inner[2].len()), &inner[3])
        })
        .into_owned()
    })
}

/// `switch consume value {` / `switch copy value {` (SE-0366, SE-0377) → the operator becomes
/// spaces: the grammar reads `consume x` after `=` but not as a `switch` subject.
fn blank_switched_ownership_operators(content: &str) -> Cow<'_, str> {
    if !content.contains("consume") && !content.contains("copy") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"\b(switch[ \t]+)(consume|copy)([ \t]+[A-Za-z_(])").expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}{}", &found[1], " ".repeat(found[2].len()), &found[3])
    })
}

/// A `borrow` or `mutate` accessor on its own line (`borrow {`, Swift 6.4's borrowing accessors,
/// what swift-collections' subscripts declare) → `get    {` / `set    {`: the grammar reads
/// `get`/`set` (and `_read`/`_modify`) as accessors, not these. Only a line that holds nothing
/// but the keyword and `{`, after a line ending an attribute or a `{` (an accessor's place).
fn rename_borrow_accessors(content: &str) -> Cow<'_, str> {
    if !content.contains("borrow") && !content.contains("mutate") {
        return Cow::Borrowed(content);
    }
    let mut renamed = Vec::new();
    let mut offset = 0;
    let mut previous = "";
    for line in content.split_inclusive('\n') {
        let code = line.trim();
        let keyword = ["borrow", "mutate"].into_iter().find(|keyword| {
            code.strip_prefix(keyword)
                .is_some_and(|rest| rest.trim_start() == "{")
        });
        let accessor_place = previous.ends_with('{') || previous.starts_with('@');
        if let Some(keyword) = keyword
            && accessor_place
        {
            let at = offset + line.find(keyword).unwrap_or(0);
            let name = if keyword == "borrow" {
                "get   "
            } else {
                "set   "
            };
            renamed.push((at, name));
        }
        if !code.is_empty() {
            previous = code;
        }
        offset += line.len();
    }
    if renamed.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = content.to_string();
    for (at, name) in renamed {
        out.replace_range(at..at + name.len(), name);
    }
    Cow::Owned(out)
}

/// `nonisolated(unsafe)` before a `let` or `var` (Swift 5.10) → spaces: the grammar reads it on
/// a member but not on a local in a function body; what stays is the declaration it modified.
fn blank_unsafe_nonisolation(content: &str) -> Cow<'_, str> {
    if !content.contains("nonisolated(unsafe)") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(r"\bnonisolated\(unsafe\)([ \t]+(?:(?:static|lazy|private|fileprivate|internal|public|final|weak|unowned)[ \t]+)*(?:let|var)\b)")
            .expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}", " ".repeat("nonisolated(unsafe)".len()), &found[1])
    })
}

/// `-> sending T`, a function's result marked as sent (Swift 6) → `sending` becomes spaces: the
/// grammar reads `sending` on a parameter, not on a result.
fn blank_sending_results(content: &str) -> Cow<'_, str> {
    if !content.contains("sending") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN
        .get_or_init(|| Regex::new(r"(->[ \t]*)sending([ \t]+[A-Za-z_(\[])").expect("valid regex"));
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}{}", &found[1], " ".repeat("sending".len()), &found[2])
    })
}

/// A parameter with two attributes or more (`(@ViewBuilder @_implicitSelfCapture _ body: …`)
/// → every attribute but the last becomes spaces: the grammar reads one attribute on a parameter,
/// not two. Only attributes of a plain form (`@Name`, `@Name<T>`, `@Name(args)`) are blanked.
fn blank_stacked_parameter_attributes(content: &str) -> Cow<'_, str> {
    // The pattern is compiled only for a file with a line holding two attributes, the first
    // right after `(` or `,` (on that line, or ending the line above): a parameter's.
    let mut above = "";
    let candidate = content.lines().any(|line| {
        let opens_parameter = |before: &str| before.ends_with(['(', ',']);
        let found = line.matches('@').count() > 1
            && line.find('@').is_some_and(|first| {
                let before = line[..first].trim_end();
                opens_parameter(before) || (before.is_empty() && opens_parameter(above.trim_end()))
            });
        above = line;
        found
    });
    if !candidate {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        let attribute = r"@[A-Za-z_]\w*(?:<[^<>()\n]*>)?(?:\([^()\n]*\))?";
        Regex::new(&format!(
            r"([(,][ \t]*(?:\r?\n[ \t]*)?)((?:{attribute}[ \t]+)+)({attribute}[ \t]+[A-Za-z_])"
        ))
        .expect("valid regex")
    });
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}{}", &found[1], " ".repeat(found[2].len()), &found[3])
    })
}

/// `()` as a value (`return ()`, `resume(returning: ())`, `f(a, ())`) → `0 `, a literal the
/// grammar reads (it reads `()` as a call's or a function type's empty list only). Only after
/// `return`, `=`, `(`, `,` or an argument's `label:`, not before `->` or `>`, and never on a line
/// that declares something (`let`, `var`, `func`, `case`, `typealias`, …), where `()` may be a
/// type.
fn empty_tuple_values(content: &str) -> Cow<'_, str> {
    if !content.contains("()") {
        return Cow::Borrowed(content);
    }
    let mut values = Vec::new();
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        if line.contains("()") && !declares(line) {
            for (at, _) in line.match_indices("()") {
                if is_a_value(line, at) {
                    values.push(offset + at);
                }
            }
        }
        offset += line.len();
    }
    if values.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = content.to_string();
    for at in values {
        out.replace_range(at..at + 2, "0 ");
    }
    Cow::Owned(out)
}

/// Whether `line` declares something, so a `()` on it may be a type.
fn declares(line: &str) -> bool {
    line.contains("->")
        || line
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| {
                matches!(
                    word,
                    "let"
                        | "var"
                        | "func"
                        | "init"
                        | "case"
                        | "typealias"
                        | "associatedtype"
                        | "subscript"
                        | "protocol"
                )
            })
}

/// Whether the `()` at `at` in `line` stands where a value does.
fn is_a_value(line: &str, at: usize) -> bool {
    let before = line[..at].trim_end_matches([' ', '\t']);
    let after = line[at + 2..].trim_start_matches([' ', '\t']);
    if after.starts_with(['>', '-', '(', '.', '{']) || after.starts_with("in ") {
        return false;
    }
    let label = before
        .strip_suffix(':')
        .map(|rest| rest.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_'))
        .map(|rest| rest.trim_end_matches([' ', '\t']));
    let after_return = before
        .strip_suffix("return")
        .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_'));
    after_return
        || (before.ends_with('=') && !before.ends_with("=="))
        || before.ends_with('(')
        || before.ends_with(',')
        || label.is_some_and(|rest| rest.ends_with(['(', ',']))
}

/// Swift `(())`, an empty tuple as the only argument → `(0 )`, a literal the grammar reads.
fn empty_tuple_arguments(content: &str) -> Cow<'_, str> {
    if content.contains("(())") {
        Cow::Owned(content.replace("(())", "(0 )"))
    } else {
        Cow::Borrowed(content)
    }
}

/// Swift `#if COND` … `#endif` (with `#elseif` / `#else` branches) whose branches hold only
/// attributes (`@MainActor`, or `@available(` with its arguments on the lines below, up to the
/// `)` that closes it) and that a declaration or attribute follows: the directive lines become
/// spaces, so the grammar reads the attributes on the declaration. A block with anything else in
/// it, or never closed, is left as it is.
fn blank_attribute_conditions(content: &str) -> Cow<'_, str> {
    if !content.contains("#if") {
        return Cow::Borrowed(content);
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let directive = |line: &str, word: &str| {
        line.trim_start()
            .strip_prefix(word)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    };
    let mut blank: Vec<usize> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if !directive(lines[index], "#if") {
            index += 1;
            continue;
        }
        let mut directives = vec![index];
        let mut end = None;
        // Open parentheses of an attribute's arguments spanning lines.
        let mut open = 0usize;
        for (at, line) in lines.iter().enumerate().skip(index + 1) {
            let text = line.trim();
            if open > 0 {
                match parentheses_after(text, open) {
                    Some(left) => open = left,
                    None => break,
                }
                continue;
            }
            if text.starts_with('@') {
                match parentheses_after(text, 0) {
                    Some(left) => open = left,
                    None => break,
                }
                continue;
            }
            if directive(line, "#endif") {
                directives.push(at);
                end = Some(at);
                break;
            } else if directive(line, "#elseif") || directive(line, "#else") {
                directives.push(at);
            } else if !(text.is_empty() || text.starts_with("//")) {
                break;
            }
        }
        let Some(end) = end else {
            index += 1;
            continue;
        };
        let next = lines[end + 1..]
            .iter()
            .map(|line| line.trim())
            .find(|line| !line.is_empty() && !line.starts_with("//"));
        let declares = next.is_some_and(|line| {
            line.starts_with('@')
                || line.split_whitespace().any(|word| {
                    matches!(
                        word,
                        "class"
                            | "struct"
                            | "enum"
                            | "protocol"
                            | "extension"
                            | "func"
                            | "var"
                            | "let"
                            | "actor"
                            | "init"
                            | "typealias"
                            | "subscript"
                    )
                })
        });
        if declares {
            blank.extend(directives);
        }
        index = end + 1;
    }
    if blank.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len());
    for (at, line) in lines.iter().enumerate() {
        if blank.contains(&at) {
            let body = line.trim_end_matches(['\n', '\r']);
            out.push_str(&" ".repeat(body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// The parentheses still open after `line` when `open` were open before it (strings and a
/// trailing `//` comment skipped); `None` when it closes more than were open.
fn parentheses_after(line: &str, mut open: usize) -> Option<usize> {
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            '(' if !in_string => open += 1,
            ')' if !in_string => open = open.checked_sub(1)?,
            _ => {}
        }
    }
    Some(open)
}

/// A later trailing closure's label on its own line (`Button {` … `}` then `label: {`, as SwiftUI
/// code is formatted) → the label becomes spaces: the grammar reads a closure on the next line as
/// the call's next trailing closure, but takes a label there for a statement. Only when the line
/// above is the `}` of a closure that a call opened at the label's indentation
/// ([`opens_a_call`]): after any other `}` a label there is no Swift.
fn blank_own_line_closure_labels(content: &str) -> Cow<'_, str> {
    if !content.contains(": {") && !content.contains(":{") {
        return Cow::Borrowed(content);
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let mut out = String::with_capacity(content.len());
    let mut changed = false;
    for (index, line) in lines.iter().enumerate() {
        let found = own_line_label(line).filter(|&(start, end)| {
            let indented = &line[..start];
            index > 0
                && indentation(lines[index - 1]) == indented
                && !line[start..end].starts_with("default")
                && closes_a_call(&lines[..index], indented)
        });
        match found {
            Some((start, end)) => {
                out.push_str(&line[..start]);
                out.push_str(&" ".repeat(end - start));
                out.push_str(&line[end..]);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(content)
    }
}

/// `label:` starting a line (after its indentation) and followed by `{`: the byte range of the
/// name and its colon.
fn own_line_label(line: &str) -> Option<(usize, usize)> {
    let start = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[start..];
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let name = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let after_name = &rest[name..];
    let colon = after_name
        .trim_start_matches([' ', '\t'])
        .strip_prefix(':')?;
    let end =
        start + name + (after_name.len() - after_name.trim_start_matches([' ', '\t']).len()) + 1;
    colon
        .trim_start_matches([' ', '\t'])
        .starts_with('{')
        .then_some((start, end))
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Whether the last of `above`, at `indentation`, ends a closure a call opened: it is `}` and
/// the nearest line above at the same indentation opens a call's trailing closure, or it opens
/// and closes one on one line (`Button { run() }`).
fn closes_a_call(above: &[&str], indentation: &str) -> bool {
    let Some((last, rest)) = above.split_last() else {
        return false;
    };
    let code = last.trim();
    if code == "}" {
        let opening = rest.iter().rev().find(|line| {
            let code = line.trim();
            !code.is_empty() && !code.starts_with("//") && self::indentation(line) == indentation
        });
        return opening.is_some_and(|line| opens_a_call(line.trim()));
    }
    match code.find('{') {
        Some(open) if code.ends_with('}') => opens_a_call(&code[..=open]),
        _ => false,
    }
}

/// Whether `code`, ending with `{`, opens a call's trailing closure: the `{` comes after a name, a
/// `)` or another closure's label, and the line does not start a declaration or a statement with
/// a body of its own.
fn opens_a_call(code: &str) -> bool {
    let Some(head) = code.strip_suffix('{').map(str::trim_end) else {
        return false;
    };
    let first = code
        .trim_start_matches('}')
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|word| !word.is_empty())
        .unwrap_or("");
    let declares = matches!(
        first,
        "func"
            | "if"
            | "else"
            | "for"
            | "while"
            | "switch"
            | "guard"
            | "do"
            | "catch"
            | "repeat"
            | "defer"
            | "class"
            | "struct"
            | "enum"
            | "extension"
            | "protocol"
            | "actor"
            | "init"
            | "deinit"
            | "get"
            | "set"
            | "willSet"
            | "didSet"
            | "subscript"
            | "case"
            | "default"
            | "private"
            | "public"
            | "internal"
            | "fileprivate"
            | "static"
            | "override"
            | "final"
            | "open"
            | "mutating"
    ) || (matches!(first, "var" | "let") && !head.contains('='));
    let ends_call = head
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ':');
    ends_call && !declares
}
