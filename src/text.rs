//! Small text helpers every layer shares: shortening for display, plurals, a path as one shell
//! word, and the position of a JSON error as people read it.
//!
//! Invariants: lengths and columns count characters, never bytes (a cut never splits a
//! character); a JSON error's message never repeats the position car prints beside it.

/// `text` cut to `limit` characters, with `…` when something was cut.
pub(crate) fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let cut: String = text.chars().take(limit).collect();
    format!("{cut}…")
}

/// `text` on one line: every run of whitespace (newlines included) becomes one space and other
/// control characters are dropped, so text from elsewhere (a reviewer's finding) can never start
/// a line of a prompt (a `## heading`) or carry an escape sequence.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
        } else if !c.is_control() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// `1 file`, `2 files`, `0 files`.
pub(crate) fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        format!("1 {word}")
    } else {
        format!("{count} {word}s")
    }
}

/// Why an id given on the command line names no single item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IdMatch {
    /// Nothing starts with it.
    None,
    /// Several ids start with it (listed).
    Ambiguous(Vec<String>),
}

/// The one id that is `wanted` or starts with it (case-insensitive): ids can be shortened as long
/// as they stay unique, like git's commit hashes.
pub(crate) fn resolve_id<'a>(
    wanted: &str,
    ids: impl IntoIterator<Item = &'a str>,
) -> Result<&'a str, IdMatch> {
    let wanted = wanted.trim();
    let ids: Vec<&str> = ids.into_iter().collect();
    if let Some(exact) = ids.iter().find(|id| **id == wanted) {
        return Ok(exact);
    }
    let lower = wanted.to_lowercase();
    let mut matches: Vec<&str> = ids
        .into_iter()
        .filter(|id| !lower.is_empty() && id.to_lowercase().starts_with(&lower))
        .collect();
    matches.dedup();
    match matches.len() {
        0 => Err(IdMatch::None),
        1 => Ok(matches[0]),
        _ => Err(IdMatch::Ambiguous(
            matches.iter().map(|id| id.to_string()).collect(),
        )),
    }
}

/// Where a JSON text is broken: 1-based line and character column, and serde's message without
/// its own " at line L column C" tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl JsonError {
    /// Locates `error` in `text` (serde counts columns in bytes; people and editors count
    /// characters).
    pub fn locate(text: &str, error: &serde_json::Error) -> JsonError {
        let line = error.line().max(1);
        let line_text = text.split('\n').nth(line - 1).unwrap_or("");
        let mut byte_column = error.column().min(line_text.len());
        while byte_column > 0 && !line_text.is_char_boundary(byte_column) {
            byte_column -= 1;
        }
        let column = line_text[..byte_column].chars().count().max(1);
        JsonError {
            line,
            column,
            message: message_of(error),
        }
    }

    /// For an error without the text at hand (a value converted after parsing): serde's own
    /// position, clamped to 1.
    pub fn of(error: &serde_json::Error) -> JsonError {
        JsonError {
            line: error.line().max(1),
            column: error.column().max(1),
            message: message_of(error),
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}:{}: {}", self.line, self.column, self.message)
    }
}

fn message_of(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    }
}

/// `path` as one shell word: as it is when it has only characters no shell reads specially,
/// else in single quotes. (How car names a binary in a command an agent's shell runs.)
pub(crate) fn shell_word(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ':'));
    if plain {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_spaces_or_quotes_is_one_shell_word() {
        assert_eq!(shell_word("/usr/local/bin/car"), "/usr/local/bin/car");
        assert_eq!(shell_word("/Users/a b/bin/car"), "'/Users/a b/bin/car'");
        assert_eq!(shell_word("/x/it's/car"), r"'/x/it'\''s/car'");
        assert_eq!(
            shell_word("/p/node_modules/@car-hooks/linux-x64/bin/car"),
            "'/p/node_modules/@car-hooks/linux-x64/bin/car'"
        );
    }

    #[test]
    fn shorten_counts_characters() {
        assert_eq!(shorten("äöü", 3), "äöü");
        assert_eq!(shorten("äöüß", 3), "äöü…");
    }

    #[test]
    fn ids_resolve_by_unique_prefix() {
        let ids = ["451f867985", "456aa00000", "F1"];
        assert_eq!(resolve_id("451", ids), Ok("451f867985"));
        assert_eq!(resolve_id("f1", ids), Ok("F1"));
        assert_eq!(
            resolve_id("45", ids),
            Err(IdMatch::Ambiguous(vec![
                "451f867985".into(),
                "456aa00000".into()
            ]))
        );
        assert_eq!(resolve_id("9", ids), Err(IdMatch::None));
        assert_eq!(resolve_id("", ids), Err(IdMatch::None));
    }

    #[test]
    fn reviewer_text_is_one_line() {
        assert_eq!(one_line("  a\n## Heading\r\n\tb  "), "a ## Heading b");
        assert_eq!(one_line("\u{1b}[31mred\u{1b}[0m"), "[31mred[0m");
        assert_eq!(one_line("\n\n"), "");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "file"), "1 file");
        assert_eq!(plural(0, "file"), "0 files");
        assert_eq!(plural(2, "session"), "2 sessions");
    }

    #[test]
    fn json_error_is_located_in_characters_without_serde_position() {
        let text = "{\n  \"ä\": 1,,\n}";
        let error = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        let located = JsonError::locate(text, &error);
        assert_eq!((located.line, located.column), (2, 10));
        assert!(!located.message.contains("at line"), "{}", located.message);
    }
}
