//! Which language a file is written in, and so which checker validates it.
//!
//! Detection, in order: an explicit language (a notebook cell's), then special file names
//! (`tsconfig*.json` is JSON with comments, `Gemfile` is Ruby), then the extension, then a `#!`
//! line. A file none of these recognise is not validated: car would rather miss an error than
//! report a false one in a language it cannot read.

use std::path::Path;

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
        match extension.as_deref() {
            // A `.sh` file may declare another shell (zsh, fish) that `bash -n` would misread.
            Some("sh" | "bash") => {
                let other_shell =
                    content.starts_with("#!") && shebang_language(content) != Some(Language::Shell);
                (!other_shell).then_some(Language::Shell)
            }
            // An Objective-C header: neither grammar reads `@interface … @end`.
            Some("h") if is_objective_c(content) => None,
            Some(extension) => by_extension(extension).or_else(|| shebang_language(content)),
            None => shebang_language(content),
        }
    }

    /// A language named the way notebooks and agents name them ("python", "bash", "typescript").
    /// Markdown, raw cells and unknown names are not validated.
    pub(crate) fn from_name(name: &str) -> Option<Language> {
        let language = match name.trim().to_lowercase().as_str() {
            "python" | "python3" | "py" | "ipython" | "ipython3" => Language::Python,
            "bash" | "sh" | "shell" => Language::Shell,
            "json" => Language::Json,
            "jsonc" => Language::Jsonc,
            "jsonl" | "ndjson" | "jsonlines" => Language::JsonLines,
            "rust" => Language::Rust,
            "javascript" | "js" | "jsx" | "node" => Language::JavaScript,
            "typescript" | "ts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "yaml" | "yml" => Language::Yaml,
            "toml" => Language::Toml,
            "swift" => Language::Swift,
            "java" => Language::Java,
            "c" => Language::C,
            "c++" | "cpp" => Language::Cpp,
            "ruby" => Language::Ruby,
            "kotlin" => Language::Kotlin,
            "css" => Language::Css,
            "html" => Language::Html,
            "dockerfile" => Language::Dockerfile,
            _ => return None,
        };
        Some(language)
    }

    /// A short lower-case name, used in validator names and notes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Shell => "bash",
            Language::Json => "json",
            Language::Jsonc => "jsonc",
            Language::JsonLines => "jsonl",
            Language::Rust => "rust",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Swift => "swift",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Ruby => "ruby",
            Language::Kotlin => "kotlin",
            Language::Css => "css",
            Language::Html => "html",
            Language::Dockerfile => "dockerfile",
        }
    }
}

/// JSON files whose tools accept comments and trailing commas.
const JSONC_NAMES: &[&str] = &[
    ".eslintrc.json",
    "deno.json",
    "biome.json",
    "turbo.json",
    "tslint.json",
    "api-extractor.json",
    "typedoc.json",
];

/// File names that decide the language on their own (lower-cased).
fn by_file_name(path: &Path, file_name: &str) -> Option<Language> {
    let in_vscode = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|parent| parent == ".vscode");
    let is_json = file_name.ends_with(".json");
    if is_json
        && (in_vscode
            || file_name.starts_with("tsconfig")
            || file_name.starts_with("jsconfig")
            || file_name == ".devcontainer.json"
            || file_name == "devcontainer.json"
            || JSONC_NAMES.contains(&file_name))
    {
        return Some(Language::Jsonc);
    }
    match file_name {
        "gemfile" | "rakefile" | "podfile" | "fastfile" | "guardfile" => Some(Language::Ruby),
        "cargo.lock" | "pipfile" => Some(Language::Toml),
        "dockerfile" | "containerfile" => Some(Language::Dockerfile),
        _ if file_name.starts_with("dockerfile.") => Some(Language::Dockerfile),
        _ => None,
    }
}

fn by_extension(extension: &str) -> Option<Language> {
    let language = match extension {
        "py" | "pyw" | "pyi" => Language::Python,
        "json" | "ipynb" | "geojson" | "webmanifest" => Language::Json,
        "jsonc" | "code-workspace" | "code-snippets" => Language::Jsonc,
        "jsonl" | "ndjson" => Language::JsonLines,
        "rs" => Language::Rust,
        "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
        "ts" | "mts" | "cts" => Language::TypeScript,
        "tsx" => Language::Tsx,
        "go" => Language::Go,
        "yaml" | "yml" => Language::Yaml,
        "toml" => Language::Toml,
        "swift" => Language::Swift,
        "java" => Language::Java,
        "c" => Language::C,
        // A `.h` header may be C or C++; the C++ grammar reads both, the C grammar only one.
        "h" | "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "ipp" => Language::Cpp,
        "rb" | "rake" | "gemspec" | "ru" => Language::Ruby,
        "kt" | "kts" => Language::Kotlin,
        "css" => Language::Css,
        "html" | "htm" | "xhtml" => Language::Html,
        "dockerfile" => Language::Dockerfile,
        _ => return None,
    };
    Some(language)
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
    match program {
        "sh" | "bash" => Some(Language::Shell),
        "node" | "nodejs" => Some(Language::JavaScript),
        "ruby" => Some(Language::Ruby),
        _ if is_python(program) => Some(Language::Python),
        _ => None,
    }
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

/// `python`, `python3`, `python3.12`.
fn is_python(program: &str) -> bool {
    program
        .strip_prefix("python")
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
