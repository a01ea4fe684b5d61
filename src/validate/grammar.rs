//! The syntax check of every language without a checker of its own: its tree-sitter grammar, with
//! three corrections for what a grammar gets wrong on valid code.
//!
//! 1. Known misreads are undone before parsing ([`prepare`]).
//! 2. When the language's real tool is installed, it decides ([`tools`]): it accepts (nothing
//!    reported) or its own errors are reported. The fast ones (`gofmt`, `ruby`) check every
//!    file; the others only a file the grammar flagged.
//! 3. Otherwise the grammar's [`Trust`] decides what its findings may do: block, block only
//!    what the edit introduced, or warn.
//! 4. Where nothing was introduced because nothing came before (a new file, `car check`), a
//!    grammar trusted only for edits has a second, independent witness: the file's bracket balance
//!    ([`brackets`]). When the grammar reports an error and the brackets do not balance either,
//!    the unbalanced bracket blocks; the grammar's own findings stay warnings. After an edit the
//!    same witness blocks a slip the grammar could not tell from a misread already there: the
//!    brackets balanced before the edit and do not after it.
//!
//! HTML that is a template (`{{`, `{%`, `<%`) is not HTML until rendered.

use std::borrow::Cow;

use crate::validate::brackets::{self, Balance};
use crate::validate::language::Language;
use crate::validate::tools::{Tools, Verdict};
use crate::validate::treesitter::{self, MAX_REPORTED, SyntaxError};
use crate::validate::trust::{self, Trust};
use crate::validate::{Diagnostic, Report, Severity, Source};

/// Findings collected before judging them: enough that the errors an edit introduced are not
/// crowded out by a grammar's older misreads of the same file.
const JUDGED: usize = 100;

/// Checks `source` with `language`'s grammar and adds the findings to `report`; `before` is the
/// file before the edit, when known. Returns the file's tree when the grammar read the file as
/// written (no misread undone), for the checks after it (the added imports) to walk.
pub(crate) fn check(
    tools: &Tools,
    source: &Source<'_>,
    before: Option<&str>,
    language: Language,
    report: &mut Report,
) -> Option<tree_sitter::Tree> {
    if is_template(language, source.content) {
        if !errors(source.content, language, 1)
            .unwrap_or_default()
            .is_empty()
        {
            report.notes.push(format!(
                "{}: looks like a template (`{{{{ … }}}}`), not plain {}; its {} errors are not reported",
                source.display_path,
                language.name().to_uppercase(),
                language.name().to_uppercase(),
            ));
        }
        return None;
    }
    let prepared = prepare(language, source.content);
    let (tree, found) =
        match treesitter::parse_rewritten(source.content, &prepared, language, JUDGED) {
            Ok(parsed) => parsed,
            Err(why) => {
                report
                    .notes
                    .push(format!("{}: {why}; not checked", source.display_path));
                return None;
            }
        };
    let tree = matches!(prepared, Cow::Borrowed(_)).then_some(tree);
    let verdict = tools.judge(language, source, !found.is_empty());
    // rustfmt reads the crate's edition from its Cargo.toml.
    report.read_other_files |= language
        .spec()
        .tool
        .is_some_and(|real| real.reads_project_files)
        && !matches!(verdict, Verdict::Undecided(_));
    match verdict {
        Verdict::Accepts => return tree,
        Verdict::Rejects(own) if !own.is_empty() => {
            report.diagnostics.extend(own);
            return tree;
        }
        Verdict::Rejects(_) => {}
        Verdict::Undecided(note) => report.notes.extend(note),
    }
    if found.is_empty() {
        return tree;
    }
    let trust = trust::trust(language, source.content);
    let severities = severities(trust, &found, source, before, language);
    let mut judged: Vec<Diagnostic> = found
        .iter()
        .zip(severities)
        .map(|(error, severity)| {
            error.to_diagnostic(source.display_path, source.content, language, severity)
        })
        .collect();
    // Errors first, then the first warnings, at most MAX_REPORTED in all.
    judged.sort_by_key(|diagnostic| !diagnostic.is_error());
    judged.truncate(MAX_REPORTED);
    judged.sort_by_key(|diagnostic| (diagnostic.line, diagnostic.column));
    if trust == Trust::Blocks {
        lead_with_the_cause(&mut judged, source, language);
    }
    if trust == Trust::Introduced {
        judged.extend(match before {
            _ if has_no_before(source, before) => witnessed_bracket(source, language, ""),
            Some(before) if !judged.iter().any(Diagnostic::is_error) => {
                unbalanced_by_the_edit(source, before, language)
            }
            _ => None,
        });
    }
    report.diagnostics.extend(judged);
    tree
}

