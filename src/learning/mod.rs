//! Learning: every signal that becomes a candidate and then a lesson, through one model.
//!
//! - **Evidence**: each signal is an example of a mistake and its fix — the line as written and
//!   as fixed, its file, session and source: a checker's error the agent fixed
//!   ([`from_validator`]), a blocking review finding the agent fixed ([`fixed_findings`] →
//!   [`from_review`]), a person's correction of what the agent wrote ([`correction`] →
//!   [`from_correction`]), a change reviewers suggested on the team's pull requests
//!   ([`review_history`]), the agent's own proposal through `car mcp` ([`from_agent`]: an
//!   example, never a confirmation).
//! - **Trigger**: synthesised from the examples ([`synthesis`], [`pattern`], [`tokens`]): the most
//!   general pattern that covers every mistake, with the names one sighting holds generalised
//!   away, "A unless B" where the fix added to the call; a checker's error teaches its subject
//!   ([`precision`]).
//! - **Verification** ([`verification`]): the lesson as it will match fires on every bad example,
//!   no good one, and no correct code of the project; a committed copy of the mistake is a known
//!   instance, reported.
//! - **Promotion**: a second independent sighting ([`sighting`]); the verified lesson joins the
//!   lessons or waits for a person, as the setting `learning` says ([`admission`]).
//! - **Refusals**: every signal that taught nothing says why ([`refusal`]), recorded in one place
//!   ([`refusal::log`]).
//!
//! The hooks call the learning door in [`signals`] at each moment (after an edit, a shell
//! command, a stopped write, the stop, the session's end); nothing else starts learning.
//!
//! Invariants: rather miss than false-alarm, never refuse silently, never refuse real evidence;
//! nothing here fails a hook: every problem becomes a note.

pub(crate) mod admission;
pub(crate) mod correction;
pub(crate) mod fixed_findings;
pub(crate) mod from_agent;
pub(crate) mod from_correction;
pub(crate) mod from_review;
pub(crate) mod from_validator;
pub(crate) mod generated;
pub(crate) mod heed;
pub(crate) mod pattern;
pub(crate) mod precision;
pub(crate) mod reformat;
pub(crate) mod refusal;
pub(crate) mod replacement;
pub(crate) mod review_history;
pub(crate) mod sighting;
pub(crate) mod signals;
pub(crate) mod synthesis;
pub(crate) mod tokens;
pub(crate) mod verification;
