//! Required literals of a regex trigger: strings one of which occurs in the text whenever the
//! pattern matches it. The matcher feeds them to its one Aho-Corasick automaton and compiles and
//! runs a regex only when one of its keywords is present.
//!
//! Invariant (checked by a property test in `matcher`): if the pattern matches a text, at least
//! one returned keyword occurs in that text, compared ASCII-case-insensitively. When that cannot
//! be guaranteed (negative lookaround only, backreferences, `(?i)` with `k`/`s`, whose Unicode
//! case folding reaches the Kelvin sign and long s, non-ASCII case-insensitive text) the answer is
//! `None`, and the regex is simply always run.

use fancy_regex::{Expr, LookAround};

/// Keywords shorter than this would hit almost every edit; the regex then runs unconditionally.
pub(crate) const MIN_KEYWORD_BYTES: usize = 3;

/// Alternatives, one of which every match's text contains; `None` when unknown.
pub fn required_literals(pattern: &str) -> Option<Vec<String>> {
    let tree = Expr::parse_tree(pattern).ok()?;
    let alternatives = required(&tree.expr)?;
    if alternatives.is_empty()
        || alternatives
            .iter()
            .any(|keyword| keyword.len() < MIN_KEYWORD_BYTES)
    {
        return None;
    }
    Some(alternatives)
}

/// The exact text `expr` matches, when it is a fixed string safe for ASCII-insensitive search.
fn exact(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Empty => Some(String::new()),
        Expr::Literal { val, casei } => is_safe_literal(val, *casei).then(|| val.clone()),
        Expr::Group(inner) => exact(inner),
        Expr::Concat(children) => {
            let mut text = String::new();
            for child in children {
                text.push_str(&exact(child)?);
            }
            Some(text)
        }
        _ => None,
    }
}

fn is_safe_literal(value: &str, case_insensitive: bool) -> bool {
    !case_insensitive
        || (value.is_ascii() && !value.chars().any(|c| matches!(c, 'k' | 'K' | 's' | 'S')))
}

fn required(expr: &Expr) -> Option<Vec<String>> {
    if let Some(text) = exact(expr) {
        return (!text.is_empty()).then(|| vec![text]);
    }
    match expr {
        Expr::Group(inner) => required(inner),
        Expr::AtomicGroup(inner) => required(inner),
        Expr::Concat(children) => required_in_concat(children),
        Expr::Alt(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(required(branch)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        Expr::Repeat { child, lo, .. } if *lo >= 1 => required(child),
        // What a positive lookaround sees must be in the text, even outside the match.
        Expr::LookAround(inner, LookAround::LookAhead | LookAround::LookBehind) => required(inner),
        _ => None,
    }
}

/// The best requirement among the runs of fixed text and the children of a concatenation.
fn required_in_concat(children: &[Expr]) -> Option<Vec<String>> {
    let mut options: Vec<Vec<String>> = Vec::new();
    let mut run = String::new();
    for child in children {
        if let Some(text) = exact(child) {
            run.push_str(&text);
            continue;
        }
        if !run.is_empty() {
            options.push(vec![std::mem::take(&mut run)]);
        }
        if let Some(alternatives) = required(child) {
            options.push(alternatives);
        }
    }
    if !run.is_empty() {
        options.push(vec![run]);
    }
    options.into_iter().max_by_key(|alternatives| {
        let shortest = alternatives.iter().map(String::len).min().unwrap_or(0);
        (shortest, std::cmp::Reverse(alternatives.len()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keywords(pattern: &str) -> Option<Vec<String>> {
        required_literals(pattern)
    }

    #[test]
    fn literal_runs_and_alternations() {
        assert_eq!(keywords(r"re\.compile\("), Some(vec!["re.compile(".into()]));
        assert_eq!(
            keywords(r"(?<!_)re\.compile"),
            Some(vec!["re.compile".into()])
        );
        assert_eq!(keywords(r"\b(foo|barbaz)Bar\d+"), Some(vec!["Bar".into()]));
        assert_eq!(
            keywords(r"(?:import|from) os\.path"),
            Some(vec![" os.path".into()])
        );
        assert_eq!(
            keywords(r"\w+(alpha|gamma)\d"),
            Some(vec!["alpha".into(), "gamma".into()])
        );
    }

    #[test]
    fn unknown_when_unsafe() {
        assert_eq!(keywords(r"^(a+)+$"), None);
        assert_eq!(keywords(r"(?i)mask"), None);
        assert_eq!(keywords(r"(?i)print"), Some(vec!["print".into()]));
        assert_eq!(keywords(r"(?!abc)\w+"), None);
        assert_eq!(keywords(r"(\w+) \1"), None);
        assert_eq!(keywords(r"ab"), None);
        assert_eq!(keywords(r"(?=foo)\w+"), Some(vec!["foo".into()]));
        assert_eq!(keywords(r"(foo)?barx"), Some(vec!["barx".into()]));
    }
}
