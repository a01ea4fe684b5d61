//! `car config`: the settings wizard.

use crate::app::Outcome;
use crate::cli::ConfigArgs;
use crate::error::Error;
use crate::project::Project;

pub fn run(_project: &Project, _args: &ConfigArgs) -> Result<Outcome, Error> {
    Err(Error::Usage("`car config` is not built yet".into()))
}
