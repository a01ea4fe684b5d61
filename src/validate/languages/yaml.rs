//! YAML: libyaml, in process ([`crate::validate::yaml`]).

use super::spec::{Checker, LanguageSpec};

pub(crate) const YAML: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    aliases: &["yaml", "yml"],
    extensions: &["yaml", "yml"],
    checker: Checker::Yaml,
    ..LanguageSpec::named("yaml")
};
