//! `car check --format sarif`: the findings as a SARIF 2.1.0 log, the format code scanning reads
//! (GitHub's `upload-sarif`, and others). One run, one rule per validator (and `lesson` for lesson
//! warnings), one result per diagnostic with its file (relative to the project, so the scanner
//! can place it in the repository), line, column and snippet.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::lesson_warning::Warning;
use crate::validate::{Diagnostic, Severity};

/// The SARIF log for these diagnostics and lesson warnings. `uris` maps each file as shown to its
/// URI relative to the project root.
pub(crate) fn log(
    diagnostics: &[Diagnostic],
    warnings: &[Warning],
    uris: &HashMap<String, String>,
) -> Value {
    let uri_of = |file: &str| encode_uri(uris.get(file).map_or(file, String::as_str));
    let mut rules = BTreeMap::new();
    let mut results = Vec::new();
    for diagnostic in diagnostics {
        rules
            .entry(diagnostic.validator.clone())
            .or_insert_with(|| format!("car's {} validator", diagnostic.validator));
        let level = match diagnostic.severity {
            Severity::Error => "error",
            _ => "warning",
        };
        let mut region =
            json!({"startLine": diagnostic.line.max(1), "startColumn": diagnostic.column.max(1)});
        if let Some(snippet) = &diagnostic.snippet {
            region["snippet"] = json!({"text": snippet});
        }
        results.push(result(
            &diagnostic.validator,
            level,
            &diagnostic.message,
            &uri_of(&diagnostic.file),
            region,
        ));
    }
    for warning in warnings {
        rules
            .entry("lesson".to_string())
            .or_insert_with(|| "a pitfall from car's lesson library".to_string());
        let message = format!(
            "lesson (weight {}): {} (trigger `{}`, lesson {})",
            warning.weight, warning.lesson, warning.trigger, warning.lesson_id
        );
        let region = json!({"startLine": warning.line.max(1)});
        results.push(result(
            "lesson",
            "warning",
            &message,
            &uri_of(&warning.file),
            region,
        ));
    }
    let rules: Vec<Value> = rules
        .into_iter()
        .map(|(id, description)| json!({"id": id, "shortDescription": {"text": description}}))
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "car",
                "fullName": "car (claude-auto-review)",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn result(rule: &str, level: &str, message: &str, uri: &str, region: Value) -> Value {
    json!({
        "ruleId": rule,
        "level": level,
        "message": {"text": message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
            "region": region,
        }}],
    })
}

/// A relative path as a URI reference: `/` kept, everything but unreserved characters
/// percent-encoded (a space, `#` or `%` in a file name must not change the URI's meaning).
fn encode_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.replace('\\', "/").bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(encode_uri("src/my file#1.py"), "src/my%20file%231.py");
        assert_eq!(encode_uri("dir\\ä.rs"), "dir/%C3%A4.rs");
    }
}
