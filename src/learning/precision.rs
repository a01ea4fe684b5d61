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
//!   `items`, `path`, `self`, `echo`, …), or a dotted name made only of those (`self.items`);
//! - it occurs in the project's valid files of the same kind: the files git tracks (`git grep`
//!   over the checkout; the files where the error itself was seen excepted). Outside git there are
//!   no such files. A search that fails or exceeds its time refuses too.

use std::path::Path;

use crate::git;

/// Why a trigger was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{0:?} is shorter than 4 characters")]
    TooShort(String),
    #[error("{0:?} is a bare language keyword or a common identifier")]
    Keyword(String),
    #[error("{0:?} is not a name (a quoted string, or it holds spaces, commas or semicolons)")]
    NotAName(String),
    #[error("{0:?} has no letters (punctuation, spaces or a number)")]
    NoWord(String),
    #[error("{trigger:?} already occurs in the project's file {file}")]
    InProject { trigger: String, file: String },
    #[error("{trigger:?} could not be looked up in the project's files ({why})")]
    Unchecked { trigger: String, why: String },
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
/// its length: callers that judge the words of a fragment one by one (`fragment`) need the
/// answer for `def` and `let` too, which [`check`] refuses as too short first.
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
    let mut segments = bare
        .split(['.', ':', '/', '-'])
        .filter(|segment| !segment.is_empty());
    if is_common(bare) || segments.all(is_common) {
        return Err(Refusal::Keyword(trigger.to_string()));
    }
    Ok(())
}

/// The search of the project's files runs on a hook's path; past a hook's wait for git
/// ([`git::Wait::Hook`]) the trigger is refused.
const SEARCH_WAIT: git::Wait = git::Wait::Hook;

/// Refuses a trigger that occurs in a file git tracks in `checkout` whose name is in `scope`
/// (`*.py`, or a file name), `except` the files where the error itself was seen. Deterministic:
/// `git grep` over exactly the tracked files, no sampling; bounded by [`SEARCH_WAIT`].
pub(crate) fn check_project(
    checkout: &Path,
    scope: &str,
    except: &[&str],
    trigger: &str,
) -> Result<(), Refusal> {
    if !git::is_checkout(checkout) {
        return Ok(());
    }
    let pathspec = match scope.strip_prefix("*.") {
        Some(extension) => format!(":(glob)**/*.{extension}"),
        None => format!(":(glob)**/{scope}"),
    };
    let mut args: Vec<String> = [
        "grep",
        "-I",
        "-l",
        "-z",
        "-F",
        "--no-color",
        "-e",
        trigger,
        "--",
    ]
    .map(String::from)
    .into();
    args.push(pathspec);
    args.extend(
        except
            .iter()
            .map(|file| format!(":(exclude,literal){file}")),
    );
    let unchecked = |why: String| Refusal::Unchecked {
        trigger: trigger.to_string(),
        why,
    };
    let output =
        git::run(checkout, &args, SEARCH_WAIT).map_err(|error| unchecked(error.to_string()))?;
    match output.code {
        Some(1) if !output.timed_out => Ok(()),
        Some(0) => Err(Refusal::InProject {
            trigger: trigger.to_string(),
            file: output
                .stdout
                .split('\0')
                .next()
                .unwrap_or_default()
                .to_string(),
        }),
        _ if output.timed_out => Err(unchecked(format!(
            "`git grep` took over {} s",
            SEARCH_WAIT.limit().as_secs()
        ))),
        _ => Err(unchecked(format!(
            "`git grep` failed: {}",
            output.stderr.lines().next().unwrap_or_default()
        ))),
    }
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
        assert!(matches!(check("}, {"), Err(Refusal::NoWord(_))));
        assert!(matches!(check("12345"), Err(Refusal::NoWord(_))));
        assert!(matches!(check("),;},"), Err(Refusal::NoWord(_))));
        assert!(check("requests2").is_ok());
        assert!(check("DankeTheme.secondaryText").is_ok());
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

    use crate::git::git_in as git;

    #[test]
    fn a_trigger_in_a_tracked_file_of_the_scope_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/old.py"), "import car_known_zz\n").unwrap();
        std::fs::write(dir.path().join("notes.md"), "car_doc_zz\n").unwrap();
        std::fs::write(dir.path().join("untracked.py"), "car_new_zz\n").unwrap();
        git(dir.path(), &["add", "pkg", "notes.md"]);
        let verdict = check_project(dir.path(), "*.py", &[], "car_known_zz");
        assert_eq!(
            verdict,
            Err(Refusal::InProject {
                trigger: "car_known_zz".into(),
                file: "pkg/old.py".into()
            })
        );
        assert!(check_project(dir.path(), "*.py", &["pkg/old.py"], "car_known_zz").is_ok());
        assert!(check_project(dir.path(), "*.py", &[], "car_doc_zz").is_ok());
        assert!(check_project(dir.path(), "*.py", &[], "car_new_zz").is_ok());
        let outside = tempfile::tempdir().unwrap();
        assert!(check_project(outside.path(), "*.py", &[], "car_known_zz").is_ok());
    }
}
