//! How far car believes a tree-sitter grammar's errors. A grammar is a fast parser compiled into
//! car, not the compiler: some grammars misread valid code (C and C++ cannot see through macros,
//! the Swift and Kotlin grammars lag their languages, the TypeScript grammar misreads what `tsc`
//! emits into `.d.ts` files). Each language's spec says what an error of its grammar may do
//! ([`TrustRule`], with why); it was measured on published code with the real-code benchmark
//! (`benches/real-code/`).
//!
//! Invariants: the spec is the one place that decides; a spec that names no rule blocks (those
//! grammars were clean on the benchmark). "Introduced by the edit" means: the
//! error is in the top-level node (declaration, statement) that holds a line the edit added (an
//! unclosed bracket is reported where the grammar notices it, often lines below the slip), and
//! the same error (message and line text) is absent when the content before the edit is parsed;
//! when that content parses without any error, a new error anywhere is the edit's. An error whose
//! span holds a line that held an error before, gone now, is that misread re-worded (an edit
//! elsewhere made the grammar cut it differently), when the file's brackets balance. Without a
//! before (a new file, `car check`), nothing is introduced, so such grammars warn. An edit that
//! added only comment lines introduces nothing ([`only_comments`]): a comment cannot break code,
//! so what the grammar reports then is its misread, moved.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::Severity;
use crate::edit::AddedLine;
use crate::validate::brackets::Lexed;
use crate::validate::language::Language;
pub(crate) use crate::validate::languages::spec::Trust;
use crate::validate::languages::spec::TrustRule;
use crate::validate::treesitter::SyntaxError;

/// What an error of `language`'s grammar may do in a file holding `content`.
pub(crate) fn trust(language: Language, content: &str) -> Trust {
    match language.spec().trust {
        TrustRule::Blocks => Trust::Blocks,
        TrustRule::Introduced(_) => Trust::Introduced,
        TrustRule::Warns(_) => Trust::Warns,
        TrustRule::BlocksUnlessFlow if is_flow(content) => Trust::Introduced,
        TrustRule::BlocksUnlessFlow => Trust::Blocks,
    }
}

/// A `@flow` pragma in the file's leading comment block.
fn is_flow(content: &str) -> bool {
    let head: String = content.chars().take(2048).collect();
    head.lines()
        .take_while(|line| {
            let line = line.trim_start();
            line.is_empty()
                || line.starts_with("//")
                || line.starts_with("/*")
                || line.starts_with('*')
                || line.starts_with("#!")
        })
        .any(|line| line.contains("@flow"))
}

/// Whether the edit only inserted comment lines: `content` without its added lines is `before`
/// (nothing removed or changed: a deleted `}` leaves a blank line that is "added"), and every
/// added line is blank or a comment ([`comment_lines`]).
pub(crate) fn only_comments(
    content: &str,
    added: &[AddedLine],
    before: &str,
    language: Language,
) -> bool {
    if !comment_lines(added, language) {
        return false;
    }
    let inserted: HashSet<usize> = added.iter().map(|added| added.line).collect();
    let kept: Vec<&str> = content
        .split('\n')
        .enumerate()
        .filter(|(index, _)| !inserted.contains(&(index + 1)))
        .map(|(_, line)| line)
        .collect();
    kept.join("\n") == before
}

/// Whether every added line is blank or a comment in `language`: `// …` (not in CSS, where it is
/// no comment), `/* … */` on one line, or a run of added lines from one starting with `/*` to the
/// one closing it. A line starting with `*` outside such a run may be code (`*p = 0;`), so it
/// does not count.
fn comment_lines(added: &[AddedLine], language: Language) -> bool {
    // As the bracket lexer reads the language (CSS has no `//` comments).
    let line_comments = language
        .bracket_syntax()
        .is_none_or(|syntax| syntax.line_comments);
    let mut in_block: Option<usize> = None;
    for added in added {
        let text = added.text.trim();
        if let Some(previous) = in_block {
            if added.line != previous + 1 {
                return false;
            }
            in_block = (!text.contains("*/")).then_some(added.line);
            continue;
        }
        if text.is_empty() || (line_comments && text.starts_with("//")) {
            continue;
        }
        let Some(rest) = text.strip_prefix("/*") else {
            return false;
        };
        match rest.find("*/") {
            // Code after the comment on the same line is code.
            Some(end) if !rest[end + 2..].trim().is_empty() => return false,
            Some(_) => {}
            None => in_block = Some(added.line),
        }
    }
    in_block.is_none() && !added.is_empty()
}

/// What identifies an error across the edit: its message and the text of its line (line numbers
/// move when lines are added above it).
fn key(error: &SyntaxError, content: &str) -> (String, String) {
    let text = content
        .split('\n')
        .nth(error.line.saturating_sub(1))
        .unwrap_or("")
        .trim()
        .to_string();
    (error.message.clone(), text)
}

