//! Which project this process simulates: chosen once at the start (`--project`, or the
//! reviewer's argument), read everywhere else.

use std::sync::OnceLock;

use crate::catalogue::{Catalogue, Mistake};

static ACTIVE: OnceLock<&'static Catalogue> = OnceLock::new();

/// Chooses the catalogue this process runs (once, at its start); `None` for an unknown name.
pub fn choose(name: &str) -> Option<&'static Catalogue> {
    let catalogue: &'static Catalogue = match name {
        "ledger" => &crate::ledger::LEDGER,
        "harbor" => &crate::harbor::HARBOR,
        "quarry" => &crate::quarry::QUARRY,
        "beacon" => &crate::beacon::BEACON,
        _ => return None,
    };
    Some(*ACTIVE.get_or_init(|| catalogue))
}

/// The catalogue this process runs (the ledger project unless another was chosen).
pub fn active() -> &'static Catalogue {
    ACTIVE.get().copied().unwrap_or(&crate::ledger::LEDGER)
}

/// The active catalogue's mistakes.
pub fn mistakes() -> &'static [Mistake] {
    active().mistakes
}
