use super::*;
use crate::clock::Clock;
use crate::git::git_in as git;
use crate::project::Project;
use crate::settings::Settings;

fn sighting(session: &str, file: &str, review: &str, bad: &str, fixed: &str) -> Sighting {
    Sighting {
        source: Source::Review,
        scope: "*.py".into(),
        why: "Untrusted bytes deserialised (P1 review finding).".into(),
        lesson: "candidate text".into(),
        evidence: Evidence {
            session: session.into(),
            file: file.into(),
            line: 3,
            review: Some(review.into()),
            finding: Some("F1".into()),
            bad: bad.into(),
            fixed: fixed.into(),
            at: 1,
            url: None,
        },
    }
}

fn with_scope<T>(project: &Project, run: impl FnOnce(&LessonScope<'_>) -> T) -> T {
    let settings = Settings::default();
    let scope = LessonScope {
        project,
        settings: &settings,
        clock: Clock::fixed(1_800_000_000),
        record: true,
        user_layer: false,
    };
    run(&scope)
}

#[test]
fn a_review_fix_promotes_only_in_another_file_or_session_with_names_generalised() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    with_scope(&project, |scope| {
        let first = sighting(
            "s1",
            "a.py",
            "R1",
            "obj = pickle.loads(body)",
            "obj = json.loads(body)",
        );
        assert!(matches!(
            record(scope, &first).unwrap(),
            Recorded::Candidate { .. }
        ));
        assert_eq!(record(scope, &first).unwrap(), Recorded::AlreadyKnown);
        let same_place = sighting(
            "s1",
            "a.py",
            "R2",
            "x = pickle.loads(raw)",
            "x = json.loads(raw)",
        );
        assert_eq!(
            record(scope, &same_place).unwrap(),
            Recorded::SamePlaceAgain
        );
        let elsewhere = sighting(
            "s2",
            "b.py",
            "R1",
            "return pickle.loads(request_body)",
            "return json.loads(request_body)",
        );
        let Recorded::Promoted { id, trigger, .. } = record(scope, &elsewhere).unwrap() else {
            panic!("not promoted");
        };
        assert_eq!(trigger, "pickle.loads");
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().find(|l| l.id == id).unwrap();
        assert_eq!(lesson.weight, PROMOTED_WEIGHT);
        assert_eq!(lesson.trigger_texts(), ["pickle.loads"]);
        assert!(
            lesson
                .text
                .ends_with("Write `json.loads`, not `pickle.loads`."),
            "{}",
            lesson.text
        );
        assert_eq!(Evidence::all_of(&lesson.extra).len(), 3);
        crate::lessons::examples::check_examples(lesson).unwrap();
        let again = sighting(
            "s3",
            "c.py",
            "R1",
            "v = pickle.loads(b)",
            "v = json.loads(b)",
        );
        assert_eq!(record(scope, &again).unwrap(), Recorded::AlreadyKnown);
    });
}

/// A git project tracking `file` with `content`.
fn tracked(file: &str, content: &str) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join(file), content).unwrap();
    git(dir.path(), &["add", file]);
    let project = Project::at(dir.path());
    (dir, project)
}

/// The same unsafe call fixed in two sessions: what recording the second did.
fn pickle_twice(scope: &LessonScope<'_>) -> Recorded {
    let first = sighting(
        "s1",
        "a.py",
        "R1",
        "obj = pickle.loads(body)",
        "obj = json.loads(body)",
    );
    record(scope, &first).unwrap();
    let second = sighting(
        "s2",
        "b.py",
        "R1",
        "x = pickle.loads(raw)",
        "x = json.loads(raw)",
    );
    record(scope, &second).unwrap()
}

#[test]
fn a_pattern_refuted_by_the_projects_code_stays_a_candidate_and_says_why() {
    let (_dir, project) = tracked(
        "poll.py",
        "value = pickle.loads(cache_blob, fix_imports=False)\n",
    );
    with_scope(&project, |scope| {
        let Recorded::Refused(refused) = pickle_twice(scope) else {
            panic!("not refused");
        };
        assert_eq!(
            refused.refusal.kind(),
            "fires-on-correct-code",
            "{}",
            refused.refusal
        );
        assert!(
            refused.refusal.to_string().contains("poll.py:1"),
            "{}",
            refused.refusal
        );
        let pool = store::CandidateFile::load(&project.candidates_file()).unwrap();
        assert_eq!(pool.candidates.len(), 1);
        assert_eq!(
            pool.candidates[0].extra[REFUSED_FIELD]["kind"],
            "fires-on-correct-code"
        );
    });
}

#[test]
fn a_committed_copy_of_the_mistake_is_a_known_instance() {
    let (_dir, project) = tracked("old.py", "data = pickle.loads(payload)\n");
    with_scope(&project, |scope| {
        let Recorded::Promoted { verified, .. } = pickle_twice(scope) else {
            panic!("not promoted");
        };
        assert_eq!(verified.total, 1);
        assert_eq!(verified.instances[0].file, "old.py");
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().next().unwrap();
        assert_eq!(lesson.extra[KNOWN_INSTANCES_FIELD]["count"], 1);
    });
}