/// The text of each line that held an error before the edit and holds none of its errors now: a
/// misread the edit re-worded or moved (an edit elsewhere can make the grammar cut its error
/// differently, up to one error over the whole file). Lines without a letter or digit (`}`) say
/// too little to be recognised.
fn vanished_lines(
    found: &[SyntaxError],
    content: &str,
    before: &[SyntaxError],
    before_content: &str,
) -> HashSet<String> {
    let now: HashSet<(String, String)> = found.iter().map(|error| key(error, content)).collect();
    before
        .iter()
        .map(|error| key(error, before_content))
        .filter(|key| !now.contains(key))
        .map(|(_, text)| text)
        .filter(|text| text.chars().any(char::is_alphanumeric))
        .collect()
}

/// Whether the error's own span (not its top-level node) holds one of `lines`.
fn spans_any(error: &SyntaxError, content: &str, lines: &HashSet<String>) -> bool {
    !lines.is_empty()
        && content
            .split('\n')
            .skip(error.line.saturating_sub(1))
            .take(error.end_line.saturating_sub(error.line) + 1)
            .any(|line| lines.contains(line.trim()))
}

/// How many errors carry each message.
fn per_message(errors: &[SyntaxError]) -> HashMap<&str, usize> {
    let mut counted = HashMap::new();
    for error in errors {
        *counted.entry(error.message.as_str()).or_insert(0) += 1;
    }
    counted
}

/// Whether the error is in the top-level node (declaration, statement) a line the edit added is
/// in: an unclosed bracket is reported where the grammar notices it, often lines below.
pub(crate) fn touches(error: &SyntaxError, added: &[AddedLine]) -> bool {
    let (first, last) = error.scope;
    added
        .iter()
        .any(|added| (first.min(error.line)..=last.max(error.end_line)).contains(&added.line))
}

