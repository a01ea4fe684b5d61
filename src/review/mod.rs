//! The review engine: what turns a session's change into a verdict, for both review loops (the
//! stop gate and the deep review). A reviewer's answer becomes validated [`findings`] (a vague
//! P1/P2 is downgraded by the quality rules in [`vagueness`]); the session's recorded reviews say
//! which findings still block ([`blocking`]); a finding is named by the agent and the person as
//! `R<n>/ID` ([`finding_ref`]); and the [`convergence`] guards hand a finding or a whole loop to a
//! person instead of another round. Every prompt is made of the same parts ([`prompt`]).
//!
//! Invariants: the verdict is derived from the findings alone, never from a verdict field a model
//! wrote; the session record (`session/`) only records reviews, and every rule about them lives
//! here, so the session depends on nothing in this folder.

pub(crate) mod blocking;
pub(crate) mod convergence;
pub(crate) mod finding_ref;
pub(crate) mod findings;
pub(crate) mod prompt;
pub(crate) mod vagueness;
