//! The fix loop, standalone, as one command: run a round; on FAIL pipe the fix request to a
//! fixer command's stdin (e.g. `claude -p`), record what it fixed and what it challenged, and run
//! the next round — until PASS, ESCALATE or STOPPED.
//!
//! Invariants: the fix request holds the blocking findings only (a P3 never reaches the fixer:
//! fixing cosmetics widens the diff and feeds the next round new nitpicks); a regression test is
//! allowed only for a verified finding with a concrete failure; a fixer's `CHALLENGE ID: reason`
//! line records a challenge instead of a fix; a fixer that fails or times out stops the loop
//! (STOPPED), it never counts as a fix. The loop ends: every FAIL uses a round and the round cap
//! is a guard.

use std::process::Command;
use std::time::Duration;

use crate::process::{ProcessError, run_command};
use crate::review::deep::round::{self, RoundRequest};
use crate::review::deep::state::RoundStore;
use crate::review::deep::stop::{FixerError, StopCause};
use crate::review::deep::verdict::{Status, Verdict};
use crate::reviewer::NESTED_ENV;

/// The command that fixes findings: the fix request on its stdin, the project as its folder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fixer<'a> {
    pub(crate) argv: &'a [String],
    pub(crate) timeout: Duration,
}

/// What the loop reports while it runs.
#[derive(Debug)]
pub(crate) enum LoopEvent<'a> {
    /// A round ended (FAIL rounds are followed by a fix).
    Round(&'a Verdict),
    /// The fixer ran: what it was asked to fix and what it challenged instead.
    Fixed {
        fixed: &'a [String],
        challenged: &'a [(String, String)],
    },
}

