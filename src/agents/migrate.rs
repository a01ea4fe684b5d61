//! Moving over from car's predecessors: the Python `claude-auto-review` tool (same settings key,
//! same state folder, a console script also named `car`) and the Python lesson hook
//! (`.claude/hooks/validate-edit.py` with `.claude/hooks/lessons.json`).
//!
//! Invariants: only hook entries these tools wrote are recognised (by the rules the Python tool
//! uses for its own entries, and by the Python lesson hook's script names); their files are never
//! touched.

use std::path::Path;

/// The Python tool's hook modules (`python -m claude_auto_review.hooks.<module>`).
const PYTHON_MODULES: [&str; 3] = ["post_tool_use", "stop_hook", "session_end"];

/// The Python lesson hook's scripts: the edit hook and the self-test wrapper car's own replaces.
const SEED_SCRIPTS: [&str; 2] = ["validate-edit.py", "validate-reflection-tests.py"];

/// Where the Python lesson hook keeps its lessons, relative to the project.
pub(crate) const SEED_LESSONS: &str = ".claude/hooks/lessons.json";

/// The Python lesson hook's candidate pool (errors seen once), beside its lessons.
pub(crate) const SEED_CANDIDATES: &str = ".claude/hooks/lesson_candidates.json";

/// Whether a hook command is one the Python `claude-auto-review` tool wrote: `python -m
/// claude_auto_review.hooks.<module>`, a script path ending in `<module>.py`, or any command
/// naming one of its modules.
pub(crate) fn is_python_tool_command(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    if words.len() >= 3 && words[1] == "-m" {
        let module = words[2].trim_matches(['"', '\'']);
        if let Some(name) = module.strip_prefix("claude_auto_review.hooks.") {
            return PYTHON_MODULES.contains(&name);
        }
    }
    let last = words
        .last()
        .map_or("", |word| word.trim_matches(['"', '\'']));
    let base = last.rsplit(['/', '\\']).next().unwrap_or(last);
    // Older versions wrote script paths; a bare `stop_hook.py` may be anyone's, so the path must
    // name the tool too.
    let names_the_tool =
        command.contains("claude_auto_review") || command.contains("claude-auto-review");
    if names_the_tool
        && PYTHON_MODULES
            .iter()
            .any(|module| base == format!("{module}.py"))
    {
        return true;
    }
    PYTHON_MODULES
        .iter()
        .any(|module| command.contains(&format!("claude_auto_review.hooks.{module}")))
}

/// Whether a hook command runs one of the Python lesson hook's scripts.
pub(crate) fn is_seed_command(command: &str) -> bool {
    command.split_whitespace().any(|word| {
        let word = word.trim_matches(['"', '\'']);
        let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
        SEED_SCRIPTS.contains(&base)
    })
}

/// A Python console script starts with a `#!…python…` line (pip writes one).
pub(crate) fn is_python_script(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.take(256).read_to_end(&mut head).is_err() {
        return false;
    }
    let first_line = head.split(|byte| *byte == b'\n').next().unwrap_or_default();
    first_line.starts_with(b"#!") && String::from_utf8_lossy(first_line).contains("python")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_python_tools_commands_are_recognised() {
        for command in [
            "python -m claude_auto_review.hooks.post_tool_use",
            "python -m claude_auto_review.hooks.stop_hook",
            "python3 -m claude_auto_review.hooks.session_end",
            "/usr/bin/python3 /opt/venv/lib/claude_auto_review/hooks/stop_hook.py",
        ] {
            assert!(is_python_tool_command(command), "{command}");
        }
        for command in [
            "car hook stop",
            "python -m mytool.hooks.stop_hook",
            "python stop_hook.py",
        ] {
            assert!(!is_python_tool_command(command), "{command}");
        }
    }

    #[test]
    fn seed_scripts_are_recognised() {
        assert!(is_seed_command("python3 .claude/hooks/validate-edit.py"));
        assert!(is_seed_command(
            "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/validate-reflection-tests.py\""
        ));
        assert!(!is_seed_command("python3 tools/validate.py"));
    }

    #[test]
    fn a_python_console_script_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("car");
        std::fs::write(
            &script,
            "#!/usr/bin/python3\nfrom claude_auto_review.cli import main\n",
        )
        .unwrap();
        assert!(is_python_script(&script));
        std::fs::write(&script, b"\x7fELF\x02\x01").unwrap();
        assert!(!is_python_script(&script));
    }
}
