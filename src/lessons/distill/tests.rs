use std::path::Path;

use serde_json::json;

use super::*;
use crate::lessons::trigger::TriggerError;

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
        lesson: "Theme names are textX".into(),
        replaces: ids.clone(),
        source: "llm".into(),
    };
    let reason = |trigger: &str| validate(&proposal(trigger), lessons).unwrap_err();
    let shown = |trigger: &str| reason(trigger).to_string();
    assert_eq!(
        shown(r"regex:\w+\.\w+"),
        r#""regex:\\w+\\.\\w+" is generic: it requires no specific text"#
    );
    assert_eq!(
        shown(r"regex:return\("),
        r#""regex:return\\(" is generic: "return(" is a bare language keyword or a common identifier"#
    );
    assert_eq!(
        shown(r"regex:zorb\("),
        r#""regex:zorb\\(" is generic: it only requires "zorb(" (fewer than 6 characters)"#
    );
    assert_eq!(
        shown(r"regex:DankeTheme\.\w+"),
        format!(
            r#"matches "DankeTheme.textSecondary", a no_match example of {}"#,
            ids[0]
        )
    );
    assert_eq!(
        shown("DankeTheme.secondaryText"),
        format!(
            r#"does not match "DankeTheme.primaryText", a trigger of {}"#,
            ids[1]
        )
    );
    assert!(matches!(
        reason("regex:(unclosed"),
        DiscardReason::BadTrigger(TriggerError::Compile { trigger, .. }) if trigger == "regex:(unclosed"
    ));
    let advice = Proposal {
        lesson: "Check before editing.".into(),
        ..proposal(r"regex:DankeTheme\.(?:secondary|primary)Text")
    };
    assert_eq!(
        validate(&advice, lessons).unwrap_err().to_string(),
        r#"its text "Check before editing." is generic advice: it names no code"#
    );
}

#[test]
fn parses_reviewer_answers_with_noise() {
    let text = "Sure!\n```json\n{\"proposals\": [{\"triggers\": [\"regex:a\\\\.b\"], \"lesson\": \"l\", \"replaces\": [\"x\"]}]}\n```";
    let proposals = parse_answer("*.py", text).unwrap();
    assert_eq!(proposals[0].triggers, vec![r"regex:a\.b".to_string()]);
    assert!(matches!(
        parse_answer("*.py", "no json"),
        Err(AnswerProblem::NoJson)
    ));
}
