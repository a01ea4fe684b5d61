//! What YAML needs beyond its grammar: templates are not YAML, and files longer than the grammar
//! can count are parsed in pieces.
//!
//! tree-sitter-yaml's scanner keeps rows in 16-bit integers: from line 32,769 on it loses its
//! place and reports the whole file as one error at 1:1. A longer file is cut at top-level
//! boundaries (a line at column 0 that starts a document, a list item or a mapping key: never
//! inside an indented block) into pieces of at most [`MAX_LINES`] lines, each parsed on its own,
//! with error lines shifted back to the file's.

use regex::Regex;

use crate::validate::language::Language;
use crate::validate::treesitter::{self, SyntaxError};

/// Lines one parse may hold (below the scanner's 32,767, with room to spare).
pub(crate) const MAX_LINES: usize = 30_000;

/// Helm charts and Jinja-templated YAML are not YAML until rendered. GitHub Actions' `${{ … }}`
/// expressions are plain YAML scalars, not template markers.
pub(crate) fn is_template(content: &str) -> bool {
    content.contains("{%")
        || content
            .match_indices("{{")
            .any(|(at, _)| !content[..at].ends_with('$'))
}

/// The first `limit` syntax errors of `content`, parsed in pieces when it is too long for one.
pub(crate) fn errors_in_pieces(content: &str, limit: usize) -> Result<Vec<SyntaxError>, String> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    if lines.len() <= MAX_LINES {
        return treesitter::parse_errors(content, Language::Yaml, limit);
    }
    let mut found = Vec::new();
    let mut start = 0;
    while start < lines.len() && found.len() < limit {
        let end = piece_end(&lines, start).ok_or_else(|| {
            format!(
                "YAML over {MAX_LINES} lines with no top-level line to cut at near line {}",
                start + MAX_LINES
            )
        })?;
        let piece: String = lines[start..end].concat();
        for mut error in treesitter::parse_errors(&piece, Language::Yaml, limit - found.len())? {
            error.line += start;
            error.end_line += start;
            error.scope = (error.scope.0 + start, error.scope.1 + start);
            found.push(error);
        }
        start = end;
    }
    Ok(found)
}

/// Where the piece starting at line index `start` ends: the whole rest when it fits, else the
/// last top-level boundary within [`MAX_LINES`] lines.
fn piece_end(lines: &[&str], start: usize) -> Option<usize> {
    if lines.len() - start <= MAX_LINES {
        return Some(lines.len());
    }
    (start + 1..=start + MAX_LINES)
        .rev()
        .find(|&index| starts_top_level_node(lines[index]))
}

/// A line at column 0 that begins a document (`---`), a list item (`- x`) or a mapping key
/// (`key:`, `"key":`): the scanner's state at such a line is the empty indentation stack.
fn starts_top_level_node(line: &str) -> bool {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(
            r#"^(?:---|\.\.\.|-)(?:\s|$)|^(?:[^\s#\-\[\]{},"'|>!&*%@`?:][^:\n]*|"[^"\n]*"|'[^'\n]*'):(?:\s|$)"#,
        )
        .expect("valid regex")
    });
    pattern.is_match(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        assert!(is_template("a: {{ .Values.x }}\n"));
        assert!(is_template("{% if x %}\na: 1\n{% endif %}\n"));
        assert!(!is_template("runs-on: ${{ matrix.os }}\n"));
    }

    #[test]
    fn boundaries_are_top_level_lines() {
        for line in [
            "---\n",
            "- item\n",
            "-\n",
            "key: value\n",
            "'0':\n",
            "\"a b\": 1\n",
        ] {
            assert!(starts_top_level_node(line), "{line:?}");
        }
        for line in [
            "  key: v\n",
            "# c: d\n",
            "  - x\n",
            "]\n",
            "text\n",
            "{a: 1}\n",
        ] {
            assert!(!starts_top_level_node(line), "{line:?}");
        }
    }

    #[test]
    fn long_files_are_parsed_in_pieces_with_their_own_line_numbers() {
        let valid: String = (0..32_800).map(|n| format!("- item{n}\n")).collect();
        assert!(
            !treesitter::parse_errors(&valid, Language::Yaml, 1)
                .unwrap()
                .is_empty(),
            "the grammar alone misreads this file"
        );
        assert_eq!(errors_in_pieces(&valid, 5).unwrap(), Vec::new());
        let mut mapping: String = (0..40_000).map(|n| format!("k{n}:\n  v: {n}\n")).collect();
        mapping.push_str("broken: [1, 2\nlast: 3\n");
        let found = errors_in_pieces(&mapping, 5).unwrap();
        assert!(!found.is_empty());
        assert_eq!(found[0].line, 80_001, "{found:?}");
    }
}
