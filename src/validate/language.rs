//! Which language a file is written in, and so which checker validates it.
//!
//! Detection, in order: an explicit language (a notebook cell's), then special file names
//! (`tsconfig*.json` is JSON with comments, `Gemfile` is Ruby), then the extension, then a `#!`
//! line. A file none of these recognise is not validated: car would rather miss an error than
//! report a false one in a language it cannot read. What recognises a language (its names,
//! extensions, file names, `#!` programs) is its spec's ([`crate::validate::languages`]); this
//! file reads the specs.

use std::path::Path;

use crate::validate::brackets::{BracketSyntax, Lexed};
use crate::validate::languages::SPECS;
use crate::validate::languages::spec::{FileName, Interpreter, LanguageSpec, Unless};

/// A language car can validate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Language {
    Python,
    Shell,
    Json,
    /// JSON with `//` and `/* */` comments and trailing commas (tsconfig.json, .vscode/*.json, …).
    Jsonc,
    /// One JSON value per line (`.jsonl`, `.ndjson`).
    JsonLines,
    Rust,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Yaml,
    Toml,
    Swift,
    Java,
    C,
    Cpp,
    Ruby,
    Kotlin,
    Css,
    Html,
    /// `Dockerfile`, `Dockerfile.dev`, `x.dockerfile`, `Containerfile`: only its exec forms are
    /// checked ([`super::dockerfile`]).
    Dockerfile,
}

impl Language {
    /// Every language, in the order of [`SPECS`].
    pub(crate) const ALL: [Language; 21] = [
        Language::Python,
        Language::Shell,
        Language::Json,
        Language::Jsonc,
        Language::JsonLines,
        Language::Rust,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Yaml,
        Language::Toml,
        Language::Swift,
        Language::Java,
        Language::C,
        Language::Cpp,
        Language::Ruby,
        Language::Kotlin,
        Language::Css,
        Language::Html,
        Language::Dockerfile,
    ];

    /// What car knows of the language ([`crate::validate::languages`]).
    pub(crate) fn spec(self) -> &'static LanguageSpec {
        SPECS[self as usize]
    }

    /// The language of `path` (its `content` is consulted only for a `#!` line), or of a
    /// notebook cell when `language` names one. `None`: nothing to validate.
    pub(crate) fn detect(path: &Path, content: &str, language: Option<&str>) -> Option<Language> {
        if let Some(name) = language {
            return Language::from_name(name);
        }
        let file_name = path.file_name()?.to_string_lossy().to_lowercase();
        if let Some(language) = by_file_name(path, &file_name) {
            return Some(language);
        }
        let extension = Path::new(&file_name)
            .extension()
            .map(|ext| ext.to_string_lossy().into_owned());
        let Some(extension) = extension else {
            return shebang_language(content);
        };
        let Some(language) = Language::find(|spec| spec.extensions.contains(&extension.as_str()))
        else {
            return shebang_language(content);
        };
        let disowned = match language.spec().unless {
            Some(Unless::ShebangNamesAnother) => {
                content.starts_with("#!") && shebang_language(content) != Some(language)
            }
            Some(Unless::ObjectiveC { extension: header }) => {
                extension == header && is_objective_c(content)
            }
            None => false,
        };
        (!disowned).then_some(language)
    }

    /// A language named the way notebooks and agents name them ("python", "bash", "typescript").
    /// Markdown, raw cells and unknown names are not validated.
    pub(crate) fn from_name(name: &str) -> Option<Language> {
        let name = name.trim().to_lowercase();
        Language::find(|spec| spec.aliases.contains(&name.as_str()))
    }

    /// A short lower-case name, used in validator names and notes.
    pub(crate) fn name(self) -> &'static str {
        self.spec().name
    }

    /// The first language whose spec `wanted` accepts.
    fn find(wanted: impl Fn(&LanguageSpec) -> bool) -> Option<Language> {
        Language::ALL
            .into_iter()
            .find(|language| wanted(language.spec()))
    }
}

impl Lexed for Language {
    fn bracket_syntax(self) -> Option<&'static BracketSyntax> {
        self.spec().brackets.as_ref()
    }
}

/// File names that decide the language on their own (lower-cased).
fn by_file_name(path: &Path, file_name: &str) -> Option<Language> {
    let is_json = file_name.ends_with(".json");
    let in_folder = |folder: &str| {
        path.parent()
            .and_then(Path::file_name)
            .is_some_and(|parent| parent == folder)
    };
    Language::find(|spec| {
        spec.file_names.iter().any(|rule| match *rule {
            FileName::Is(name) => file_name == name,
            FileName::StartsWith(prefix) => file_name.starts_with(prefix),
            FileName::JsonStartingWith(prefix) => is_json && file_name.starts_with(prefix),
            FileName::JsonIn(folder) => is_json && in_folder(folder),
        })
    })
}

