//! JSON, JSON with comments and JSON Lines: serde_json ([`crate::validate::json`]).

use super::spec::{Checker, FileName, LanguageSpec};

pub(crate) const JSON: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    aliases: &["json"],
    extensions: &["json", "ipynb", "geojson", "webmanifest"],
    checker: Checker::Json { comments: false },
    ..LanguageSpec::named("json")
};

/// JSON whose tools accept `//` and `/* */` comments and trailing commas.
pub(crate) const JSONC: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    aliases: &["jsonc"],
    extensions: &["jsonc", "code-workspace", "code-snippets"],
    file_names: &[
        FileName::JsonIn(".vscode"),
        FileName::JsonStartingWith("tsconfig"),
        FileName::JsonStartingWith("jsconfig"),
        FileName::Is(".devcontainer.json"),
        FileName::Is("devcontainer.json"),
        FileName::Is(".eslintrc.json"),
        FileName::Is("deno.json"),
        FileName::Is("biome.json"),
        FileName::Is("turbo.json"),
        FileName::Is("tslint.json"),
        FileName::Is("api-extractor.json"),
        FileName::Is("typedoc.json"),
    ],
    checker: Checker::Json { comments: true },
    ..LanguageSpec::named("jsonc")
};

/// One JSON value per line.
pub(crate) const JSON_LINES: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    aliases: &["jsonl", "ndjson", "jsonlines"],
    extensions: &["jsonl", "ndjson"],
    checker: Checker::JsonLines,
    ..LanguageSpec::named("jsonl")
};