/// Runs rounds and fixes until the loop ends; `on_event` sees every round and every fix.
pub(crate) fn run_loop(
    request: &RoundRequest<'_>,
    fixer: &Fixer<'_>,
    mut on_event: impl FnMut(LoopEvent<'_>),
) -> Verdict {
    loop {
        let verdict = round::run(request);
        if verdict.status != Status::Fail {
            return verdict;
        }
        on_event(LoopEvent::Round(&verdict));
        match fix(request, fixer, &verdict) {
            Ok((fixed, challenged)) => on_event(LoopEvent::Fixed {
                fixed: &fixed,
                challenged: &challenged,
            }),
            Err(cause) => {
                let hint = cause.hint(request.settings, request.timeout.as_secs());
                let mut stopped = Verdict::stopped(
                    verdict.context.clone(),
                    verdict.round,
                    cause.to_string(),
                    hint,
                );
                stopped.findings = verdict.findings;
                stopped.blocking = verdict.blocking;
                return stopped;
            }
        }
    }
}

/// Ids the fixer was asked to fix, and the challenges it printed instead.
type FixOutcome = (Vec<String>, Vec<(String, String)>);

/// Asks the fixer to fix the round's blocking findings and records its answer.
fn fix(
    request: &RoundRequest<'_>,
    fixer: &Fixer<'_>,
    verdict: &Verdict,
) -> Result<FixOutcome, StopCause> {
    let output = run_fixer(request, fixer, &fix_request(verdict))?;
    let challenges = parse_challenges(&output, &verdict.blocking);
    let fixed: Vec<String> = verdict
        .blocking
        .iter()
        .filter(|id| !challenges.iter().any(|(challenged, _)| challenged == *id))
        .cloned()
        .collect();
    RoundStore::new(request.project, &verdict.context.name).update(|state| {
        for (id, reason) in &challenges {
            state.challenge(id, reason)?;
        }
        state.mark_fixed(&fixed)
    })?;
    Ok((fixed, challenges))
}

fn run_fixer(
    request: &RoundRequest<'_>,
    fixer: &Fixer<'_>,
    text: &str,
) -> Result<String, FixerError> {
    let (program, args) = fixer.argv.split_first().ok_or(FixerError::Empty)?;
    let mut command = Command::new(program);
    // The loop is the fixer's review: car's own hooks stay out of the nested run.
    command
        .args(args)
        .current_dir(request.project.checkout())
        .env(NESTED_ENV, "1");
    let output =
        run_command(command, Some(text.as_bytes()), fixer.timeout).map_err(
            |error| match error {
                ProcessError::NotFound { program } => FixerError::NotFound { program },
                ProcessError::Spawn { program, source } => FixerError::Spawn {
                    program,
                    message: source.to_string(),
                },
            },
        )?;
    if output.timed_out {
        return Err(FixerError::Timeout {
            program: program.clone(),
            seconds: fixer.timeout.as_secs(),
        });
    }
    if !output.success() {
        return Err(FixerError::Failed {
            program: program.clone(),
            code: output
                .code
                .map_or_else(|| "signal".to_string(), |code| code.to_string()),
            stderr: crate::text::shorten(output.stderr.trim(), 400),
        });
    }
    Ok(output.stdout)
}

/// The fix request: the blocking findings and the rules of the loop. Never a P3.
pub(crate) fn fix_request(verdict: &Verdict) -> String {
    let mut text = format!(
        "Deep review round {} (context {}) found {}. Fix exactly these; change nothing else.\n\n",
        verdict.round,
        verdict.context.name,
        crate::text::plural(verdict.blocking.len(), "blocking finding")
    );
    for reported in verdict.blocking_findings() {
        text.push_str(&format!("- {}\n", reported.headline()));
        let finding = &reported.finding;
        if !finding.wrong_output.is_empty() {
            text.push_str(&format!("    wrong output: {}\n", finding.wrong_output));
        }
        if !finding.suggestion.is_empty() {
            text.push_str(&format!("    fix: {}\n", finding.suggestion));
        }
    }
    text.push_str(
        "\nRules:\n\
         - Fix only the findings above. Minor findings are left out on purpose: do not change \
         style, naming or anything else.\n\
         - A regression test is allowed for a finding whose failure you verified (its wrong \
         output reproduced): add the smallest test that reproduces exactly that input and output.\n\
         - If a finding is a false positive, change nothing for it and print one line:\n  \
         CHALLENGE <ID>: <why the finding is wrong>\n",
    );
    text
}

/// `CHALLENGE ID: reason` lines of the fixer's output that name one of `ids` (a leading `- `
/// and any case are accepted; `—` works as the separator too).
pub(crate) fn parse_challenges(output: &str, ids: &[String]) -> Vec<(String, String)> {
    let mut challenges: Vec<(String, String)> = Vec::new();
    for line in output.lines() {
        let line = line.trim().trim_start_matches("- ").trim();
        let Some(prefix) = line.get(..10) else {
            continue;
        };
        if !prefix.eq_ignore_ascii_case("challenge ") {
            continue;
        }
        let rest = line[10..].trim();
        let end = rest
            .find(|c: char| c == ':' || c.is_whitespace())
            .unwrap_or(rest.len());
        let (id, reason) = rest.split_at(end);
        let reason = reason.trim_start_matches(|c: char| c == ':' || c == '—' || c.is_whitespace());
        if ids.iter().any(|known| known == id)
            && !reason.is_empty()
            && !challenges.iter().any(|(seen, _)| seen == id)
        {
            challenges.push((id.to_string(), reason.to_string()));
        }
    }
    challenges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::deep::verdict::{ContextInfo, ReportedFinding};
    use crate::session::finding::{Finding, Severity};

    fn verdict() -> Verdict {
        let finding = |id: &str, severity: Severity, title: &str| {
            ReportedFinding::new(
                Finding {
                    id: id.into(),
                    severity,
                    file: "fx.py".into(),
                    line: 4,
                    title: title.into(),
                    wrong_output: "to_usd(100, 'NGN', 2019) returns 0.27 instead of 0.28".into(),
                    suggestion: "use the 2019 average rate".into(),
                    downgraded: false,
                },
                severity != Severity::P3,
            )
        };
        let mut verdict = Verdict::stopped(
            ContextInfo {
                name: "fx".into(),
                file: None,
            },
            1,
            String::new(),
            None,
        );
        verdict.status = Status::Fail;
        verdict.findings = vec![
            finding("F1", Severity::P1, "Wrong price year"),
            finding("F2", Severity::P3, "Rename rate"),
        ];
        verdict.blocking = vec!["F1".into()];
        verdict
    }

    #[test]
    fn fix_request_has_blocking_findings_and_the_rules_only() {
        let text = fix_request(&verdict());
        assert!(
            text.contains("- [P1] F1 fx.py:4: Wrong price year"),
            "{text}"
        );
        assert!(text.contains("wrong output: to_usd(100"));
        assert!(
            !text.contains("Rename rate"),
            "a P3 never reaches the fixer"
        );
        assert!(text.contains("regression test"));
        assert!(text.contains("CHALLENGE <ID>"));
    }

    #[test]
    fn challenge_lines_name_known_ids_with_a_reason() {
        let ids = ["F1".to_string(), "F2".to_string()];
        let output = "Fixed F1.\nCHALLENGE F2: rows are sensitivity-only\n- challenge F9: x\nChallenge F1 — documented: approximation\nCHALLENGE F2: again\nCHALLENGE F1";
        assert_eq!(
            parse_challenges(output, &ids),
            [
                ("F2".to_string(), "rows are sensitivity-only".to_string()),
                ("F1".to_string(), "documented: approximation".to_string())
            ]
        );
    }
}
