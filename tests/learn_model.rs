//! The learning model through the binary, one test per symptom of the issue "Learn across
//! sessions in a real project": a lesson is built from examples of the mistake and its fix,
//! verified against the project's code the way it will match, and every refusal is recorded.
//! Each test failed before the model: the refusal rules refused this evidence, silently.

use serde_json::{Value, json};

use crate::learn_signals::{T0, agent_edit, candidates, lessons, person_edit, stop};
use crate::review_helpers::{FakeClis, scripted_reviewer};
use crate::support::{HookAnswer, TestProject};

const DAY: i64 = 86_400;

/// A `command` reviewer that reports, as a P1, the first line under src/ matching `pattern`
/// (`grep -E`) and not `allowed` (when given).
pub(crate) fn reviewer_flagging(
    project: &TestProject,
    pattern: &str,
    allowed: Option<&str>,
    title: &str,
) -> FakeClis {
    let filter = allowed.map_or_else(String::new, |allowed| format!(" | grep -vE '{allowed}'"));
    let script = format!(
        r#"#!/bin/sh
cat > /dev/null
hit=$(grep -rnE '{pattern}' src{filter} | head -1)
if [ -z "$hit" ]; then echo '{{"findings": []}}'; exit 0; fi
file=${{hit%%:*}}; rest=${{hit#*:}}; line=${{rest%%:*}}
cat <<JSON
{{"findings": [
 {{"id": "F1", "severity": "P1", "file": "$file", "line": $line,
  "title": "{title}",
  "wrong_output": "handle(b'evil') returns attacker-controlled objects instead of raising",
  "suggestion": "use the safe form"}}]}}
JSON
"#
    );
    scripted_reviewer(project, &script)
}

/// The agent changes `old` to `new` in `file`, the review blocks on it, the agent changes `bad`
/// to `fixed`, the next review is clean; returns the allowed stop.
pub(crate) fn reviewed_fix(
    project: &TestProject,
    session: &str,
    file: &str,
    (old, new): (&str, &str),
    (bad, fixed): (&str, &str),
) -> HookAnswer {
    let answer = agent_edit(project, session, file, old, new);
    assert!(!answer.is_block(), "{answer:?}");
    let blocked = stop(project, session);
    assert!(blocked.is_block(), "the P1 blocks: {blocked:?}");
    agent_edit(project, session, file, bad, fixed);
    let allowed = stop(project, session);
    assert!(!allowed.is_block(), "{allowed:?}");
    allowed
}

fn write(project: &TestProject, session: &str, file: &str, content: &str) -> HookAnswer {
    let original = project.exists(file).then(|| project.read(file));
    let mut payload: Value =
        serde_json::from_str(&project.write_payload(file, content, original.as_deref())).unwrap();
    payload["session_id"] = json!(session);
    project.hook("post-tool-use", &payload.to_string())
}

fn refused(project: &TestProject) -> Vec<Value> {
    let run = project.run(&["lessons", "candidates", "--refused", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

/// Symptom 1: text in a comment, and a committed copy of the mistake, kept a hallucinated
/// import from becoming a lesson (`git grep` refused it). The lesson matches code only; the
/// committed copy is a known instance, reported when it is learned, by `car lessons show` and
/// by `car check`.
#[test]
fn a_committed_copy_of_the_mistake_is_evidence_not_a_refusal() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write("pkg/legacy.py", "import fastyamlz\n\nLOADER = fastyamlz\n");
    project.write(
        "pkg/notes.py",
        "# fastyamlz is not a real package; use json\nNOTES = 1\n",
    );
    project.commit_all();
    let wrong = "import fastyamlz\n";
    assert!(write(&project, "s1", "pkg/a.py", wrong).is_block());
    write(&project, "s1", "pkg/a.py", "import json\n");
    project.at(T0 + DAY);
    let second = write(&project, "s2", "pkg/b.py", wrong);
    assert!(second.is_block(), "{second:?}");
    assert!(
        second.system_message().contains(
            "It also matches 2 places already in the code: pkg/legacy.py:1, pkg/legacy.py:3"
        ),
        "{second:?}"
    );
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(
        learned[0]["known_instances"]["count"], 2,
        "the import and its use"
    );
    let id = learned[0]["id"].as_str().unwrap();
    let shown = project.run(&["lessons", "show", id]);
    assert!(
        shown.stdout.contains("pkg/legacy.py:1"),
        "`car lessons show` names the known instance: {shown:?}"
    );
    let checked = project.run(&["check", "--format", "json", "pkg/legacy.py"]);
    let findings: Vec<Value> = serde_json::from_str(&checked.stdout).unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["validator"] == "lesson" && f["lesson_id"] == id && f["line"] == 1),
        "`car check` reports the known instance: {findings:?}"
    );
}

/// Symptom 2: a trigger widened to one line's names (`subtle7 = { color: Theme.fadedText`)
/// that no second sighting could match. The sightings' shared pattern is the trigger.
#[test]
fn names_only_one_sighting_holds_never_make_the_trigger() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write("src/a.ts", "export const a = {\n};\n");
    project.write("src/b.ts", "export function b() {\n}\n");
    project.commit_all();
    let s1 = "session-one";
    agent_edit(
        &project,
        s1,
        "src/a.ts",
        "export const a = {\n",
        "export const a = {\n  subtle7: { color: Theme.fadedText, size: 3 },\n",
    );
    project.at(T0 + 120);
    person_edit(&project, "src/a.ts", "Theme.fadedText", "Theme.textFaded");
    project.at(T0 + 240);
    let first = stop(&project, s1);
    assert!(
        first.system_message().contains("new lesson candidate"),
        "{first:?}"
    );
    project.at(T0 + DAY);
    let s2 = "session-two";
    agent_edit(
        &project,
        s2,
        "src/b.ts",
        "export function b() {\n",
        "export function b() {\n  const label = Theme.fadedText;\n",
    );
    project.at(T0 + DAY + 120);
    person_edit(&project, "src/b.ts", "Theme.fadedText", "Theme.textFaded");
    project.at(T0 + DAY + 240);
    let second = stop(&project, s2);
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}"
    );
    let learned = lessons(&project);
    assert_eq!(
        learned[0]["triggers"],
        json!(["Theme.fadedText"]),
        "{learned:?}"
    );
    let text = learned[0]["lesson"].as_str().unwrap();
    assert!(
        text.ends_with("Write `Theme.textFaded`, not `Theme.fadedText`."),
        "{text}"
    );
    assert!(
        !text.contains("subtle7") && !text.contains("label"),
        "{text}"
    );
}

