//! `car review …` commands.

use crate::app::Outcome;
use crate::cli::ReviewCommand;
use crate::error::Error;
use crate::project::Project;

pub fn run(_project: &Project, _command: ReviewCommand) -> Result<Outcome, Error> {
    Err(Error::Usage("`car review` is not built yet".into()))
}
