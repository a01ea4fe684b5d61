//! HTML: tree-sitter-html (the `extra-grammars` feature); its findings never block.

use super::spec::{LanguageSpec, TemplateErrors, TrustRule};
use crate::validate::rewrite;

pub(crate) const HTML: LanguageSpec = LanguageSpec {
    #[cfg(feature = "extra-grammars")]
    grammar: Some(tree_sitter_html::LANGUAGE),
    trust: TrustRule::Warns(
        "browsers accept anything; Django, Jinja and ejs templates live in `.html` files",
    ),
    strings_are_prose: false,
    // Django, Jinja and ejs: not HTML until rendered.
    template_markers: &["{{", "{%", "<%"],
    template_errors: TemplateErrors::OwnRule,
    aliases: &["html"],
    extensions: &["html", "htm", "xhtml"],
    // `<?xml …?>` and other processing instructions (XHTML).
    rewrite: Some(rewrite::blank_processing_instructions),
    ..LanguageSpec::named("html")
};