/// Symptom 3: a one-token fix on the finding's own line (an unsafe module's call swapped for a
/// safe module's), in files committed before the session, one of them also renaming the
/// variable, taught nothing. Now it is a lesson, and it warns on the next repeat.
#[test]
fn fixed_review_findings_teach_a_one_token_fix_that_also_renames() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["orders", "refunds", "audit"] {
        project.write(
            &format!("src/{name}.py"),
            "import json\nimport pickle\n\n\ndef handle(body):\n    return body\n",
        );
    }
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "pickle\\.loads",
        None,
        "Untrusted bytes deserialised with pickle",
    );
    let first = reviewed_fix(
        &project,
        "session-one",
        "src/orders.py",
        ("    return body\n", "    return pickle.loads(body)\n"),
        ("return pickle.loads(body)", "return json.loads(body)"),
    );
    assert!(
        first.system_message().contains("new lesson candidate"),
        "{first:?}"
    );
    project.at(T0 + DAY);
    let second = reviewed_fix(
        &project,
        "session-two",
        "src/refunds.py",
        ("    return body\n", "    order = pickle.loads(body)\n"),
        ("order = pickle.loads(body)", "data = json.loads(body)"),
    );
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}"
    );
    let learned = lessons(&project);
    assert_eq!(
        learned[0]["triggers"],
        json!(["pickle.loads"]),
        "{learned:?}"
    );
    assert_eq!(learned[0]["source"], "review");
    project.at(T0 + 2 * DAY);
    let warned = agent_edit(
        &project,
        "session-three",
        "src/audit.py",
        "    return body\n",
        "    return pickle.loads(body)\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
}

