//! Users' files keep their identity through car's writes: mode, a symlink's target, and their
//! formatting (install → config → uninstall leaves `.claude/settings.json` byte-identical).

use crate::support::TestProject;

/// A compact settings file, as people write them by hand (the 31-line reformatting).
const COMPACT: &str = "{\"model\":\"opus\",\"permissions\":{\"allow\":[\"Bash(ls)\",\"Bash(git status)\"]},\n \"hooks\":{\"PostToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"my-audit\"}]}]}}\n";

const PRETTY: &str =
    "{\n    \"model\": \"opus\",\n    \"env\": {\n        \"FOO\": \"1\"\n    }\n}\n";

#[cfg(unix)]
fn mode(project: &TestProject, relative: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(project.path().join(relative))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[cfg(unix)]
#[test]
fn install_config_uninstall_keeps_mode_and_bytes() {
    use std::os::unix::fs::PermissionsExt;
    for original in [COMPACT, PRETTY] {
        let project = TestProject::new();
        let path = project.write(".claude/settings.json", original);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
        assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
        assert_eq!(
            mode(&project, ".claude/settings.json"),
            0o664,
            "install keeps the mode"
        );
        let installed = project.read(".claude/settings.json");
        assert!(
            installed.starts_with(&original[..20]),
            "the user's part is untouched: {installed}"
        );
        assert_eq!(
            project
                .run(&["config", "--non-interactive", "--timeout", "120"])
                .code,
            0
        );
        assert_eq!(
            mode(&project, ".claude/settings.json"),
            0o664,
            "config keeps the mode"
        );
        assert_eq!(
            project
                .run(&["config", "--non-interactive", "--max-stop-passes", "3"])
                .code,
            0
        );
        assert_eq!(project.run(&["uninstall"]).code, 0);
        let after = project.read(".claude/settings.json");
        // The new key follows the file's own separator (here a line break and one space).
        let expected_block = if original == COMPACT {
            ",\n \"claude-auto-review\":{\"reviewerTimeoutSeconds\":120,\"maxStopPasses\":3}}\n"
        } else {
            ",\n    \"claude-auto-review\": {\n        \"reviewerTimeoutSeconds\": 120,\n        \"maxStopPasses\": 3\n    }\n}\n"
        };
        assert_eq!(
            after,
            format!(
                "{}{expected_block}",
                original.trim_end().strip_suffix('}').unwrap().trim_end()
            ),
            "only car's own key is left of what car wrote"
        );
        assert_eq!(mode(&project, ".claude/settings.json"), 0o664);
    }
}

#[test]
fn install_then_uninstall_is_byte_identical() {
    for original in [COMPACT, PRETTY, "{}\n", "{\n\t\"model\": \"opus\"\n}"] {
        let project = TestProject::new();
        project.write(".claude/settings.json", original);
        assert_eq!(project.run(&["install", "--non-interactive"]).code, 0);
        assert_ne!(project.read(".claude/settings.json"), original);
        assert_eq!(project.run(&["uninstall"]).code, 0);
        assert_eq!(
            project.read(".claude/settings.json"),
            original,
            "install + uninstall"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_lessons_file_is_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let project = TestProject::new();
    let shared = project.write(
        "team/lessons.json",
        "{\"lessons\": [\n  {\"scope\": \"*.py\", \"triggers\": [\"requets\"], \"lesson\": \"it is requests\", \"weight\": 3}\n]}\n",
    );
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o664)).unwrap();
    std::fs::create_dir_all(project.path().join(".claude/claude-auto-review")).unwrap();
    let link = project
        .path()
        .join(".claude/claude-auto-review/lessons.json");
    std::os::unix::fs::symlink("../../team/lessons.json", &link).unwrap();
    let run = project.run(&[
        "lessons",
        "add",
        "--scope",
        "*.ts",
        "--trigger",
        "useEffect(async",
        "--lesson",
        "effects cannot be async",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let text = project.read("team/lessons.json");
    assert!(text.contains("useEffect(async"), "{text}");
    assert!(
        text.starts_with("{\"lessons\": [\n  {\"scope\": \"*.py\", \"triggers\": [\"requets\"], \"lesson\": \"it is requests\", \"weight\": 3"),
        "the existing lesson keeps its formatting (car adds only its id): {text}"
    );
    assert_eq!(mode(&project, "team/lessons.json"), 0o664);
}
