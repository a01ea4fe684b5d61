use super::*;
use serde_json::json;

fn edit(text: &str, change: impl FnOnce(&mut Value)) -> String {
    let parsed = JsonText::parse(text).unwrap();
    let mut value = parsed.value();
    change(&mut value);
    let out = parsed.rewrite(&value);
    let reread = JsonText::parse(&out)
        .unwrap_or_else(|e| panic!("{e}: {out}"))
        .value();
    assert_eq!(reread, value, "{out}");
    out
}

/// Adds a key and removes it again: the text must come back byte for byte.
fn round_trip(text: &str, key: &str, added: Value) -> String {
    let with = edit(text, |value| {
        value[key] = added.clone();
    });
    let without = edit(&with, |value| {
        value.as_object_mut().unwrap().shift_remove(key);
    });
    assert_eq!(without, text, "after {with}");
    with
}

#[test]
fn unchanged_is_identical() {
    for text in [
        "{}",
        "{ \"a\" : 1 }\n",
        "[1,2 ,3]",
        "{\"a\": [ ], \"b\": {}}",
    ] {
        assert_eq!(edit(text, |_| {}), text);
    }
}

#[test]
fn adding_and_removing_keeps_bytes() {
    let compact = r#"{"model":"opus","permissions":{"allow":["Bash(ls)"]}}"#;
    let added = round_trip(compact, "hooks", json!({"Stop": [{"hooks": []}]}));
    assert_eq!(
        added,
        r#"{"model":"opus","permissions":{"allow":["Bash(ls)"]},"hooks":{"Stop":[{"hooks":[]}]}}"#
    );
    let pretty = "{\n    \"model\": \"opus\",\n    \"x\": 1\n}\n";
    let added = round_trip(pretty, "hooks", json!({"Stop": [1]}));
    assert_eq!(
        added,
        "{\n    \"model\": \"opus\",\n    \"x\": 1,\n    \"hooks\": {\n        \"Stop\": [\n            1\n        ]\n    }\n}\n"
    );
    round_trip("{\n\t\"a\": true\n}", "b", json!([1, {"c": null}]));
    round_trip("{ \"a\": 1 }", "b", json!(2));
}

#[test]
fn arrays_gain_and_lose_elements_in_place() {
    let text = "{\"hooks\": {\"Stop\": [\n  {\"command\": \"mine\"}\n]}}";
    let with = edit(text, |value| {
        value["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(json!({"command": "car hook stop"}));
    });
    assert!(
        with.contains("{\"command\": \"mine\"},\n  {\"command\": \"car hook stop\"}"),
        "{with}"
    );
    let without = edit(&with, |value| {
        value["hooks"]["Stop"].as_array_mut().unwrap().pop();
    });
    assert_eq!(without, text);
    let first_removed = edit("[1, 2, 3]", |value| {
        value.as_array_mut().unwrap().remove(0);
    });
    assert_eq!(first_removed, "[2, 3]");
    let middle = edit("[1, 2, 3]", |value| {
        value.as_array_mut().unwrap().remove(1);
    });
    assert_eq!(middle, "[1, 3]");
}

#[test]
fn nested_changes_touch_only_the_value() {
    let text =
        "{\n  \"lessons\": [\n    {\"weight\": 2, \"hits\": 1},\n    {\"weight\": 3}\n  ]\n}";
    let out = edit(text, |value| value["lessons"][0]["weight"] = json!(3));
    assert_eq!(out, text.replacen("\"weight\": 2", "\"weight\": 3", 1));
    let emptied = edit("{\"a\": {\"b\": 1}}", |value| value["a"] = json!({}));
    assert_eq!(emptied, "{\"a\": {}}");
}

#[test]
fn comments_and_errors() {
    let text = "{\n  // mine\n  \"a\": 1 /* x */\n}";
    assert_eq!(JsonText::parse(text).unwrap().value(), json!({"a": 1}));
    let out = edit(text, |value| value["a"] = json!(2));
    assert_eq!(out, "{\n  // mine\n  \"a\": 2 /* x */\n}");
    let error = JsonText::parse("{\n  \"a\": 1,,\n}").unwrap_err();
    assert_eq!((error.line, error.column), (2, 10));
    assert!(JsonText::parse("{} x").is_err());
    assert!(JsonText::parse("[1").is_err());
}

#[test]
fn comments_are_read_by_the_jsonc_reader() {
    // A comment holding a multi-byte character before the error: columns count characters of
    // the text as written.
    let error = JsonText::parse("{/* é */ \"a\" 1}").unwrap_err();
    assert_eq!(
        (error.line, error.column, error.message.as_str()),
        (1, 14, "expected `:` after the key")
    );
    // An unclosed comment is the first thing wrong, unless something before it is.
    let error = JsonText::parse("{\"a\": 1} /* open").unwrap_err();
    assert_eq!(
        (error.column, error.message.as_str()),
        (10, "unterminated comment")
    );
    let error = JsonText::parse("{\"a\" 1 /* open").unwrap_err();
    assert_eq!(error.message, "expected `:` after the key");
    // A string is text, whatever it holds; a trailing comma is still refused.
    let value = JsonText::parse("{\"url\": \"http://x/*y*/\"}")
        .unwrap()
        .value();
    assert_eq!(value, json!({"url": "http://x/*y*/"}));
    assert!(JsonText::parse("{\"a\": 1,}").is_err());
}

#[test]
fn strings_with_escapes_and_unicode() {
    let text = r#"{"k\"ey": "v\u00e9", "ä": "ö"}"#;
    let value = JsonText::parse(text).unwrap().value();
    assert_eq!(value, json!({"k\"ey": "vé", "ä": "ö"}));
    assert_eq!(
        edit(text, |v| v["ä"] = json!("ü")),
        r#"{"k\"ey": "v\u00e9", "ä": "ü"}"#
    );
}
