//! Whether a blocking finding is concrete: a P1/P2 keeps its severity only when its
//! `wrong_output` names an input or a call *and* an observed wrong result — a verb that reports
//! what happened (returns, raises, prints, writes, takes, crashes, …) with a value or behaviour, or
//! "instead of" / "→" with one. [`Vagueness`] is the rule that failed, with its reason, so the
//! person sees why a finding does not block.
//!
//! Invariants: a pure function of the text (so the reason can be recomputed from a recorded
//! finding); when in doubt between two readings the finding stays blocking only if both an input
//! and a concrete result are found — "this could cause issues" and "returns wrong value" never are.

use std::fmt;

use crate::session::finding::Finding;

/// Why a wrong output is not concrete enough to block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vagueness {
    /// No wrong output at all, or a stock phrase ("n/a", the prompt's own template).
    Missing,
    /// No input, value or call is named: nobody can reproduce it.
    NoInput,
    /// No observed result: nothing returned, raised, printed, written or crashed.
    NoResult,
    /// A result verb with only a placeholder after it ("returns wrong value", "raises an error").
    PlaceholderResult,
}

impl Vagueness {
    /// The one-line reason shown to the person and the agent.
    pub(crate) fn why(self) -> &'static str {
        match self {
            Vagueness::Missing => "it names no wrong output",
            Vagueness::NoInput => "its wrong output names no input or call to reproduce it with",
            Vagueness::NoResult => {
                "its wrong output names no observed wrong result (what is returned, raised or printed)"
            }
            Vagueness::PlaceholderResult => {
                "its wrong output names no actual value or behaviour (\"wrong value\" is not one)"
            }
        }
    }
}

impl fmt::Display for Vagueness {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.why())
    }
}

/// Why a recorded finding the reviewer called P1/P2 does not block — recomputed from its wrong
/// output (a pure rule), with the plain reason when the rule has changed since it was recorded.
pub(crate) fn of(finding: &Finding) -> Option<Vagueness> {
    if !finding.downgraded {
        return None;
    }
    Some(
        judge(&finding.wrong_output)
            .err()
            .unwrap_or(Vagueness::Missing),
    )
}

/// Judges a finding's `wrong_output`: `Ok` when it may block.
pub(crate) fn judge(wrong_output: &str) -> Result<(), Vagueness> {
    let text = wrong_output.trim();
    let lowered = text.trim_end_matches('.').to_lowercase();
    if lowered.chars().filter(|c| c.is_alphanumeric()).count() < 6
        || STOCK.contains(&lowered.as_str())
        || lowered.starts_with(TEMPLATE)
    {
        return Err(Vagueness::Missing);
    }
    let tokens = tokens(text);
    let result = observed_result(&tokens);
    if !names_input(text, &tokens) {
        return Err(Vagueness::NoInput);
    }
    result
}

/// Stock answers that are no wrong output.
const STOCK: [&str; 5] = ["n/a", "none", "unknown", "tbd", "see title"];

/// The prompt's own template, copied instead of filled in.
const TEMPLATE: &str = "these inputs -> this wrong result";

/// Verbs that report a behaviour by themselves ("f(0) crashes"), as stems (see [`is_form_of`]).
const BEHAVIOUR_STEMS: [&str; 8] = [
    "crash",
    "panic",
    "hang",
    "deadlock",
    "segfault",
    "abort",
    "overflow",
    "underflow",
];

/// Behaviour words a stem does not cover ("the process is killed", "loops forever").
const OTHER_BEHAVIOURS: [&str; 8] = [
    "panicked", "hung", "killed", "timed", "timeout", "forever", "twice", "froze",
];

