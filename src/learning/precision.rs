//! What a learned trigger must be: *rather miss than false-alarm* (the lesson system's precision
//! rule).
//!
//! Only a validator error with a specific subject teaches (a module that does not exist, a
//! reference a custom rule says is undefined, an external checker's coded finding); a syntax slip
//! has none and teaches nothing. The subject becomes the trigger only when it passes these rules,
//! each refusal carrying a reason a person can read:
//! - shorter than 4 characters (`fi`, `,}`, `x`): such strings occur everywhere;
//! - not a name: a quoted string (`'data.csv'`) or text with spaces, commas or semicolons;
//! - no letter at all (punctuation, numbers);
//! - a bare keyword, builtin or common identifier of the languages car checks (`import`,
//!   `items`, `path`, `self`, `echo`, …), or a dotted name made only of those (`self.items`).
//!
//! Whether a trigger fires on the project's correct code is not decided here by a text search:
//! [`crate::learning::verification`] runs the lesson's own matcher over the project's files.

/// Why a trigger was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{0:?} is shorter than 4 characters")]
    TooShort(String),
    #[error("{0:?} is a bare language keyword or a common identifier")]
    Keyword(String),
    #[error("{0:?} is made only of short or common words ({1}), which occur everywhere")]
    CommonWords(String, String),
    #[error("{0:?} is not a name (a quoted string, or it holds spaces, commas or semicolons)")]
    NotAName(String),
    #[error("{0:?} has no letters (punctuation, spaces or a number)")]
    NoWord(String),
}

/// Keywords and ubiquitous builtins of the languages car checks (Python, JS/TS, Rust, shell, Go,
/// JSON), compared case-insensitively.
const KEYWORDS: &[&str] = &[
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "crate",
    "def",
    "default",
    "defer",
    "del",
    "delete",
    "do",
    "done",
    "dyn",
    "echo",
    "elif",
    "else",
    "enum",
    "esac",
    "except",
    "export",
    "extends",
    "false",
    "fi",
    "finally",
    "fn",
    "for",
    "from",
    "func",
    "function",
    "global",
    "go",
    "if",
    "impl",
    "implements",
    "import",
    "in",
    "interface",
    "is",
    "lambda",
    "let",
    "local",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "new",
    "none",
    "nonlocal",
    "not",
    "null",
    "or",
    "package",
    "pass",
    "print",
    "private",
    "protected",
    "pub",
    "public",
    "raise",
    "range",
    "readonly",
    "return",
    "self",
    "static",
    "string",
    "struct",
    "super",
    "switch",
    "then",
    "this",
    "throw",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unsafe",
    "use",
    "var",
    "void",
    "where",
    "while",
    "with",
    "yield",
    "number",
    "boolean",
    "object",
    "println",
    "console",
    "require",
    "module",
    "exports",
    "fmt",
    "main",
    "test",
    "cls",
    "args",
    "kwargs",
    "value",
    "error",
    "result",
    "data",
];