/// The severity of each finding of an [`Trust::Introduced`] grammar: an error when `before` (the
/// errors of the content before the edit, in `before_content`) has no such error, fewer errors
/// with its message (a misread the edit moved, e.g. a missing `#endif` now reported on an added
/// comment line, is the same misread), and either it
/// touches an added line or the grammar read the content before the edit without any error (then
/// the file holds nothing it misreads, and a slip can show anywhere: a deleted closing brace is
/// noticed at the end of the file, above the line it was on), and it spans no line whose error
/// vanished with the edit (a re-worded misread; only believed when `brackets_balance`); a warning
/// otherwise.
pub(crate) fn introduced(
    found: &[SyntaxError],
    content: &str,
    added: &[AddedLine],
    before: &[SyntaxError],
    before_content: &str,
    brackets_balance: bool,
) -> Vec<Severity> {
    let existing: HashSet<(String, String)> = before
        .iter()
        .map(|error| key(error, before_content))
        .collect();
    let (counted_before, counted_after) = (per_message(before), per_message(found));
    // A re-worded misread is told from a slip only where the brackets say the file is whole.
    let vanished = if brackets_balance {
        vanished_lines(found, content, before, before_content)
    } else {
        HashSet::new()
    };
    found
        .iter()
        .map(|error| {
            // A misread the edit moved (its line changed, or another line now holds it) is not
            // new: the grammar reports no more errors with its message than before.
            let more = counted_after[error.message.as_str()]
                > counted_before
                    .get(error.message.as_str())
                    .copied()
                    .unwrap_or(0);
            let new = more
                && !existing.contains(&key(error, content))
                && !spans_any(error, content, &vanished);
            if new && (before.is_empty() || touches(error, added)) {
                Severity::Error
            } else {
                Severity::Warning
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: usize, end_line: usize, message: &str) -> SyntaxError {
        SyntaxError {
            line,
            end_line,
            scope: (line, end_line),
            column: 1,
            message: message.to_string(),
            subject: None,
        }
    }

    fn added(lines: &[usize]) -> Vec<AddedLine> {
        lines
            .iter()
            .map(|&line| AddedLine {
                line,
                text: String::new(),
            })
            .collect()
    }

    fn lines(numbered: &[(usize, &str)]) -> Vec<AddedLine> {
        AddedLine::numbered(numbered)
    }

    #[test]
    fn comment_only_edits_are_told_apart_from_code() {
        for comment in [
            lines(&[(3, "// car: an edited line")]),
            lines(&[(3, "  /* note */"), (4, "")]),
            lines(&[(3, "/**"), (4, " * Sorts in place."), (5, " */")]),
        ] {
            assert!(comment_lines(&comment, Language::Cpp), "{comment:?}");
        }
        for code in [
            lines(&[(3, "*p = 0;")]),
            lines(&[(3, "/* note */ int x;")]),
            lines(&[(3, "// fine"), (4, "int x;")]),
            lines(&[(3, "/* never closed")]),
            lines(&[(3, "/* opened"), (9, "closed */")]),
            lines(&[]),
        ] {
            assert!(!comment_lines(&code, Language::C), "{code:?}");
        }
        assert!(!comment_lines(&lines(&[(1, "// not CSS")]), Language::Css));
        assert!(comment_lines(&lines(&[(1, "/* CSS */")]), Language::Css));

        let before = "int f() {\n  return 1;\n}\n";
        let commented = "// f\nint f() {\n  return 1;\n}\n";
        assert!(only_comments(
            commented,
            &lines(&[(1, "// f")]),
            before,
            Language::C
        ));
        // A deleted closing brace leaves a blank line, which counts as added: not comments only.
        let deleted = "int f() {\n  return 1;\n\n";
        assert!(!only_comments(
            deleted,
            &lines(&[(3, "")]),
            before,
            Language::C
        ));
    }

    #[test]
    fn the_table_decides_per_language_and_file() {
        assert_eq!(trust(Language::Swift, ""), Trust::Introduced);
        assert_eq!(trust(Language::Html, ""), Trust::Warns);
        assert_eq!(trust(Language::Rust, ""), Trust::Blocks);
        // Declaration files (`.d.ts`) block like any TypeScript: car reads what `tsc` emits.
        assert_eq!(trust(Language::TypeScript, ""), Trust::Blocks);
        let flow = "/**\n * @flow strict-local\n */\n'use strict';\n";
        assert_eq!(trust(Language::JavaScript, flow), Trust::Introduced);
        let later = "'use strict';\n// @flow is mentioned later\n";
        assert_eq!(trust(Language::JavaScript, later), Trust::Blocks);
    }

    #[test]
    fn only_new_errors_on_added_lines_are_errors() {
        let before_content = "a\nreturn .success(())\nb\n";
        let content = "a\nnew broken line\nreturn .success(())\nb\n";
        let before = [error(2, 2, "missing `!`")];
        let found = [
            error(2, 2, "syntax error near `broken`"),
            error(3, 3, "missing `!`"),
        ];
        assert_eq!(
            introduced(&found, content, &added(&[2]), &before, before_content, true),
            vec![Severity::Error, Severity::Warning]
        );
        // The misread line itself re-added: still the same error as before.
        assert_eq!(
            introduced(
                &found[1..],
                content,
                &added(&[3]),
                &before,
                before_content,
                true
            ),
            vec![Severity::Warning]
        );
        // An error spanning the added line counts; one elsewhere does not.
        let spanning = [error(1, 4, "syntax error near `a`")];
        assert_eq!(
            introduced(&spanning, content, &added(&[2]), &[], before_content, true),
            vec![Severity::Error]
        );
        let misread_elsewhere = [error(9, 9, "missing `!`")];
        assert_eq!(
            introduced(
                &spanning,
                content,
                &added(&[9]),
                &misread_elsewhere,
                before_content,
                true
            ),
            vec![Severity::Warning]
        );
        // A misread that moved onto the added line: as many such errors as before.
        let moved_before = [error(3, 3, "missing `#endif`")];
        let moved = [error(2, 2, "missing `#endif`")];
        assert_eq!(
            introduced(
                &moved,
                content,
                &added(&[2]),
                &moved_before,
                before_content,
                true
            ),
            vec![Severity::Warning]
        );
        let one_more = [
            error(2, 2, "missing `#endif`"),
            error(4, 4, "missing `#endif`"),
        ];
        assert_eq!(
            introduced(
                &one_more,
                content,
                &added(&[2]),
                &moved_before,
                before_content,
                true
            ),
            vec![Severity::Error, Severity::Warning]
        );
        // A content the grammar read without error before: a new error anywhere is the edit's
        // (a deleted last `}` is noticed above the emptied line).
        assert_eq!(
            introduced(&spanning, content, &added(&[9]), &[], before_content, true),
            vec![Severity::Error]
        );
        assert_eq!(
            introduced(&spanning, content, &[], &[], before_content, true),
            vec![Severity::Error]
        );
        // An edit elsewhere turned the misread into one error over the whole file (re-worded,
        // another message): it spans the line that held the misread, so it is that misread, where
        // the brackets balance (otherwise the grown error may hold a slip). An error that spans no
        // line a vanished misread held is the edit's; so is one spanning only a line without a
        // letter (`}` says too little).
        let whole = [SyntaxError {
            scope: (1, 4),
            ..error(1, 4, "syntax error near `a`")
        }];
        let beside = [error(2, 2, "syntax error near `broken`")];
        let braces = [error(1, 3, "syntax error near `a`")];
        let semicolon = [error(2, 2, "missing `;`")];
        for (found, content, before, before_content, brackets_balance, expected) in [
            (
                &whole[..],
                content,
                &before[..],
                before_content,
                true,
                Severity::Warning,
            ),
            (
                &whole,
                content,
                &before,
                before_content,
                false,
                Severity::Error,
            ),
            (
                &beside,
                content,
                &before,
                before_content,
                true,
                Severity::Error,
            ),
            (
                &braces,
                "a\nx\n}\n",
                &semicolon,
                "a\n}\nb\n",
                true,
                Severity::Error,
            ),
        ] {
            assert_eq!(
                introduced(
                    found,
                    content,
                    &added(&[2]),
                    before,
                    before_content,
                    brackets_balance
                ),
                vec![expected],
                "{found:?}"
            );
        }
        // Noticed below the slip, in the same function: the edit's.
        let below = [SyntaxError {
            scope: (1, 5),
            ..error(4, 4, "syntax error near `b`")
        }];
        assert_eq!(
            introduced(&below, content, &added(&[2]), &[], before_content, true),
            vec![Severity::Error]
        );
    }
}