/// Verbs that report a result only with a value or behaviour after them ("returns None"), as
/// stems: `return` matches return, returns and returned (see [`is_result_verb`]; not the `-ing`
/// form, which reads as a noun or an adjective as often: "missing validation").
const RESULT_STEMS: [&str; 70] = [
    "return",
    "raise",
    "throw",
    "print",
    "output",
    "yield",
    "give",
    "evaluate",
    "produce",
    "emit",
    "write",
    "show",
    "display",
    "log",
    "send",
    "run",
    "execute",
    "take",
    "need",
    "become",
    "delete",
    "remove",
    "overwrite",
    "lose",
    "leak",
    "cause",
    "fail",
    "error",
    "exit",
    "drop",
    "skip",
    "ignore",
    "accept",
    "reject",
    "store",
    "save",
    "read",
    "allocate",
    "truncate",
    "duplicate",
    "count",
    "charge",
    "deduct",
    "apply",
    "add",
    "sum",
    "convert",
    "round",
    "allow",
    "block",
    "pass",
    "divide",
    "multiply",
    "visit",
    "iterate",
    "miss",
    "omit",
    "include",
    "exclude",
    "call",
    "open",
    "create",
    "corrupt",
    "exceed",
    "parse",
    "sort",
    "match",
    "bypass",
    "expose",
    "use",
];

/// Result verbs whose forms a stem does not cover.
const IRREGULAR_RESULT_VERBS: [&str; 18] = [
    "threw", "thrown", "wrote", "written", "gave", "given", "took", "taken", "ran", "lost", "sent",
    "shown", "became", "logged", "emitted", "dropped", "skipped", "applies",
];

/// Whether `word` is a form of a result verb (`returns`, `returned`, `divides`, `threw`).
fn is_result_verb(word: &str) -> bool {
    IRREGULAR_RESULT_VERBS.contains(&word) || is_form_of(word, &RESULT_STEMS)
}

/// Whether `word` reports a behaviour by itself (`crashes`, `hung`, `killed`).
fn is_behaviour(word: &str) -> bool {
    OTHER_BEHAVIOURS.contains(&word) || is_form_of(word, &BEHAVIOUR_STEMS)
}

/// Whether `word` is one of the stems with a regular verb ending (`-s`, `-es`, `-ed`, `-d`).
fn is_form_of(word: &str, stems: &[&str]) -> bool {
    stems.iter().any(|stem| {
        word.strip_prefix(stem)
            .is_some_and(|suffix| matches!(suffix, "" | "s" | "es" | "ed" | "d"))
    })
}

/// Words that say nothing about what went wrong: a result made only of these is a placeholder.
const PLACEHOLDERS: [&str; 72] = [
    "a",
    "an",
    "the",
    "some",
    "any",
    "this",
    "that",
    "it",
    "its",
    "to",
    "be",
    "in",
    "for",
    "of",
    "on",
    "at",
    "with",
    "when",
    "cases",
    "case",
    "certain",
    "situations",
    "scenarios",
    "sometimes",
    "possibly",
    "maybe",
    "potentially",
    "likely",
    "might",
    "may",
    "could",
    "can",
    "would",
    "should",
    "will",
    "wrong",
    "incorrect",
    "incorrectly",
    "wrongly",
    "bad",
    "invalid",
    "unexpected",
    "unexpectedly",
    "erroneous",
    "improper",
    "broken",
    "inconsistent",
    "value",
    "values",
    "result",
    "results",
    "output",
    "outputs",
    "data",
    "something",
    "anything",
    "things",
    "thing",
    "stuff",
    "issue",
    "issues",
    "problem",
    "problems",
    "bug",
    "bugs",
    "behavior",
    "behaviour",
    "error",
    "errors",
    "exception",
    "exceptions",
    "failure",
];

/// Words that name an input without code ("for an empty list", "when the file is missing").
const INPUT_WORDS: [&str; 15] = [
    "parallel",
    "empty",
    "none",
    "null",
    "nil",
    "nan",
    "zero",
    "negative",
    "missing",
    "unicode",
    "non-ascii",
    "utf-8",
    "newline",
    "whitespace",
    "concurrent",
];

/// One whitespace-separated token: its words for matching, and whether a clause ends after it.
struct Token {
    word: String,
    ends_clause: bool,
    /// Written as code (`save()`, `` `take` ``): a name, never a result verb.
    is_code: bool,
}