/// The language a `#!` line names: `#!/bin/bash`, `#!/usr/bin/env python3`,
/// `#!/usr/bin/env -S bash -e`.
pub(crate) fn shebang_language(content: &str) -> Option<Language> {
    let first_line = content.lines().next()?;
    let command = first_line.strip_prefix("#!")?;
    let mut words = command.split_whitespace();
    let mut program = base_name(words.next()?);
    if program == "env" {
        program = words
            .find(|word| !word.starts_with('-') && !word.contains('='))
            .map(base_name)?;
    }
    Language::find(|spec| {
        spec.interpreters
            .iter()
            .any(|interpreter| match *interpreter {
                Interpreter::Is(name) => program == name,
                Interpreter::Versioned(name) => is_versioned(program, name),
            })
    })
}

/// Objective-C: a line (in the first 64 KiB) that starts with `@interface`, `@protocol`,
/// `@implementation`, `@end`, `@class` or `#import`.
fn is_objective_c(content: &str) -> bool {
    let mut end = content.len().min(64 * 1024);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    content[..end].lines().any(|line| {
        let line = line.trim_start();
        [
            "@interface",
            "@protocol",
            "@implementation",
            "@end",
            "@class",
            "#import",
        ]
        .iter()
        .any(|marker| line.starts_with(marker))
    })
}

fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// `name`, or `name` and a version: `python`, `python3`, `python3.12`.
fn is_versioned(program: &str, name: &str) -> bool {
    program
        .strip_prefix(name)
        .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(path: &str, content: &str) -> Option<Language> {
        Language::detect(Path::new(path), content, None)
    }

    #[test]
    fn by_extension_and_special_names() {
        assert_eq!(detect("src/app.py", ""), Some(Language::Python));
        assert_eq!(detect("config/settings.json", ""), Some(Language::Json));
        assert_eq!(detect("tsconfig.json", ""), Some(Language::Jsonc));
        assert_eq!(detect("web/tsconfig.build.json", ""), Some(Language::Jsonc));
        assert_eq!(detect("jsconfig.json", ""), Some(Language::Jsonc));
        assert_eq!(detect(".vscode/settings.json", ""), Some(Language::Jsonc));
        assert_eq!(detect("a/b.jsonc", ""), Some(Language::Jsonc));
        assert_eq!(detect("deno.json", ""), Some(Language::Jsonc));
        assert_eq!(detect("events.jsonl", ""), Some(Language::JsonLines));
        assert_eq!(detect("package.json", ""), Some(Language::Json));
        assert_eq!(detect(".devcontainer.json", ""), Some(Language::Jsonc));
        assert_eq!(
            detect(".devcontainer/devcontainer.json", ""),
            Some(Language::Jsonc)
        );
        assert_eq!(detect("ui/App.tsx", ""), Some(Language::Tsx));
        assert_eq!(detect("ui/types.d.ts", ""), Some(Language::TypeScript));
        assert_eq!(detect("Gemfile", ""), Some(Language::Ruby));
        assert_eq!(detect("README.md", ""), None);
        assert_eq!(detect("lib/list.h", "struct list;\n"), Some(Language::Cpp));
        let objective_c = "#import <Foundation/Foundation.h>\n@interface A : NSObject\n@end\n";
        assert_eq!(detect("ios/A.h", objective_c), None);
        assert_eq!(detect("ios/A.h", "@protocol P\n@end\n"), None);
        assert_eq!(detect("Makefile", ""), None);
    }

    #[test]
    fn by_shebang() {
        assert_eq!(
            detect("bin/deploy", "#!/bin/bash\necho"),
            Some(Language::Shell)
        );
        assert_eq!(
            detect("bin/tool", "#!/usr/bin/env python3\n"),
            Some(Language::Python)
        );
        assert_eq!(
            detect("bin/x", "#!/usr/bin/env -S bash -e\n"),
            Some(Language::Shell)
        );
        assert_eq!(detect("bin/x", "#!/bin/sh\n"), Some(Language::Shell));
        assert_eq!(detect("bin/x", "#!/usr/bin/env zsh\n"), None);
        assert_eq!(detect("script.sh", "#!/usr/bin/env zsh\n"), None);
        assert_eq!(detect("script.sh", "echo hi\n"), Some(Language::Shell));
        assert_eq!(detect("bin/x", "echo hi\n"), None);
    }

    #[test]
    fn every_language_has_its_own_spec() {
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.name()), Some(language));
        }
    }

    #[test]
    fn explicit_language_wins() {
        let path = Path::new("analysis.ipynb");
        assert_eq!(
            Language::detect(path, "", Some("python")),
            Some(Language::Python)
        );
        assert_eq!(Language::detect(path, "", Some("markdown")), None);
        assert_eq!(Language::detect(path, "", None), Some(Language::Json));
    }
}
