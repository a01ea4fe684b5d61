//! YAML: libyaml, in process ([`crate::validate::yaml`]).

use super::spec::{Checker, LanguageSpec, TemplateErrors};

pub(crate) const YAML: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    hash_comments: true,
    template_errors: TemplateErrors::OwnRule,
    aliases: &["yaml", "yml"],
    extensions: &["yaml", "yml"],
    checker: Checker::Yaml,
    ..LanguageSpec::named("yaml")
};
