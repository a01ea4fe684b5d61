//! `car check --format sarif` writes SARIF 2.1.0 that validates against the official schema
//! (vendored in tests/schemas/), for code scanning in CI.

use serde_json::Value;

use crate::support::TestProject;

/// The official schema, with formats checked. Its `run.language` pattern has a stray `]` that
/// only lenient (Annex B) regex engines accept; the validator checks patterns strictly, so that
/// one pattern gets the `]` escaped (it is about a language tag car never writes).
fn schema() -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(path).unwrap();
    let stray = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(
        text.contains(stray),
        "the vendored schema is the official one"
    );
    let text = text.replace(stray, r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#);
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let project = TestProject::new();
    project.write(
        ".claude/claude-auto-review/lessons.json",
        r#"{"lessons": [{"scope": "*.json", "triggers": ["\"retries\""], "lesson": "retries belong in the env", "weight": 3}]}"#,
    );
    project.write("config/my settings.json", "{\n  \"retries\": 3,\n}\n");
    project.write("ok.sh", "echo hi\n");
    let run = project.run(&[
        "check",
        "--format",
        "sarif",
        "config/my settings.json",
        "ok.sh",
    ]);
    assert_eq!(run.code, 1, "an error is found: {run:?}");
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let validator = schema();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{log:#}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    let error = results.iter().find(|r| r["level"] == "error").unwrap();
    let location = &error["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "config/my%20settings.json"
    );
    assert_eq!(location["region"]["startLine"], 3);
    assert!(results.iter().any(|r| r["ruleId"] == "lesson"), "{log:#}");
    // The schema is strict enough to catch a broken log.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
    // --json stays an alias of --format json; a clean run is an empty, valid log.
    let json = project.run(&["check", "--json", "ok.sh"]);
    assert_eq!(json.stdout.trim(), "[]");
    let clean: Value =
        serde_json::from_str(&project.run(&["check", "--format", "sarif", "ok.sh"]).stdout)
            .unwrap();
    assert!(validator.is_valid(&clean));
    let bad = project.run(&["check", "--format", "xml", "ok.sh"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--format"), "{}", bad.stderr);
}
