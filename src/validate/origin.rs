//! Which checker found a diagnostic, and so what the diagnostic may do: block the agent (an
//! authoritative checker's findings stand as reported) and teach (become a learned lesson).
//!
//! Invariants: a diagnostic's origin is set where the checker makes it and is never derived from
//! the validator's display name, so renaming a validator changes what car prints, never what
//! blocks or teaches. The origin is not part of any output: `car check --json`, SARIF and the
//! hook's answers show the validator's name, as before. A diagnostic read back from the session
//! log was judged when it was found: it is [`Origin::Recorded`].

/// Which checker found a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Origin {
    /// The language's own interpreter run on the content (Python's `compile()` and its import
    /// check).
    Interpreter,
    /// `bash -n`.
    Shell,
    /// serde_json: JSON, JSON with comments, JSON Lines.
    JsonParser,
    /// libyaml.
    YamlParser,
    /// A tree-sitter grammar compiled into car: fast and in process, but some grammars misread
    /// valid code, so its errors block only as far as the grammar's trust says (the severity
    /// the grammar check gave them) and its warnings may be misreads.
    TreeSitter,
    /// The language's real tool (`gofmt`, `ruby -c`, …) judging what a grammar flagged.
    ExternalTool,
    /// car's own module resolution of the imports an edit added (JavaScript and TypeScript, Go,
    /// Rust): the lookups the language's tool makes, done in process.
    ImportResolver,
    /// A custom validator rule (a reference rule, or a command such as `ruff check`).
    CustomRule,
    /// car checking its own configuration: a lessons file, car's settings block, a replay
    /// scenario, a custom validator rule file.
    CarConfig,
    /// Read back from the session log: what it could do was decided when it was found.
    #[default]
    Recorded,
}

impl Origin {
    /// Whether the checker is a judge of the file rather than a fast guess: its findings stand
    /// as reported, so its errors block and its warnings are shown. A tree-sitter grammar is not:
    /// its warnings are findings the grammar may have misread, and stay quiet.
    pub(crate) fn is_authoritative(self) -> bool {
        !matches!(self, Origin::TreeSitter)
    }

    /// Whether an error of this checker may become a learned lesson: a mistake written into the
    /// project's code. car's own configuration checks teach nothing (learning from them would
    /// turn a lesson's trigger into a new lesson), and a recorded diagnostic was already weighed
    /// when it was found.
    pub(crate) fn may_teach(self) -> bool {
        !matches!(self, Origin::CarConfig | Origin::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Origin; 10] = [
        Origin::Interpreter,
        Origin::Shell,
        Origin::JsonParser,
        Origin::YamlParser,
        Origin::TreeSitter,
        Origin::ExternalTool,
        Origin::ImportResolver,
        Origin::CustomRule,
        Origin::CarConfig,
        Origin::Recorded,
    ];

    #[test]
    fn only_a_grammar_is_not_authoritative() {
        let not: Vec<Origin> = ALL
            .into_iter()
            .filter(|origin| !origin.is_authoritative())
            .collect();
        assert_eq!(not, [Origin::TreeSitter]);
    }

    #[test]
    fn cars_own_checks_and_recorded_diagnostics_never_teach() {
        let silent: Vec<Origin> = ALL
            .into_iter()
            .filter(|origin| !origin.may_teach())
            .collect();
        assert_eq!(silent, [Origin::CarConfig, Origin::Recorded]);
        // The checkers of the project's code teach, a grammar's (trusted) errors included.
        assert!(Origin::TreeSitter.may_teach());
        assert!(Origin::CustomRule.may_teach());
        assert!(Origin::ImportResolver.may_teach());
    }

    #[test]
    fn a_diagnostic_read_back_is_recorded() {
        assert_eq!(Origin::default(), Origin::Recorded);
    }
}
