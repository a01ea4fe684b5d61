//! Dockerfiles: only their exec forms are checked ([`crate::validate::dockerfile`]).

use super::spec::{Checker, FileName, LanguageSpec};

pub(crate) const DOCKERFILE: LanguageSpec = LanguageSpec {
    strings_are_prose: false,
    hash_comments: true,
    aliases: &["dockerfile"],
    extensions: &["dockerfile"],
    file_names: &[
        FileName::Is("dockerfile"),
        FileName::Is("containerfile"),
        FileName::StartsWith("dockerfile."),
    ],
    checker: Checker::Dockerfile,
    ..LanguageSpec::named("dockerfile")
};
