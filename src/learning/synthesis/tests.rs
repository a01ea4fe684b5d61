use super::*;

fn ex<'a>(bad: &'a str, good: &'a str) -> Example<'a> {
    Example { bad, good }
}

/// The most general pattern, as a person reads it, and its trigger.
fn first(examples: &[Example<'_>]) -> (String, String) {
    let patterns = propose(examples).unwrap_or_else(|error| panic!("{examples:?}: {error}"));
    (patterns[0].display(), patterns[0].trigger())
}

#[test]
fn one_example_keeps_what_the_fix_removed_with_its_name() {
    assert_eq!(
        first(&[ex(
            "    v1 = pickle.loads(body)",
            "    v1 = json.loads(body)"
        )])
        .1,
        "pickle.loads"
    );
    assert_eq!(
        first(&[ex(
            "let delay = Duration::from_millis(timeout_secs);",
            "let delay = Duration::from_secs(timeout_secs);"
        )])
        .1,
        "Duration::from_millis"
    );
    assert_eq!(
        first(&[ex(
            "if err := ioutil.WriteFile(p, b, 0o644); err != nil {",
            "if err := os.WriteFile(p, b, 0o644); err != nil {"
        )])
        .1,
        "ioutil.WriteFile"
    );
}

#[test]
fn names_one_sighting_holds_are_never_the_trigger() {
    let examples = [
        ex(
            "  subtle7 = { color: palette.mutedText, weight: 400 },",
            "  subtle7 = { color: palette.textMuted, weight: 400 },",
        ),
        ex(
            "  const hint = palette.mutedText;",
            "  const hint = palette.textMuted;",
        ),
    ];
    assert_eq!(first(&examples).1, "palette.mutedText");
    // A fix that also renames the variable it assigns.
    let examples = [
        ex("obj = pickle.loads(data)", "payload = json.loads(data)"),
        ex(
            "return pickle.loads(raw_bytes)",
            "return json.loads(raw_bytes)",
        ),
    ];
    assert_eq!(first(&examples).1, "pickle.loads");
    // The receiver differs: a wildcard, never one example's name.
    let examples = [
        ex("    archive.close_all(force)", "    archive.close(force)"),
        ex("    bundle.close_all(flag)", "    bundle.close(flag)"),
    ];
    let (display, trigger) = first(&examples);
    assert_eq!(display, "….close_all");
    assert!(trigger.starts_with("regex:"), "{trigger}");
}

#[test]
fn a_fix_that_adds_to_the_call_teaches_the_call_unless_it_passes_that() {
    let examples = [
        ex(
            "    tar.extractall(dest)",
            "    tar.extractall(dest, filter=\"data\")",
        ),
        ex(
            "    bundle.extractall(path=out)",
            "    bundle.extractall(path=out, filter=\"data\")",
        ),
    ];
    let patterns = propose(&examples).unwrap();
    let pattern = &patterns[0];
    assert_eq!(pattern.display(), "….extractall(");
    let unless = pattern.unless.as_ref().unwrap();
    assert_eq!(unless.word, "filter");
    assert!(unless.is_keyword_argument);
    assert_eq!(unless.inserted.as_deref(), Some(", filter=\"data\""));
    let regex = fancy_regex::Regex::new(&pattern.regex()).unwrap();
    assert!(regex.is_match("x.extractall(d)").unwrap());
    assert!(!regex.is_match("x.extractall(d, filter='tar')").unwrap());
    // The same with one fix that replaced the call and one that added to it (TypeScript).
    let examples = [
        ex(
            "const data = yaml.load(text);",
            "const data = yaml.load(text, { schema: FAILSAFE_SCHEMA });",
        ),
        ex(
            "const cfg = yaml.load(raw);",
            "const cfg = yaml.safeLoad(raw);",
        ),
    ];
    let pattern = &propose(&examples).unwrap()[0];
    assert_eq!(pattern.display(), "yaml.load(");
    assert_eq!(pattern.unless.as_ref().unwrap().word, "schema");
}

#[test]
fn what_the_fix_removed_is_preferred_to_the_context_it_kept() {
    let examples = [
        ex(
            "return yaml.load(fh, Loader=yaml.FullLoader)",
            "return yaml.safe_load(fh)",
        ),
        ex(
            "cfg = yaml.load(stream, Loader=yaml.FullLoader)",
            "cfg = yaml.safe_load(stream)",
        ),
    ];
    assert_eq!(first(&examples).1, "yaml.FullLoader");
}

#[test]
fn a_version_is_an_atom_with_its_whole_reference() {
    let examples = [
        ex(
            "      - uses: actions/cache@v2",
            "      - uses: actions/cache@v4",
        ),
        ex("  - uses: actions/cache@v2", "  - uses: actions/cache@v4"),
    ];
    assert_eq!(first(&examples).1, "actions/cache@v2");
    assert_eq!(
        first(&[ex("FROM python:3.8-slim", "FROM python:3.12-slim")]).1,
        "python:3.8-slim"
    );
    assert_eq!(
        first(&[ex("requests==2.19.0", "requests==2.31.0")]).1,
        "requests==2.19.0"
    );
    assert_eq!(
        first(&[ex(
            "    \"lodash\": \"^4.17.4\",",
            "    \"lodash\": \"^4.17.21\","
        )])
        .1,
        "\"lodash\": \"^4.17.4\""
    );
}

#[test]
fn a_config_key_is_learned_with_what_reads_it() {
    let examples = [
        ex(
            "    host = settings[\"redis_host\"]",
            "    host = settings[\"cache_host\"]",
        ),
        ex(
            "    connect(settings[\"redis_host\"], 5)",
            "    connect(settings[\"cache_host\"], 5)",
        ),
    ];
    assert_eq!(first(&examples).1, "settings[\"redis_host\"]");
}

#[test]
fn sightings_with_different_names_share_the_specific_part() {
    let examples = [
        ex("subprocess.run(cmd, shell=True)", "subprocess.run(args)"),
        ex(
            "subprocess.call(command, shell=True, check=True)",
            "subprocess.call(shlex.split(command), check=True)",
        ),
    ];
    assert_eq!(first(&examples).1, "shell=True");
}

#[test]
fn nothing_generic_is_proposed() {
    let refused = |bad: &str, good: &str| propose(&[ex(bad, good)]).unwrap_err();
    assert!(matches!(
        refused("x = 1", "x = 2"),
        NoPattern::NotSpecific(_)
    ));
    assert!(matches!(
        refused("import requests", "import httpx"),
        NoPattern::NotSpecific(_)
    ));
    assert!(matches!(
        refused("return True", "return False"),
        NoPattern::NotSpecific(_)
    ));
    assert!(matches!(
        refused("if x:", "if y:"),
        NoPattern::OnlyShortNames { .. }
    ));
    assert!(matches!(
        refused("x = compute(y);", "x = compute(y)"),
        NoPattern::OnlyPunctuation { .. }
    ));
    assert!(matches!(
        refused("foo(a, b)", "foo(a, b, c)"),
        NoPattern::AddedNothingSpecific { .. }
    ));
    assert!(matches!(
        refused("let total = price", "let total = price * quantity"),
        NoPattern::AddedOutsideCall { .. }
    ));
    // An operator changed is punctuation, whatever the fix added or replaced.
    for (bad, good) in [
        ("if (value == expected) {", "if (value === expected) {"),
        (
            "const user = response.data.user;",
            "const user = response.data?.user;",
        ),
    ] {
        let refusal = refused(bad, good);
        assert!(
            matches!(refusal, NoPattern::OnlyPunctuation { .. }),
            "{bad:?} -> {good:?}: {refusal}"
        );
    }
    assert!(matches!(
        refused("a  =  b", "a = b"),
        NoPattern::NothingChanged(_)
    ));
    assert!(matches!(
        propose(&[
            ex("x = pickle.loads(b)", "x = json.loads(b)"),
            ex("palette.mutedText", "palette.textMuted")
        ])
        .unwrap_err(),
        NoPattern::NoCommonPattern(_)
    ));
}

#[test]
fn a_wildcard_never_stands_for_the_mistake_itself() {
    // Two wrong attributes of one object are two mistakes, not "any attribute of palette".
    let examples = [
        ex(
            "const a = palette.mutedText;",
            "const a = palette.textMuted;",
        ),
        ex("const b = palette.mutedBg;", "const b = palette.bgMuted;"),
    ];
    assert!(propose(&examples).is_err(), "{:?}", propose(&examples));
    // Two unsafe loaders: only what they share, never `Loader=yaml.…`.
    let examples = [
        ex(
            "d = yaml.load(f, Loader=yaml.FullLoader)",
            "d = yaml.safe_load(f)",
        ),
        ex(
            "e = yaml.load(g, Loader=yaml.UnsafeLoader)",
            "e = yaml.safe_load(g)",
        ),
    ];
    for pattern in propose(&examples).unwrap() {
        assert!(
            !pattern.display().contains("Loader=yaml.…"),
            "{}",
            pattern.display()
        );
    }
}

#[test]
fn the_fix_is_what_every_example_wrote() {
    let examples = [
        ex(
            "  const a = palette.mutedText;",
            "  const a = palette.textMuted;",
        ),
        ex(
            "  x = { color: palette.mutedText, w: 1 };",
            "  x = { color: palette.textMuted, w: 1 };",
        ),
    ];
    let pattern = &propose(&examples).unwrap()[0];
    assert_eq!(
        common_fix(&examples, pattern).as_deref(),
        Some("palette.textMuted")
    );
    let examples = [
        ex("a = pickle.loads(b)", "a = json.loads(b)"),
        ex("return pickle.loads(c)", "return json.loads(c)"),
    ];
    let pattern = &propose(&examples).unwrap()[0];
    assert_eq!(
        common_fix(&examples, pattern).as_deref(),
        Some("json.loads")
    );
    // A fix that opens a call closes it in the text.
    let examples = [ex(
        "let t = std::env::var(\"TOKEN\").unwrap();",
        "let t = std::env::var(\"TOKEN\").expect(\"TOKEN must be set\");",
    )];
    let pattern = &propose(&examples).unwrap()[0];
    let fix = common_fix(&examples, pattern).unwrap();
    assert_eq!(fix.matches('(').count(), fix.matches(')').count(), "{fix}");
    // Fixes that share nothing name no fix.
    let examples = [
        ex("subprocess.run(cmd, shell=True)", "subprocess.run(args)"),
        ex(
            "subprocess.run(c, shell=True)",
            "subprocess.run(shlex.split(c))",
        ),
    ];
    let pattern = &propose(&examples).unwrap()[0];
    assert_eq!(common_fix(&examples, pattern), None);
}

#[test]
fn a_term_the_fix_took_away_is_learned_whole() {
    // The fix took `all` and `each` from one term: `Order.all` alone would be wider than the
    // evidence, and fires on the correct `count = Order.all.size`.
    let examples = [
        ex(
            "  Order.all.each { |o| o.reindex! }",
            "  Order.find_each { |o| o.reindex! }",
        ),
        ex(
            "  Order.all.each { |order| total += order.lines.size }",
            "  Order.find_each { |order| total += order.lines.size }",
        ),
    ];
    assert_eq!(first(&examples).1, "Order.all.each");
    // Python alike: every name the fix took from the call's path.
    let (display, _) = first(&[ex(
        "    init = tf.contrib.layers.xavier_initializer()",
        "    init = tf.keras.initializers.GlorotUniform()",
    )]);
    assert!(
        display.ends_with("contrib.layers.xavier_initializer"),
        "{display}"
    );
}

#[test]
fn fixes_that_took_different_things_from_a_term_teach_the_part_they_share() {
    // Two fixes of the same mistake that differ in the rest of the term: what they share is
    // the mistake (never refuse real evidence).
    let examples = [
        ex(
            "  Invoice.all.each { |i| i.touch }",
            "  Invoice.find_each { |i| i.touch }",
        ),
        ex(
            "  Invoice.all.each_slice(100) { |batch| batch.touch_all }",
            "  Invoice.in_batches(of: 100) { |batch| batch.touch_all }",
        ),
    ];
    assert_eq!(first(&examples).1, "Invoice.all");
}

#[test]
fn a_fix_that_takes_nothing_away_for_good_keeps_the_most_general_order() {
    // Reordered, not removed: every name of the mistake is in the fix, so no term is cut and
    // the variable the examples share is not put before the comparison.
    let examples = [
        ex(
            "    boolean shipped = order.status() == \"SHIPPED\";",
            "    boolean shipped = \"SHIPPED\".equals(order.status());",
        ),
        ex(
            "    if (order.status() == \"SHIPPED\") total += 1;",
            "    if (\"SHIPPED\".equals(order.status())) total += 1;",
        ),
    ];
    let shown: Vec<String> = propose(&examples)
        .unwrap()
        .iter()
        .map(Pattern::display)
        .collect();
    let at = |display: &str| shown.iter().position(|known| known == display);
    let (general, specific) = (
        at("status() == \"SHIPPED\""),
        at("order.status() == \"SHIPPED\""),
    );
    assert!(
        matches!((general, specific), (Some(general), Some(specific)) if general < specific),
        "{shown:?}"
    );
}

#[test]
fn a_name_the_fix_renamed_differently_each_time_is_no_part_of_the_mistake() {
    // The fix replaced the call and renamed the variable: the changed range runs through the
    // variable, which each sighting names differently, and each fix too.
    let examples = [
        ex(
            "\tk_delayed_work_submit(&led_work, K_MSEC(40));",
            "\tk_work_schedule(&led_dwork, K_MSEC(40));",
        ),
        ex(
            "\tk_delayed_work_submit(&v1_19_4_work, K_MSEC(7));",
            "\tk_work_schedule(&v1_19_4_dwork, K_MSEC(7));",
        ),
    ];
    assert_eq!(first(&examples).0, "k_delayed_work_submit(&…");
    // A comment the fix also took away does not keep the shapes apart.
    let examples = [
        examples[0],
        ex(
            "\tk_delayed_work_submit(&fan_work, K_SECONDS(3)); /* TODO: k_work_schedule after the bump */",
            "\tk_work_schedule(&fan_dwork, K_SECONDS(3));",
        ),
    ];
    assert!(
        propose(&examples)
            .unwrap()
            .iter()
            .any(|pattern| pattern.display() == "k_delayed_work_submit(&…"),
        "{:?}",
        propose(&examples)
    );
    // One sighting alone keeps its name: nothing yet says it is a particular.
    let alone = propose(&examples[..1]).unwrap();
    assert!(
        alone
            .iter()
            .all(|pattern| pattern.elements.iter().all(Element::is_literal)),
        "{alone:?}"
    );
}

#[test]
fn a_name_every_fix_replaced_the_same_way_is_the_mistake() {
    // The fixes agree on `SafeLoader`: the names they replaced are the mistake, never a
    // wildcard, and a fix that only renamed teaches nothing.
    let examples = [
        ex(
            "x = make(Loader=yaml.FullLoader)",
            "x = make(Loader=yaml.SafeLoader)",
        ),
        ex(
            "y = make(Loader=yaml.UnsafeLoader)",
            "y = make(Loader=yaml.SafeLoader)",
        ),
    ];
    for pattern in propose(&examples).unwrap_or_default() {
        assert!(
            !pattern.display().contains("yaml.…"),
            "{}",
            pattern.display()
        );
    }
    let examples = [
        ex("fetch_rows(&led_work);", "fetch_rows(&led_dwork);"),
        ex("fetch_rows(&fan_work);", "fetch_rows(&fan_dwork);"),
    ];
    assert!(propose(&examples).is_err(), "{:?}", propose(&examples));
    // Two different calls renamed, their variables too: no name of the mistake is shared.
    let examples = [
        ex("old_send(&led_work, 1);", "new_send(&led_dwork, 1);"),
        ex("old_post(&fan_work, 1);", "new_post(&fan_dwork, 1);"),
    ];
    assert!(propose(&examples).is_err(), "{:?}", propose(&examples));
}
