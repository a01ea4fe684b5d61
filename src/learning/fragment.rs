//! The smallest specific fragment a change removed: what a fixed review finding or a person's
//! correction teaches. `subprocess.run(cmd, shell=True)` → `subprocess.run(args)` teaches
//! `shell=True`; `ctx.check_hostname = False` → `ctx.check_hostname = True` teaches
//! `check_hostname = False`.
//!
//! A line is split into tokens (names, numbers, quoted strings, spaces, single punctuation
//! characters); the tokens both versions share at the start and the end are context, the rest of
//! the old line is what the change removed. Candidates are, smallest first, the fragments inside
//! what was removed, then fragments that widen it with its context (to the left first, where the
//! name a value belongs to stands: `check_hostname = False`, `yaml.load`).
//!
//! Invariants (*rather miss than false-alarm*): a fragment is never generic. It starts with a
//! name or a literal; it holds 2 to 4 *atoms* (non-keyword names, numbers, strings, and the
//! values `True`/`False`/`None`/`null`), at least one of them a name of 4 or more characters that
//! is not a keyword; its last atom is one the fix removed (not kept anywhere in the new line:
//! the safe `Loader=yaml.SafeLoader` holds `Loader=yaml` too); it has no `,` or `;`, no `import`/`from`/`require` (a module name alone is
//! not a lesson) and no closing bracket without its opening one; it is
//! at most 60 characters and passes [`precision::check`]; it does not occur in the new line. A
//! change that only added text, only touched punctuation or renamed a short name teaches nothing.
//! The project-wide rule (the fragment must not occur in the project's files) is the caller's.

use crate::learning::precision;
pub(crate) use crate::session::changed_lines::LineChange;

/// Longest fragment, in characters.
const MAX_CHARS: usize = 60;
/// Most atoms in a fragment: more is a line of ordinary code, not a specific mistake.
const MAX_ATOMS: usize = 4;
/// Fragments tried per change.
const MAX_CANDIDATES: usize = 8;
/// Lines longer than this are not split (minified code, data).
const MAX_LINE_CHARS: usize = 400;

/// Words that are values, not statements: they count as atoms (`= False` is about a value).
const VALUE_WORDS: &[&str] = &["true", "false", "none", "null", "nil", "undefined"];

/// Words that name what a file imports: a fragment holding one is about a module name alone
/// (`from app import models`), which teaches nothing.
const IMPORT_WORDS: &[&str] = &[
    "import", "from", "require", "use", "using", "include", "extern", "package", "mod",
];

/// Why a change teaches nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FragmentRefusal {
    #[error("the change removed nothing (it only added text), so there is nothing to warn about")]
    NothingRemoved,
    #[error("the change only touched punctuation or spacing ({0:?})")]
    OnlyPunctuation(String),
    #[error("the change only renamed a short name ({0:?}); a rename is not a lesson")]
    ShortName(String),
    #[error("no fragment of {0:?} around the change is specific enough")]
    NotSpecific(String),
    #[error("the line is longer than {MAX_LINE_CHARS} characters")]
    LineTooLong,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Number,
    Text,
    Space,
    Punct,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
}

impl Token<'_> {
    fn is_atom(&self) -> bool {
        match self.kind {
            Kind::Number | Kind::Text => true,
            Kind::Word => !precision::is_keyword(self.text) || is_value_word(self.text),
            Kind::Space | Kind::Punct => false,
        }
    }

    /// A name that says what the fragment is about (not a keyword, 4 characters or more).
    fn is_significant(&self) -> bool {
        self.kind == Kind::Word
            && self.text.chars().count() >= 4
            && !precision::is_keyword(self.text)
    }

    /// A literal value: a number, a string, `True`/`False`/`None`/`null`.
    fn is_value(&self) -> bool {
        matches!(self.kind, Kind::Number | Kind::Text)
            || (self.kind == Kind::Word && is_value_word(self.text))
    }
}

