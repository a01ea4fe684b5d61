//! Whether a change only reformatted code: what a formatter (black, prettier, rustfmt, gofmt) or
//! an editor's format-on-save does to the agent's lines — quotes, spacing, line breaks, a trailing
//! comma or semicolon — is no person's correction and teaches nothing.
//!
//! A line the agent wrote counts as reformatted when its normal form still occurs in the normal
//! form of the file as the person left it, at word boundaries (so `timeout = 1` → `timeout = 10`
//! is a change, not a reformat). The normal form drops whitespace except a single space between
//! two word characters, makes every `'` a `"`, and drops a `,` or `;` before a closing bracket.
//!
//! Invariant (*rather miss than false-alarm*): this only ever drops a correction.

/// Whether `old` (a line the agent wrote) is still in `content` (the file now), only reformatted.
pub(crate) fn only_reformatted(old: &str, content: &str) -> bool {
    let needle = normal_form(old);
    if needle.is_empty() {
        return true;
    }
    let haystack = normal_form(content);
    let starts_word = needle.chars().next().is_some_and(is_word);
    let ends_word = needle.chars().last().is_some_and(is_word);
    haystack.match_indices(&needle).any(|(at, _)| {
        let before = haystack[..at].chars().last();
        let after = haystack[at + needle.len()..].chars().next();
        let joined_before = starts_word && before.is_some_and(is_word);
        let joined_after = ends_word && after.is_some_and(is_word);
        !joined_before && !joined_after
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text without formatting: see the module docs.
fn normal_form(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && out.chars().last().is_some_and(is_word) && is_word(c) {
            out.push(' ');
        }
        pending_space = false;
        if matches!(c, ')' | ']' | '}') && out.ends_with([',', ';']) {
            out.pop();
        }
        out.push(if c == '\'' { '"' } else { c });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formatters_changes_are_reformats() {
        for (old, content) in [
            (
                "GREETING = 'hello_world'",
                "import os\nGREETING = \"hello_world\"\n",
            ),
            (
                "result = compute_total(alpha, beta, gamma)",
                "result = compute_total(\n    alpha,\n    beta,\n    gamma,\n)\n",
            ),
            ("const x = 1", "const x = 1;\n"),
            ("foo( a , b )", "foo(a, b)\n"),
            ("  return value", "def f():\n    return value\n"),
        ] {
            assert!(only_reformatted(old, content), "{old:?} in {content:?}");
        }
    }

    #[test]
    fn a_change_of_meaning_is_not() {
        for (old, content) in [
            ("ctx.check_hostname = False", "ctx.check_hostname = True\n"),
            ("timeout = 1", "timeout = 10\n"),
            ("retries = 3", "max_retries = 3\n"),
            ("return value", "return values\n"),
            ("return value", "returnvalue = 1\n"),
        ] {
            assert!(!only_reformatted(old, content), "{old:?} in {content:?}");
        }
    }
}