/// Identifiers and builtins so common in real code that a trigger made of them fires on valid
/// edits (`for k, v in x.items()`, `os.path.join`), compared case-insensitively.
const COMMON: &[&str] = &[
    "item",
    "items",
    "path",
    "paths",
    "name",
    "names",
    "file",
    "files",
    "line",
    "lines",
    "text",
    "list",
    "dict",
    "keys",
    "values",
    "index",
    "count",
    "config",
    "options",
    "params",
    "request",
    "response",
    "model",
    "user",
    "node",
    "self",
    "info",
    "size",
    "length",
    "format",
    "input",
    "output",
    "state",
    "event",
    "context",
    "client",
    "server",
    "session",
    "logger",
    "time",
    "date",
    "json",
    "yaml",
    "http",
    "util",
    "utils",
    "helpers",
    "common",
    "base",
    "core",
    "tests",
    "view",
    "views",
    "form",
    "message",
    "content",
    "source",
    "target",
    "parent",
    "child",
    "children",
    "root",
    "temp",
    "buffer",
    "stream",
    "handler",
    "callback",
    "props",
    "results",
    "errors",
    "exception",
    "open",
    "isinstance",
    "property",
    "classmethod",
    "staticmethod",
    "append",
    "extend",
    "update",
    "join",
    "split",
    "strip",
    "replace",
    "startswith",
    "endswith",
    "lower",
    "upper",
    "encode",
    "decode",
    "read",
    "write",
    "close",
    "exists",
    "mkdir",
    "remove",
    "sort",
    "sorted",
    "reversed",
    "enumerate",
    "filter",
    "float",
    "bool",
    "bytes",
    "tuple",
    "frozenset",
    "iter",
    "each",
    "foreach",
    "for_each",
    "next",
    "document",
    "window",
    "then",
    "promise",
    "push",
    "style",
    "classname",
    "unwrap",
    "clone",
    "into",
    "collect",
    "some",
    "vec",
    "option",
    "exit",
    "source",
    "with",
    "items()",
    "keys()",
    "values()",
];

/// The static rules for a learned trigger (an error's subject): a name, and specific.
pub(crate) fn check_subject(trigger: &str) -> Result<(), Refusal> {
    let trimmed = trigger.trim();
    let is_quoted = trimmed.len() > 1
        && trimmed.starts_with(['\'', '"', '`'])
        && trimmed.ends_with(['\'', '"', '`']);
    if is_quoted || trimmed.contains(|c: char| c.is_whitespace() || matches!(c, ',' | ';')) {
        return Err(Refusal::NotAName(trigger.to_string()));
    }
    check(trigger)
}

/// Whether `word` is a bare language keyword or ubiquitous builtin (case-insensitive), whatever
/// its length: callers that judge the words of a pattern one by one (`tokens`) need the answer
/// for `def` and `let` too, which [`check`] refuses as too short first.
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word.to_lowercase().as_str())
}

