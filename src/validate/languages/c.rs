//! C and C++: tree-sitter-c and tree-sitter-cpp (the `extra-grammars` feature).

use super::spec::{LanguageSpec, Unless};

pub(crate) const C: LanguageSpec = LanguageSpec {
    aliases: &["c"],
    extensions: &["c"],
    ..LanguageSpec::named("c")
};

pub(crate) const CPP: LanguageSpec = LanguageSpec {
    aliases: &["c++", "cpp"],
    // A `.h` header may be C or C++; the C++ grammar reads both, the C grammar only one.
    extensions: &["h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "ipp"],
    // An Objective-C header: neither grammar reads `@interface … @end`.
    unless: Some(Unless::ObjectiveC { extension: "h" }),
    ..LanguageSpec::named("cpp")
};
