//! How blocking findings fare across the review rounds of a session (the review loop's convergence
//! state): the rounds that reported each one, the fix attempts it survived, the agent's
//! challenges, and the findings handed to a human. Folded from the events with the rest of the
//! [`Snapshot`](crate::session::snapshot::Snapshot).
//!
//! Invariants: "the same finding" is [`Finding::key`] (file + normalised title); a fix attempt
//! counts when a round reports a finding again after its file changed (a file the session never
//! changed counts every round: a round only runs on new versions); a challenge is answered by the
//! review whose prompt carried it; an escalated finding never blocks again in the session.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::session::event::{EscalationKind, Event, Version};
use crate::session::finding::{Finding, Severity};

/// The longest excerpt of the agent's message kept as "what it tried".
pub(crate) const SAID_LIMIT: usize = 240;

/// One finding key's rounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct History {
    /// Reviews that reported it as P1/P2, in order.
    pub(crate) reports: Vec<String>,
    /// Its file's version at the latest report (`None`: not a file the session changed).
    pub(crate) version: Option<Version>,
    /// The fix attempts that did not hold, oldest first.
    pub(crate) failed_fixes: Vec<FixAttempt>,
}

/// A round that reported a finding again after the agent changed its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FixAttempt {
    /// The review that reported it again.
    pub(crate) review: String,
    /// What the agent said before that round (the start of its last message; may be empty).
    pub(crate) said: String,
}

/// A finding the agent holds to be a false positive, as the session's events record it (the
/// convergence guards read it as a `review::convergence::Challenge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChallengeRecord {
    /// The review that reported it.
    pub(crate) review: String,
    pub(crate) finding: Finding,
    pub(crate) reason: String,
    /// The review whose prompt carried the challenge.
    pub(crate) sent_in: Option<String>,
    /// Whether that review reported the finding again (as P1/P2); `None` until it came back.
    pub(crate) upheld: Option<bool>,
}

/// A finding handed to a human.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Escalation {
    pub(crate) review: String,
    pub(crate) finding: Finding,
    pub(crate) kind: EscalationKind,
    pub(crate) attempts: u32,
    pub(crate) tried: Vec<String>,
    pub(crate) challenge: String,
}

impl Escalation {
    /// The escalation a `finding_escalated` event records.
    pub(crate) fn of(event: &Event) -> Option<Escalation> {
        let Event::FindingEscalated {
            review,
            finding,
            kind,
            attempts,
            tried,
            challenge,
        } = event
        else {
            return None;
        };
        Some(Escalation {
            review: review.clone(),
            finding: finding.clone(),
            kind: *kind,
            attempts: *attempts,
            tried: tried.clone(),
            challenge: challenge.clone(),
        })
    }

    /// Why it went to a human, in one line.
    pub(crate) fn why(&self) -> String {
        match self.kind {
            EscalationKind::Stuck => format!(
                "still reported after {} (maxFixAttempts)",
                crate::text::plural(self.attempts as usize, "fix attempt")
            ),
            EscalationKind::ChallengeUpheld => format!(
                "the agent challenged it as a false positive (\"{}\") and review {} reported it again",
                self.challenge, self.review
            ),
            EscalationKind::ChallengedP1 => format!(
                "the agent challenged it (\"{}\") and the reviewer left it out; a P1 is never dropped without a person",
                self.challenge
            ),
        }
    }
}

/// The convergence state of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Rounds {
    /// Finding key → its rounds.
    pub(crate) history: BTreeMap<String, History>,
    pub(crate) challenges: Vec<ChallengeRecord>,
    pub(crate) escalations: Vec<Escalation>,
    /// The start of the agent's latest message the gate saw.
    pub(crate) last_message: String,
}

impl Rounds {
    /// Remembers what the agent said it did (see [`crate::review::gate::known_limits::what_it_did`]).
    pub(crate) fn agent_said(&mut self, message: &str) {
        self.last_message = crate::text::shorten(message.trim(), SAID_LIMIT);
    }

    /// A review was asked for: every challenge no review answered yet goes with its prompt (a
    /// newer request supersedes an older one, which never comes back).
    pub(crate) fn requested(&mut self, review: &str) {
        for challenge in &mut self.challenges {
            if challenge.upheld.is_none() {
                challenge.sent_in = Some(review.to_string());
            }
        }
    }

    /// A request was cancelled or its review failed: its challenges wait for the next one.
    pub(crate) fn cancelled(&mut self, review: &str) {
        for challenge in &mut self.challenges {
            if challenge.sent_in.as_deref() == Some(review) && challenge.upheld.is_none() {
                challenge.sent_in = None;
            }
        }
    }