fn is_value_word(word: &str) -> bool {
    VALUE_WORDS.contains(&word.to_lowercase().as_str())
}

/// Splits a line into tokens; the tokens' texts concatenate to the line.
fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = line;
    while let Some(first) = rest.chars().next() {
        let length = if first.is_alphabetic() || first == '_' {
            run_length(rest, |c| c.is_alphanumeric() || c == '_')
        } else if first.is_ascii_digit() {
            run_length(rest, |c| c.is_alphanumeric() || c == '_' || c == '.')
        } else if first.is_whitespace() {
            run_length(rest, char::is_whitespace)
        } else if first == '"' || first == '\'' {
            quoted_length(rest, first).unwrap_or(first.len_utf8())
        } else {
            first.len_utf8()
        };
        let kind = match first {
            c if c.is_alphabetic() || c == '_' => Kind::Word,
            c if c.is_ascii_digit() => Kind::Number,
            c if c.is_whitespace() => Kind::Space,
            '"' | '\'' if length > 1 => Kind::Text,
            _ => Kind::Punct,
        };
        tokens.push(Token {
            kind,
            text: &rest[..length],
        });
        rest = &rest[length..];
    }
    tokens
}

fn run_length(text: &str, part: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .find(|(_, c)| !part(*c))
        .map_or(text.len(), |(index, _)| index)
}

/// The length of a quoted string starting at `text[0]`, closing quote included.
fn quoted_length(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (index, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == quote => return Some(index + c.len_utf8()),
            _ => {}
        }
    }
    None
}

/// The fragments of `old` that the change to `new` removed, best first (see the module docs).
/// `new` is empty when the line was removed.
pub(crate) fn removed_fragments(old: &str, new: &str) -> Result<Vec<String>, FragmentRefusal> {
    let (old, new) = (old.trim(), new.trim());
    if old.chars().count() > MAX_LINE_CHARS {
        return Err(FragmentRefusal::LineTooLong);
    }
    let tokens = tokenize(old);
    let (start, end) = changed_range(&tokens, &tokenize(new));
    let (start, end) = trim_spaces(&tokens, start, end);
    if start >= end {
        return Err(FragmentRefusal::NothingRemoved);
    }
    let changed = &tokens[start..end];
    let changed_text: String = changed.iter().map(|t| t.text).collect();
    if !changed.iter().any(Token::is_atom) {
        return Err(FragmentRefusal::OnlyPunctuation(changed_text));
    }
    if !changed.iter().any(|t| t.is_value() || t.is_significant()) {
        return Err(FragmentRefusal::ShortName(changed_text));
    }
    let mut windows = inner_windows(start, end);
    windows.extend(outer_windows(tokens.len(), start, end));
    let kept: Vec<&str> = tokenize(new).iter().map(|t| t.text).collect();
    let mut out: Vec<String> = Vec::new();
    for (from, to) in windows {
        let window = &tokens[from..to];
        let text: String = window.iter().map(|t| t.text).collect();
        if is_specific(window, &text)
            && ends_with_removed(window, &kept)
            && !new.contains(&text)
            && !out.contains(&text)
        {
            out.push(text);
            if out.len() == MAX_CANDIDATES {
                break;
            }
        }
    }
    if out.is_empty() {
        return Err(FragmentRefusal::NotSpecific(old.to_string()));
    }
    Ok(out)
}