/// A committed copy of the mistake inside a longer expression (`JSON.parse(…) ?? {}`) refuted
/// every trigger that named the stored value as "correct code", so only the bare `JSON.parse` was
/// left, which correct code refutes too: nothing was learned. What follows a finished call is not
/// part of it: the copy is a known instance, the lesson is learned, and correct code stays quiet.
#[test]
fn a_copy_of_the_mistake_inside_a_longer_expression_is_an_instance() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["prefs", "cart", "theme"] {
        project.write(
            &format!("src/{name}.ts"),
            "export function load(key: string) {\n  return key;\n}\n",
        );
    }
    project.write(
        "lib/legacy.ts",
        "export function legacy(key: string) {\n  return JSON.parse(localStorage.getItem(key)) ?? {};\n}\n\nexport function raw(text: string) {\n  return JSON.parse(text);\n}\n",
    );
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "JSON\\.parse\\(localStorage",
        None,
        "Stored JSON parsed without a check",
    );
    reviewed_fix(
        &project,
        "session-one",
        "src/prefs.ts",
        (
            "  return key;\n",
            "  const stored = JSON.parse(localStorage.getItem(key));\n  return stored;\n",
        ),
        (
            "const stored = JSON.parse(localStorage.getItem(key));",
            "const stored = safeParse(localStorage.getItem(key));",
        ),
    );
    project.at(T0 + DAY);
    let second = reviewed_fix(
        &project,
        "session-two",
        "src/cart.ts",
        (
            "  return key;\n",
            "  const items = JSON.parse(localStorage.getItem(key));\n  return items;\n",
        ),
        (
            "const items = JSON.parse(localStorage.getItem(key));",
            "const items = safeParse(localStorage.getItem(key));",
        ),
    );
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}; refused: {:?}",
        refused(&project)
    );
    assert!(
        second.system_message().contains("lib/legacy.ts:2"),
        "the committed copy is named as a known instance: {second:?}"
    );
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{learned:?}");
    let trigger = learned[0]["triggers"][0].as_str().unwrap();
    assert!(trigger.contains("localStorage"), "{trigger}");
    assert_eq!(learned[0]["known_instances"]["count"], 1, "{learned:?}");
    project.at(T0 + 2 * DAY);
    let correct = agent_edit(
        &project,
        "session-three",
        "src/theme.ts",
        "  return key;\n",
        "  const parsed = JSON.parse(key);\n  return parsed;\n",
    );
    assert!(!correct.context().contains("⚠️ lesson"), "{correct:?}");
    let warned = agent_edit(
        &project,
        "session-three",
        "src/theme.ts",
        "  return parsed;\n",
        "  return JSON.parse(localStorage.getItem(key)) || parsed;\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
}

/// A lesson learned before the project held its correct look-alikes was wider than the evidence:
/// two fixes of `Order.all.each { |o| … }` → `Order.find_each { |o| … }` taught `Order.all` (the
/// most general pattern nothing refuted yet), which then warned on the correct
/// `count = Order.all.size`. The fixes took `all` and `each` from one term: the lesson holds that
/// term whole, and still warns on the mistake in another block.
#[test]
fn a_lesson_holds_the_whole_term_the_fix_took_away() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["reindex", "report", "audit"] {
        project.write(&format!("src/{name}.rb"), "def run\n  nil\nend\n");
    }
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "Order\\.all\\.each",
        None,
        "Every order loaded into memory at once",
    );
    reviewed_fix(
        &project,
        "session-one",
        "src/reindex.rb",
        ("  nil\n", "  Order.all.each { |o| o.reindex! }\n"),
        (
            "Order.all.each { |o| o.reindex! }",
            "Order.find_each { |o| o.reindex! }",
        ),
    );
    project.at(T0 + DAY);
    let second = reviewed_fix(
        &project,
        "session-two",
        "src/report.rb",
        (
            "  nil\n",
            "  Order.all.each { |order| total += order.lines.size }\n",
        ),
        (
            "Order.all.each { |order| total += order.lines.size }",
            "Order.find_each { |order| total += order.lines.size }",
        ),
    );
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}; refused: {:?}",
        refused(&project)
    );
    let learned = lessons(&project);
    assert_eq!(
        learned[0]["triggers"],
        json!(["Order.all.each"]),
        "{learned:?}"
    );
    project.at(T0 + 2 * DAY);
    let correct = agent_edit(
        &project,
        "session-three",
        "src/audit.rb",
        "  nil\n",
        "  count = Order.all.size\n",
    );
    assert!(!correct.context().contains("⚠️ lesson"), "{correct:?}");
    let warned = agent_edit(
        &project,
        "session-three",
        "src/audit.rb",
        "  count = Order.all.size\n",
        "  Order.all.each { |order| order.touch }\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
}

