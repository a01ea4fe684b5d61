//! Python: checked by the project's own interpreter ([`crate::validate::python`]).

use super::spec::{Checker, Interpreter, LanguageSpec};

pub(crate) const PYTHON: LanguageSpec = LanguageSpec {
    grammar: Some(tree_sitter_python::LANGUAGE),
    aliases: &["python", "python3", "py", "ipython", "ipython3"],
    extensions: &["py", "pyw", "pyi"],
    interpreters: &[Interpreter::Versioned("python")],
    checker: Checker::Python,
    ..LanguageSpec::named("python")
};
