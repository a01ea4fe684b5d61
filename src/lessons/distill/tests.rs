use std::path::Path;

use serde_json::json;

use super::*;

fn theme_file() -> LessonFile {
    let lessons: Vec<Value> = [
        "secondaryText",
        "primaryText",
        "tertiaryText",
        "accentText",
        "mutedText",
    ]
    .iter()
    .map(|name| {
        json!({"scope": "*.swift", "triggers": [format!("DankeTheme.{name}")],
                "lesson": format!("DankeTheme.{name} does not exist"),
                "examples": {"no_match": ["DankeTheme.textSecondary"]}})
    })
    .collect();
    LessonFile::parse(
        Path::new("l.json"),
        &json!({ "lessons": lessons }).to_string(),
    )
    .unwrap()
}

#[test]
fn deterministic_proposal_generalises_shared_prefix_and_suffix() {
    let file = theme_file();
    let scopes = crowded_scopes(&file);
    let lessons = &scopes["*.swift"];
    let proposals = deterministic("*.swift", lessons);
    assert_eq!(proposals.len(), 1);
    assert_eq!(
        proposals[0].triggers,
        vec![r"regex:DankeTheme\.\w+Text".to_string()]
    );
    assert_eq!(proposals[0].replaces.len(), 5);
    validate(&proposals[0], lessons).unwrap();
}

#[test]
fn generic_and_inconsistent_proposals_are_discarded() {
    let file = theme_file();
    let scopes = crowded_scopes(&file);
    let lessons = &scopes["*.swift"];
    let ids: Vec<String> = lessons.iter().map(|l| l.id.clone()).collect();
    let proposal = |trigger: &str| Proposal {
        scope: "*.swift".into(),
        triggers: vec![trigger.into()],
        lesson: "x".into(),
        replaces: ids.clone(),
        source: "llm".into(),
    };
    let generic = validate(&proposal(r"regex:\w+\.\w+"), lessons).unwrap_err();
    assert!(generic.contains("generic"), "{generic}");
    let too_wide = validate(&proposal(r"regex:DankeTheme\.\w+"), lessons).unwrap_err();
    assert!(too_wide.contains("no_match"), "{too_wide}");
    let too_narrow = validate(&proposal("DankeTheme.secondaryText"), lessons).unwrap_err();
    assert!(too_narrow.contains("does not match"), "{too_narrow}");
    let broken = validate(&proposal("regex:(unclosed"), lessons).unwrap_err();
    assert!(broken.contains("regex:(unclosed"), "{broken}");
}

#[test]
fn parses_reviewer_answers_with_noise() {
    let text = "Sure!\n```json\n{\"proposals\": [{\"triggers\": [\"regex:a\\\\.b\"], \"lesson\": \"l\", \"replaces\": [\"x\"]}]}\n```";
    let proposals = parse_answer("*.py", text).unwrap();
    assert_eq!(proposals[0].triggers, vec![r"regex:a\.b".to_string()]);
    assert!(parse_answer("*.py", "no json").is_err());
}