/// A fix that also renamed the variable inside what it replaced
/// (`k_delayed_work_submit(&led_work, …)` → `k_work_schedule(&led_dwork, …)`) kept that variable
/// literal in every pattern, so no two sightings joined: each opened a candidate of its own, and
/// nothing was learned. A name each fix renamed differently is the sighting's particular. And a
/// committed copy whose comment named the call every fix wrote refuted the lesson as "correct
/// code"; a review candidate so refused was then promoted by the checkers' path, as a lesson
/// waiting for a checker to report its trigger, which none does.
#[test]
fn a_fix_that_also_renames_the_variable_it_replaced_is_learned() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["led", "fan", "radio"] {
        project.write(
            &format!("src/{name}.c"),
            "void start(void)\n{\n\treturn;\n}\n",
        );
    }
    // A committed copy of the mistake whose comment names the fix: a known instance, not
    // correct code (the words of a comment are not how the line is written).
    project.write(
        "lib/gps.c",
        "void gps(void)\n{\n\tk_delayed_work_submit(&gps_work, K_SECONDS(3)); /* TODO: k_work_schedule after the bump */\n}\n",
    );
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "k_delayed_work_submit",
        None,
        "A delayed-work call removed in Zephyr 3",
    );
    reviewed_fix(
        &project,
        "session-one",
        "src/led.c",
        (
            "\treturn;\n",
            "\tk_delayed_work_submit(&led_work, K_MSEC(40));\n",
        ),
        (
            "k_delayed_work_submit(&led_work, K_MSEC(40));",
            "k_work_schedule(&led_dwork, K_MSEC(40));",
        ),
    );
    project.at(T0 + DAY);
    let second = reviewed_fix(
        &project,
        "session-two",
        "src/fan.c",
        (
            "\treturn;\n",
            "\tk_delayed_work_submit(&fan_work, K_SECONDS(3));\n",
        ),
        (
            "k_delayed_work_submit(&fan_work, K_SECONDS(3));",
            "k_work_schedule(&fan_dwork, K_SECONDS(3));",
        ),
    );
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}; candidates: {:?}; refused: {:?}",
        candidates(&project),
        refused(&project)
    );
    let learned = lessons(&project);
    assert_eq!(learned[0]["source"], "review", "{learned:?}");
    assert_eq!(learned[0]["known_instances"]["count"], 1, "{learned:?}");
    let text = learned[0]["lesson"].as_str().unwrap();
    assert!(
        text.contains("not `k_delayed_work_submit(&…`"),
        "the lesson names the mistake as a person reads it, not as its regex: {text}"
    );
    project.at(T0 + 2 * DAY);
    let correct = agent_edit(
        &project,
        "session-three",
        "src/radio.c",
        "\treturn;\n",
        "\tk_work_submit(&radio_work);\n",
    );
    assert!(!correct.context().contains("⚠️ lesson"), "{correct:?}");
    let warned = agent_edit(
        &project,
        "session-three",
        "src/radio.c",
        "\tk_work_submit(&radio_work);\n",
        "\tk_delayed_work_submit(&radio_work, K_MSEC(5));\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
}

/// `order.status` is refuted by the fix (`"SHIPPED".equals(order.status())`); every pattern with
/// no more words than it was then skipped, `status() == "SHIPPED"` too, and the lesson learned
/// was `order.status() == "SHIPPED"`, silent on `o.status() == "SHIPPED"`. A refuted pattern
/// rules out only patterns whose words it holds all of.
#[test]
fn a_refuted_pattern_does_not_narrow_the_lesson_to_a_variable_name() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["Shipping", "Billing", "Audit"] {
        project.write(
            &format!("src/{name}.java"),
            &format!(
                "class {name} {{\n    int run(Order order) {{\n        return 0;\n    }}\n}}\n"
            ),
        );
    }
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "status\\(\\) ==",
        None,
        "Strings compared with ==",
    );
    reviewed_fix(
        &project,
        "session-one",
        "src/Shipping.java",
        (
            "        return 0;\n",
            "        boolean shipped = order.status() == \"SHIPPED\";\n        return 0;\n",
        ),
        (
            "boolean shipped = order.status() == \"SHIPPED\";",
            "boolean shipped = \"SHIPPED\".equals(order.status());",
        ),
    );
    project.at(T0 + DAY);
    let second = reviewed_fix(
        &project,
        "session-two",
        "src/Billing.java",
        (
            "        return 0;\n",
            "        if (order.status() == \"SHIPPED\") return 1;\n        return 0;\n",
        ),
        (
            "if (order.status() == \"SHIPPED\") return 1;",
            "if (\"SHIPPED\".equals(order.status())) return 1;",
        ),
    );
    assert!(
        second.system_message().contains("learned a lesson"),
        "{second:?}; refused: {:?}",
        refused(&project)
    );
    project.at(T0 + 2 * DAY);
    let warned = agent_edit(
        &project,
        "session-three",
        "src/Audit.java",
        "        return 0;\n",
        "        return o.status() == \"SHIPPED\" ? 1 : 0;\n",
    );
    assert!(
        warned.context().contains("⚠️ lesson"),
        "{warned:?}; lessons: {:?}",
        lessons(&project)
    );
}

