//! The shell validator: `bash -n` decides. tree-sitter-bash is used only when bash is missing,
//! and then its findings are warnings: it misreads valid heredocs
//! (`cat <<'EOF' 2>&1 | tail -5; echo done`), and a false alarm must never block the agent.
//!
//! bash reads the script from `/dev/stdin` so its messages carry `line N:`; `--norc --noprofile`
//! and an empty `BASH_ENV` keep the user's start-up files out; `-O extglob` because `shopt -s
//! extglob` inside the script does not run under `-n`, and `!(…)` patterns would otherwise fail.

use std::process::Command;
use std::time::Duration;

use crate::process::{ProcessError, run_command};
use crate::validate::language::Language;
use crate::validate::{Diagnostic, Origin, Report, Severity, snippet_of_line, treesitter};

/// `bash -n` on a 2 MiB script takes well under this.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) const VALIDATOR: &str = "bash";

/// The program [`check`] runs.
const BASH: &str = "bash";

/// Checks a shell script with `bash -n`, falling back to tree-sitter-bash (warnings only).
pub(crate) fn check(display_path: &str, content: &str, report: &mut Report) {
    check_with(display_path, content, BASH, report);
}

/// The bash [`check`] runs, as found on PATH now (`None`: the fallback checks).
pub(crate) fn program() -> Option<std::path::PathBuf> {
    crate::process::find_on_path(BASH)
}

/// [`check`] with an explicit bash program (tests use a missing one).
pub(crate) fn check_with(display_path: &str, content: &str, bash: &str, report: &mut Report) {
    let mut command = Command::new(bash);
    command
        .args(["--norc", "--noprofile", "-O", "extglob", "-n", "/dev/stdin"])
        .env_remove("BASH_ENV")
        .env_remove("ENV");
    match run_command(command, Some(content.as_bytes()), TIMEOUT) {
        Ok(output) if output.timed_out => report.notes.push(format!(
            "{display_path}: `bash -n` took over {} s; not checked",
            TIMEOUT.as_secs()
        )),
        Ok(output) if output.success() => {}
        Ok(output) => {
            report
                .diagnostics
                .extend(parse_messages(display_path, content, &output.stderr))
        }
        Err(ProcessError::NotFound { .. }) => fallback(display_path, content, report),
        Err(error) => {
            report.notes.push(format!("{display_path}: {error}"));
            fallback(display_path, content, report);
        }
    }
}

fn fallback(display_path: &str, content: &str, report: &mut Report) {
    report.notes.push(format!(
        "{display_path}: bash not found; checked with tree-sitter-bash, whose findings are only warnings"
    ));
    match treesitter::check(display_path, content, Language::Shell) {
        Ok(found) => report
            .diagnostics
            .extend(found.into_iter().map(|diagnostic| Diagnostic {
                severity: Severity::Warning,
                ..diagnostic
            })),
        Err(note) => report.notes.push(note),
    }
}

/// Turns `/dev/stdin: line 3: syntax error near unexpected token `fi'` into diagnostics. The
/// echo lines bash adds (`line 3: `fi fi'`) repeat the source and are dropped.
pub(crate) fn parse_messages(display_path: &str, content: &str, stderr: &str) -> Vec<Diagnostic> {
    let mut found: Vec<Diagnostic> = Vec::new();
    for message_line in stderr.lines() {
        let Some((line, message)) = split_line_message(message_line) else {
            continue;
        };
        if message.starts_with('`') || found.iter().any(|seen| seen.message == message) {
            continue;
        }
        found.push(Diagnostic {
            file: display_path.to_string(),
            line,
            column: 1,
            severity: Severity::Error,
            validator: VALIDATOR.to_string(),
            origin: Origin::Shell,
            message: message.to_string(),
            snippet: snippet_of_line(content, line),
            subject: None,
        });
    }
    if found.is_empty() && !stderr.trim().is_empty() {
        let message = stderr.lines().next().unwrap_or_default();
        found.push(Diagnostic {
            file: display_path.to_string(),
            line: 1,
            column: 1,
            severity: Severity::Error,
            validator: VALIDATOR.to_string(),
            origin: Origin::Shell,
            message: message.trim_start_matches("/dev/stdin: ").to_string(),
            snippet: None,
            subject: None,
        });
    }
    found
}

/// `…: line N: message` → (N, message).
fn split_line_message(text: &str) -> Option<(usize, &str)> {
    let at = text.find("line ")?;
    let rest = &text[at + "line ".len()..];
    let (number, message) = rest.split_once(": ")?;
    Some((number.trim().parse().ok()?, message.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(content: &str) -> Report {
        let mut report = Report::default();
        check("s.sh", content, &mut report);
        report
    }

    #[test]
    fn valid_script_passes() {
        let report = run(
            "#!/usr/bin/env bash\nset -euo pipefail\nfor h in \"$@\"; do\n  echo \"$h\"\ndone\n",
        );
        assert!(report.diagnostics.is_empty(), "{report:?}");
    }

    #[test]
    fn heredoc_that_fools_tree_sitter_passes() {
        let content = "cat <<'EOF' 2>&1 | tail -5; echo done\nsome $text (\nEOF\necho after\n";
        assert!(run(content).diagnostics.is_empty());
    }

    #[test]
    fn extglob_patterns_pass() {
        let content = "shopt -s extglob\nrm -- !(keep).txt\n";
        assert!(run(content).diagnostics.is_empty());
    }

    #[test]
    fn syntax_error_has_line_and_snippet() {
        let report = run("if true; then\n  echo\nfi fi\n");
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        let error = &report.diagnostics[0];
        assert_eq!(error.line, 3);
        assert_eq!(error.validator, "bash");
        assert!(error.message.contains("unexpected token"), "{error:?}");
        assert_eq!(error.snippet.as_deref(), Some("fi fi"));
        assert!(error.is_error());
    }

    #[test]
    fn unterminated_quote_is_found() {
        let report = run("echo ok\necho \"open\n");
        assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        assert!(report.diagnostics[0].message.contains("unexpected EOF"));
    }

    #[test]
    fn without_bash_tree_sitter_only_warns() {
        let mut report = Report::default();
        let heredoc = "cat <<'EOF' 2>&1 | tail -5; echo done\nsome $text (\nEOF\necho after\n";
        check_with("s.sh", heredoc, "car-no-such-bash", &mut report);
        assert!(
            report
                .notes
                .iter()
                .any(|note| note.contains("bash not found"))
        );
        assert!(!report.diagnostics.iter().any(Diagnostic::is_error));
        let mut report = Report::default();
        check_with(
            "s.sh",
            "if true; then\nfi fi\n",
            "car-no-such-bash",
            &mut report,
        );
        assert!(!report.diagnostics.is_empty());
        assert!(!report.diagnostics.iter().any(Diagnostic::is_error));
    }
}
