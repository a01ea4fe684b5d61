//! What the fixes wrote in place of a learned trigger, for a lesson's "Write `B`, not `A`." when
//! the trigger is a checker's subject (a module, a reference): the longest run of tokens every
//! fix's replacement shares, so no one file's names are put forward as *the* fix.
//!
//! Invariants: `None` rather than a guess: a fix that removed its line, or fixes that share
//! nothing specific (a name of 4 characters or more, or a value), name no replacement.

use crate::learning::tokens::{Kind, Token, changed_range, tokenize};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