/// Symptom 4: a person's version bump in two workflows the agent wrote was refused as "a short
/// rename". A version is an atom with what it is the version of.
#[test]
fn a_version_bump_the_person_makes_is_learned_with_its_reference() {
    let mut project = TestProject::new();
    project.at(T0);
    let workflow = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n";
    project.write(".github/workflows/a.yml", workflow);
    project.write(".github/workflows/b.yml", workflow);
    project.write(".github/workflows/c.yml", workflow);
    project.commit_all();
    for (day, file) in [(0, "a.yml"), (1, "b.yml")] {
        let session = format!("session-{day}");
        let path = format!(".github/workflows/{file}");
        project.at(T0 + day * DAY);
        agent_edit(
            &project,
            &session,
            &path,
            "      - uses: actions/checkout@v4\n",
            "      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v3\n",
        );
        project.at(T0 + day * DAY + 120);
        person_edit(
            &project,
            &path,
            "actions/setup-go@v3",
            "actions/setup-go@v5",
        );
        project.at(T0 + day * DAY + 240);
        stop(&project, &session);
    }
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{:?}", refused(&project));
    assert_eq!(learned[0]["triggers"], json!(["actions/setup-go@v3"]));
    project.at(T0 + 3 * DAY);
    let warned = agent_edit(
        &project,
        "session-3",
        ".github/workflows/c.yml",
        "      - uses: actions/checkout@v4\n",
        "      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v3\n",
    );
    assert!(warned.context().contains("⚠️ lesson"), "{warned:?}");
    let correct = agent_edit(
        &project,
        "session-3",
        ".github/workflows/c.yml",
        "      - uses: actions/setup-go@v3\n",
        "      - uses: actions/setup-go@v5\n      - uses: actions/setup-node@v3\n",
    );
    assert!(!correct.context().contains("⚠️ lesson"), "{correct:?}");
}

/// Symptom 5, first half: when the safe form contains the unsafe one, the lesson is "the call
/// unless it passes what the fix added": it warns on a repeat, never on the safe call.
#[test]
fn a_fix_that_adds_to_the_call_teaches_the_call_without_it() {
    let mut project = TestProject::new();
    project.at(T0);
    for name in ["unpack", "restore", "sync"] {
        project.write(
            &format!("src/{name}.py"),
            "import tarfile\n\n\ndef run(tar, dest):\n    return dest\n",
        );
    }
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "extractall\\(",
        Some("filter="),
        "Archive members can write outside the target folder",
    );
    reviewed_fix(
        &project,
        "session-one",
        "src/unpack.py",
        ("    return dest\n", "    tar.extractall(dest)\n"),
        (
            "tar.extractall(dest)",
            "tar.extractall(dest, filter=\"data\")",
        ),
    );
    project.at(T0 + DAY);
    reviewed_fix(
        &project,
        "session-two",
        "src/restore.py",
        ("    return dest\n", "    tar.extractall(path=dest)\n"),
        (
            "tar.extractall(path=dest)",
            "tar.extractall(path=dest, filter=\"data\")",
        ),
    );
    let learned = lessons(&project);
    assert_eq!(learned.len(), 1, "{:?}", refused(&project));
    project.at(T0 + 2 * DAY);
    let safe = agent_edit(
        &project,
        "session-three",
        "src/sync.py",
        "    return dest\n",
        "    tar.extractall(dest, filter=\"tar\")\n    return dest\n",
    );
    assert!(!safe.context().contains("⚠️ lesson"), "{safe:?}");
    let repeat = agent_edit(
        &project,
        "session-three",
        "src/sync.py",
        "    return dest\n",
        "    tar.extractall(dest)\n",
    );
    assert!(repeat.context().contains("⚠️ lesson"), "{repeat:?}");
}

