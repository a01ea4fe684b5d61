//! The review engine and its two front ends: the stop gate ([`gate`]: the session's unreviewed
//! changes, reviewed when the agent tries to stop) and the deep review ([`deep`]: a diff against
//! a base, reviewed by a second model in bounded rounds). Both run the same steps with the
//! engine's parts: a request, a reviewer's answer, findings, a verdict, convergence, escalation.
//!
//! The engine: every prompt is made of the same parts ([`prompt`]); one call of a reviewer
//! ([`answer`]) gives an answer that becomes validated [`findings`] (a vague P1/P2 is downgraded by the quality rules in [`vagueness`]);
//! the session's recorded reviews say which findings still block ([`blocking`]); a finding is
//! named by the agent and the person as `R<n>/ID` ([`finding_ref`]); and the [`convergence`]
//! guards hand a finding or a whole loop to a person instead of another round. The reviewer
//! backends stay a bottom service (`reviewer.rs`): learning and distillation ask a model too.
//!
//! The front ends hold only what is their own: the gate its stages, the classifier of the agent's
//! last message, known limits, the P3 offers and one stop at a time; the deep review its diff,
//! context files, round state and loop. Neither imports the other.
//!
//! Invariants: the verdict is derived from the findings alone, never from a verdict field a model
//! wrote; the session record (`session/`) only records reviews, and every rule about them lives
//! here, so the session depends on nothing in this folder.

pub(crate) mod answer;
pub(crate) mod blocking;
pub(crate) mod convergence;
pub(crate) mod deep;
pub(crate) mod finding_ref;
pub(crate) mod findings;
pub(crate) mod gate;
pub(crate) mod prompt;
pub(crate) mod vagueness;
