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
//! parser (a bug of the port) is a note, never an error of the file; an error on a template
//! expression (Helm's `{{ … }}`, Jinja's `{% … %}`) is the template's, not YAML's, so it is a note:
//! [`is_templates_error`].

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
        Err(Problem::Invalid {
            line, context_line, ..
        }) if is_templates_error(content, line, context_line) => report.notes.push(format!(
            "{display_path}:{line}: a template expression (`{{{{ … }}}}`) is not plain YAML until rendered; the YAML error there is not reported"
        )),
        Err(Problem::Invalid {
            line,
            column,
            message,
            ..
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

/// Whether the error at `line` (1-based; `context_line`, where the construct it is in starts) is a
/// template's: that line holds a template expression, or the last non-blank line before it or the
/// construct's first line starts a node with one (`{{- if … }}`, `key: {{ … }}`, `- {{ … }}`).
/// Helm charts and Jinja-templated YAML are not YAML until rendered, and libyaml stops on their
/// expressions or on the line after one; an expression inside a value that parses (an Ansible
/// task's `name: Install {{ package }}`, a Taskfile's `- go build -o {{.BIN}} .`) leaves the rest
/// of the file checked. GitHub Actions' `${{ … }}` is a plain YAML scalar, never a template
/// expression.
///
/// Measured (docs/validators.md, "YAML templates"): no error is reported on any of 3,589 Helm
/// chart templates that do not parse as YAML, and most slips written into Ansible, Taskfile and
/// chart values files that hold `{{ … }}` are (none were while any `{{` made the whole file a
/// template).
fn is_templates_error(content: &str, line: usize, context_line: Option<usize>) -> bool {
    let lines: Vec<&str> = content.lines().collect();
    let text_of = |number: usize| number.checked_sub(1).and_then(|index| lines.get(index));
    let previous = (1..line.min(lines.len() + 1))
        .rev()
        .find(|number| !lines[number - 1].trim().is_empty());
    text_of(line).is_some_and(|text| has_template_expression(text))
        || previous
            .and_then(text_of)
            .is_some_and(|text| starts_a_node_with_expression(text))
        || context_line
            .and_then(text_of)
            .is_some_and(|text| starts_a_node_with_expression(text))
}

/// A Helm/Go (`{{ … }}`) or Jinja (`{{ … }}`, `{% … %}`) expression, not GitHub Actions' `${{ … }}`.
fn has_template_expression(text: &str) -> bool {
    text.contains("{%")
        || text
            .match_indices("{{")
            .any(|(at, _)| !text[..at].ends_with('$'))
}

/// A line whose node (after any `- ` and a plain `key: `) begins with a template expression: only
/// such an expression can leave YAML's structure broken on the lines after it.
fn starts_a_node_with_expression(text: &str) -> bool {
    let is_expression = |node: &str| node.starts_with("{{") || node.starts_with("{%");
    let mut node = text.trim_start();
    while let Some(rest) = node.strip_prefix("- ") {
        node = rest.trim_start();
    }
    if is_expression(node) {
        return true;
    }
    node.split_once(": ").is_some_and(|(key, value)| {
        !key.contains(['"', '\'', '#', '{', '[']) && is_expression(value.trim_start())
    })
}

/// Why a stream does not parse.
#[derive(Debug, PartialEq, Eq)]
enum Problem {
    /// The first error, 1-based, the column in characters.
    Invalid {
        line: usize,
        column: usize,
        message: String,
        /// Where the construct the error is in starts, when libyaml says.
        context_line: Option<usize>,
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
                    None,
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
    let mut context_line = None;
    if let (Some(context), Some(mark)) = (error.context(), error.context_mark()) {
        message.push_str(&format!(
            ", {context} that starts at {}:{}",
            mark.line + 1,
            mark.column + 1
        ));
        context_line = Some(one_based(mark.line));
    }
    at(
        error.problem_mark().unwrap_or_default(),
        message,
        context_line,
    )
}

fn at(mark: Mark, message: String, context_line: Option<usize>) -> Problem {
    Problem::Invalid {
        line: one_based(mark.line),
        column: one_based(mark.column),
        message,
        context_line,
    }
}

fn one_based(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX - 1) + 1
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
                ..
            }) => Some((line, column, message)),
            Err(Problem::Panicked) => panic!("the parser panicked on {content:?}"),
        }
    }

    fn checked(content: &str) -> Report {
        let mut report = Report::default();
        check("f.yaml", content, &mut report);
        report
    }

    #[test]
    fn an_error_on_a_template_expression_is_the_templates() {
        for helm in [
            // libyaml stops on the expression itself…
            "metadata:\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\nspec: {}\n",
            // …or on the line after it.
            "spec:\n{{- if .Values.replicas }}\n  replicas: {{ .Values.replicas }}\n{{- end }}\n",
            "{% if x %}\na: 1\n  b: 2\n{% endif %}\n",
        ] {
            let report = checked(helm);
            assert!(report.diagnostics.is_empty(), "{helm}: {report:?}");
            assert!(
                report.notes[0].contains("template expression"),
                "{helm}: {report:?}"
            );
        }
    }

    #[test]
    fn a_slip_away_from_template_expressions_is_reported() {
        // A Taskfile and an Ansible task: `{{ … }}` inside values that parse.
        for slip in [
            "version: '3'\ntasks:\n  build:\n    cmds:\n      - go build -o {{.BIN}} .\n  test:\n    cmds:\n      - \"go test ./...\n",
            "- name: Install {{ package }}\n  apt:\n    name: \"{{ package }}\"\n\n- name: Start\n  service: name=docker: state=started\n",
        ] {
            let report = checked(slip);
            assert_eq!(report.diagnostics.len(), 1, "{slip}: {report:?}");
            assert!(report.notes.is_empty(), "{slip}: {report:?}");
        }
        // Right after an expression inside a value: the expression broke nothing.
        let report = checked("cmds:\n  - go build -o {{.BIN}} .\n  vet: go vet\n");
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        // GitHub Actions' expressions are plain scalars: the error beside one is YAML's.
        let report = checked("steps:\n  - run: echo ${{ matrix.os }}\n   - run: ls\n");
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
    }

    #[test]
    fn a_node_that_starts_with_an_expression() {
        for text in [
            "{{- if .Values.x }}",
            "  {% for host in hosts %}",
            "spec: {{ .Values.spec }}",
            "- {{ item }}",
            "  - - {{ item }}",
        ] {
            assert!(starts_a_node_with_expression(text), "{text}");
        }
        for text in [
            "name: Install {{ package }}",
            "- go build -o {{.BIN}} .",
            "msg: \"{{ x }}\"",
            "\"a: {{ b }}\": c",
            "runs-on: x",
        ] {
            assert!(!starts_a_node_with_expression(text), "{text}");
        }
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
