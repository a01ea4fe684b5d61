//! Swift misreads of tree-sitter-swift, undone before parsing.

use std::borrow::Cow;

/// `content` with every Swift rewrite applied, in order.
pub(super) fn prepare(content: &str) -> Cow<'_, str> {
    match empty_tuple_arguments(content) {
        Cow::Borrowed(_) => blank_attribute_conditions(content),
        Cow::Owned(rewritten) => Cow::Owned(blank_attribute_conditions(&rewritten).into_owned()),
    }
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
/// attributes (`@MainActor`) and that a declaration or attribute follows: the directive lines
/// become spaces, so the grammar reads the attributes on the declaration. A block with anything
/// else in it, or never closed, is left as it is.
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
        for (at, line) in lines.iter().enumerate().skip(index + 1) {
            let text = line.trim();
            if directive(line, "#endif") {
                directives.push(at);
                end = Some(at);
                break;
            } else if directive(line, "#elseif") || directive(line, "#else") {
                directives.push(at);
            } else if !(text.is_empty() || text.starts_with('@') || text.starts_with("//")) {
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