/// What the fixes wrote in place of the trigger, as far as every one of them agrees: the
/// longest run of tokens all their replacements share. A replacement keeps the context the
/// trigger holds (`rejectUnauthorized: false` → `rejectUnauthorized: true`), or else the name
/// it belongs to (`yaml.safe_load` from `data = yaml.safe_load(fh)` and
/// `cfg = yaml.safe_load(stream)`), cut before a bracket it would leave open. `None` when a fix
/// removed the line, or the fixes share nothing specific: then no one file's names are put
/// forward as *the* fix.
pub(crate) fn common_replacement<'a>(
    trigger: &str,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<String> {
    let mut common: Option<Vec<String>> = None;
    for (old, new) in pairs {
        let replaced = replacement(trigger, old.trim(), new.trim())?;
        common = Some(match common {
            None => replaced,
            Some(known) => longest_shared_run(&known, &replaced),
        });
    }
    let common = common?;
    let tokens = tokenize_owned(&common);
    let tokens = &tokens[..balanced_prefix(&tokens)];
    let start = tokens.iter().position(|t| t.kind != Kind::Space)?;
    let end = tokens.iter().rposition(|t| t.kind != Kind::Space)? + 1;
    let kept = &tokens[start..end];
    let text: String = kept
        .iter()
        .any(|t| t.is_significant() || t.is_value())
        .then(|| kept.iter().map(|t| t.text).collect())?;
    Some(unquoted_name(trigger, text))
}

/// A replacement that is one quoted name, for a trigger that is a bare name (a package in an
/// import's string: `"fetch-retryx"` became `"p-retry"`), is the name: `p-retry`.
fn unquoted_name(trigger: &str, text: String) -> String {
    let is_quote = |c: char| matches!(c, '"' | '\'' | '`');
    let inner = text
        .strip_prefix(is_quote)
        .and_then(|rest| rest.strip_suffix(is_quote))
        .filter(|inner| {
            text.starts_with(|c: char| text.ends_with(c))
                && !inner.is_empty()
                && !inner.contains(|c: char| c.is_whitespace() || is_quote(c))
        });
    match inner {
        Some(inner) if !trigger.starts_with(is_quote) => inner.to_string(),
        _ => text,
    }
}

/// The new line's tokens that replaced the changed part, with the context `trigger` holds
/// around it in the old line, else widened to the left over the name they belong to (`yaml.`
/// before `safe_load`); `None` when the line was removed.
fn replacement(trigger: &str, old: &str, new: &str) -> Option<Vec<String>> {
    if new.is_empty() {
        return None;
    }
    let old_tokens = tokenize(old);
    let new_tokens = tokenize(new);
    let (start, old_end) = changed_range(&old_tokens, &new_tokens);
    let (_, new_end) = changed_range(&new_tokens, &old_tokens);
    if start >= new_end {
        return None;
    }
    let (left, right) = match token_span(&old_tokens, old, trigger) {
        Some((from, to)) => (start.saturating_sub(from), to.saturating_sub(old_end)),
        None => (0, 0),
    };
    let is_qualifier = |t: &Token<'_>| t.kind == Kind::Word || matches!(t.text, "." | ":");
    let left = if left > 0 {
        left
    } else {
        new_tokens[..start]
            .iter()
            .rev()
            .take_while(|t| is_qualifier(t))
            .count()
    };
    let end = (new_end + right).min(new_tokens.len());
    Some(
        new_tokens[start - left.min(start)..end]
            .iter()
            .map(|t| t.text.to_string())
            .collect(),
    )
}

/// The tokens of `line` that `trigger`'s first occurrence covers.
fn token_span(tokens: &[Token<'_>], line: &str, trigger: &str) -> Option<(usize, usize)> {
    let start = line.find(trigger)?;
    let end = start + trigger.len();
    let mut offset = 0;
    let (mut from, mut to) = (None, None);
    for (index, token) in tokens.iter().enumerate() {
        let token_end = offset + token.text.len();
        if from.is_none() && token_end > start {
            from = Some(index);
        }
        if token_end >= end {
            to = Some(index + 1);
            break;
        }
        offset = token_end;
    }
    Some((from?, to?))
}

/// The longest run of tokens `a` and `b` share (the first such run of `a`).
fn longest_shared_run(a: &[String], b: &[String]) -> Vec<String> {
    let mut best = (0, 0);
    for i in 0..a.len() {
        for j in 0..b.len() {
            let length = a[i..]
                .iter()
                .zip(&b[j..])
                .take_while(|(x, y)| x == y)
                .count();
            if length > best.1 {
                best = (i, length);
            }
        }
    }
    a[best.0..best.0 + best.1].to_vec()
}

/// How many leading tokens hold no bracket left open and none closed that was not opened:
/// `yaml.safe_load(` → `yaml.safe_load`.
fn balanced_prefix(tokens: &[Token<'_>]) -> usize {
    let mut open: Vec<usize> = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        match token.text {
            "(" | "[" | "{" if token.kind == Kind::Punct => open.push(index),
            ")" | "]" | "}" if token.kind == Kind::Punct && open.pop().is_none() => {
                return index;
            }
            _ => {}
        }
    }
    open.first().copied().unwrap_or(tokens.len())
}

fn tokenize_owned(tokens: &[String]) -> Vec<Token<'_>> {
    tokens.iter().flat_map(|text| tokenize(text)).collect()
}

