//! Everything car prints: the hook's one JSON line (shaped by the calling agent's file under
//! `agents/`) and terminal text for people (data on stdout, messages on stderr, `hint:` lines,
//! colour only when stderr is a terminal and `NO_COLOR` is unset).

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

/// Data for pipes: stdout. A broken pipe ends output quietly.
pub(crate) fn print_data(text: &str) {
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
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// `error: …` on stderr (red when colour is on).
pub(crate) fn print_error(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;31merror\u{1b}[0m"
    } else {
        "error"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {text}");
}

/// `hint: …` on stderr: what to do next.
pub(crate) fn print_hint(text: &str) {
    let label = if use_color() {
        "\u{1b}[1;36mhint\u{1b}[0m"
    } else {
        "hint"
    };
    let _ = writeln!(std::io::stderr().lock(), "{label}: {text}");
}
