//! Which checker found a diagnostic, and so what the diagnostic may do: block the agent (an
//! authoritative checker's findings stand as reported) and teach (become a learned lesson).
//!
//! Invariants: a diagnostic's origin is set where the checker makes it and is never derived from
//! the validator's display name, so renaming a validator changes what car prints, never what
//! blocks or teaches. The origin is not part of any output: `car check --json`, SARIF and the
//! hook's answers show the validator's name, as before. A diagnostic read back from the session
//! log was judged when it was found: it is [`Origin::Recorded`].

/// Which checker found a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Origin {
    /// The language's own interpreter or compiler front end judging the content alone (Python's
    /// `compile()`).
    Interpreter,
    /// Whether an import resolves: decided by what is installed and declared around the file, not
    /// by the content alone (Python's import check; car's own module resolution of the imports a
    /// JavaScript, TypeScript, Go or Rust edit added, the lookups the language's tool makes, done
    /// in process). Its errors block after an edit, never before one (PreToolUse).
    Environment,
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

    /// Whether the checker judges the content alone and is never wrong about it, so that its
    /// error may stop a write before it lands (PreToolUse). A grammar's error may only where the
    /// grammar is trusted to block ([`crate::validate::trust`]); an import depends on the
    /// environment; a custom rule is a linter's opinion.
    pub(crate) fn judges_content(self) -> bool {
        matches!(
            self,
            Origin::Interpreter
                | Origin::Shell
                | Origin::JsonParser
                | Origin::YamlParser
                | Origin::ExternalTool
        )
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
        Origin::Environment,
        Origin::Shell,
        Origin::JsonParser,
        Origin::YamlParser,
        Origin::TreeSitter,
        Origin::ExternalTool,
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
        assert!(Origin::Environment.may_teach());
    }

    #[test]
    fn only_checkers_of_the_content_alone_may_stop_a_write() {
        let judges: Vec<Origin> = ALL
            .into_iter()
            .filter(|origin| origin.judges_content())
            .collect();
        assert_eq!(
            judges,
            [
                Origin::Interpreter,
                Origin::Shell,
                Origin::JsonParser,
                Origin::YamlParser,
                Origin::ExternalTool
            ]
        );
    }

    #[test]
    fn a_diagnostic_read_back_is_recorded() {
        assert_eq!(Origin::default(), Origin::Recorded);
    }
}
