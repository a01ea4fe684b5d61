//! `car status`: one screen about car in this project.

use crate::app::Outcome;
use crate::error::Error;
use crate::project::Project;

pub fn run(_project: &Project) -> Result<Outcome, Error> {
    Err(Error::Usage("`car status` is not built yet".into()))
}
