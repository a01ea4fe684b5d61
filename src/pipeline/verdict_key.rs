//! What a verdict on a file's content depends on, as one SHA-256: two checks with the same key
//! give the same verdict, so the second may take the first's ([`super::kept_verdicts`]).
//!
//! The key covers the edit (the file's path, its content, the lines the edit added, and the file
//! before the edit where the grammar compares with it) and the checkers: car itself (its version
//! and its binary's size and modification time), the `pythonInterpreter` setting, the environment
//! variables that choose the programs (`PATH`, `VIRTUAL_ENV`, `CONDA_PREFIX`, `PYENV_VERSION`,
//! `RUSTUP_TOOLCHAIN`, `HOME`), and each program that checks the file as found now (the project's
//! Python, `bash`, `gofmt`, `rustfmt`, …) with its size and modification time, or why it is
//! missing.
//!
//! Invariants: every field is length-prefixed, so no two different inputs hash alike by running
//! into each other; a checker car cannot describe (no path to its own binary) gives no key, and
//! with no key nothing is reused. What the key leaves out, the verdict must not depend on: a
//! verdict that read other files ([`crate::validate::Report::read_other_files`]: imports, a
//! crate's edition, the Python a project requires) is never kept.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::settings::Settings;
use crate::validate::Source;

/// The environment variables that choose which programs check a file.
const CHOOSING_VARIABLES: [&str; 6] = [
    "PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_VERSION",
    "RUSTUP_TOOLCHAIN",
    "HOME",
];

/// Bumped whenever what a kept verdict holds changes meaning.
const FORMAT: &str = "car-verdict-key-1";

/// What every key of one hook call shares: car, the settings the checkers read, the environment.
#[derive(Debug, Default)]
pub(crate) struct Checkers {
    /// Hashed once per process, on first use; `None` when car cannot describe itself.
    shared: OnceLock<Option<[u8; 32]>>,
}

impl Checkers {
    /// The key of `source`'s content verdict (`content_hash`: its content's
    /// [hash](crate::session::event::content_hash)), checked with `programs` (as found now) and
    /// `before` (the file before the edit, when the check compares with it); `None`: no key,
    /// nothing reused.
    pub(crate) fn key(
        &self,
        settings: &Settings,
        source: &Source<'_>,
        content_hash: &str,
        before: Option<&str>,
        programs: &[Result<PathBuf, String>],
    ) -> Option<String> {
        let shared = (*self.shared.get_or_init(|| shared_part(settings)))?;
        let mut hash = Fields(Sha256::new());
        hash.field(&shared);
        for program in programs {
            match program {
                Ok(path) => {
                    hash.field(b"program");
                    hash.field(path.as_os_str().as_encoded_bytes());
                    hash.field(&identity(path));
                }
                Err(why) => {
                    hash.field(b"missing");
                    hash.field(why.as_bytes());
                }
            }
        }
        hash.field(source.path.as_os_str().as_encoded_bytes());
        hash.field(source.display_path.as_bytes());
        hash.optional(source.language.map(str::as_bytes));
        hash.field(content_hash.as_bytes());
        hash.field(&source.added.len().to_le_bytes());
        for added in source.added {
            hash.field(&added.line.to_le_bytes());
            hash.field(added.text.as_bytes());
        }
        let compared = crate::validate::needs_before(source).then_some(before);
        hash.optional(compared.map(|before| before.map(str::as_bytes).unwrap_or(b"\0none")));
        Some(hex(&hash.0.finalize()))
    }
}

/// car's own identity, the settings the checkers read and the choosing variables.
fn shared_part(settings: &Settings) -> Option<[u8; 32]> {
    let car = std::env::current_exe().ok()?;
    let mut hash = Fields(Sha256::new());
    hash.field(FORMAT.as_bytes());
    hash.field(env!("CARGO_PKG_VERSION").as_bytes());
    hash.field(car.as_os_str().as_encoded_bytes());
    hash.field(&identity(&car));
    hash.optional(settings.python_interpreter.as_deref().map(str::as_bytes));
    for name in CHOOSING_VARIABLES {
        hash.field(name.as_bytes());
        hash.optional(
            std::env::var_os(name)
                .as_deref()
                .map(|value| value.as_encoded_bytes()),
        );
    }
    Some(hash.0.finalize().into())
}