/// Symptom 5, second half, and symptom 7: a lesson that would fire on the project's correct
/// code (`Duration::from_millis(250)`) is refused, the refusal is recorded with its reason and
/// place, listed by `car lessons candidates --refused`, and told to the person once it recurs.
#[test]
fn a_lesson_that_fires_on_correct_code_is_refused_and_says_why() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "src/poll.rs",
        "use std::time::Duration;\n\npub fn tick() -> Duration {\n    Duration::from_millis(250)\n}\n",
    );
    let names = [
        ("a", "timeout_secs"),
        ("b", "retry_secs"),
        ("c", "backoff_secs"),
        ("d", "grace_secs"),
    ];
    for (file, name) in names {
        project.write(
            &format!("src/{file}.rs"),
            &format!(
                "use std::time::Duration;\n\npub fn wait({name}: u64) -> u64 {{\n    {name}\n}}\n"
            ),
        );
    }
    project.commit_all();
    let _reviewer = reviewer_flagging(
        &project,
        "from_millis\\([a-z_]*secs",
        None,
        "A seconds value passed as milliseconds",
    );
    let mut told = Vec::new();
    for (day, (file, name)) in names.iter().enumerate() {
        project.at(T0 + day as i64 * DAY);
        let allowed = reviewed_fix(
            &project,
            &format!("session-{file}"),
            &format!("src/{file}.rs"),
            (
                &format!("    {name}\n"),
                &format!("    let _ = Duration::from_millis({name});\n    {name}\n"),
            ),
            (
                &format!("Duration::from_millis({name})"),
                &format!("Duration::from_secs({name})"),
            ),
        );
        told.push(allowed.system_message());
    }
    assert!(lessons(&project).is_empty(), "{:?}", lessons(&project));
    let refusals = refused(&project);
    let refusal = refusals
        .iter()
        .find(|r| r["kind"] == "fires-on-correct-code")
        .unwrap_or_else(|| panic!("{refusals:?}"));
    assert!(
        refusal["reason"]
            .as_str()
            .unwrap()
            .contains("src/poll.rs:4: Duration::from_millis(250)"),
        "{refusal}"
    );
    assert_eq!(
        refusal["count"], 3,
        "refused at each of three promotions: {refusal}"
    );
    let told_times = told
        .iter()
        .filter(|message| message.contains("car refused 3 times to learn"))
        .count();
    assert_eq!(told_times, 1, "told once: {told:#?}");
    let pool = candidates(&project);
    assert_eq!(
        pool[0]["refused"]["kind"], "fires-on-correct-code",
        "{pool:?}"
    );
    let listed = project.run(&["lessons", "candidates"]);
    assert!(listed.stdout.contains("not a lesson yet:"), "{listed:?}");
    let text = project.run(&["lessons", "candidates", "--refused"]);
    assert!(text.stdout.contains("fires-on-correct-code"), "{text:?}");
    let report = project.run(&["report", "-o", "report.html"]);
    assert_eq!(report.code, 0, "{report:?}");
    let html = project.read("report.html");
    assert!(
        html.contains("What car refused to learn") && html.contains("src/poll.rs:4"),
        "the report shows the refusal"
    );
}

/// Symptom 6: a fix the checker still rejects (`./retry`, a module that does not exist) was
/// taught as the fix. Now only the fix that passes is the evidence, and the refusal is recorded.
#[test]
fn a_fix_that_still_fails_is_not_taught_as_the_fix() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write("pkg/__init__.py", "");
    project.commit_all();
    let wrong = "import fastyamlz\n";
    assert!(write(&project, "s1", "pkg/a.py", wrong).is_block());
    let still_wrong = write(&project, "s1", "pkg/a.py", "import yamlz_helpers_q\n");
    assert!(still_wrong.is_block(), "{still_wrong:?}");
    write(&project, "s1", "pkg/a.py", "import json\n");
    project.at(T0 + DAY);
    assert!(write(&project, "s2", "pkg/b.py", wrong).is_block());
    let learned = lessons(&project);
    let fastyamlz = learned
        .iter()
        .find(|l| l["triggers"] == json!(["fastyamlz"]))
        .unwrap_or_else(|| panic!("{learned:?}"));
    let text = fastyamlz["lesson"].as_str().unwrap();
    assert!(text.ends_with("Write `json`, not `fastyamlz`."), "{text}");
    assert!(
        refused(&project)
            .iter()
            .any(|r| r["kind"] == "fix-still-fails" && r["subject"] == "fastyamlz"),
        "{:?}",
        refused(&project)
    );
    let id = fastyamlz["id"].as_str().unwrap();
    let shown = project.run(&["lessons", "show", id]);
    assert!(
        shown.stdout.contains("refused   1× fix-still-fails"),
        "`car lessons show` tells what was refused on the way: {shown:?}"
    );
}