#[test]
fn a_fix_that_adds_to_the_call_is_learned_as_the_call_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    with_scope(&project, |scope| {
        let first = sighting(
            "s1",
            "a.py",
            "R1",
            "tar.extractall(dest)",
            "tar.extractall(dest, filter=\"data\")",
        );
        record(scope, &first).unwrap();
        let second = sighting(
            "s2",
            "b.py",
            "R1",
            "bundle.extractall(path=out)",
            "bundle.extractall(path=out, filter=\"data\")",
        );
        let Recorded::Promoted { id, .. } = record(scope, &second).unwrap() else {
            panic!("not promoted");
        };
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().find(|l| l.id == id).unwrap();
        assert!(fires(lesson, "archive.extractall(target)").unwrap());
        assert!(!fires(lesson, "archive.extractall(target, filter=\"tar\")").unwrap());
        assert!(lesson.text.contains("without `filter=`"), "{}", lesson.text);
    });
}

/// Two sightings of one review fix, in `*.ext` files of two sessions: what recording the second
/// did, and the lessons file.
fn twice_in(
    scope: &LessonScope<'_>,
    ext: &str,
    first: (&str, &str),
    second: (&str, &str),
) -> Recorded {
    let mut one = sighting("s1", &format!("a.{ext}"), "R1", first.0, first.1);
    one.scope = format!("*.{ext}");
    assert!(matches!(
        record(scope, &one).unwrap(),
        Recorded::Candidate { .. }
    ));
    let mut two = sighting("s2", &format!("b.{ext}"), "R1", second.0, second.1);
    two.scope = format!("*.{ext}");
    record(scope, &two).unwrap()
}

#[test]
fn a_refuted_pattern_leaves_patterns_with_other_words_to_try() {
    // `order.status` matches the fix; `status() == "SHIPPED"` says other words and holds, so
    // the lesson does not hold the variable both sightings happened to call `order`.
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    with_scope(&project, |scope| {
        let recorded = twice_in(
            scope,
            "java",
            (
                "    boolean shipped = order.status() == \"SHIPPED\";",
                "    boolean shipped = \"SHIPPED\".equals(order.status());",
            ),
            (
                "    if (order.status() == \"SHIPPED\") total += 3;",
                "    if (\"SHIPPED\".equals(order.status())) total += 3;",
            ),
        );
        let Recorded::Promoted { id, trigger, .. } = recorded else {
            panic!("not promoted: {recorded:?}");
        };
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().find(|l| l.id == id).unwrap();
        assert!(
            fires(lesson, "    return o.status() == \"SHIPPED\";").unwrap(),
            "{trigger}"
        );
        assert!(!fires(lesson, "    return \"SHIPPED\".equals(o.status());").unwrap());
    });
}

#[test]
fn a_fix_that_also_renames_the_variable_joins_its_sightings() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    with_scope(&project, |scope| {
        let recorded = twice_in(
            scope,
            "c",
            (
                "\tk_delayed_work_submit(&led_work, K_MSEC(40));",
                "\tk_work_schedule(&led_dwork, K_MSEC(40));",
            ),
            (
                "\tk_delayed_work_submit(&v1_19_4_work, K_SECONDS(7));",
                "\tk_work_schedule(&v1_19_4_dwork, K_SECONDS(7));",
            ),
        );
        let Recorded::Promoted { id, trigger, .. } = recorded else {
            panic!("not promoted: {recorded:?}");
        };
        assert_eq!(trigger, "k_delayed_work_submit(&…");
        let file = LessonFile::load(&project.lessons_file()).unwrap();
        let lesson = file.lessons().find(|l| l.id == id).unwrap();
        assert!(fires(lesson, "\tk_delayed_work_submit(&fan_work, K_MSEC(2));").unwrap());
        assert!(!fires(lesson, "\tk_work_schedule(&fan_dwork, K_MSEC(2));").unwrap());
        assert!(!fires(lesson, "\tk_work_submit(&fan_work);").unwrap());
    });
}

#[test]
fn a_sighting_of_the_same_mistake_that_joins_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    with_scope(&project, |scope| {
        let first = sighting(
            "s1",
            "a.py",
            "R1",
            "value = LegacyClient(host).fetch()",
            "value = Client(host).fetch()",
        );
        assert!(matches!(
            record(scope, &first).unwrap(),
            Recorded::Candidate { unjoined: None, .. }
        ));
        let second = sighting(
            "s2",
            "b.py",
            "R1",
            "LegacyClient.retries = 3",
            "Client.retries = 3",
        );
        let Recorded::Candidate {
            unjoined: Some(refused),
            ..
        } = record(scope, &second).unwrap()
        else {
            panic!("the unjoined sighting is not said");
        };
        assert_eq!(refused.refusal.kind(), "no-common-pattern");
        assert_eq!(refused.evidence.len(), 2);
        // Another mistake in the same scope is no refusal: it shares no name either fix took away.
        let other = sighting(
            "s3",
            "c.py",
            "R1",
            "x = pickle.loads(raw)",
            "x = json.loads(raw)",
        );
        assert!(matches!(
            record(scope, &other).unwrap(),
            Recorded::Candidate { unjoined: None, .. }
        ));
    });
}
