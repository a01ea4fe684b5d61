//! YAML: libyaml, in process ([`crate::validate::yaml`]).

use super::spec::LanguageSpec;

pub(crate) const YAML: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    aliases: &["yaml", "yml"],
    extensions: &["yaml", "yml"],
    ..LanguageSpec::named("yaml")
};
