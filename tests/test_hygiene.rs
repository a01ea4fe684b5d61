//! Regression test for issue 38 item 9: the suite wrote into the user's own cache (the interpreter
//! cache and the user lesson index got new mtimes during `cargo test`), and a test looked for the
//! cache under `HOME/.cache` although car writes it under `$XDG_CACHE_HOME`. Every `car` a test
//! starts gets its own HOME and XDG folders ([`crate::support::isolate`]), whatever `XDG_*`
//! variables the test run itself has.

use std::path::Path;

use crate::support::snapshot;

/// Tests that run car's hooks with a Python edit (the interpreter cache) and the user-wide lesson
/// layer (the user lesson index), run again by this test in a child process.
const CHILD_TESTS: [&str; 2] = [
    "validate_hook::python_edit_with_existing_import_passes_and_leaves_no_pycache",
    "lessons_hook::user_wide_lessons_fire_but_are_never_written",
];

#[test]
fn tests_pass_and_touch_nothing_of_the_users_own_folders_whatever_xdg_says() {
    let outer = tempfile::tempdir().unwrap();
    let folder = |name: &str| {
        let path = outer.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        path
    };
    let user_lessons = folder("config/car").join("lessons.json");
    std::fs::write(
        &user_lessons,
        r#"{"lessons": [{"id": "outer", "scope": "*.py", "triggers": ["def "],
            "lesson": "a lesson of the user running the tests", "weight": 3}]}"#,
    )
    .unwrap();
    for name in ["home", "cache", "data", "state", "runtime"] {
        folder(name);
    }
    let before = snapshot(outer.path());
    let test_binary = std::env::current_exe().unwrap();
    let output = std::process::Command::new(&test_binary)
        .args(CHILD_TESTS)
        .args(["--exact", "--test-threads", "1"])
        .env("HOME", outer.path().join("home"))
        .env("XDG_CONFIG_HOME", outer.path().join("config"))
        .env("XDG_CACHE_HOME", outer.path().join("cache"))
        .env("XDG_DATA_HOME", outer.path().join("data"))
        .env("XDG_STATE_HOME", outer.path().join("state"))
        .env("XDG_RUNTIME_DIR", outer.path().join("runtime"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("2 passed"), "both tests ran: {said}");
    assert_eq!(
        names(&snapshot(outer.path()), outer.path()),
        names(&before, outer.path()),
        "nothing was created in the user's own folders"
    );
    assert_eq!(snapshot(outer.path()), before, "nothing there changed");
}

fn names(files: &[(String, Vec<u8>)], under: &Path) -> Vec<String> {
    let prefix = under.display().to_string();
    files
        .iter()
        .map(|(path, _)| path.trim_start_matches(&prefix).to_string())
        .collect()
}