/// A trigger chosen from a change, and the line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chosen<'a> {
    pub(crate) trigger: String,
    pub(crate) change: &'a LineChange,
}

/// Why no trigger could be chosen from a change: the first reason met.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoTrigger {
    #[error("{fragment:?} is still in the file after the change")]
    StillInFile { fragment: String },
    #[error(transparent)]
    Refused(#[from] FragmentRefusal),
    /// The caller's project-wide rule refused it.
    #[error(transparent)]
    NotAllowed(#[from] precision::Refusal),
    #[error("the change touched no line")]
    NoChange,
}

/// The first fragment of `changes` (in their order) that the text after the change (`after`)
/// no longer holds and that `allowed` accepts (the caller's project-wide rule); else why not,
/// for the first change.
pub(crate) fn choose<'a>(
    changes: &'a [LineChange],
    after: &str,
    allowed: impl Fn(&str) -> Result<(), precision::Refusal>,
) -> Result<Chosen<'a>, NoTrigger> {
    let mut first_refusal = None;
    for change in changes {
        let fragments = match removed_fragments(&change.old, &change.new) {
            Ok(fragments) => fragments,
            Err(refusal) => {
                first_refusal.get_or_insert(NoTrigger::Refused(refusal));
                continue;
            }
        };
        for fragment in fragments {
            if after.contains(&fragment) {
                first_refusal.get_or_insert(NoTrigger::StillInFile { fragment });
                continue;
            }
            match allowed(&fragment) {
                Ok(()) => {
                    return Ok(Chosen {
                        trigger: fragment,
                        change,
                    });
                }
                Err(refusal) => {
                    first_refusal.get_or_insert(NoTrigger::NotAllowed(refusal));
                }
            }
        }
    }
    Err(first_refusal.unwrap_or(NoTrigger::NoChange))
}

/// The old tokens the change replaced: everything between the common start and the common end.
fn changed_range(old: &[Token<'_>], new: &[Token<'_>]) -> (usize, usize) {
    let prefix = old
        .iter()
        .zip(new)
        .take_while(|(a, b)| a.text == b.text)
        .count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a.text == b.text)
        .count();
    (prefix, old.len() - suffix)
}

