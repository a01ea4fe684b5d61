//! YAML: libyaml decides, the parser behind PyYAML's C loader, Ruby's Psych and (ported) Go's
//! yaml.v3, so a file car accepts is one those tools read. car uses `libyaml-safer`, a port of
//! libyaml to safe Rust, in process (about 0.1 ms for a typical file).
//!
//! Why not a grammar: on published code tree-sitter-yaml misread valid files (a `%TAG` directive
//! after a document without `...`, which PyYAML and libyaml accept) and missed 9 of 615 injected
//! slips that PyYAML rejects (an alias `*"` left by a deleted quote). libyaml agreed with PyYAML on
//! all 2,345 YAML files of the real-code corpus and on every one of 2,139 mutants of them.
//!
//! Invariants: the stream is parsed event by event (nothing is built), like PyYAML's
//! `compose_all`, an alias must name an anchor defined earlier in its document; a panic inside the
//! parser (a bug of the port) is a note, never an error of the file; templates (Helm, Jinja) are
//! not YAML until rendered, so their parse errors are a note.

use std::panic::{AssertUnwindSafe, catch_unwind};

use libyaml_safer::{Error, EventData, Mark, Parser};

use crate::validate::{Diagnostic, Origin, Report, Severity, snippet_at};

/// Checks `content` as a YAML stream and adds what is wrong to `report`.
pub(crate) fn check(display_path: &str, content: &str, report: &mut Report) {
    match parse(content) {
        Ok(()) => {}
        Err(Problem::Panicked) => report.notes.push(format!(
            "{display_path}: the YAML parser failed on this file; not checked"
        )),
        Err(Problem::Invalid { .. }) if is_template(content) => report.notes.push(format!(
            "{display_path}: looks like a template (`{{{{ … }}}}`), not plain YAML; its YAML errors are not reported"
        )),
        Err(Problem::Invalid {
            line,
            column,
            message,
        }) => report.diagnostics.push(Diagnostic {
            file: display_path.to_string(),
            line,
            column,
            severity: Severity::Error,
            validator: "yaml".to_string(),
            origin: Origin::YamlParser,
            message,
            snippet: snippet_at(content, line, column),
            subject: None,
        }),
    }
}

/// Helm charts and Jinja-templated YAML are not YAML until rendered. GitHub Actions' `${{ … }}`
/// expressions are plain YAML scalars, not template markers.
pub(crate) fn is_template(content: &str) -> bool {
    content.contains("{%")
        || content
            .match_indices("{{")
            .any(|(at, _)| !content[..at].ends_with('$'))
}

/// Why a stream does not parse.
#[derive(Debug, PartialEq, Eq)]
enum Problem {
    /// The first error, 1-based, the column in characters.
    Invalid {
        line: usize,
        column: usize,
        message: String,
    },
    /// The parser panicked: it cannot judge this file.
    Panicked,
}

/// Parses the whole stream; the first error, if any.
fn parse(content: &str) -> Result<(), Problem> {
    // The port panics on a block scalar that ends the input without a line break; a final line
    // break changes nothing else.
    let owned;
    let content = if content.ends_with('\n') {
        content
    } else {
        owned = format!("{content}\n");
        &owned
    };
    catch_unwind(AssertUnwindSafe(|| events(content))).unwrap_or(Err(Problem::Panicked))
}

fn events(content: &str) -> Result<(), Problem> {
    let mut input = content.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut input);
    let mut anchors: Vec<String> = Vec::new();
    loop {
        let event = parser.parse().map_err(|error| invalid(&error))?;
        let anchor = match event.data {
            EventData::StreamEnd => return Ok(()),
            EventData::DocumentStart { .. } => {
                anchors.clear();
                None
            }
            EventData::Alias { anchor } if !anchors.contains(&anchor) => {
                return Err(at(
                    event.start_mark,
                    format!("found undefined alias `{anchor}`"),
                ));
            }
            EventData::Scalar { anchor, .. }
            | EventData::SequenceStart { anchor, .. }
            | EventData::MappingStart { anchor, .. } => anchor,
            _ => None,
        };
        anchors.extend(anchor);
    }
}

/// libyaml's error as a problem: "did not find expected key, while parsing a block mapping that
/// starts at 2:1".
fn invalid(error: &Error) -> Problem {
    let mut message = error.problem().to_string();
    if let (Some(context), Some(mark)) = (error.context(), error.context_mark()) {
        message.push_str(&format!(
            ", {context} that starts at {}:{}",
            mark.line + 1,
            mark.column + 1
        ));
    }
    at(error.problem_mark().unwrap_or_default(), message)
}

fn at(mark: Mark, message: String) -> Problem {
    Problem::Invalid {
        line: usize::try_from(mark.line).unwrap_or(usize::MAX - 1) + 1,
        column: usize::try_from(mark.column).unwrap_or(usize::MAX - 1) + 1,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(content: &str) -> Option<(usize, usize, String)> {
        match parse(content) {
            Ok(()) => None,
            Err(Problem::Invalid {
                line,
                column,
                message,
            }) => Some((line, column, message)),
            Err(Problem::Panicked) => panic!("the parser panicked on {content:?}"),
        }
    }

    #[test]
    fn templates() {
        assert!(is_template("a: {{ .Values.x }}\n"));
        assert!(is_template("{% if x %}\na: 1\n{% endif %}\n"));
        assert!(!is_template("runs-on: ${{ matrix.os }}\n"));
    }

    #[test]
    fn valid_streams() {
        for content in [
            "",
            "a: 1\nb:\n  - x\n  - y\n",
            "--- !shape\n- &a x\n- *a\n",
            // A directive after a document without `...`: PyYAML and libyaml read it.
            "a: b\n# Global tags\n%TAG ! tag:clarkevans.com,2002:\n--- !shape\n- 1\n",
            // A block scalar that ends the file without a line break.
            "a: |\n  text",
            "\u{feff}a: 1\n",
        ] {
            assert_eq!(problem(content), None, "{content:?}");
        }
    }

    #[test]
    fn errors_are_located() {
        let (line, column, message) = problem("a: 1\nb: [1, 2\nc: 3\n").unwrap();
        assert_eq!((line, column), (3, 2), "{message}");
        assert_eq!(
            message,
            "did not find expected ',' or ']', while parsing a flow sequence that starts at 2:4"
        );
        let (line, column, message) = problem("a:\n  - b\n c: d\n").unwrap();
        assert_eq!((line, column), (3, 2), "{message}");
        let (line, _, message) = problem("a: 1\nb: *\"x\n").unwrap();
        assert_eq!(line, 2, "{message}");
        assert!(message.contains("alias"), "{message}");
    }

    #[test]
    fn an_alias_needs_an_anchor_earlier_in_its_document() {
        let (line, column, message) = problem("a: &x 1\n---\nb: *x\n").unwrap();
        assert_eq!((line, column), (3, 4));
        assert_eq!(message, "found undefined alias `x`");
    }
}
