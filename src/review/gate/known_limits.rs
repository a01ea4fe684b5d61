//! Known limits the agent declares in its last message (the fix loop): a line
//! `- [KNOWN LIMIT] F2 — reason` (or the seed's `[BEKANNTE GRENZE]`) records the open P2 finding
//! F2 as a known limit, exactly like `car review defer F2 --reason …`.
//!
//! Invariants: a P1 can never be deferred — such a line is refused and the gate says so; a line
//! without a reason, or naming no open finding, defers nothing and is reported back; a finding
//! already deferred is not deferred twice (the same message may reach several stops).

use crate::review::finding_ref::{LookupError, NotOpen, open_finding};
use crate::review::findings::check_deferrable;
use crate::session::event::Event;
use crate::session::snapshot::Snapshot;
use crate::settings::BlockingThreshold;

/// The markers, lower-case.
const MARKERS: [&str; 3] = ["[known limit]", "[known-limit]", "[bekannte grenze]"];

/// Separators between the finding and the reason, best first.
const SEPARATORS: [&str; 6] = [" — ", " – ", " - ", "—", "–", ": "];

/// One declaration: the finding as written and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) finding: String,
    pub(crate) reason: String,
}

/// Every known-limit line of a message.
pub(crate) fn declared(message: &str) -> Vec<Declared> {
    message.lines().filter_map(declaration).collect()
}

fn declaration(line: &str) -> Option<Declared> {
    let line = line.trim().trim_start_matches(['-', '*', '•', '+']).trim();
    let lower = line.to_lowercase();
    let marker = MARKERS.iter().find(|marker| lower.starts_with(*marker))?;
    let rest = line[marker.len()..].trim().trim_start_matches(':').trim();
    let (finding, reason) = SEPARATORS
        .iter()
        .find_map(|separator| rest.split_once(separator))
        .unwrap_or((rest, ""));
    let finding = finding
        .trim()
        .trim_matches(['`', '*', ':'])
        .trim()
        .to_string();
    (!finding.is_empty()).then(|| Declared {
        finding,
        reason: reason.trim().to_string(),
    })
}

/// What the agent says it did, as one line: its message without headings and known-limit lines
/// (kept as the "fix tried" of a finding that then goes to a person).
pub(crate) fn what_it_did(message: &str) -> String {
    let words: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|line| declaration(line).is_none())
        .collect();
    crate::text::shorten(&words.join(" "), crate::session::rounds::SAID_LIMIT)
}

/// What the gate makes of a message's declarations.
#[derive(Debug, Default)]
pub(crate) struct Decided {
    /// `finding_deferred` events, one per accepted declaration.
    pub(crate) deferrals: Vec<Event>,
    /// Declarations that deferred nothing, with why (a P1 above all): the agent is told.
    pub(crate) refused: Vec<String>,
}

/// Resolves each declaration against the session's open findings.
pub(crate) fn decide(snapshot: &Snapshot, threshold: BlockingThreshold, message: &str) -> Decided {
    let mut decided = Decided::default();
    for declared in declared(message) {
        let item = match open_finding(snapshot, threshold, &declared.finding) {
            Ok(item) => item,
            Err(LookupError::NotOpen {
                why: NotOpen::Deferred,
                ..
            }) => continue,
            Err(error) => {
                decided.refused.push(format!(
                    "[KNOWN LIMIT] {} deferred nothing: {error}",
                    declared.finding
                ));
                continue;
            }
        };
        let finding = &item.finding;
        if let Err(refusal) = check_deferrable(finding) {
            decided.refused.push(format!(
                "[KNOWN LIMIT] {} refused: {refusal} (or, if you hold it to be a false positive: {} review challenge {} --reason \"…\")",
                declared.finding,
                super::program::name(),
                finding.id
            ));
            continue;
        }
        if declared.reason.is_empty() {
            decided.refused.push(format!(
                "[KNOWN LIMIT] {} deferred nothing: give the reason after a dash (- [KNOWN LIMIT] {} — why it is acceptable)",
                declared.finding, finding.id
            ));
            continue;
        }
        decided.deferrals.push(Event::FindingDeferred {
            review: item.review.clone(),
            finding: finding.id.clone(),
            file: finding.file.clone(),
            title: finding.title.clone(),
            reason: declared.reason,
        });
    }
    decided
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_in_both_languages_and_dash_styles() {
        let message = "## Round reflection\nI over-built the cache.\n\n\
            - [KNOWN LIMIT] F2 — sensitivity-only rows, labelled approximation\n\
            * [BEKANNTE GRENZE] `R1/F3` – nur Sensitivitätszeilen\n\
            - [known limit] F4: reason here\n\
            - [KNOWN LIMIT] F5\n\
            - not a [KNOWN LIMIT] F6 — mentioned in passing";
        let found = declared(message);
        let pairs: Vec<(&str, &str)> = found
            .iter()
            .map(|d| (d.finding.as_str(), d.reason.as_str()))
            .collect();
        assert_eq!(
            what_it_did(message),
            "I over-built the cache. - not a [KNOWN LIMIT] F6 — mentioned in passing"
        );
        assert_eq!(
            pairs,
            [
                ("F2", "sensitivity-only rows, labelled approximation"),
                ("R1/F3", "nur Sensitivitätszeilen"),
                ("F4", "reason here"),
                ("F5", "")
            ]
        );
    }
}