/// The static rules for any required text (a learned trigger, a distilled pattern's literals):
/// long enough, with a letter, not a keyword or common identifier.
pub(crate) fn check(trigger: &str) -> Result<(), Refusal> {
    let trimmed = trigger.trim();
    if trimmed.chars().count() < 4 {
        return Err(Refusal::TooShort(trigger.to_string()));
    }
    if !trimmed.chars().any(char::is_alphabetic) {
        return Err(Refusal::NoWord(trigger.to_string()));
    }
    let is_common = |word: &str| {
        let word = word.to_lowercase();
        word.chars().count() < 4
            || KEYWORDS.contains(&word.as_str())
            || COMMON.contains(&word.as_str())
    };
    let bare = trimmed.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
    if is_common(bare) {
        return Err(Refusal::Keyword(trigger.to_string()));
    }
    let segments: Vec<&str> = bare
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|segment| !segment.is_empty())
        .collect();
    if segments.iter().all(|segment| is_common(segment)) {
        return Err(Refusal::CommonWords(
            trigger.to_string(),
            segments
                .iter()
                .map(|segment| format!("`{segment}`"))
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    Ok(())
}

/// Words of advice that say nothing about what to do differently ("Check before editing.",
/// "Be careful with this code."), compared case-insensitively.
const ADVICE_WORDS: &[&str] = &[
    "check",
    "checks",
    "checking",
    "verify",
    "confirm",
    "careful",
    "carefully",
    "sure",
    "make",
    "ensure",
    "before",
    "after",
    "editing",
    "edit",
    "edits",
    "changing",
    "change",
    "changes",
    "writing",
    "write",
    "code",
    "this",
    "that",
    "these",
    "those",
    "with",
    "first",
    "always",
    "never",
    "double",
    "test",
    "tests",
    "testing",
    "review",
    "grep",
    "look",
    "think",
    "again",
    "please",
    "works",
    "work",
    "correct",
    "correctly",
    "properly",
    "right",
    "thing",
    "things",
    "everything",
    "anything",
    "the",
    "and",
    "for",
    "you",
    "your",
    "are",
    "was",
    "not",
    "all",
    "any",
    "when",
    "what",
    "then",
    "also",
    "more",
    "less",
    "good",
    "bad",
    "better",
    "best",
    "practice",
    "practices",
    "avoid",
    "mistakes",
    "mistake",
    "errors",
    "error",
    "bugs",
    "bug",
    "issue",
    "issues",
    "attention",
    "pay",
    "take",
    "time",
    "here",
    "there",
    "things",
];

/// Whether a lesson's text is generic advice ("Check before editing.", "Be careful with this
/// code; grep first."): no code (backticks, a name written like code, a quoted value) and no
/// word beyond the words of advice. Seed 003: such a rule is discarded.
pub(crate) fn is_generic_advice(text: &str) -> bool {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| ",;:!?.\"'()[]{}".contains(c)))
        .filter(|word| !word.is_empty())
        .collect();
    let is_code = |word: &&str| {
        let inner_capital = word.chars().next().is_some_and(char::is_lowercase)
            && word.chars().skip(1).any(char::is_uppercase);
        (word.contains(['.', '_', '(', '=']) && word.chars().any(char::is_alphabetic))
            || word.contains("::")
            || inner_capital
    };
    let says_something = |word: &&str| {
        word.chars().count() >= 3 && !ADVICE_WORDS.contains(&word.to_lowercase().as_str())
    };
    let concrete = text.contains('`')
        || text.matches('"').count() >= 2
        || words.iter().any(is_code)
        || words.iter().any(says_something);
    !concrete
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_rules() {
        assert!(matches!(check("fi"), Err(Refusal::TooShort(_))));
        assert!(matches!(check("return"), Err(Refusal::Keyword(_))));
        assert!(matches!(check("import"), Err(Refusal::Keyword(_))));
        assert!(matches!(check("(None)"), Err(Refusal::Keyword(_))));
        assert_eq!(
            check("rm -rf /").unwrap_err().to_string(),
            "\"rm -rf /\" is made only of short or common words (`rm`, `rf`), which occur everywhere"
        );
        assert!(matches!(check("}, {"), Err(Refusal::NoWord(_))));
        assert!(matches!(check("12345"), Err(Refusal::NoWord(_))));
        assert!(matches!(check("),;},"), Err(Refusal::NoWord(_))));
        assert!(check("requests2").is_ok());
        assert!(check("DankeTheme.secondaryText").is_ok());
        // Iteration every language writes: `RETRY_CODES.each { |code| … }` is correct code.
        assert!(matches!(check("each{|"), Err(Refusal::Keyword(_))));
        assert!(matches!(
            check("items.forEach("),
            Err(Refusal::CommonWords(..))
        ));
        assert!(check("Order.all.each").is_ok());
    }

    #[test]
    fn generic_advice_names_nothing_concrete() {
        for text in [
            "Check before editing.",
            "Be careful with this code; grep first.",
            "Make sure it works.",
        ] {
            assert!(is_generic_advice(text), "{text}");
        }
        for text in [
            "Theme names are textX",
            "Use `yaml.safe_load`.",
            "os.system runs a shell",
            "The property is text_secondary",
            "Write \"utf-8\", not \"latin1\"",
            "spawn programs with an argument list",
        ] {
            assert!(!is_generic_advice(text), "{text}");
        }
    }

    #[test]
    fn names_and_common_identifiers() {
        for trigger in [
            "items",
            "path",
            "'data.csv'",
            "self.items",
            "os.path",
            "x.items()",
            "data csv",
        ] {
            assert!(check_subject(trigger).is_err(), "{trigger}");
        }
        for trigger in [
            "car_missing_pkg.sub",
            "requestz",
            "DankeTheme.textSecondry",
            "KEY(\"gamma\")",
            "os.pathh",
        ] {
            assert!(check_subject(trigger).is_ok(), "{trigger}");
        }
    }
}