    /// A review came back; `version_of` gives a file's current version in the session
    /// (`None`: not a file the session changed).
    pub(crate) fn completed(
        &mut self,
        review: &str,
        findings: &[Finding],
        version_of: impl Fn(&str) -> Option<Version>,
    ) {
        for finding in findings.iter().filter(|f| f.severity != Severity::P3) {
            let version = version_of(&finding.file);
            let history = self.history.entry(finding.key()).or_default();
            if history.reports.last().is_some_and(|last| last != review) {
                let changed = match (&history.version, &version) {
                    (Some(before), Some(now)) => before != now,
                    _ => true,
                };
                if changed {
                    history.failed_fixes.push(FixAttempt {
                        review: review.to_string(),
                        said: self.last_message.clone(),
                    });
                }
            }
            if history.reports.last().is_none_or(|last| last != review) {
                history.reports.push(review.to_string());
            }
            history.version = version;
        }
        for challenge in &mut self.challenges {
            if challenge.sent_in.as_deref() == Some(review) && challenge.upheld.is_none() {
                let key = challenge.finding.key();
                challenge.upheld = Some(
                    findings
                        .iter()
                        .any(|found| found.severity != Severity::P3 && found.key() == key),
                );
            }
        }
    }

    pub(crate) fn challenged(&mut self, review: &str, finding: Finding, reason: &str) {
        self.challenges.push(ChallengeRecord {
            review: review.to_string(),
            finding,
            reason: reason.to_string(),
            sent_in: None,
            upheld: None,
        });
    }

    pub(crate) fn escalated(&mut self, escalation: Escalation) {
        self.escalations.push(escalation);
    }

    pub(crate) fn is_escalated(&self, key: &str) -> bool {
        self.escalations
            .iter()
            .any(|escalation| escalation.finding.key() == key)
    }

    /// The open challenge of a finding key, if any (one that is not escalated).
    pub(crate) fn challenge_of(&self, key: &str) -> Option<&ChallengeRecord> {
        self.challenges
            .iter()
            .rev()
            .find(|challenge| challenge.finding.key() == key)
            .filter(|_| !self.is_escalated(key))
    }

    /// Challenges no review prompt carried yet.
    pub(crate) fn unsent_challenges(&self) -> impl Iterator<Item = &ChallengeRecord> {
        self.challenges
            .iter()
            .filter(|challenge| challenge.sent_in.is_none())
            .filter(|challenge| !self.is_escalated(&challenge.finding.key()))
    }

    /// The fix attempts a finding key survived.
    pub(crate) fn failed_fixes(&self, key: &str) -> &[FixAttempt] {
        self.history
            .get(key)
            .map_or(&[], |history| history.failed_fixes.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: &str, title: &str, severity: Severity) -> Finding {
        Finding {
            id: "F1".into(),
            severity,
            file: file.into(),
            line: 1,
            title: title.into(),
            wrong_output: "f(1) returns 2 instead of 1".into(),
            suggestion: String::new(),
            downgraded: false,
        }
    }

    fn version(hash: &str) -> Option<Version> {
        Some(Some(hash.to_string()))
    }

    #[test]
    fn a_fix_attempt_counts_only_when_the_file_changed() {
        let mut rounds = Rounds::default();
        let bug = finding("a.py", "Off by one", Severity::P1);
        rounds.completed("R1", std::slice::from_ref(&bug), |_| version("h1"));
        rounds.agent_said("I changed the loop bound.");
        rounds.completed("R2", std::slice::from_ref(&bug), |_| version("h2"));
        rounds.agent_said("Only touched b.py.");
        rounds.completed("R3", std::slice::from_ref(&bug), |_| version("h2"));
        let reworded = finding("a.py", "off-by-one!", Severity::P2);
        rounds.completed("R4", &[reworded], |_| version("h3"));
        let fixes = rounds.failed_fixes(&bug.key());
        assert_eq!(
            fixes
                .iter()
                .map(|fix| fix.review.as_str())
                .collect::<Vec<_>>(),
            ["R2", "R4"]
        );
        assert_eq!(fixes[0].said, "I changed the loop bound.");
        let minor = finding("a.py", "Name", Severity::P3);
        rounds.completed("R5", std::slice::from_ref(&minor), |_| version("h4"));
        assert!(
            !rounds.history.contains_key(&minor.key()),
            "P3 are not tracked"
        );
    }

    #[test]
    fn a_challenge_is_answered_by_the_review_that_carried_it() {
        let mut rounds = Rounds::default();
        let bug = finding("a.py", "Crash", Severity::P2);
        rounds.completed("R1", std::slice::from_ref(&bug), |_| None);
        rounds.challenged("R1", bug.clone(), "the input is validated upstream");
        assert_eq!(rounds.unsent_challenges().count(), 1);
        rounds.requested("R2");
        rounds.cancelled("R2");
        assert_eq!(rounds.unsent_challenges().count(), 1, "a cancelled request");
        rounds.requested("R3");
        rounds.requested("R4");
        rounds.completed("R3", &[], |_| None);
        assert_eq!(rounds.challenges[0].upheld, None, "R4 superseded R3");
        rounds.completed("R4", &[], |_| None);
        assert_eq!(rounds.challenges[0].upheld, Some(false));
        rounds.challenged("R1", bug.clone(), "again");
        rounds.requested("R5");
        rounds.completed("R5", std::slice::from_ref(&bug), |_| None);
        assert_eq!(rounds.challenges[1].upheld, Some(true));
        assert!(rounds.challenge_of(&bug.key()).is_some());
    }
}
