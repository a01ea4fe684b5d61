//! The deep review: a cross-model, domain-aware review for high-stakes changes. The
//! current diff, a domain context file and the project rubric go to a second model; its findings
//! are judged by the gate's rules; a bounded fix-and-recheck loop runs until the findings
//! converge, and hands the call to a human when they do not.
//!
//! One concept per file: `diff` (the change against a base), `context` (finding the context
//! file), `init` (a new context file and its `CLAUDE.md` line), `purge` (undoing init for `car
//! uninstall --purge`), `prompt`, `state` (round state
//! per context), `guards` (the six convergence guards), `verdict` (the answer), `stop` (why a
//! run did not review), `round` (one round end to end) and `fix_loop` (the standalone fix loop
//! around a fixer command).
//!
//! Invariants: never a silent "no review" — every way a round can fail is a [`StopCause`] and a
//! STOPPED verdict naming it; the verdict comes from the findings (the model's own verdict field
//! is ignored, `review::findings`); P3 findings never block and never reach a fixer.

pub(crate) mod context;
pub(crate) mod diff;
pub(crate) mod fix_loop;
pub(crate) mod guards;
pub(crate) mod init;
pub(crate) mod prompt;
pub(crate) mod purge;
pub(crate) mod round;
pub(crate) mod state;
pub(crate) mod stop;
pub(crate) mod verdict;

pub(crate) use stop::StopCause;