fn tokens(text: &str) -> Vec<Token> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    raw.iter()
        .map(|piece| {
            let ends_clause =
                piece.ends_with([';', ',', ':', '!', '?', '.']) && !piece.ends_with("..");
            let word = piece
                .trim_matches(|c: char| !c.is_alphanumeric() && !"_-'\"`→>".contains(c))
                .trim_matches(['\'', '"', '`'])
                .to_lowercase();
            let is_code = piece.contains(['(', '`']);
            Token {
                word,
                ends_clause,
                is_code,
            }
        })
        .collect()
}

/// A result: a behaviour verb, a result verb or "instead of" / an arrow followed by something that
/// is not a placeholder.
fn observed_result(tokens: &[Token]) -> Result<(), Vagueness> {
    let mut saw_marker = false;
    for (index, token) in tokens.iter().enumerate() {
        let word = token.word.as_str();
        if !token.is_code && is_behaviour(word) {
            return Ok(());
        }
        let is_marker = (!token.is_code && is_result_verb(word))
            || matches!(word, "→" | "->" | "=>" | ">")
            || (word == "instead" && tokens.get(index + 1).is_some_and(|next| next.word == "of"));
        if !is_marker {
            continue;
        }
        saw_marker = true;
        if has_substance(&tokens[index + 1..]) {
            return Ok(());
        }
    }
    Err(if saw_marker {
        Vagueness::PlaceholderResult
    } else {
        Vagueness::NoResult
    })
}

/// Whether the clause after a result marker names anything beyond placeholders.
fn has_substance(rest: &[Token]) -> bool {
    for token in rest {
        let word = token.word.as_str();
        let is_verb = !token.is_code && is_result_verb(word);
        if !word.is_empty() && word != "of" && !is_verb && !PLACEHOLDERS.contains(&word) {
            return true;
        }
        if token.ends_clause {
            return false;
        }
    }
    false
}

/// An input: a call (`f(`), code in backticks, a quoted value, a flag, a path or file name, a
/// number, an identifier in code form (`snake_case`, `CamelCase`, `a.b`) or an input word.
fn names_input(text: &str, tokens: &[Token]) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let is_call = chars
        .windows(2)
        .any(|pair| pair[1] == '(' && (pair[0].is_alphanumeric() || pair[0] == '_'));
    if is_call || text.matches('`').count() >= 2 || text.matches('"').count() >= 2 {
        return true;
    }
    if quoted_with_single_quotes(&chars) || chars.iter().any(char::is_ascii_digit) {
        return true;
    }
    text.split_whitespace().any(is_code_like)
        || tokens
            .iter()
            .any(|token| INPUT_WORDS.contains(&token.word.as_str()))
}

/// `'x'`: two single quotes that are not apostrophes inside a word (`doesn't`).
fn quoted_with_single_quotes(chars: &[char]) -> bool {
    let quotes = chars
        .iter()
        .enumerate()
        .filter(|(index, c)| {
            **c == '\''
                && !(index
                    .checked_sub(1)
                    .is_some_and(|before| chars[before].is_alphanumeric())
                    && chars
                        .get(index + 1)
                        .is_some_and(|after| after.is_alphanumeric()))
        })
        .count();
    quotes >= 2
}