fn trim_spaces(tokens: &[Token<'_>], mut start: usize, mut end: usize) -> (usize, usize) {
    while start < end && tokens[start].kind == Kind::Space {
        start += 1;
    }
    while end > start && tokens[end - 1].kind == Kind::Space {
        end -= 1;
    }
    (start, end)
}

/// Every window inside `start..end`, shortest first (by token count, then position).
fn inner_windows(start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut windows = Vec::new();
    for length in 1..=end - start {
        for from in start..=end - length {
            windows.push((from, from + length));
        }
    }
    windows
}

/// Windows that contain `start..end` and widen it: to the left first, then to the right, then
/// both ways, each nearest first.
fn outer_windows(count: usize, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut windows: Vec<(usize, usize)> = (0..start).rev().map(|from| (from, end)).collect();
    windows.extend((end + 1..=count).map(|to| (start, to)));
    let mut both = Vec::new();
    for from in (0..start).rev() {
        for to in end + 1..=count {
            both.push((from, to));
        }
    }
    both.sort_by_key(|(from, to)| to - from);
    windows.extend(both);
    windows
}

/// Whether the window's last atom is one the fix removed (the new line has no such token):
/// what tells the wrong form from the right one is what was taken away. `Loader=yaml` of
/// `yaml.load(fh, Loader=yaml.FullLoader)` → `yaml.safe_load(fh)` ends with `yaml`, which the
/// fix kept and which the safe `Loader=yaml.SafeLoader` holds too; `yaml.FullLoader` does not.
fn ends_with_removed(window: &[Token<'_>], kept: &[&str]) -> bool {
    window
        .iter()
        .rev()
        .find(|t| t.is_atom())
        .is_some_and(|last| !kept.contains(&last.text))
}

/// The rules of the module docs, for one window.
fn is_specific(window: &[Token<'_>], text: &str) -> bool {
    let (Some(first), Some(last)) = (window.first(), window.last()) else {
        return false;
    };
    let ends_well = last.is_atom() || matches!(last.text, ")" | "]" | "}" | "(" | "[");
    if !first.is_atom() || !ends_well {
        return false;
    }
    let is_separator = |t: &Token<'_>| t.kind == Kind::Punct && matches!(t.text, "," | ";");
    let is_import = |t: &Token<'_>| t.kind == Kind::Word && IMPORT_WORDS.contains(&t.text);
    if window.iter().any(|t| is_separator(t) || is_import(t)) || has_unopened_closer(window) {
        return false;
    }
    let atoms = window.iter().filter(|t| t.is_atom()).count();
    (2..=MAX_ATOMS).contains(&atoms)
        && window.iter().any(Token::is_significant)
        && text.chars().count() <= MAX_CHARS
        && precision::check(text).is_ok()
}

fn has_unopened_closer(window: &[Token<'_>]) -> bool {
    let mut depth = 0usize;
    for token in window.iter().filter(|t| t.kind == Kind::Punct) {
        match token.text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => match depth.checked_sub(1) {
                Some(less) => depth = less,
                None => return true,
            },
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(old: &str, new: &str) -> Result<String, FragmentRefusal> {
        removed_fragments(old, new).map(|mut list| list.remove(0))
    }

    #[test]
    fn the_issue_examples() {
        let cases = [
            (
                "subprocess.run(cmd, shell=True)",
                "subprocess.run(args)",
                "shell=True",
            ),
            (
                "ctx.check_hostname = False",
                "ctx.check_hostname = True",
                "check_hostname = False",
            ),
            (
                "let color = DankeTheme.secondaryText",
                "let color = DankeTheme.textSecondary",
                "DankeTheme.secondaryText",
            ),
            (
                "data = yaml.load(f)",
                "data = yaml.safe_load(f)",
                "yaml.load",
            ),
            ("os.system(cmd)", "subprocess.run(args)", "os.system"),
            ("    timeout=5,", "    timeout=30,", "timeout=5"),
            (
                "data = yaml.load(fh, Loader=yaml.FullLoader)",
                "data = yaml.safe_load(fh)",
                "yaml.FullLoader",
            ),
        ];
        for (old, new, fragment) in cases {
            assert_eq!(first(old, new).as_deref(), Ok(fragment), "{old} → {new}");
        }
    }

    #[test]
    fn a_removed_line_teaches_its_specific_part() {
        assert_eq!(first("        shell=True,", "").unwrap(), "shell=True");
        assert_eq!(
            first(
                "    return open(path).read()",
                "    with open(path) as handle:"
            )
            .unwrap(),
            "open(path).read",
            "never a fragment the new line still holds, never a dangling `)`"
        );
    }

    #[test]
    fn nothing_generic_is_learned() {
        assert_eq!(
            first("import requests", "import httpx"),
            Err(FragmentRefusal::NotSpecific("import requests".into())),
            "a module name alone"
        );
        assert!(matches!(
            first("return True", "return False"),
            Err(FragmentRefusal::NotSpecific(_))
        ));
        assert!(matches!(
            first("if x:", "if y:"),
            Err(FragmentRefusal::ShortName(_))
        ));
        assert!(matches!(
            first("x = compute(y);", "x = compute(y)"),
            Err(FragmentRefusal::OnlyPunctuation(_))
        ));
        assert_eq!(
            first("foo(a, b)", "foo(a, b, c)"),
            Err(FragmentRefusal::NothingRemoved)
        );
        assert!(first("import os", "").is_err(), "import and a module name");
        assert!(first("from app import models", "from app import views").is_err());
        assert!(
            first("ok = True", "ok = False").is_err(),
            "a short name and a value"
        );
        assert!(first("True", "False").is_err());
        assert!(first("}, {", "").is_err());
    }

    #[test]
    fn the_fix_is_what_every_sighting_wrote() {
        assert_eq!(
            common_replacement(
                "yaml.FullLoader",
                [
                    (
                        "data = yaml.load(fh, Loader=yaml.FullLoader)",
                        "data = yaml.safe_load(fh)"
                    ),
                    (
                        "cfg = yaml.load(stream, Loader=yaml.FullLoader)",
                        "cfg = yaml.safe_load(stream)"
                    ),
                ]
            )
            .as_deref(),
            Some("yaml.safe_load")
        );
        // `args` is an ordinary name: no fix to put forward.
        assert_eq!(
            common_replacement(
                "shell=True",
                [("subprocess.run(cmd, shell=True)", "subprocess.run(args)")]
            ),
            None,
        );
        assert_eq!(
            common_replacement("os.system", [("os.system(cmd)", "subprocess.run(argv)")])
                .as_deref(),
            Some("subprocess.run")
        );
        assert_eq!(
            common_replacement(
                "check_hostname = False",
                [("ctx.check_hostname = False", "ctx.check_hostname = True")]
            )
            .as_deref(),
            Some("check_hostname = True")
        );
        assert_eq!(
            common_replacement("fastyaml", [("import fastyaml", "import yaml")]).as_deref(),
            Some("yaml")
        );
        // A package named in an import's string: the package, not its quotes.
        assert_eq!(
            common_replacement(
                "fetch-retryx",
                [(
                    "import { retry } from \"fetch-retryx\";",
                    "import { retry } from \"p-retry\";"
                )]
            )
            .as_deref(),
            Some("p-retry")
        );
        assert_eq!(
            common_replacement("'latin1'", [("open(p, 'latin1')", "open(p, 'utf-8')")]).as_deref(),
            Some("'utf-8'")
        );
        // Two fixes that share nothing specific name no fix; a removed line names none.
        assert_eq!(
            common_replacement(
                "fetch(a",
                [
                    ("x = fetch(a)", "x = load(a)"),
                    ("y = fetch(b)", "y = read(b)")
                ]
            ),
            None
        );
        assert_eq!(
            common_replacement("shell=True", [("shell=True,", "")]),
            None
        );
        assert_eq!(
            common_replacement(
                "rejectUnauthorized: false",
                [("rejectUnauthorized: false,", "rejectUnauthorized: true,")]
            )
            .as_deref(),
            Some("rejectUnauthorized: true")
        );
        assert_eq!(
            common_replacement(
                "DankeTheme.secondaryText",
                [(
                    "let color = DankeTheme.secondaryText",
                    "let color = DankeTheme.textSecondary"
                )]
            )
            .as_deref(),
            Some("DankeTheme.textSecondary")
        );
    }

    #[test]
    fn tokens_rebuild_the_line() {
        let line = r#"  x = f("a, \"b\"", 'c') + 1.5e3 # ünïcode"#;
        let rebuilt: String = tokenize(line).iter().map(|t| t.text).collect();
        assert_eq!(rebuilt, line);
        let kinds: Vec<Kind> = tokenize(r#"f("a, b")"#).iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [Kind::Word, Kind::Punct, Kind::Text, Kind::Punct]);
    }
}
