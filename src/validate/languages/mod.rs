//! One spec per language ([`spec::LanguageSpec`]), one file per language, and the table that
//! holds them in the order of [`Language`](crate::validate::language::Language)'s variants.
//! Adding a language: its file here, its row in [`SPECS`], its variant.

mod c;
mod css;
mod dockerfile;
mod go;
mod html;
mod java;
mod javascript;
mod json;
mod kotlin;
mod python;
mod ruby;
mod rust;
mod shell;
pub(crate) mod spec;
mod swift;
mod toml;
mod typescript;
mod yaml;

use spec::LanguageSpec;

/// Every language's spec, in the order of `Language`'s variants (`Language::spec` indexes it;
/// a test checks the order).
pub(crate) static SPECS: [&LanguageSpec; 21] = [
    &python::PYTHON,
    &shell::SHELL,
    &json::JSON,
    &json::JSONC,
    &json::JSON_LINES,
    &rust::RUST,
    &javascript::JAVASCRIPT,
    &typescript::TYPESCRIPT,
    &typescript::TSX,
    &go::GO,
    &yaml::YAML,
    &toml::TOML,
    &swift::SWIFT,
    &java::JAVA,
    &c::C,
    &c::CPP,
    &ruby::RUBY,
    &kotlin::KOTLIN,
    &css::CSS,
    &html::HTML,
    &dockerfile::DOCKERFILE,
];
