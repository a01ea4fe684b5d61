//! `car check [--json] [--no-learn] PATH...`.

use std::path::Path;

use crate::app::Outcome;
use crate::cli::CheckArgs;
use crate::error::Error;

pub fn run(_working_dir: &Path, _args: &CheckArgs) -> Result<Outcome, Error> {
    Err(Error::Usage("`car check` is not built yet".into()))
}
