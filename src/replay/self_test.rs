//! The self-test on configuration edits: when the agent edits car's own configuration (lessons,
//! candidates, validators, replay scenarios), validate it and run the suite.

use crate::hook::{Edit, HookContext};
use crate::validate::Diagnostic;

/// Errors to block with when the edit broke car's configuration; empty otherwise.
pub fn check_config_edit(_context: &HookContext, _edit: &Edit) -> Vec<Diagnostic> {
    Vec::new()
}