/// A fix whose name holds the old one (`fastyamlz` → `fastyamlz_compat`, as a renamed setting
/// `CONFIG_LOW_POWER` → `CONFIG_LOW_POWER_MODE`) is a fix: the old name is not "still written"
/// there. It used to be taken for a changed environment, and the evidence was dropped with no
/// refusal recorded. A name still written whole, now without an error, is recorded as refused.
#[test]
fn a_fix_whose_name_holds_the_old_one_is_the_fix() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write("pkg/__init__.py", "");
    project.write("fastyamlz_compat.py", "");
    project.commit_all();
    let wrong = "import fastyamlz\n";
    assert!(write(&project, "s1", "pkg/a.py", wrong).is_block());
    let fixed = write(&project, "s1", "pkg/a.py", "import fastyamlz_compat\n");
    assert!(!fixed.is_block(), "{fixed:?}");
    project.at(T0 + DAY);
    assert!(write(&project, "s2", "pkg/b.py", wrong).is_block());
    let learned = lessons(&project);
    let lesson = learned
        .iter()
        .find(|l| l["triggers"] == json!(["fastyamlz"]))
        .unwrap_or_else(|| panic!("{learned:?}"));
    let text = lesson["lesson"].as_str().unwrap();
    assert!(text.contains("`fastyamlz_compat`"), "{text}");

    // The module appears (someone added it): the import is still written and errs no more.
    let mut project = TestProject::new();
    project.at(T0);
    project.write("pkg/__init__.py", "");
    project.commit_all();
    assert!(write(&project, "s1", "pkg/a.py", wrong).is_block());
    project.write("fastyamlz.py", "");
    write(&project, "s1", "pkg/a.py", "import fastyamlz\nx = 1\n");
    assert!(
        refused(&project)
            .iter()
            .any(|r| r["kind"] == "still-written" && r["subject"] == "fastyamlz"),
        "{:?}",
        refused(&project)
    );
    assert_eq!(lessons(&project), Vec::<Value>::new());
}

/// Symptom 7: a fix nothing specific can be learned from is no longer dropped silently.
#[test]
fn a_refused_review_fix_is_recorded_with_its_reason() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write("src/job.py", "def job(x, y):\n    return 0\n");
    project.commit_all();
    let _reviewer = reviewer_flagging(&project, "if x:", None, "Wrong flag tested");
    reviewed_fix(
        &project,
        "session-one",
        "src/job.py",
        (
            "    return 0\n",
            "    if x:\n        return 1\n    return 0\n",
        ),
        ("if x:", "if y:"),
    );
    let refusals = refused(&project);
    assert!(
        refusals.iter().any(|r| r["kind"] == "no-specific-pattern"
            && r["source"] == "review"
            && r["reason"]
                .as_str()
                .unwrap()
                .contains("changed only short names")),
        "{refusals:?}"
    );
}

