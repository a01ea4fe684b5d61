//! The held-out check of what car learns (the issue "lessons that are right"): a scripted long
//! session of an agent and a person — syntax slips fixed on the next edit, a hallucinated module
//! twice, a wrong theme attribute twice under a project reference rule, two corrections by the
//! person with a test run in between, a one-off preference change, a blocking review finding
//! fixed in two files — then a second session of *correct* code that resembles what was learned,
//! and the true repeats. The figure: **no warning on a correct look-alike, every true repeat
//! warned or blocked**; printed (`cargo test --test integration learning_heldout --
//! --nocapture`) and asserted.

use serde_json::{Value, json};

use crate::learn_signals::{agent_edit, candidates, lessons, person_edit};
use crate::review_helpers::{scripted_reviewer, stop_payload};
use crate::support::{HookAnswer, TestProject};

const T0: i64 = 1_800_000_000;

/// Flags the first `shell=True` under pkg/ as a P1.
const REVIEWER: &str = r#"#!/bin/sh
cat > /dev/null
hit=$(grep -n "shell=True" pkg/*.py | head -1)
if [ -z "$hit" ]; then echo '{"findings": []}'; exit 0; fi
file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}
cat <<JSON
{"findings": [
 {"id": "F1", "severity": "P1", "file": "$file", "line": $line,
  "title": "Shell injection through the command string",
  "wrong_output": "run('x; rm -rf ~') runs rm -rf ~ through the shell",
  "suggestion": "pass an argv list"}]}
JSON
"#;

const THEME_RULE: &str = r#"{"rules": [{"id": "theme", "severity": "error", "scope": "*.swift",
  "ignore": ["DankeTheme.swift"],
  "reference": {"pattern": "\\bDankeTheme\\.([A-Za-z_][A-Za-z0-9_]*)",
                "defined_in": "ios/DankeTheme.swift",
                "definition": "\\b(?:static\\s+)?(?:let|var)\\s+([A-Za-z_][A-Za-z0-9_]*)",
                "message": "`{match}` is not defined in {defined_in}"}}]}"#;

/// A Python package, an iOS folder with its theme, a shell script, a JSON config.
fn project() -> TestProject {
    let mut project = TestProject::new();
    project.at(T0);
    project.write(
        "pyproject.toml",
        "[project]\nname = \"pkg\"\ndependencies = [\"pyyaml\"]\n",
    );
    project.write("pkg/__init__.py", "");
    for name in [
        "cli", "loader", "report", "config", "settings", "run", "deploy", "jobs",
    ] {
        project.write(&format!("pkg/{name}.py"), "def main():\n    return 0\n");
    }
    project.write(
        "ios/DankeTheme.swift",
        "enum DankeTheme {\n    static let textSecondary = 1\n    static let secondaryTextMuted = 2\n}\n",
    );
    project.write("ios/Card.swift", "let color = 0\n");
    project.write("ios/Row.swift", "let color = 0\n");
    project.write(
        ".claude/claude-auto-review/validators/theme.json",
        THEME_RULE,
    );
    project.commit_all();
    project
}

/// Writes `content` as the agent's Write of `file`; returns the answer.
fn write(project: &TestProject, session: &str, file: &str, content: &str) -> HookAnswer {
    let original = project.exists(file).then(|| project.read(file));
    let mut payload: Value =
        serde_json::from_str(&project.write_payload(file, content, original.as_deref())).unwrap();
    payload["session_id"] = json!(session);
    let answer = project.hook("post-tool-use", &payload.to_string());
    assert_eq!(answer.code, 0, "{answer:?}");
    answer
}

fn stop(project: &TestProject, session: &str) -> HookAnswer {
    project.hook(
        "stop",
        &stop_payload(project, session, Some("Done: the change is in place.")),
    )
}

/// The agent runs its tests (reads files, changes none).
fn run_tests(project: &TestProject, session: &str) {
    let mut payload = project.fixture_json("claude-post-bash-rm.json");
    payload["session_id"] = json!(session);
    payload["cwd"] = json!(project.path());
    payload["tool_input"]["command"] = json!("python -m pytest -q");
    payload["tool_response"]["stdout"] = json!("12 passed in 0.40s\n");
    payload["duration_ms"] = json!(400);
    assert_eq!(project.hook("post-tool-use", &payload.to_string()).code, 0);
}

/// The person edited the file a while ago (before the agent's later commands ran).
fn person_changed(project: &TestProject, file: &str, old: &str, new: &str) {
    person_edit(project, file, old, new);
    let status = std::process::Command::new("touch")
        .args(["-d", "5 minutes ago"])
        .arg(project.path().join(file))
        .status()
        .unwrap();
    assert!(status.success());
}

/// The lesson warnings an answer carries (context or block reason).
fn warned(answer: &HookAnswer) -> bool {
    let text = format!("{}{}", answer.context(), answer.json);
    text.contains("⚠️ lesson")
}

/// Session one: the agent works, makes mistakes, fixes them, the person corrects it.
fn learning_session(project: &mut TestProject) {
    let s = "session-one";
    // Slips, each fixed on the next edit: they teach nothing.
    assert!(write(project, s, "pkg/cli.py", "def main()\n    return 0\n").is_block());
    write(project, s, "pkg/cli.py", "def main():\n    return 1\n");
    assert!(write(project, s, "config/app.json", "{\"debug\": true,}\n").is_block());
    write(project, s, "config/app.json", "{\"debug\": true}\n");
    assert!(
        write(
            project,
            s,
            "scripts/build.sh",
            "if [ -n \"$X\" ]; then\n  echo x\n"
        )
        .is_block()
    );
    write(
        project,
        s,
        "scripts/build.sh",
        "if [ -n \"$X\" ]; then\n  echo x\nfi\n",
    );

    // A hallucinated module, fixed, then again in another file.
    assert!(
        write(
            project,
            s,
            "pkg/loader.py",
            "import fastjsonx\n\nfastjsonx.loads('{}')\n"
        )
        .is_block()
    );
    write(
        project,
        s,
        "pkg/loader.py",
        "import json\n\njson.loads('{}')\n",
    );
    project.at(T0 + 600);
    assert!(write(project, s, "pkg/report.py", "import fastjsonx\n").is_block());
    write(project, s, "pkg/report.py", "import json\n");

    // A theme attribute that does not exist, fixed, then again.
    assert!(
        write(
            project,
            s,
            "ios/Card.swift",
            "let color = DankeTheme.secondaryText\n"
        )
        .is_block()
    );
    write(
        project,
        s,
        "ios/Card.swift",
        "let color = DankeTheme.textSecondary\n",
    );
    assert!(
        write(
            project,
            s,
            "ios/Row.swift",
            "let color = DankeTheme.secondaryText\n"
        )
        .is_block()
    );
    write(
        project,
        s,
        "ios/Row.swift",
        "let color = DankeTheme.textSecondary\n",
    );

    // The person corrects the unsafe loader twice; the agent runs its tests in between.
    project.at(T0 + 1_200);
    agent_edit(
        project,
        s,
        "pkg/config.py",
        "def main():\n    return 0\n",
        "def load(fh, yaml):\n    return yaml.load(fh, Loader=yaml.FullLoader)\n",
    );
    person_changed(
        project,
        "pkg/config.py",
        "yaml.load(fh, Loader=yaml.FullLoader)",
        "yaml.safe_load(fh)",
    );
    run_tests(project, s);
    agent_edit(
        project,
        s,
        "pkg/settings.py",
        "def main():\n    return 0\n",
        "def read(stream, yaml):\n    return yaml.load(stream, Loader=yaml.FullLoader)\n",
    );
    person_changed(
        project,
        "pkg/settings.py",
        "yaml.load(stream, Loader=yaml.FullLoader)",
        "yaml.safe_load(stream)",
    );
    // A one-off preference: once is no lesson.
    agent_edit(
        project,
        s,
        "pkg/jobs.py",
        "    return 0\n",
        "    return 0\n\n\nTIMEOUT_SECONDS = 30\n",
    );
    person_changed(
        project,
        "pkg/jobs.py",
        "TIMEOUT_SECONDS = 30",
        "TIMEOUT_SECONDS = 60",
    );
    run_tests(project, s);
    assert!(!stop(project, s).is_block());

    // A blocking review finding, fixed in two files.
    for file in ["pkg/run.py", "pkg/deploy.py"] {
        project.at(T0 + 2_400);
        agent_edit(
            project,
            s,
            file,
            "def main():\n    return 0\n",
            "import subprocess\n\n\ndef main(cmd):\n    return subprocess.run(cmd, shell=True)\n",
        );
        assert!(stop(project, s).is_block(), "the P1 blocks");
        agent_edit(
            project,
            s,
            file,
            "subprocess.run(cmd, shell=True)",
            "subprocess.run(shlex.split(cmd))",
        );
        assert!(!stop(project, s).is_block());
    }
}

#[test]
fn what_is_learned_warns_on_repeats_and_never_on_correct_look_alikes() {
    let mut project = project();
    let _reviewer = scripted_reviewer(&project, REVIEWER);
    learning_session(&mut project);

    let mut learned: Vec<String> = lessons(&project)
        .iter()
        .map(|lesson| {
            lesson["triggers"][0]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    learned.sort();
    assert_eq!(
        learned,
        [
            "DankeTheme.secondaryText",
            "fastjsonx",
            "shell=True",
            "yaml.FullLoader"
        ],
        "{:#?}",
        lessons(&project)
    );
    let pool: Vec<Value> = candidates(&project);
    assert!(
        pool.iter().all(|c| c["source"] == "reversal"),
        "only the one-off preference waits: {pool:#?}"
    );

    // Session two, a day later: correct code that looks like what was learned.
    project.at(T0 + 86_400);
    let s = "session-two";
    let look_alikes = [
        (
            "pkg/shell_opts.py",
            "def run(cmd, use_shell=True):\n    \"\"\"Never pass shell=True to subprocess.\"\"\"\n    return cmd\n",
        ),
        (
            "pkg/notes.py",
            "# fastjsonx is not on PyPI; the standard json module is enough\nimport json\n",
        ),
        (
            "pkg/safe.py",
            "def load(fh, yaml):\n    return yaml.load(fh, Loader=yaml.SafeLoader)\n",
        ),
        (
            "pkg/doc.py",
            "def parse(fh, yaml):\n    \"\"\"Unlike yaml.FullLoader, safe_load builds no objects.\"\"\"\n    return yaml.safe_load(fh)\n",
        ),
        ("pkg/timeouts.py", "TIMEOUT_SECONDS = 30\n"),
        (
            "pkg/logs.py",
            "import logging\n\nlogging.warning('refusing shell=True from the config')\n",
        ),
        (
            "ios/Header.swift",
            "let color = DankeTheme.secondaryTextMuted\n",
        ),
        (
            "ios/Notes.swift",
            "// DankeTheme.secondaryText was renamed to textSecondary\nlet color = DankeTheme.textSecondary\n",
        ),
        (
            "scripts/check.sh",
            "#!/bin/sh\necho \"shell=True and fastjsonx are forbidden\"\n",
        ),
    ];
    let mut false_alarms = Vec::new();
    for (file, content) in look_alikes {
        let answer = write(&project, s, file, content);
        if warned(&answer) || answer.is_block() {
            false_alarms.push(format!("{file}: {}", answer.stdout.trim()));
        }
    }
    let repeats = [
        ("pkg/fetch.py", "import fastjsonx\n"),
        ("ios/Footer.swift", "let color = DankeTheme.secondaryText\n"),
        (
            "pkg/cfg.py",
            "def load(fh, yaml):\n    return yaml.load(fh, Loader=yaml.FullLoader)\n",
        ),
        (
            "pkg/task.py",
            "import subprocess\n\n\ndef task(line):\n    return subprocess.call(line, shell=True)\n",
        ),
    ];
    let mut missed = Vec::new();
    for (file, content) in repeats {
        let answer = write(&project, s, file, content);
        if !warned(&answer) {
            missed.push(format!("{file}: {}", answer.stdout.trim()));
        }
    }
    eprintln!(
        "held-out: {} of {} correct look-alikes warned or blocked; {} of {} true repeats warned",
        false_alarms.len(),
        look_alikes.len(),
        repeats.len() - missed.len(),
        repeats.len()
    );
    assert!(false_alarms.is_empty(), "false alarms: {false_alarms:#?}");
    assert!(missed.is_empty(), "missed repeats: {missed:#?}");
}
