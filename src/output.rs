//! Everything car prints: the hook's one JSON line (shaped by the calling agent's file under
//! `agents/`) and terminal text for people (data on stdout, messages on stderr, `hint:` lines,
//! colour only when stderr is a terminal and `NO_COLOR` is unset).
//!
//! Invariant: text for people and models never carries a control character from elsewhere (a
//! reviewer's finding title, a file name, a lesson): every one but newline and tab is shown
//! escaped (`\u{1b}`), so no ANSI or OSC sequence reaches a terminal; car's own colour is added
//! after. This holds for terminal text ([`printable`]), for every hook answer (the agent's file
//! shapes an [`crate::answer::Answer`] made printable) and for the review prompts car saves and
//! sends.

use std::io::{IsTerminal, Write};

use serde_json::Value;

/// Prints a hook response on stdout. A closed pipe is not an error worth reporting.
pub(crate) fn print_hook_response(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// Whether stderr may carry colour.
pub(crate) fn use_color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// `text` with every control character except newline, tab and a carriage return that ends a
/// line (`\r\n`, which moves nothing a person would miss) shown escaped (`\u{1b}`): what people
/// and models read can carry no escape sequence, and no bare `\r` that writes over a line.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let is_unsafe = |c: char, next: Option<char>| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && next == Some('\n'))
    };
    let mut chars = text.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        if is_unsafe(c, chars.peek().copied()) {
            let out = out.get_or_insert_with(|| {
                let mut out = String::with_capacity(text.len() + 16);
                out.push_str(&text[..at]);
                out
            });
            out.push_str(&c.escape_unicode().to_string());
        } else if let Some(out) = &mut out {
            out.push(c);
        }
        at += c.len_utf8();
    }
    match out {
        Some(out) => std::borrow::Cow::Owned(out),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Data for pipes: stdout. A broken pipe ends output quietly.
pub(crate) fn print_data(text: &str) {
    let text = printable(text);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
    let _ = stdout.flush();
}

/// Pretty JSON on stdout.
pub(crate) fn print_json(value: &Value) {
    print_data(&serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string()));
}

/// A message for people: stderr.
pub(crate) fn print_message(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", printable(text));
}

/// `error: …` on stderr (red when colour is on).
pub(crate) fn print_error(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;31merror\u{1b}[0m"
    } else {
        "error"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {}", printable(text));
}

/// `hint: …` on stderr: what to do next.
pub(crate) fn print_hint(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;36mhint\u{1b}[0m"
    } else {
        "hint"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {}", printable(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped_newlines_and_tabs_kept() {
        assert_eq!(printable("plain\ttext\nnext"), "plain\ttext\nnext");
        assert_eq!(
            printable("\u{1b}[2J\u{1b}]8;;http://x\u{7}title\r"),
            "\\u{1b}[2J\\u{1b}]8;;http://x\\u{7}title\\u{d}"
        );
        assert_eq!(printable("a\r\nb\rc\u{9b}2J"), "a\r\nb\\u{d}c\\u{9b}2J");
    }
}