/// Symptom 8: a person's correction followed by the agent's test run, in an agent that does not
/// say how long its command ran, was taken for the test run's own change; and a generated page
/// rewritten by its tool after the agent's edit (`<title>App 4.59.0`) taught a lesson.
#[test]
fn a_test_run_is_not_the_author_and_a_regenerated_page_is_not_a_correction() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "src/tls.py",
        "import ssl\n\nctx = ssl.create_default_context()\n",
    );
    let page: String = (0..30)
        .map(|line| format!("<p>section {line} of the manual</p>\n"))
        .collect();
    project.write("docs/index.html", &format!("<html>\n{page}</html>\n"));
    project.commit_all();
    let session = "session-one";
    agent_edit(
        &project,
        session,
        "src/tls.py",
        "ctx = ssl.create_default_context()\n",
        "ctx = ssl.create_default_context()\nctx.check_hostname = False\n",
    );
    agent_edit(
        &project,
        session,
        "docs/index.html",
        "<html>\n",
        "<html>\n<title>App 4.58.0</title>\n",
    );
    project.at(T0 + 60);
    person_edit(
        &project,
        "src/tls.py",
        "ctx.check_hostname = False",
        "ctx.check_hostname = True",
    );
    // The docs tool rebuilds the page: a new version, every section re-rendered.
    let rebuilt: String = (0..30)
        .map(|line| format!("<p class=\"s\">section {line} of the manual</p>\n"))
        .collect();
    project.write(
        "docs/index.html",
        &format!("<html>\n<title>App 4.59.0</title>\n{rebuilt}</html>\n"),
    );
    let mut payload = project.fixture_json("claude-post-bash-rm.json");
    payload["session_id"] = json!(session);
    payload["tool_input"]["command"] = json!("python -m pytest -q");
    payload["tool_response"]["stdout"] = json!("3 passed in 0.10s\n");
    payload.as_object_mut().unwrap().remove("duration_ms");
    assert_eq!(project.hook("post-tool-use", &payload.to_string()).code, 0);
    project.at(T0 + 120);
    let stopped = stop(&project, session);
    assert!(
        stopped
            .system_message()
            .contains("new lesson candidate from a correction in src/tls.py"),
        "{stopped:?}"
    );
    let pool = candidates(&project);
    assert_eq!(pool.len(), 1, "only the person's correction: {pool:?}");
    let refusals = refused(&project);
    assert!(
        refusals.iter().any(|r| r["kind"] == "not-a-correction"
            && r["reason"].as_str().unwrap().contains("changed at once")),
        "{refusals:?}"
    );
}

/// Runs git in the project (the person's hand on the repository).
fn git(project: &TestProject, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=p", "-c", "user.email=p@p"])
        .args(args)
        .current_dir(project.path())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Issue "The gate and the lesson commands tell the truth", item 9: a change that came with a
/// new HEAD (a pull with the agent's work stashed around it) is git's, not a person's
/// correction, even when the file is not the committed version (the agent's later line is
/// still uncommitted beside it); the person's own hand after their own commit still is one.
#[test]
fn a_change_a_pull_brought_is_not_a_persons_correction() {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "src/tls.py",
        "import ssl\n\nctx = ssl.create_default_context()\n",
    );
    project.write("src/net.py", "import socket\n\nTIMEOUT = 1\n");
    // The package the agent imports, in the project: the test needs no Python package installed.
    project.write("certifi/__init__.py", "");
    project.commit_all();
    let session = "session-one";
    agent_edit(
        &project,
        session,
        "src/tls.py",
        "ctx = ssl.create_default_context()\n",
        "ctx = ssl.create_default_context()\nctx.check_hostname = False\n",
    );
    agent_edit(
        &project,
        session,
        "src/net.py",
        "TIMEOUT = 1\n",
        "TIMEOUT = 1\nRETRIES = 0\n",
    );
    project.commit_all();
    // Upstream changed the agent's line on another branch.
    git(&project, &["checkout", "-q", "-b", "upstream"]);
    person_edit(
        &project,
        "src/tls.py",
        "check_hostname = False",
        "check_hostname = True",
    );
    git(
        &project,
        &["commit", "-q", "-am", "upstream: verify host names"],
    );
    git(&project, &["checkout", "-q", "-"]);
    project.at(T0 + 60);
    agent_edit(
        &project,
        session,
        "src/tls.py",
        "import ssl\n",
        "import ssl\nimport certifi\n",
    );
    git(&project, &["stash", "-q"]);
    git(&project, &["merge", "-q", "--ff-only", "upstream"]);
    git(&project, &["stash", "pop", "-q"]);
    // The person corrects the agent's other line by hand (after their own commit of it).
    person_edit(&project, "src/net.py", "RETRIES = 0", "RETRIES = 3");
    project.at(T0 + 120);
    let stopped = stop(&project, session);
    let pool = candidates(&project);
    assert_eq!(
        pool.len(),
        1,
        "only the person's own correction: {pool:?} {stopped:?}"
    );
    assert_eq!(pool[0]["learned_from"][0]["file"], "src/net.py");
    assert!(
        refused(&project)
            .iter()
            .any(|r| r["kind"] == "not-a-correction"
                && r["reason"].as_str().unwrap().contains("HEAD moved")),
        "{:?}",
        refused(&project)
    );
}