/// Puts the likeliest cause of a grammar's errors first (issue 40, item 6): an unclosed bracket
/// makes the grammar report errors where the next code no longer fits (`let` outside a function,
/// a `use` line at 1:1, a missing `;` lines above the missing `}`). When the file's brackets do
/// not balance, the bracket that most likely caused it leads ([`brackets::likely_cause`]);
/// where the lexer does not read the language, a missing closing bracket the grammar reported
/// comes before its other errors.
fn lead_with_the_cause(judged: &mut Vec<Diagnostic>, source: &Source<'_>, language: Language) {
    if !judged.iter().any(Diagnostic::is_error) {
        return;
    }
    let Some(cause) = brackets::likely_cause(source.content, language) else {
        judged.sort_by_key(|diagnostic| !(diagnostic.is_error() && misses_a_closer(diagnostic)));
        return;
    };
    let (line, column) = (cause.problem.line, cause.problem.column);
    judged.retain(|diagnostic| (diagnostic.line, diagnostic.column) != (line, column));
    judged.insert(
        0,
        Diagnostic {
            file: source.display_path.to_string(),
            line,
            column,
            severity: Severity::Error,
            validator: treesitter::validator_name(language),
            origin: crate::diagnostic::Origin::TreeSitter,
            message: format!(
                "{} (the {} grammar's errors below may follow from it)",
                cause.message(),
                language.name()
            ),
            snippet: crate::validate::snippet_at(source.content, line, column),
            subject: None,
        },
    );
    judged.truncate(MAX_REPORTED);
}

/// A grammar's "missing `}`" (or `)`, `]`).
fn misses_a_closer(diagnostic: &Diagnostic) -> bool {
    ["missing `}`", "missing `)`", "missing `]`"]
        .iter()
        .any(|missing| diagnostic.message.ends_with(missing))
}

/// An edit that left a file's brackets unbalanced when they balanced before it, in a file the
/// grammar reports an error in: the slip the grammar could not tell from a misread that was there
/// already (it reports the slip inside the misread's error, or re-words that error).
fn unbalanced_by_the_edit(
    source: &Source<'_>,
    before: &str,
    language: Language,
) -> Option<Diagnostic> {
    if brackets::balance(before, language) != Balance::Balanced {
        return None;
    }
    witnessed_bracket(source, language, "; they balanced before the edit")
}

/// Whether the check has no content before the edit to compare with.
fn has_no_before(source: &Source<'_>, before: Option<&str>) -> bool {
    before.is_none_or(str::is_empty) || source.added_everything()
}

/// The bracket a grammar's error agrees with: the file's brackets do not balance (the caller knows
/// the grammar reported an error), as an error; `since` ends its message.
fn witnessed_bracket(source: &Source<'_>, language: Language, since: &str) -> Option<Diagnostic> {
    let Balance::Problem(problem) = brackets::balance(source.content, language) else {
        return None;
    };
    Some(Diagnostic {
        file: source.display_path.to_string(),
        line: problem.line,
        column: problem.column,
        severity: Severity::Error,
        validator: treesitter::validator_name(language),
        origin: crate::diagnostic::Origin::TreeSitter,
        message: format!(
            "{} (the {} grammar reports an error too{since})",
            problem.message(),
            language.name()
        ),
        snippet: crate::validate::snippet_at(source.content, problem.line, problem.column),
        subject: None,
    })
}

/// The severity of each finding under the grammar's trust.
fn severities(
    trust: Trust,
    found: &[SyntaxError],
    source: &Source<'_>,
    before: Option<&str>,
    language: Language,
) -> Vec<Severity> {
    let all = |severity| vec![severity; found.len()];
    match trust {
        Trust::Blocks => all(Severity::Error),
        Trust::Warns => all(Severity::Warning),
        Trust::Introduced => {
            let Some(before) = before.filter(|_| !source.added_everything()) else {
                return all(Severity::Warning);
            };
            if trust::only_comments(source.content, source.added, before, language) {
                return all(Severity::Warning);
            }
            // A before that cannot be parsed says nothing: nothing is known to be introduced.
            let Ok(before_errors) = errors(before, language, usize::MAX) else {
                return all(Severity::Warning);
            };
            let brackets_balance = brackets::balance(source.content, language) == Balance::Balanced;
            trust::introduced(
                found,
                source.content,
                source.added,
                &before_errors,
                before,
                brackets_balance,
            )
        }
    }
}

/// A template (Django, Jinja and ejs HTML): not the language until rendered.
fn is_template(language: Language, content: &str) -> bool {
    language
        .spec()
        .template_markers
        .iter()
        .any(|marker| content.contains(marker))
}

/// `content` with the known misreads of `language`'s grammar undone: its spec's rewrite
/// ([`crate::validate::rewrite`]).
pub(crate) fn prepare(language: Language, content: &str) -> Cow<'_, str> {
    match language.spec().rewrite {
        Some(rewrite) => rewrite(content),
        None => Cow::Borrowed(content),
    }
}

/// The first `limit` syntax errors of `content` after the known misreads are undone; `Err` says
/// why there are none to give (no grammar, out of time).
fn errors(content: &str, language: Language, limit: usize) -> Result<Vec<SyntaxError>, String> {
    let prepared = prepare(language, content);
    treesitter::parse_rewritten_errors(content, &prepared, language, limit)
}
