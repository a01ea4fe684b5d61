//! What a learned trigger must be: *rather miss than false-alarm* (seed 003).
//!
//! Refused, each for a reason the user can read in `car lessons candidates` notes and the docs:
//! - shorter than 4 characters (`fi`, `,}`, `x`): such strings occur everywhere;
//! - a bare language keyword or builtin (`import`, `return`, `const`, `echo`, `None`, …): every
//!   file of the language has them;
//! - no letter at all (punctuation, whitespace, numbers): not about a name the agent got wrong;
//! - text that already occurs in most of the project's files of the same kind (checked on a
//!   bounded sample), because it would fire on nearly every edit.

use std::path::Path;
use std::time::{Duration, Instant};

/// Why a trigger was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{0:?} is shorter than 4 characters")]
    TooShort(String),
    #[error("{0:?} is a bare language keyword")]
    Keyword(String),
    #[error("{0:?} has no letters (punctuation, spaces or a number)")]
    NoWord(String),
    #[error("{trigger:?} already occurs in {found} of {sampled} similar project files")]
    Common {
        trigger: String,
        found: usize,
        sampled: usize,
    },
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

/// Whether `word` is a bare language keyword or ubiquitous builtin (case-insensitive), whatever
/// its length: callers that judge the words of a fragment one by one (`fragment`) need the
/// answer for `def` and `let` too, which [`check`] refuses as too short first.
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word.to_lowercase().as_str())
}

/// The static rules (no I/O).
pub(crate) fn check(trigger: &str) -> Result<(), Refusal> {
    let trimmed = trigger.trim();
    if trimmed.chars().count() < 4 {
        return Err(Refusal::TooShort(trigger.to_string()));
    }
    if !trimmed.chars().any(char::is_alphabetic) {
        return Err(Refusal::NoWord(trigger.to_string()));
    }
    let bare = trimmed
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
        .to_lowercase();
    if KEYWORDS.contains(&bare.as_str()) {
        return Err(Refusal::Keyword(trigger.to_string()));
    }
    Ok(())
}

/// Files sampled for the "occurs in most files" rule, and the time the sample may take.
const SAMPLE_FILES: usize = 40;
const SAMPLE_TIME: Duration = Duration::from_millis(60);

/// Refuses a trigger found in more than half of a sample of the project's files with the same
/// extension (at least 4 sampled, the edited file excluded).
pub(crate) fn check_project(
    root: &Path,
    extension: &str,
    edited: &Path,
    trigger: &str,
) -> Result<(), Refusal> {
    let started = Instant::now();
    let mut sampled = 0;
    let mut found = 0;
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if sampled >= SAMPLE_FILES || started.elapsed() > SAMPLE_TIME {
                return verdict(trigger, found, sampled);
            }
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !matches!(name.as_str(), "node_modules" | "target") {
                    folders.push(path);
                }
            } else if kind.is_file() && path != edited && has_extension(&name, extension) {
                sampled += 1;
                let text = crate::files::read_bounded(&path, 512 * 1024).unwrap_or_default();
                if String::from_utf8_lossy(&text).contains(trigger) {
                    found += 1;
                }
            }
        }
    }
    verdict(trigger, found, sampled)
}

fn has_extension(name: &str, extension: &str) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|ext| ext.to_string_lossy().eq_ignore_ascii_case(extension))
}

fn verdict(trigger: &str, found: usize, sampled: usize) -> Result<(), Refusal> {
    if sampled >= 4 && found * 2 > sampled {
        return Err(Refusal::Common {
            trigger: trigger.to_string(),
            found,
            sampled,
        });
    }
    Ok(())
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
    fn common_text_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for index in 0..6 {
            std::fs::write(
                dir.path().join(format!("m{index}.py")),
                "from app import settings\n",
            )
            .unwrap();
        }
        let edited = dir.path().join("new.py");
        let verdict = check_project(dir.path(), "py", &edited, "from app import");
        assert!(matches!(verdict, Err(Refusal::Common { found: 6, .. })));
        assert!(check_project(dir.path(), "py", &edited, "requests2").is_ok());
        assert!(check_project(dir.path(), "rs", &edited, "from app import").is_ok());
    }
}
