//! `car lessons …` commands.

use crate::app::Outcome;
use crate::cli::LessonsCommand;
use crate::error::Error;
use crate::project::Project;

pub fn run(_project: &Project, _command: LessonsCommand) -> Result<Outcome, Error> {
    Err(Error::Usage("`car lessons` is not built yet".into()))
}