/// A program's size and modification time (nanoseconds), links followed: a program replaced in
/// place (an upgrade) is another program. Empty when it cannot be read.
fn identity(path: &Path) -> Vec<u8> {
    let Ok(metadata) = std::fs::metadata(path) else {
        return Vec::new();
    };
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    let mut bytes = metadata.len().to_le_bytes().to_vec();
    bytes.extend_from_slice(&modified.to_le_bytes());
    bytes
}

/// A hash fed with length-prefixed fields.
struct Fields(Sha256);

impl Fields {
    fn field(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn optional(&mut self, bytes: Option<&[u8]>) {
        match bytes {
            Some(bytes) => {
                self.0.update([1]);
                self.field(bytes);
            }
            None => self.0.update([0]),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|byte| {
            [
                DIGITS[usize::from(byte >> 4)],
                DIGITS[usize::from(byte & 0x0f)],
            ]
        })
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::AddedLine;

    fn key_of(
        source: &Source<'_>,
        before: Option<&str>,
        programs: &[Result<PathBuf, String>],
    ) -> String {
        let hash = crate::session::event::content_hash(source.content.as_bytes());
        Checkers::default()
            .key(&Settings::default(), source, &hash, before, programs)
            .expect("a key")
    }

    fn source<'a>(content: &'a str, added: &'a [AddedLine]) -> Source<'a> {
        Source {
            path: Path::new("/p/app.ts"),
            display_path: "app.ts",
            content,
            language: None,
            added,
        }
    }

    #[test]
    fn the_key_changes_with_every_input_the_verdict_depends_on() {
        let added = [AddedLine {
            line: 1,
            text: "let a = 1;".into(),
        }];
        let base = key_of(&source("let a = 1;\n", &added), None, &[]);
        assert_eq!(base, key_of(&source("let a = 1;\n", &added), None, &[]));
        assert_ne!(base, key_of(&source("let a = 2;\n", &added), None, &[]));
        assert_ne!(base, key_of(&source("let a = 1;\n", &[]), None, &[]));
        let missing = [Err("no node".to_string())];
        assert_ne!(
            base,
            key_of(&source("let a = 1;\n", &added), None, &missing)
        );
        let found = [Ok(PathBuf::from("/bin/sh"))];
        assert_ne!(base, key_of(&source("let a = 1;\n", &added), None, &found));
        let other = Source {
            display_path: "other.ts",
            ..source("let a = 1;\n", &added)
        };
        assert_ne!(base, key_of(&other, None, &[]));
    }

    #[test]
    fn the_file_before_counts_only_where_the_grammar_compares_with_it() {
        // TypeScript's grammar blocks on its own: what came before does not change its verdict.
        let typescript = source("let a = 1;\n", &[]);
        assert_eq!(
            key_of(&typescript, None, &[]),
            key_of(&typescript, Some("let a = 0;\n"), &[])
        );
        // Swift's is trusted only for what an edit introduced.
        let swift = Source {
            path: Path::new("/p/App.swift"),
            display_path: "App.swift",
            ..source("let a = 1\n", &[])
        };
        if crate::validate::needs_before(&swift) {
            assert_ne!(
                key_of(&swift, None, &[]),
                key_of(&swift, Some("let a = 0\n"), &[])
            );
        }
    }

    #[test]
    fn the_interpreter_setting_is_part_of_the_key() {
        let source = source("x\n", &[]);
        let settings = Settings {
            python_interpreter: Some("/opt/python3".into()),
            ..Settings::default()
        };
        let hash = crate::session::event::content_hash(source.content.as_bytes());
        let configured = Checkers::default().key(&settings, &source, &hash, None, &[]);
        assert_ne!(configured, Some(key_of(&source, None, &[])));
    }
}
