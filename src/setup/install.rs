//! `car install` / `car uninstall`.

use crate::app::Outcome;
use crate::cli::InstallArgs;
use crate::error::Error;
use crate::project::Project;

pub fn install(_project: &Project, _args: &InstallArgs) -> Result<Outcome, Error> {
    Err(Error::Usage("`car install` is not built yet".into()))
}

pub fn uninstall(_project: &Project) -> Result<Outcome, Error> {
    Err(Error::Usage("`car uninstall` is not built yet".into()))
}