/// A token written like code: a flag, a path, `snake_case`, `CamelCase` or `a.b`.
fn is_code_like(piece: &str) -> bool {
    let piece = piece.trim_matches(|c: char| ",;:!?()[]{}".contains(c));
    let piece = piece.strip_suffix('.').unwrap_or(piece);
    if matches!(piece.to_lowercase().as_str(), "e.g" | "i.e" | "etc" | "vs") {
        return false;
    }
    let inner = |separator: char| {
        piece.split(separator).count() > 1
            && piece
                .split(separator)
                .all(|part| part.chars().next().is_some_and(char::is_alphanumeric))
    };
    let camel = piece
        .chars()
        .zip(piece.chars().skip(1))
        .any(|(first, second)| first.is_lowercase() && second.is_uppercase());
    piece.starts_with("--")
        || inner('/')
        || inner('.')
        || (piece.contains('_') && piece.chars().any(char::is_alphanumeric))
        || camel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_wrong_outputs_may_block() {
        for text in [
            "f([]) raises IndexError",
            "f(None) raises TypeError",
            "g(2) returns 5 instead of 4",
            "f(0) divides by zero and crashes",
            "load(10k rows) takes 40 s: quadratic scan",
            "load('missing.txt') returns None; render(load(p)) then raises TypeError",
            "to_usd(1000, 4.0) returns 4000.0 instead of 250.0",
            "to_usd(100, 'NGN', 2019) returns 0.27 instead of 0.28",
            "run('x; rm -rf ~') runs rm -rf ~ through the shell",
            "load(evil) runs os.system",
            "load('2GB.log') needs 2 GB of memory and the process is killed",
            "parse_date('2024-02-30') returns a datetime for March 1",
            "`car check --json a.py` prints nothing and exits 0",
            "sorting an empty list raises IndexError",
            "mean([1, 10]) → 10",
            "GET /items/7 after DELETE returns 200 with the old body",
            "with two parallel writers the second save overwrites the first's lessons",
            "ConfigLoader.read() on a missing file returns {} instead of raising",
            "for a negative amount, charge() deducts twice",
            "total(\"€5\") raises ValueError",
            "f(1) returns 3",
            "average(items) divides by zero when items is empty",
            "for n=3 the loop visits only indices 0 and 1",
            "`--dry-run` still deletes the files under build/",
            "save() called twice in parallel writes version 4 twice, losing one update",
            "render(user) threw KeyError: 'name'",
            "None from load('x') makes render() raise TypeError",
            "a 3 GB upload hangs the worker",
        ] {
            assert_eq!(judge(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn vague_wrong_outputs_never_block() {
        for (text, why) in [
            ("", Vagueness::Missing),
            ("n/a", Vagueness::Missing),
            ("TBD.", Vagueness::Missing),
            ("-", Vagueness::Missing),
            ("None", Vagueness::Missing),
            ("bug", Vagueness::Missing),
            (
                "these inputs -> this wrong result (required for P1/P2)",
                Vagueness::Missing,
            ),
            ("this could cause issues", Vagueness::NoInput),
            ("may cause issues", Vagueness::NoInput),
            ("could lead to bugs", Vagueness::NoInput),
            ("potential bug in the error handling", Vagueness::NoInput),
            (
                "unexpected behavior under some conditions",
                Vagueness::NoInput,
            ),
            ("returns wrong value", Vagueness::NoInput),
            ("returns the wrong value in some cases", Vagueness::NoInput),
            (
                "the function might not handle all cases",
                Vagueness::NoInput,
            ),
            ("raises an exception", Vagueness::NoInput),
            ("it doesn't work correctly", Vagueness::NoInput),
            ("f(x) is not robust", Vagueness::NoResult),
            ("load('a.txt') is problematic", Vagueness::NoResult),
            ("f(0) returns wrong value", Vagueness::PlaceholderResult),
            (
                "f(0) returns an incorrect result",
                Vagueness::PlaceholderResult,
            ),
            ("parse(\"x\") raises an error", Vagueness::PlaceholderResult),
            (
                "process_items() could cause problems",
                Vagueness::PlaceholderResult,
            ),
            (
                "save() may produce unexpected output",
                Vagueness::PlaceholderResult,
            ),
            (
                "missing validation could cause issues",
                Vagueness::PlaceholderResult,
            ),
            ("passing None could lead to problems", Vagueness::NoResult),
            ("load() uses the wrong value", Vagueness::PlaceholderResult),
        ] {
            assert_eq!(judge(text), Err(why), "{text}");
        }
    }

    #[test]
    fn every_reason_says_what_is_missing() {
        for vagueness in [
            Vagueness::Missing,
            Vagueness::NoInput,
            Vagueness::NoResult,
            Vagueness::PlaceholderResult,
        ] {
            assert!(vagueness.to_string().starts_with("it"), "{vagueness}");
        }
    }
}
